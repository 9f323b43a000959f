#!/usr/bin/env bash
# Benchmark of the probe agent on veth: probes per second, every probe
# answered. Two network namespaces joined by one veth pair, a listener in
# one, a sender in the other; the rate is probes over the sender's wall time.
# Needs root. Not a test: run by hand, figures in README.
#
#   bench/probe_rate.sh [HPNCTL] [PROBES] [RATE]
#
# RATE is the sender's --rate (datagrams per second); past about 30000 on a
# 2-core machine the listener's socket buffer overflows and replies are lost,
# which the "answered" count shows.
set -euo pipefail
hpnctl=${1:-build/cli/hpnctl}
probes=${2:-20000}
rate=${3:-30000}
[ "$(id -u)" -eq 0 ] || { echo "probe_rate: needs root (network namespaces)" >&2; exit 3; }
a=hpnbench-a-$$ b=hpnbench-b-$$
work=$(mktemp -d)
# The agents drop to nobody and write there; the key reaches them in the environment.
chown nobody "$work"
HPNCTL_PROBE_KEY=$("$hpnctl" probe key -o "$work/key" >/dev/null && cat "$work/key")
export HPNCTL_PROBE_KEY
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip link add p0 netns "$a" type veth peer name p0 netns "$b"
for ns in "$a" "$b"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.p0.accept_dad=0
done
ip -n "$a" addr add fd00:b::1/64 dev p0 nodad
ip -n "$b" addr add fd00:b::2/64 dev p0 nodad
ip -n "$a" link set p0 up
ip -n "$b" link set p0 up
sleep 1
ip netns exec "$b" "$hpnctl" probe listen --interfaces p0 --device-name b --duration 120 --run bench --source-rate 0 \
  >"$work/listen.out" 2>&1 &
listener=$!
for _ in $(seq 50); do grep -q listening "$work/listen.out" 2>/dev/null && break; sleep 0.1; done
start=$(date +%s.%N)
ip netns exec "$a" "$hpnctl" probe send --from p0 --to b=fd00:b::2 --probes "$probes" \
  --source-ports 20000-20255 --rate "$rate" --timeout 500 --retries 0 --device-name a --run bench -o "$work/obs.jsonl" \
  >"$work/send.out" 2>&1 || { cat "$work/send.out" >&2; exit 1; }
end=$(date +%s.%N)
kill "$listener" 2>/dev/null || true
wait "$listener" 2>/dev/null || true
answered=$(grep -c '"direction":"reverse"' "$work/obs.jsonl" || true)
awk -v n="$probes" -v a="$answered" -v s="$start" -v e="$end" \
  'BEGIN { t = e - s; printf "probe agent on veth: %d probes, %d answered, %.2f s, %.0f probes/s\n", n, a, t, n / t }'
