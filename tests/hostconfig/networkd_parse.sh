#!/bin/sh
# networkd_parse.sh DIR: has systemd-networkd's own parser anything to say
# about the .netdev/.network files in DIR?
#
# No Debian tool parses networkd files offline (systemd-analyze verify reads
# units only; networkctl asks the running daemon), so this runs the real
# daemon, /lib/systemd/systemd-networkd, in private mount and network
# namespaces with DIR as its /etc/systemd/network, and collects what it logs
# while loading: every complaint about a file starts with the file's path
# ("...: Unknown key 'X' in section [Bond], ignoring.", "Failed to parse ...").
# It then stops the daemon; whatever it creates lives in the private network
# namespace and goes with it.
#
# Prints the complaints. Exit 0: none; 1: some; 77: cannot run here (not
# root, no unshare, no networkd), with the reason on stdout.
set -u
dir=$1
networkd=/lib/systemd/systemd-networkd
[ -x "$networkd" ] || { echo "no $networkd (Debian package systemd)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for private namespaces"; exit 77; }
command -v unshare >/dev/null || { echo "no unshare (util-linux)"; exit 77; }
log=$(mktemp)
unshare -m -n sh -c '
  mount -t tmpfs tmpfs /etc/systemd/network &&
  cp "$1"/* /etc/systemd/network/ &&
  mount -t tmpfs tmpfs /run/systemd &&
  exec env SYSTEMD_LOG_LEVEL=info SYSTEMD_LOG_TARGET=console "$2"' sh "$dir" "$networkd" >"$log" 2>&1 &
pid=$!
# Files are parsed before the daemon enumerates links; give it 20 s at most.
i=0
while [ $i -lt 200 ] && kill -0 $pid 2>/dev/null && ! grep -q "Enumeration completed" "$log"; do
  sleep 0.1
  i=$((i + 1))
done
if ! grep -q "Enumeration completed" "$log"; then
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  echo "systemd-networkd did not start in private namespaces:"; cat "$log"; rm -f "$log"
  exit 77
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null
complaints=$(grep '^/etc/systemd/network/' "$log")
rm -f "$log"
[ -z "$complaints" ] && exit 0
echo "$complaints"
exit 1
