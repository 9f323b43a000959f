#!/usr/bin/env bash
# Bytes per observation record the reader holds (probe/observation.h), with
# /usr/bin/time -v: LINES generated records about the default pod
# (bench/observation_lines.py, three hops each) and 1,000 of them, each
# read by bench/observation_memory; the difference in peak RSS over the
# difference in records is the figure. Not a test: run by hand, figure in
# hpnctl-probe(1). Exit 1 when the figure is past BOUND.
#
#   bench/observation_memory.sh [BENCH] [LINES]
#
# BENCH defaults to build/bench/observation_memory; give one built from an
# older tree for the figure before a change. LINES defaults to 3,000,000.
# Environment: HPNCTL (default build/cli/hpnctl) plans the pod; BOUND
# (default 160) is the bytes per three-hop record documented.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:-build/bench/observation_memory}
lines=${2:-3000000}
hpnctl=${HPNCTL:-build/cli/hpnctl}
bound=${BOUND:-160}
few=1000
((lines > few)) || { echo "observation_memory.sh: LINES must be more than $few" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$hpnctl" plan -q -o "$work/plan"
python3 bench/observation_lines.py "$work/plan" "$lines" > "$work/many.jsonl"
head -n "$few" "$work/many.jsonl" > "$work/few.jsonl"
max_rss_kb() {
  /usr/bin/time -v "$bench" "$1" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
small=$(max_rss_kb "$work/few.jsonl")
large=$(max_rss_kb "$work/many.jsonl")
per=$(((large - small) * 1024 / (lines - few)))
echo "observation reader: $lines records of 3 hops, peak RSS $((large / 1024)) MB ($((small / 1024)) MB for $few):" \
     "$per bytes per record (bound $bound)"
((per <= bound))
