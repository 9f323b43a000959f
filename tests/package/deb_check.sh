#!/bin/sh
# The Debian package, built by `cpack -G DEB` from a build directory and
# checked from the outside: its name, its files (binary, man pages, both
# completions, schemas), a Depends that names the package of every library
# the binary needs (found here with readelf and dpkg -S, not by CPack), and
# the binary, unpacked with dpkg-deb -x into a scratch root, printing its
# version. Nothing is installed (no dpkg -i).
#   deb_check.sh BUILD_DIR VERSION
set -eu
build=$1
version=$2
for tool in cpack dpkg-deb dpkg-shlibdeps readelf file; do
  command -v "$tool" >/dev/null || { echo "skip: $tool is missing (tools/deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
arch=$(dpkg --print-architecture)
deb="$work/out/hpnctl_${version}_${arch}.deb"
[ -f "$deb" ] || { ls "$work/out"; fail "no $(basename "$deb")"; }

dpkg-deb -I "$deb" >"$work/info" || fail "dpkg-deb -I cannot read the package"
grep -q "^ Package: hpnctl$" "$work/info" || fail "Package is not hpnctl"
grep -q "^ Version: $version$" "$work/info" || fail "Version is not $version"
grep -q "^ Architecture: $arch$" "$work/info" || fail "Architecture is not $arch"

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/files"
for f in /usr/bin/hpnctl \
         /usr/share/man/man1/hpnctl.1 /usr/share/man/man1/hpnctl-export.1 /usr/share/man/man5/hpn-pod.yaml.5 \
         /usr/share/bash-completion/completions/hpnctl /usr/share/zsh/site-functions/_hpnctl \
         /usr/share/hpnctl/schemas/hpn-pod.schema.json /usr/share/hpnctl/schemas/blueprint.sql \
         /usr/share/hpnctl/schemas/host-profile.schema.json /usr/share/hpnctl/schemas/switch-agent.schema.json \
         /usr/lib/systemd/system/hpnctl-switch-agent.service /usr/lib/systemd/system/hpnctl-switch-apply.service \
         /usr/share/man/man1/hpnctl-switch.1; do
  grep -qx "$f" "$work/files" || fail "the package lacks $f"
done
# Every man page and schema of the source tree is in it.
src=$(dirname "$0")/../..
for page in "$src"/man/*.1; do grep -qx "/usr/share/man/man1/$(basename "$page")" "$work/files" || fail "no $page"; done
for schema in "$src"/schemas/*; do
  grep -qx "/usr/share/hpnctl/schemas/$(basename "$schema")" "$work/files" || fail "no $schema"
done

# Depends: one package for each library the binary links, with a version.
depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "no Depends"
echo "Depends: $depends"
# The package owning a library: dpkg knows it under the path it shipped,
# /lib or /usr/lib (merged /usr), by the soname link or the file itself.
owner() {
  real=$(readlink -f "$1")
  for p in "$1" "$real" "/usr${1#/usr}" "${1#/usr}" "/usr${real#/usr}" "${real#/usr}"; do
    pkg=$(dpkg -S "$p" 2>/dev/null | head -n1 | cut -d: -f1) && [ -n "$pkg" ] && { echo "$pkg"; return; }
  done
}
for soname in $(readelf -d "$build/cli/hpnctl" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  path=$(ldconfig -p | awk -v so="$soname" '$1 == so {print $NF; exit}')
  [ -n "$path" ] || fail "$soname: not found by ldconfig"
  pkg=$(owner "$path")
  [ -n "$pkg" ] || fail "$soname ($path): no package owns it"
  echo "$depends" | tr ',' '\n' | sed 's/^ *//' | grep -q "^$pkg\( \|$\)" ||
    fail "$soname ($pkg) is not in Depends: $depends"
done
echo "$depends" | grep -q "libc6 (>= " || fail "Depends has no versioned libc6: $depends"

# Every unit of the source tree is in it, byte for byte.
for unit in "$src"/deploy/systemd/*.service; do
  dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/lib/systemd/system/$(basename "$unit")" >"$work/unit" ||
    fail "cannot read $(basename "$unit") from the package"
  cmp -s "$work/unit" "$unit" || fail "the packaged $(basename "$unit") differs from the source's"
done

# Unpacked (not installed), the binary runs and says its version.
dpkg-deb -x "$deb" "$work/root"
out=$("$work/root/usr/bin/hpnctl" --version) || fail "the packaged hpnctl --version failed"
[ "$out" = "$version" ] || echo "$out" | grep -q "$version" || fail "hpnctl --version printed '$out', not $version"
file "$work/root/usr/bin/hpnctl" | grep -q "stripped" && ! file "$work/root/usr/bin/hpnctl" | grep -q "not stripped" ||
  fail "the packaged binary is not stripped"
echo "ok: $(basename "$deb"), $(wc -l <"$work/files") entries"
