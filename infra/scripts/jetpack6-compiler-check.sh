#!/usr/bin/env bash
# jetpack6-compiler-check.sh [BUILD_DIR]: builds what a board runs (the
# agent and the workload, POWERSWEEP_PARTS="agent;workload") with GCC 11.3,
# the compiler of JetPack 6 (Ubuntu 22.04's GCC 11, NVIDIA's gcc-11.3 cross
# toolchain), with the project's warnings as errors, and runs the agent's
# probe on every fixture board tree and the workload's --help. Debian 12
# packages g++-11 11.3.0 (installed here when missing). JetPack 7's GCC 13
# is not packaged for Debian 12: not checked. Prints one line: the compiler,
# build time, probes; exits 1 on a failure. Slow (LibTorch): run by hand,
# `nice -n 10 infra/scripts/jetpack6-compiler-check.sh`; PARTS=agent skips
# the workload (no LibTorch: a few minutes).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-gcc11}
JOBS=${JOBS:-$(nproc)}
PARTS=${PARTS:-agent;workload}
if ! command -v g++-11 >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then apt-get install -y -q g++-11 >/dev/null
  else sudo apt-get install -y -q g++-11 >/dev/null; fi
fi
mkdir -p "$BUILD"
t0=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc-11 -DCMAKE_CXX_COMPILER=g++-11 \
  -DPOWERSWEEP_PARTS="$PARTS" >"$BUILD/configure.log" 2>&1 ||
  { tail -20 "$BUILD/configure.log"; exit 1; }
cmake --build "$BUILD" -j "$JOBS" >"$BUILD/build.log" 2>&1 ||
  { grep -E "error|warning" "$BUILD/build.log" | head -40; exit 1; }
t1=$(date +%s)
probes=0
for tree in "$ROOT"/tests/fixtures/sysfs/*/; do
  [ -d "$tree/sys" ] || continue
  "$BUILD/agent/powersweep-agent" probe --platform=jetson \
    --sysfs-root="$tree" >"$BUILD/probe.txt" 2>&1 ||
    { echo "probe $(basename "$tree") failed:"; tail -5 "$BUILD/probe.txt"; exit 1; }
  probes=$((probes + 1))
done
if [[ "$PARTS" == *workload* ]]; then
  "$BUILD/workloads/powersweep-workload" --help >/dev/null 2>&1 ||
    { echo "powersweep-workload --help failed"; exit 1; }
fi
echo "jetpack6-compiler-check: $(g++-11 --version | head -1): $PARTS" \
  "built with -Werror in $((t1 - t0)) s; probe passed on $probes fixture" \
  "boards"
