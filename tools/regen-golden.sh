#!/usr/bin/env bash
# Regenerates the golden files of tests/golden/ from the specs in examples/.
#
#   tools/regen-golden.sh [PATH/TO/hpnctl]     (default: build/cli/hpnctl)
#
# The golden files pin what hpnctl plans; the cli/golden test compares a
# fresh plan with them byte for byte. After running this, read the diff
# (git diff tests/golden) as you would read a code change: every changed
# cable, label or count should follow from the change you made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hpnctl="${1:-$root/build/cli/hpnctl}"
if [[ ! -x "$hpnctl" ]]; then
  echo "regen-golden: no hpnctl binary at $hpnctl; build it or pass its path" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# golden directory  spec  files to keep
regen() {
  local name="$1" spec="$2"
  shift 2
  "$hpnctl" plan "$root/$spec" -o "$work/$name" --quiet
  mkdir -p "$root/tests/golden/$name"
  for file in "$@"; do
    cp "$work/$name/$file" "$root/tests/golden/$name/$file"
  done
  echo "regen-golden: tests/golden/$name/ from $spec: $*"
}

regen lab-pod examples/lab-pod.yaml cabling.csv summary.json

if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$root" --no-pager diff --stat -- tests/golden
fi
