#!/usr/bin/env bash
# Packs the aarch64 agent of a cross build with every library it loads and
# its own dynamic loader into one folder (and a .tar.gz), so it runs on a
# JetPack board whose glibc (2.31 on JetPack 5, 2.35 on JetPack 6) is older
# than the 2.36 the Debian 12 build needs, without a container.
#
#   infra/cross/bundle-agent.sh BUILD_DIR [OUT_DIR]
#
# OUT_DIR (default BUILD_DIR/powersweep-agent-aarch64) gets:
#   bin/powersweep-agent       a /bin/sh launcher: runs the agent through
#                              lib/ld-linux-aarch64.so.1 --library-path lib
#   libexec/powersweep-agent   the agent
#   lib/                       its libraries and the loader (from the arm64
#                              multiarch packages, or the build's sysroot)
# and OUT_DIR.tar.gz beside it. Unpack it anywhere on the board (e.g.
# /opt/powersweep-agent) and run bin/powersweep-agent with the usual flags.
#
# The loader is given the library folder on its command line, not through
# LD_LIBRARY_PATH, so the processes the agent starts (the workload, the
# docker client) load the board's own libraries as they would from a
# shell. Because the agent's /proc/self/exe is then the bundled loader, give
# --workload_bin explicitly (the default, "next to the agent", would look in
# lib/).
#
# Checked here: the launcher runs the agent (`probe --platform=twin`) under
# qemu-aarch64-static chrooted into the bundle alone (needs root).
# Environment: QEMU (default qemu-aarch64-static).
set -euo pipefail
QEMU="${QEMU:-qemu-aarch64-static}"
die() { echo "bundle-agent: $2" >&2; exit "$1"; }
build_dir=${1:-}
[ -n "$build_dir" ] || die 2 "usage: $0 BUILD_DIR [OUT_DIR]"
out=${2:-$build_dir/powersweep-agent-aarch64}
bin="$build_dir/agent/powersweep-agent"
[ -x "$bin" ] || die 2 "no $bin; build it with infra/cross/build-aarch64.sh $build_dir"
file -b "$bin" | grep -q "ARM aarch64" || die 2 "$bin is not an aarch64 executable"
command -v "$QEMU" >/dev/null || die 2 "$QEMU is missing (apt-get install qemu-user-static)"
# shellcheck source=aarch64-libs.sh
. "$(dirname "$0")/aarch64-libs.sh"
root=$(aarch64_root "$build_dir")
libs_txt=$(aarch64_libs "$bin" "$root") || die 1 "cannot list the libraries of $bin"
mapfile -t libs <<<"$libs_txt"

rm -rf "$out"
mkdir -p "$out/bin" "$out/libexec" "$out/lib"
cp "$bin" "$out/libexec/powersweep-agent"
for lib in "${libs[@]}"; do
  cp -L "$root$lib" "$out/lib/$(basename "$lib")"
done
cat >"$out/bin/powersweep-agent" <<'EOF'
#!/bin/sh
# powersweep-agent for aarch64 with its own libraries and loader
# (infra/cross/bundle-agent.sh): runs on glibc-older systems such as JetPack.
here=$(dirname "$(readlink -f "$0")")/..
exec "$here/lib/ld-linux-aarch64.so.1" --library-path "$here/lib" \
  "$here/libexec/powersweep-agent" "$@"
EOF
chmod 0755 "$out/bin/powersweep-agent"

# The check: a chroot holding only the bundle and qemu (no shell: the
# launcher's command is run as it would run it).
chk=$(mktemp -d /tmp/powersweep-bundle-check.XXXXXX)
trap 'rm -rf "$chk"' EXIT
mkdir -p "$chk/opt" "$chk/tmp"
cp -a "$out" "$chk/opt/agent"
cp "$(command -v "$QEMU")" "$chk/.qemu"
probe=$(env -i "$(command -v chroot)" "$chk" /.qemu /opt/agent/lib/ld-linux-aarch64.so.1 \
  --library-path /opt/agent/lib /opt/agent/libexec/powersweep-agent \
  probe --platform=twin --device-class=orin-agx 2>&1) ||
  die 1 "the bundled agent does not run from the bundle alone: $(tail -3 <<<"$probe")"
grep -q "(simulated)" <<<"$probe" || die 1 "the bundled agent printed no twin probe: $(head -3 <<<"$probe")"
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
glibc_bin=$(aarch64_glibc_needed "$bin")
glibc=$(aarch64_glibc_needed "$bin" "${libs[@]/#/$root}")
echo "bundle-agent: $out (${#libs[@]} libraries, $(du -sh "$out" | cut -f1); the agent needs $glibc_bin, its libraries $glibc: the bundle brings them) and $out.tar.gz ($(du -h "$out.tar.gz" | cut -f1)); checked: probe --platform=twin from the bundle alone under qemu"
