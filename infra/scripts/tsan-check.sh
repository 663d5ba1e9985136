#!/usr/bin/env bash
# tsan-check.sh [BUILD_DIR]: ThreadSanitizer run of the concurrency-heavy
# tests. Configures BUILD_DIR (default build-tsan) with -fsanitize=thread
# -g -O1, builds only the targets below (none links LibTorch), runs their
# tests with ctest under TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1
# and prints one line: tests, failures, TSan reports, build and run times.
# Exits 1 when a test failed or TSan reported anything (the reports, also
# those of controller and agent processes the integration tests start, are
# printed from BUILD_DIR/tsan-logs).
#
# Debian's Abseil is not built with TSan, so TSan would not see absl::Mutex,
# CondVar or Notification synchronize; infra/tsan/absl_sync_annotations.cc,
# linked into every program of this build, tells it. Third-party reports
# that are not the project's bugs are suppressed in infra/scripts/tsan.supp,
# each entry with its reason. Run nice: `nice -n 10 infra/scripts/tsan-check.sh`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-tsan}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
JOBS=${JOBS:-$(nproc)}

# The fleet and dispatch logic, the agent's threads (session, spool, child
# process supervisor, sampler, run executor, Docker runtime's reader), the
# stores, and two integration tests on twin agents (real controller and
# agent processes, also built with TSan).
TARGETS=(
  controller_core_tests
  agent_tests
  agent_docker_tests
  storage_tests
  storage_store_conformance_tests
  chaos_test
  hostile_peer_test
)

# The annotations are an object of their own; its path carries its hash so
# that a change relinks every program.
SHIM_SRC=$ROOT/infra/tsan/absl_sync_annotations.cc
SHIM_DIR=$BUILD/tsan-shim
mkdir -p "$SHIM_DIR"
SHIM=$SHIM_DIR/absl_sync_annotations-$(sha256sum "$SHIM_SRC" | cut -c1-12).o
[ -f "$SHIM" ] || c++ -std=c++17 -fsanitize=thread -g -O1 -fPIC -c "$SHIM_SRC" -o "$SHIM"

GENERATOR=()
if [ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  GENERATOR=(-G Ninja)
fi
build_start=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Tsan \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -g -O1" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread $SHIM" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >"$BUILD/tsan-configure.log"
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
build_s=$(( $(date +%s) - build_start ))

LOGS=$BUILD/tsan-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$LOGS/tsan"
SUPP=$ROOT/infra/scripts/tsan.supp
[ -f "$SUPP" ] && TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$SUPP"
export TSAN_OPTIONS
# TSan makes the controller and agents start and register several times
# slower; the chaos test stretches its reconnect grace by this factor.
export POWERSWEEP_TEST_TIME_SCALE=${POWERSWEEP_TEST_TIME_SCALE:-3}
run_start=$(date +%s)
set +e
# Only tests of the programs built here (the others show up as *_NOT_BUILT).
(cd "$BUILD" && ctest -E "_NOT_BUILT|LayeringTest" -j "$JOBS" --timeout 900 \
  --output-on-failure) >"$BUILD/tsan-ctest.log" 2>&1
ctest_rc=$?
set -e
run_s=$(( $(date +%s) - run_start ))

summary=$(grep -E "tests passed|tests failed" "$BUILD/tsan-ctest.log" | tail -1)
reports=$(cat "$LOGS"/tsan.* 2>/dev/null | grep -c "^WARNING: ThreadSanitizer" || true)
if [ "$ctest_rc" -ne 0 ] || [ "$reports" -ne 0 ]; then
  grep -E "^ *[0-9]+ - |\(Failed\)|\(Timeout\)|Exception" "$BUILD/tsan-ctest.log" || true
  for f in "$LOGS"/tsan.*; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done
fi
echo "tsan-check: ${summary:-no tests ran}; $reports TSan reports; build ${build_s}s, run ${run_s}s (log: $BUILD/tsan-ctest.log)"
[ "$ctest_rc" -eq 0 ] && [ "$reports" -eq 0 ]
