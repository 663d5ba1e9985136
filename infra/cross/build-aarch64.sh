#!/usr/bin/env bash
# Cross-builds powersweep for aarch64 (NVIDIA Jetson) on a Debian 12 amd64
# machine with Debian's cross toolchain. Installs what it needs first
# (idempotent: nothing is installed or downloaded when it is all there).
#
#   infra/cross/build-aarch64.sh [BUILD_DIR]
#       powersweep-agent, against Debian's arm64 -dev packages installed
#       beside the amd64 ones (multiarch). BUILD_DIR: build-aarch64.
#   infra/cross/build-aarch64.sh --workload [BUILD_DIR]
#       powersweep-agent and powersweep-workload (LibTorch), against an arm64
#       sysroot (libtorch-dev:arm64 cannot be installed beside the amd64
#       libtorch-dev the native build uses). BUILD_DIR: build-aarch64-workload.
#       The sysroot is extracted by mmdebstrap into $POWERSWEEP_SYSROOT
#       (default var/cross-sysroot/bookworm-arm64, about 1 GB).
#
# Environment: JOBS (default 2), CMAKE_BUILD_TYPE (default Release),
# TARGETS (default: powersweep-agent, and powersweep-workload with
# --workload).
# Run the results with qemu-user-static; on a board see docs/deployment.md
# ("The agent on a Jetson (JetPack)").
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGETS_ENV=${TARGETS:-}
ROOT=$(pwd)

WORKLOAD=0
if [ "${1:-}" = "--workload" ]; then
  WORKLOAD=1
  shift
fi
if [ $WORKLOAD -eq 1 ]; then
  BUILD_DIR=${1:-build-aarch64-workload}
else
  BUILD_DIR=${1:-build-aarch64}
fi
JOBS=${JOBS:-2}
BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release}
SYSROOT=${POWERSWEEP_SYSROOT:-$ROOT/var/cross-sysroot/bookworm-arm64}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      echo "$p"
  done
}

# Host tools (amd64): the cross compiler, protoc and the gRPC plugin of the
# native build, qemu to run the result, mmdebstrap for the sysroot.
HOST_PKGS=(cmake make pkg-config crossbuild-essential-arm64 qemu-user-static
  file protobuf-compiler protobuf-compiler-grpc)
# The agent's libraries for arm64, beside the amd64 ones (multiarch).
ARM64_PKGS=(libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64
  zlib1g-dev:arm64 libssl-dev:arm64)
# The sysroot's packages (--workload): the agent's and the workload's.
SYSROOT_PKGS=(libtorch-dev libturbojpeg0-dev libgrpc++-dev libprotobuf-dev
  libabsl-dev zlib1g-dev libssl-dev libc6-dev libstdc++-12-dev libgcc-12-dev)

want=("${HOST_PKGS[@]}")
if [ $WORKLOAD -eq 1 ]; then
  want+=(mmdebstrap)
else
  want+=("${ARM64_PKGS[@]}")
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "build-aarch64: dpkg --add-architecture arm64"
    $SUDO dpkg --add-architecture arm64
  fi
fi
mapfile -t missing < <(missing_packages "${want[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-aarch64: installing ${missing[*]}"
  "${APT[@]}" update
  # apt must not remove anything the native build needs: simulate first.
  if "${APT[@]}" -s install --no-install-recommends "${missing[@]}" | grep '^Remv ' >/dev/null; then
    echo "build-aarch64: apt would remove packages to install ${missing[*]}; not installing" >&2
    "${APT[@]}" -s install --no-install-recommends "${missing[@]}" | grep '^Remv ' >&2
    exit 1
  fi
  "${APT[@]}" install -y --no-install-recommends "${missing[@]}"
fi

CMAKE_ARGS=(-DCMAKE_TOOLCHAIN_FILE="$ROOT/infra/cross/aarch64-linux-gnu.cmake"
  -DCMAKE_BUILD_TYPE="$BUILD_TYPE")
read -r -a TARGETS <<<"${TARGETS:-powersweep-agent}"
if [ $WORKLOAD -eq 1 ]; then
  # The sysroot: the packages and their dependencies extracted (not
  # installed: no maintainer scripts run, nothing runs under emulation).
  stamp="$SYSROOT/.powersweep-sysroot"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${SYSROOT_PKGS[*]}" ]; then
    echo "build-aarch64: extracting an arm64 sysroot into $SYSROOT"
    rm -rf "$SYSROOT"
    mkdir -p "$(dirname "$SYSROOT")"
    includes=$(IFS=,; echo "${SYSROOT_PKGS[*]}")
    $SUDO mmdebstrap --mode=root --variant=extract --architectures=arm64 \
      --components=main --include="$includes" bookworm "$SYSROOT" \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main"
    # Absolute symlinks (libz.so -> /lib/aarch64-linux-gnu/libz.so.1...)
    # would resolve on the build machine: make them relative.
    while IFS= read -r link; do
      target=$(readlink "$link")
      rel=$(realpath -m --relative-to="$(dirname "$link")" "$SYSROOT$target")
      $SUDO ln -sfn "$rel" "$link"
    done < <(find "$SYSROOT/usr/lib" "$SYSROOT/lib" -type l -lname '/*')
    echo "${SYSROOT_PKGS[*]}" | $SUDO tee "$stamp" >/dev/null
  fi
  # gRPC's CMake package checks that its plugins exist under its own
  # prefix (the sysroot's /usr/bin, where the arm64 plugin package is not
  # extracted): link the host's (protobuf-compiler-grpc), which the build
  # runs anyway.
  for plugin in /usr/bin/grpc_*_plugin; do
    [ -e "$SYSROOT$plugin" ] || $SUDO ln -sfn "$plugin" "$SYSROOT$plugin"
  done
  # BLAS and LAPACK (LibTorch's) are reached through update-alternatives
  # links that the packages' maintainer scripts make; nothing ran them, so
  # make the links they would (the reference implementations).
  multiarch="$SYSROOT/usr/lib/aarch64-linux-gnu"
  for alt in blas/libblas.so.3 lapack/liblapack.so.3; do
    if [ -e "$multiarch/$alt" ] && [ ! -e "$multiarch/$(basename "$alt")" ]; then
      $SUDO ln -sfn "$alt" "$multiarch/$(basename "$alt")"
    fi
  done
  CMAKE_ARGS+=(-DPOWERSWEEP_SYSROOT="$SYSROOT" "-DPOWERSWEEP_PARTS=agent;workload")
  [ -n "${TARGETS_ENV:-}" ] || TARGETS+=(powersweep-workload)
else
  CMAKE_ARGS+=(-DPOWERSWEEP_PARTS=agent)
fi

cmake -S . -B "$BUILD_DIR" "${CMAKE_ARGS[@]}"
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]}"
for t in "${TARGETS[@]}"; do
  case $t in
    powersweep-agent) file "$BUILD_DIR/agent/powersweep-agent" ;;
    powersweep-workload) file "$BUILD_DIR/workloads/powersweep-workload" ;;
  esac
done
