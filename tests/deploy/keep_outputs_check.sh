#!/bin/sh
# verify.yml's writer of the agents' outputs on the controller
# (roles/hpnctl_verify/files/keep_outputs.py): each output is its file with
# one final newline; a name that would leave the directory, and a file (or
# a link) already there, are refused.
#   keep_outputs_check.sh SOURCE_DIR
set -u
keep="$1/deploy/ansible/roles/hpnctl_verify/files/keep_outputs.py"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf '%s\n' '{"h1": "a\nb", "h2": ""}' | python3 "$keep" "$work/out" r1- .jsonl || fail "good outputs refused"
[ "$(cat "$work/out/r1-h1.jsonl")" = "$(printf 'a\nb')" ] && [ "$(tail -c1 "$work/out/r1-h1.jsonl" | od -An -c | tr -d ' ')" = '\n' ] ||
  fail "r1-h1.jsonl is not the text and one newline"
[ -f "$work/out/r1-h2.jsonl" ] && [ ! -s "$work/out/r1-h2.jsonl" ] || fail "an empty output is not an empty file"
echo '{"../h3": "x"}' | python3 "$keep" "$work/out" "" .jsonl 2>/dev/null && fail "a name with .. was written"
echo '{"h3": "x"}' | python3 "$keep" "$work/out" "../" .jsonl 2>/dev/null && fail "a prefix leaving DIR was written"
[ -e "$work/h3.jsonl" ] || [ -e "$work/out/h3.jsonl" ] && fail "a refused name left a file"
ln -s "$work/target" "$work/out/r2-h1.jsonl"
echo '{"h1": "x"}' | python3 "$keep" "$work/out" r2- .jsonl 2>/dev/null && fail "wrote through a link"
[ -e "$work/target" ] && fail "the link's target was made"
echo ok
