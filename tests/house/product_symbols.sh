#!/bin/sh
# The product binary carries none of the test-support forwarding model or
# fault mixes (fabricmodel/): no symbol of namespace hpn::fabricmodel, nor
# of the model's entry points by name, should one move back into a product
# library under another namespace.
#   usage: product_symbols.sh HPNCTL_BINARY
set -eu
binary=$1
symbols=$(nm -C "$binary") || { echo "nm failed on $binary"; exit 1; }
[ -n "$symbols" ] || { echo "$binary has no symbols to check"; exit 1; }
found=$(printf '%s\n' "$symbols" |
  grep -E 'hpn::fabricmodel::|FabricModel|inject_faults|score_report|simulate_verify|compute_routes|DiagnosisScore|InjectedFault' || true)
if [ -n "$found" ]; then
  echo "$binary links the forwarding model or the fault mixes (fabricmodel/ is test support):"
  printf '%s\n' "$found" | head -20
  exit 1
fi
# The check sees symbols at all: the binary's own main and a product library's.
printf '%s\n' "$symbols" | grep -q ' main$' || { echo "no main in $binary: not the binary meant"; exit 1; }
printf '%s\n' "$symbols" | grep -q 'hpn::validator::' || { echo "no hpn::validator symbol in $binary"; exit 1; }
