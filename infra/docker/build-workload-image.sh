#!/usr/bin/env bash
# Builds the workload image offline from the very binary native runs use.
#
#   infra/docker/build-workload-image.sh BUILD_DIR [--force] [--print-tag]
#       [--prune-others] [--jetson [--base IMAGE]]
#
# BUILD_DIR is a CMake build directory holding workloads/powersweep-workload
# (or give the binary itself). The image holds that binary at
# /usr/local/bin/powersweep-workload plus every shared library it loads
# (ldd, the dynamic loader included), each at the path ldd reports, so the
# in-container LibTorch is byte for byte the one native runs load. By
# default the image is FROM scratch and nothing is pulled.
#
# --jetson: builds infra/docker/Dockerfile.jetson instead, on an L4T base
# (--base, default nvcr.io/nvidia/l4t-jetpack:r35.4.1, which must already be
# in the local engine), leaving out the Tegra driver libraries
# (/usr/lib/aarch64-linux-gnu/tegra*: the NVIDIA container runtime mounts
# the host's, which must match the kernel), and checks the image with
# --runtime nvidia. See infra/docker/README.md.
#
# Tags: powersweep-workload:<fingerprint> and powersweep-workload:local,
# where <fingerprint> is the workload's provenance binary_fingerprint
# (common/fingerprint.h: "build-id:<hex>" from the GNU build-id note, else
# "sha256:<hex>" of the file) with ':' written as '-' (a tag cannot hold
# ':'), e.g. powersweep-workload:build-id-78570719a851... Labels carry the
# exact fingerprints of the binary and of libtorch_cpu.
#
# When an image with that tag exists the build is skipped (only the :local
# tag is moved to it), unless --force. --print-tag prints the tag and exits.
# --prune-others then removes the repository's other fingerprint tags
# (images of earlier builds; an image a container still uses is kept).
# The last line of stdout is always "image: <repo>:<tag>".
#
# Environment: DOCKER (client, default /usr/bin/docker), IMAGE_REPO
# (default powersweep-workload), KEEP_CONTEXT=1 keeps the build context.
# Exit codes: 0 ok; 1 build failed; 2 bad arguments or missing binary/tools.
set -euo pipefail

DOCKER="${DOCKER:-/usr/bin/docker}"
REPO="${IMAGE_REPO:-powersweep-workload}"
IN_IMAGE_BIN="/usr/local/bin/powersweep-workload"
HERE="$(cd "$(dirname "$0")" && pwd)"

die() { echo "build-workload-image: $2" >&2; exit "$1"; }

build_dir=""
force=0
print_tag=0
prune=0
jetson=0
base="nvcr.io/nvidia/l4t-jetpack:r35.4.1"
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    --print-tag) print_tag=1 ;;
    --prune-others) prune=1 ;;
    --jetson) jetson=1 ;;
    --base) [ $# -ge 2 ] || die 2 "--base needs an image"; base="$2"; shift ;;
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die 2 "unknown option $1 (see --help)" ;;
    *) [ -z "$build_dir" ] || die 2 "more than one BUILD_DIR given"; build_dir="$1" ;;
  esac
  shift
done
[ -n "$build_dir" ] || die 2 "usage: $0 BUILD_DIR [--force] [--print-tag] [--jetson [--base IMAGE]]"

if [ -f "$build_dir" ]; then
  bin="$build_dir"
else
  bin=""
  for cand in "$build_dir/workloads/powersweep-workload" "$build_dir/powersweep-workload"; do
    if [ -x "$cand" ]; then bin="$cand"; break; fi
  done
  [ -n "$bin" ] || die 2 "no powersweep-workload in $build_dir (looked in workloads/ and the top level); build it with: cmake --build $build_dir --target powersweep-workload"
fi
bin="$(readlink -f "$bin")"
for tool in readelf ldd sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die 2 "$tool is needed (Debian: binutils, libc-bin, coreutils)"
done

# The same rule as common/fingerprint.cc: GNU build-id, else sha256 of the file.
fingerprint() {
  local id
  id="$(LC_ALL=C readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}')"
  if [ -n "$id" ]; then
    echo "build-id:$id"
  else
    echo "sha256:$(sha256sum "$1" | awk '{print $1}')"
  fi
}

bin_fp="$(fingerprint "$bin")"
tag="${bin_fp/:/-}"
image="$REPO:$tag"
if [ "$print_tag" -eq 1 ]; then
  echo "image: $image"
  exit 0
fi

[ -x "$DOCKER" ] || die 2 "docker client $DOCKER not found (install docker.io, or set DOCKER)"
"$DOCKER" info >/dev/null 2>&1 || die 1 "docker engine not reachable with $DOCKER (start it with infra/scripts/start-dockerd.sh)"

# Removes the repository's fingerprint tags other than $image.
prune_others() {
  [ "$prune" -eq 1 ] || return 0
  local other
  "$DOCKER" images "$REPO" --format '{{.Repository}}:{{.Tag}}' |
    grep -E ":(build-id|sha256)-" | grep -vxF "$image" |
    while read -r other; do
      "$DOCKER" rmi "$other" >/dev/null 2>&1 &&
        echo "build-workload-image: removed $other" ||
        echo "build-workload-image: kept $other (in use)"
    done
}

if [ "$force" -eq 0 ] && "$DOCKER" image inspect "$image" >/dev/null 2>&1; then
  "$DOCKER" tag "$image" "$REPO:local"
  echo "build-workload-image: $image exists; not rebuilt (--force rebuilds)"
  prune_others
  echo "image: $image"
  exit 0
fi
if [ "$jetson" -eq 1 ] && [ "$base" != scratch ] && ! "$DOCKER" image inspect "$base" >/dev/null 2>&1; then
  die 1 "the base image $base is not in the local engine; on a machine with network: docker pull $base && docker save $base | gzip > l4t-base.tar.gz, then here: docker load < l4t-base.tar.gz"
fi

start_s=$(date +%s.%N)
ldd_out="$(ldd "$bin")" || die 1 "ldd $bin failed: is it a dynamically linked executable?"
if grep -q "not found" <<<"$ldd_out"; then
  die 1 "$bin needs libraries this machine does not have: $(grep 'not found' <<<"$ldd_out" | tr -s ' \t' ' ')"
fi
# "libx.so => /path (addr)" and "/lib64/ld-linux-x86-64.so.2 (addr)";
# linux-vdso has no file.
mapfile -t libs < <(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$ldd_out" | sort -u)
[ "${#libs[@]}" -gt 0 ] || die 1 "ldd found no shared libraries for $bin"
torch_lib=""
for lib in "${libs[@]}"; do
  case "$(basename "$lib")" in libtorch_cpu.so*) torch_lib="$lib" ;; esac
done
torch_fp=""
[ -z "$torch_lib" ] || torch_fp="$(fingerprint "$(readlink -f "$torch_lib")")"

ctx="$(mktemp -d /tmp/powersweep-image.XXXXXX)"
cleanup() { if [ "${KEEP_CONTEXT:-0}" != 1 ]; then rm -rf "$ctx"; fi; }
trap cleanup EXIT
# Two layers: the libraries (shared by every rebuild of the workload while
# they do not change) and the binary.
root="$ctx/rootfs"
mkdir -p "$root/tmp" "$root/etc" "$ctx/bin"
cp "$bin" "$ctx/bin/powersweep-workload"
declare -A lib_dirs=()
copied=0
for lib in "${libs[@]}"; do
  if [ "$jetson" -eq 1 ]; then
    case "$lib" in /usr/lib/aarch64-linux-gnu/tegra*|/usr/lib/aarch64-linux-gnu/nvidia*) continue ;; esac
  fi
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"   # the file itself, at the path the loader used
  lib_dirs["$(dirname "$lib")"]=1
  copied=$((copied + 1))
done
chmod 1777 "$root/tmp"
ld_path="$(printf '%s\n' "${!lib_dirs[@]}" | sort | paste -sd: -)"

run_check=(--rm --network none --pull never --log-driver none)
if [ "$jetson" -eq 1 ]; then
  dockerfile="$HERE/Dockerfile.jetson"
  [ -f "$dockerfile" ] || die 2 "$dockerfile is missing"
  run_check+=(--runtime nvidia)
  # The driver libraries are mounted from the host into these directories.
  ld_path="$ld_path:/usr/lib/aarch64-linux-gnu/tegra"
else
  dockerfile="$ctx/Dockerfile"
  # Names for numeric ids (the agent runs the container as its own uid).
  printf 'root:x:0:0:root:/:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\n' >"$root/etc/group"
  cat >"$dockerfile" <<EOF
FROM scratch
COPY rootfs/ /
COPY bin/ $(dirname "$IN_IMAGE_BIN")/
ENV LD_LIBRARY_PATH=$ld_path
LABEL powersweep.binary_fingerprint="$bin_fp" \\
      powersweep.framework_fingerprint="$torch_fp" \\
      powersweep.workload_path="$IN_IMAGE_BIN" \\
      powersweep.source_binary="$bin"
CMD ["$IN_IMAGE_BIN", "--help"]
EOF
fi

echo "build-workload-image: building $image from $bin ($copied libraries, $(basename "$dockerfile"))"
# The classic builder: a local base (or scratch) needs no registry and no
# BuildKit.
if ! DOCKER_BUILDKIT=0 "$DOCKER" build --network none -q -f "$dockerfile" \
    --build-arg "BASE=$base" --build-arg "LD_PATH=$ld_path" \
    --build-arg "BINARY_FINGERPRINT=$bin_fp" \
    --build-arg "FRAMEWORK_FINGERPRINT=$torch_fp" \
    --build-arg "SOURCE_BINARY=$bin" \
    -t "$image" -t "$REPO:local" "$ctx" >/dev/null; then
  KEEP_CONTEXT=1
  die 1 "docker build of $image failed (context kept in $ctx)"
fi
# The loader and every library resolve inside the image.
if ! out="$("$DOCKER" run "${run_check[@]}" "$image" "$IN_IMAGE_BIN" --help 2>&1)"; then
  die 1 "$image was built but the workload does not start in it: $(tail -n 3 <<<"$out")"
fi
prune_others
end_s=$(date +%s.%N)
size="$("$DOCKER" image inspect -f '{{.Size}}' "$image")"
awk -v s="$start_s" -v e="$end_s" -v b="$size" -v i="$image" \
  'BEGIN { printf "build-workload-image: built %s: %.0f MB in %.1f s\n", i, b / 1e6, e - s }'
echo "image: $image"
