#!/bin/sh
# CTest fixture run before the first lab test: a lab left up by an earlier
# test run that was killed (its plan is under a test's temporary directory)
# is taken down, in either of the two lab slots (tests/CMakeLists.txt): the
# lab tests of one run hold RESOURCE_LOCK hpnctl-lab-a or hpnctl-lab-b, and
# this holds both, so no test can be using them. An operator's own lab
# (/run/hpnctl/lab.json, or a slot's record with a plan of their own) is
# left alone; the lab tests then fail, saying it is up.
# $1: the hpnctl binary; then the slots' records (this build tree's own,
# tests/CMakeLists.txt: another tree's labs are never touched).
hpnctl=$1
shift
status=0
for record in "$@"; do
  [ -e "$record" ] || continue
  if grep -q '"blueprint": "[^"]*/hpnctl-test-[^"/]*/' "$record"; then
    echo "a lab from an earlier, interrupted test run is up ($record); taking it down"
    HPNCTL_LAB_STATE=$record "$hpnctl" lab down || status=1
  else
    echo "a lab that is not a test's is up ($record); the lab tests will fail until 'hpnctl lab down'"
  fi
done
exit $status
