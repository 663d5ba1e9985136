#!/usr/bin/env bash
# Builds the aarch64 agent image offline from a cross build, for JetPack
# boards whose own glibc (2.31 on JetPack 5, 2.35 on JetPack 6) is older
# than the 2.36 a Debian 12 build needs. docs/deployment.md says how to run
# it on a board.
#
#   infra/cross/build-agent-image.sh BUILD_DIR [--save FILE.tar.gz]
#       [--print-tag] [--force]
#
# BUILD_DIR is a cross build (infra/cross/build-aarch64.sh) holding
# agent/powersweep-agent. The image is FROM scratch, linux/arm64: the agent
# at /usr/local/bin/powersweep-agent (the entry point) and every shared
# library it loads, each at the path the aarch64 dynamic loader reports (the
# loader included), copied from the arm64 libraries it was linked against:
# the multiarch ones under / or, for a --workload build, its sysroot
# (POWERSWEEP_SYSROOT in BUILD_DIR's CMakeCache). The libraries are listed by
# running the aarch64 loader under qemu-aarch64-static (`ld.so --list`), so
# no aarch64 machine and no binfmt registration is needed. Nothing is
# pulled: the classic builder with --network none.
#
# Tag: powersweep-agent:<fingerprint>-arm64 and powersweep-agent:arm64, where
# <fingerprint> is the agent's GNU build-id ("build-id-<hex>", else
# "sha256-<hex>"), the rule of common/fingerprint.cc. An existing tag is not
# rebuilt unless --force. --save writes `docker save | gzip` of the image,
# to copy to a board and `docker load` there.
#
# The image is checked here before the script says it is built: its
# architecture is arm64, and the agent exported from it runs under qemu
# chrooted into ONLY the image's files (`probe --platform=twin`; needs root
# for chroot).
#
# Environment: DOCKER (default /usr/bin/docker), QEMU (default
# qemu-aarch64-static), IMAGE_REPO (default powersweep-agent).
# The last line of stdout is "image: <repo>:<tag>".
# Exit codes: 0 ok; 1 build or check failed; 2 bad arguments or missing tools.
set -euo pipefail

DOCKER="${DOCKER:-/usr/bin/docker}"
QEMU="${QEMU:-qemu-aarch64-static}"
REPO="${IMAGE_REPO:-powersweep-agent}"
IN_IMAGE_BIN=/usr/local/bin/powersweep-agent

die() { echo "build-agent-image: $2" >&2; exit "$1"; }

build_dir=""
save=""
print_tag=0
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --save) [ $# -ge 2 ] || die 2 "--save needs a file"; save="$2"; shift ;;
    --print-tag) print_tag=1 ;;
    --force) force=1 ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die 2 "unknown option $1 (see --help)" ;;
    *) [ -z "$build_dir" ] || die 2 "more than one BUILD_DIR given"; build_dir="$1" ;;
  esac
  shift
done
[ -n "$build_dir" ] || die 2 "usage: $0 BUILD_DIR [--save FILE.tar.gz] [--print-tag] [--force]"
bin="$build_dir/agent/powersweep-agent"
[ -x "$bin" ] || die 2 "no $bin; build it with infra/cross/build-aarch64.sh $build_dir"
bin=$(readlink -f "$bin")
file -b "$bin" | grep -q "ARM aarch64" || die 2 "$bin is not an aarch64 executable: $(file -b "$bin")"

# shellcheck source=aarch64-libs.sh
. "$(dirname "$0")/aarch64-libs.sh"
# Where the arm64 libraries are: the build's sysroot, else the multiarch /.
root=$(aarch64_root "$build_dir")
loader=$AARCH64_LOADER
command -v "$QEMU" >/dev/null || die 2 "$QEMU is missing (apt-get install qemu-user-static)"

id=$(LC_ALL=C readelf -n "$bin" 2>/dev/null | awk '/Build ID:/ {print $3; exit}')
if [ -n "$id" ]; then fp="build-id-$id"; else fp="sha256-$(sha256sum "$bin" | awk '{print $1}')"; fi
image="$REPO:$fp-arm64"
if [ "$print_tag" -eq 1 ]; then echo "image: $image"; exit 0; fi

[ -x "$DOCKER" ] || die 2 "docker client $DOCKER not found (install docker.io, or set DOCKER)"
"$DOCKER" info >/dev/null 2>&1 || die 1 "docker engine not reachable with $DOCKER (start it with infra/scripts/start-dockerd.sh)"

ctx=$(mktemp -d /tmp/powersweep-agent-image.XXXXXX)
trap 'rm -rf "$ctx"' EXIT

save_image() {
  [ -n "$save" ] || return 0
  "$DOCKER" save "$image" | gzip >"$save"
  echo "build-agent-image: saved $image to $save ($(du -h "$save" | cut -f1))"
}

if [ "$force" -eq 0 ] && "$DOCKER" image inspect "$image" >/dev/null 2>&1; then
  "$DOCKER" tag "$image" "$REPO:arm64"
  echo "build-agent-image: $image exists; not rebuilt (--force rebuilds)"
  save_image
  echo "image: $image"
  exit 0
fi

start_s=$(date +%s.%N)
libs_txt=$(aarch64_libs "$bin" "$root") || die 1 "cannot list the libraries of $bin"
mapfile -t libs <<<"$libs_txt"
[ "${#libs[@]}" -gt 0 ] || die 1 "no shared libraries listed for $bin"
rootfs="$ctx/rootfs"
mkdir -p "$rootfs/tmp" "$rootfs/etc" "$rootfs/var/lib/powersweep-agent" "$ctx/bin"
for lib in "${libs[@]}"; do
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$root$lib" "$rootfs$lib"
done
# The loader is reached through /lib/ld-linux-aarch64.so.1 (the ELF
# interpreter) and its multiarch path.
if [ ! -e "$rootfs/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1" ]; then
  mkdir -p "$rootfs/lib/aarch64-linux-gnu"
  cp -L "$root$loader" "$rootfs/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"
fi
# Root's name (the agent runs as root on a board; docker's --user needs no
# more).
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\n' >"$rootfs/etc/group"
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/var/lib/powersweep-agent"
cp "$bin" "$ctx/bin/powersweep-agent"
glibc_bin=$(aarch64_glibc_needed "$bin")
glibc=$(aarch64_glibc_needed "$bin" "${libs[@]/#/$root}")
cat >"$ctx/Dockerfile" <<EOF
FROM scratch
COPY rootfs/ /
COPY bin/powersweep-agent $IN_IMAGE_BIN
LABEL powersweep.binary_fingerprint="${fp/-/:}" \\
      powersweep.agent_path="$IN_IMAGE_BIN" \\
      powersweep.needs_glibc="$glibc" \\
      powersweep.source_binary="$bin"
ENTRYPOINT ["$IN_IMAGE_BIN"]
EOF
DOCKER_BUILDKIT=0 "$DOCKER" build --platform linux/arm64 --network none \
  -t "$image" "$ctx" >"$ctx/build.log" 2>&1 ||
  die 1 "docker build failed: $(tail -5 "$ctx/build.log")"
"$DOCKER" tag "$image" "$REPO:arm64"

# Checks: the architecture, and the agent running with only the image's
# files (exported) as its root.
arch=$("$DOCKER" image inspect -f '{{.Architecture}}' "$image")
[ "$arch" = arm64 ] || die 1 "$image was built for '$arch', not arm64"
cid=$("$DOCKER" create --platform linux/arm64 "$image")
mkdir -p "$ctx/export"
"$DOCKER" export "$cid" | tar -x -C "$ctx/export"
"$DOCKER" rm "$cid" >/dev/null
# chroot, not qemu -L: qemu falls back to this machine's files for a path
# the prefix lacks, which would hide a library missing from the image. No
# LD_LIBRARY_PATH, in the image or here: the libraries sit in the loader's
# own multiarch folders, and the processes the agent starts (the host's
# docker client) must not inherit a library path.
cp "$(command -v "$QEMU")" "$ctx/export/.qemu"
probe=$(env -i "$(command -v chroot)" "$ctx/export" /.qemu \
  "$IN_IMAGE_BIN" probe --platform=twin --device-class=orin-agx 2>&1) ||
  die 1 "the agent in $image does not run from the image's own files: $(tail -3 <<<"$probe")"
grep -q "(simulated)" <<<"$probe" || die 1 "the agent in $image printed no twin probe: $(head -3 <<<"$probe")"
size=$("$DOCKER" image inspect -f '{{.Size}}' "$image")
end_s=$(date +%s.%N)
echo "build-agent-image: $image (linux/arm64, ${#libs[@]} libraries, $((size / 1000000)) MB, the agent needs $glibc_bin, its libraries $glibc: the image brings them) built and checked in $(awk -v a="$start_s" -v b="$end_s" 'BEGIN{printf "%.1f", b - a}') s"
save_image
echo "image: $image"
