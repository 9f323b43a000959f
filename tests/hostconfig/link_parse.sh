#!/bin/sh
# link_parse.sh DIR IFNAME=MAC...: what udev's own .link machinery makes of
# the systemd.link(5) files in DIR, for interfaces of those names and MACs.
#
# udev applies .link files when a device appears; no Debian tool checks them
# offline (udevadm verify came after systemd 252). So this makes the
# interfaces (veth pairs, with the MACs given) in private mount and network
# namespaces, mounts DIR as /etc/systemd/network and that namespace's sysfs,
# and runs `udevadm test-builtin net_setup_link` on each: the real parser
# and matcher, which logs every complaint about a file with the file's path
# and prints the name the device would get (ID_NET_NAME).
#
# Prints the complaints, then "IFNAME -> NAME (FILE)" per interface. Exit 0:
# no complaint; 1: some; 77: cannot run here (reason on stdout).
set -u
dir=$1
shift
command -v udevadm >/dev/null || { echo "no udevadm (Debian package udev)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for private namespaces"; exit 77; }
command -v unshare >/dev/null || { echo "no unshare (util-linux)"; exit 77; }
log=$(mktemp)
unshare -m -n sh -c '
  dir=$1; shift
  mount -t sysfs sysfs /sys || exit 77
  mount -t tmpfs tmpfs /etc/systemd/network && cp "$dir"/* /etc/systemd/network/ && mount -t tmpfs tmpfs /run || exit 77
  i=0
  for spec in "$@"; do
    name=${spec%%=*} mac=${spec#*=}
    ip link add "$name" address "$mac" type veth peer name "hpnpeer$i" || exit 77
    i=$((i + 1))
  done
  for spec in "$@"; do
    name=${spec%%=*}
    out=$(SYSTEMD_LOG_LEVEL=info udevadm test-builtin net_setup_link "/sys/class/net/$name" 2>&1)
    printf "%s\n" "$out" | grep "^/etc/systemd/network/"
    got=$(printf "%s\n" "$out" | sed -n "s/^ID_NET_NAME=//p")
    file=$(printf "%s\n" "$out" | sed -n "s/^ID_NET_LINK_FILE=//p")
    echo "$name -> ${got:-?} (${file:-no file})"
  done' sh "$dir" "$@" >"$log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then echo "cannot make interfaces in private namespaces:"; cat "$log"; rm -f "$log"; exit 77; fi
cat "$log"
complaints=$(grep '^/etc/systemd/network/' "$log")
rm -f "$log"
[ -z "$complaints" ] || exit 1
exit 0
