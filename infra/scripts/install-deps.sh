#!/usr/bin/env bash
# Installs powersweep's build and run dependencies from Debian's packages.
# Idempotent: when every package is already installed it does nothing (no apt-get update).
set -euo pipefail
PKGS=(
  cmake g++ make pkg-config clang mold
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  python3-grpcio python3-grpc-tools
  libabsl-dev libsqlite3-dev sqlite3 libtorch-dev libgtest-dev libgmock-dev
  libyaml-cpp-dev zlib1g-dev libeigen3-dev dataset-fashion-mnist
  docker.io libturbojpeg0-dev python3-torch python3-torchvision tmux
  python3-matplotlib chromium wordnet-base espeak-ng
  qemu-system-x86 busybox-static e2fsprogs
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
