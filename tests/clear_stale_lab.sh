#!/bin/sh
# CTest fixture run before the first lab test: a lab left up by an earlier
# test run that was killed (its plan is under a test's temporary directory)
# is taken down, since the lab tests of one run hold RESOURCE_LOCK
# hpnctl-lab and no other can be using it. An operator's own lab is left
# alone; the lab tests then fail, saying it is up.
# $1: the hpnctl binary.
record=/run/hpnctl/lab.json
[ -e "$record" ] || exit 0
if grep -q '"blueprint": "[^"]*/hpnctl-test-[^"/]*/' "$record"; then
  echo "a lab from an earlier, interrupted test run is up; taking it down"
  exec "$1" lab down
fi
echo "a lab that is not a test's is up ($record); the lab tests will fail until 'hpnctl lab down'"
