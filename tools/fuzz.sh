#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in build-fuzz
# and runs each, one after the other, for SECONDS (default 60) from its seed
# corpus and kept regressions.
#   tools/fuzz.sh [SECONDS] [TARGET...]     (default: every target)
# Exit status: 0 no finding, 1 a finding (crash, leak, timeout, out of
# memory, UB) in some target, 2 usage error. Each finding's input is left in
# build-fuzz/fuzz-out/TARGET/crashes/ with the run's log beside it; the
# inputs the run discovered are in build-fuzz/fuzz-out/TARGET/corpus/ (never
# written into the repository's seeds).
# Environment: HPN_FUZZ_BUILD_DIR (default build-fuzz), HPN_FUZZ_RSS_MB
# (default 2048), HPN_FUZZ_TIMEOUT (seconds per input, default 10),
# HPN_CMAKE_ARGS (more cmake arguments, e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "tools/fuzz.sh: SECONDS must be a positive integer, not '$seconds'" >&2; exit 2; }
shift || true
build_dir=${HPN_FUZZ_BUILD_DIR:-build-fuzz}
rss_mb=${HPN_FUZZ_RSS_MB:-2048}
timeout=${HPN_FUZZ_TIMEOUT:-10}

tools/deps.sh clang libclang-rt-14-dev

# The compiler only on first configure: naming it again, even as the same
# clang, makes cmake drop the cache and rebuild everything.
compiler=()
[ -f "$build_dir/CMakeCache.txt" ] || compiler=(-DCMAKE_CXX_COMPILER=clang++)
# shellcheck disable=SC2086 # HPN_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${compiler[@]}" -DHPN_FUZZ=ON ${HPN_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" --target fuzzers

mapfile -t all < "$build_dir/tests/fuzz/fuzzers.txt"
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "tools/fuzz.sh: no fuzz target '$t' (have: ${all[*]})" >&2; exit 2; }
done

out="$build_dir/fuzz-out"
failed=()
for t in "${targets[@]}"; do
  dir="$out/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/crashes"
  inputs=("$dir/corpus" "tests/fuzz/corpus/$t")
  [ -d "tests/fuzz/regressions/$t" ] && inputs+=("tests/fuzz/regressions/$t")
  echo "== $t: ${seconds}s" >&2
  rc=0
  # detect_leaks: libFuzzer reports a leak as a finding.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build_dir/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb="$rss_mb" -timeout="$timeout" \
    -artifact_prefix="$dir/crashes/" -print_final_stats=1 "${inputs[@]}" > "$dir/log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 || true)
  if ((rc != 0)) || [ -n "$(ls -A "$dir/crashes")" ]; then
    failed+=("$t")
    echo "== $t: FINDING (exit $rc), see $dir/log and $dir/crashes/" >&2
    grep -m3 -E 'ERROR: |runtime error|property violated' "$dir/log" >&2 || true
  else
    echo "== $t: ok, ${execs:-?} inputs, ${cov:-cov ?}" >&2
  fi
done

if ((${#failed[@]})); then
  echo "tools/fuzz.sh: findings in ${failed[*]}" >&2
  exit 1
fi
echo "tools/fuzz.sh: no finding in ${#targets[@]} targets x ${seconds}s" >&2
