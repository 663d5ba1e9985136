#!/usr/bin/env bash
# The aarch64 agent (infra/cross/build-aarch64.sh), run under qemu-user as a
# Jetson would run it:
#   1. the binary is an ARM aarch64 executable;
#   2. `powersweep-agent probe --platform=jetson --sysfs-root` on every
#      fixture board tree prints the class, the custom mode space, a preset
#      and a measured rail, and exactly what the native (amd64) agent prints
#      for the same tree;
#   3. a short twin sweep: a native controller on loopback, the aarch64 agent
#      with --platform=twin under qemu, `powersweep submit` and `watch`: every
#      run done, on the aarch64 agent's device;
#   4. bundle-agent.sh and build-agent-image.sh (when a Docker engine runs or
#      can be started) make a bundle and an image whose agent runs from their
#      own files alone;
#   5. with a workload build dir (build-aarch64.sh --workload): the aarch64
#      powersweep-workload under qemu prints its usage and trains LeNet-5 on
#      Fashion-MNIST for 2 minibatches;
#   6. and a host sweep: the aarch64 agent under qemu runs that workload
#      (LeNet-5 train and infer), both runs done.
#
#   tests/cross/aarch64_agent_test.sh [NATIVE_BUILD [AARCH64_BUILD [AARCH64_WORKLOAD_BUILD]]]
#     NATIVE_BUILD: build (needs powersweep-agent, powersweep-controller, powersweep)
#     AARCH64_BUILD: build-aarch64 (needs agent/powersweep-agent)
#     AARCH64_WORKLOAD_BUILD: none (part 5 is skipped); its sysroot is read
#       from its CMakeCache (POWERSWEEP_SYSROOT).
# Ends with the line "aarch64: N passed, N failed"; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
NATIVE=${1:-build}
CROSS=${2:-build-aarch64}
CROSS_WL=${3:-}
QEMU=${QEMU:-qemu-aarch64-static}
FIXTURES=tests/fixtures/sysfs

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | sed 's/^/    /'; }
# check NAME COMMAND...: passes when the command succeeds.
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

AGENT_ARM=$CROSS/agent/powersweep-agent
AGENT_NATIVE=$NATIVE/agent/powersweep-agent
CONTROLLER=$NATIVE/controller/powersweep-controller
CLI_BIN=$NATIVE/controller/cli/powersweep
for b in "$AGENT_ARM" "$AGENT_NATIVE" "$CONTROLLER" "$CLI_BIN"; do
  [ -x "$b" ] || { echo "aarch64_agent_test: $b is missing"; echo "aarch64: 0 passed, 1 failed"; exit 1; }
done
command -v "$QEMU" >/dev/null || { echo "aarch64_agent_test: $QEMU is missing (apt-get install qemu-user-static)"; echo "aarch64: 0 passed, 1 failed"; exit 1; }

TMP=$(mktemp -d /tmp/aarch64-agent-test.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

# 1. The binary.
desc=$(file -b "$AGENT_ARM")
if [[ "$desc" == *"ELF 64-bit LSB"*"ARM aarch64"* ]]; then
  pass "file: $AGENT_ARM is ${desc%%,*}, ARM aarch64"
else
  fail "file: $AGENT_ARM is not an aarch64 ELF" "$desc"
fi

# 2. probe on every fixture board: tree class space preset rail, as
# tests/integration/agent_probe_test.cc checks the native agent.
BOARDS=(
  "orin-agx-jp5 orin-agx 12x29x11x3 MODE_50W VDD_GPU_SOC"
  "orin-agx-jp6 orin-agx 12x29x11x3 PM2_GPU VDD_CPU_CV"
  "xavier-agx-jp4 xavier-agx 8x29x14x9 sigmetrics-a GPU"
  "xavier-agx-jp5 xavier-agx 8x29x14x9 MODE_30W_ALL SOC"
  "xavier-nx-jp5 xavier-nx 6x25x15x7 MODE_15W_6CORE VDD_IN"
  "nano-jp4 nano 4x15x12x1 MAXN POM_5V_IN"
  "orin-nx-jp62 orin-nx 8x26x10x4 MAXN_SUPER VDD_IN"
  "orin-nano-jp62 orin-nano 6x22x8x4 25W VDD_SOC"
  "thor-jp7 thor 14x4x3x3 120W VIN"
)
for b in "${BOARDS[@]}"; do
  read -r tree cls space preset rail <<<"$b"
  space=${space//x/ x }
  arm_out=$TMP/probe-$tree-aarch64.txt
  native_out=$TMP/probe-$tree-native.txt
  t0=$(date +%s.%N)
  "$QEMU" "$AGENT_ARM" probe --platform=jetson --sysfs-root="$FIXTURES/$tree" >"$arm_out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  "$AGENT_NATIVE" probe --platform=jetson --sysfs-root="$FIXTURES/$tree" >"$native_out" 2>&1
  if [ $rc -ne 0 ]; then fail "probe $tree: exit $rc under qemu" "$(tail -5 "$arm_out")"; continue; fi
  missing=""
  grep -qE -- "^  class +$cls\$" "$arm_out" || missing+="'class $cls' "
  for want in "$space = " "$preset" "rail $rail" "mW (measured)" "cpu_cores" "gpu_freq_hz"; do
    grep -qF -- "$want" "$arm_out" || missing+="'$want' "
  done
  if grep -qF "cannot open" "$arm_out"; then missing+="(says 'cannot open') "; fi
  if [ -n "$missing" ]; then
    fail "probe $tree: the aarch64 agent's report lacks $missing" "$(head -20 "$arm_out")"
  elif ! d=$(diff "$native_out" "$arm_out"); then
    fail "probe $tree: the aarch64 report differs from the native one" "$d"
  else
    pass "probe $tree: class $cls, space $space, $preset, rail $rail; same $(wc -l <"$arm_out") lines as the native agent ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s under qemu)"
  fi
done

# 3. A twin sweep: native controller, aarch64 twin agent under qemu.
"$CONTROLLER" --listen=127.0.0.1:0 --port_file="$TMP/port" --db="$TMP/ps.db" \
  >"$TMP/controller.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
if [ ! -s "$TMP/port" ]; then
  fail "twin sweep: the controller did not start" "$(tail -5 "$TMP/controller.log")"
else
  ADDR=127.0.0.1:$(cat "$TMP/port")
  CLI=("$CLI_BIN" --controller="$ADDR")
  DEV=orin-agx-aarch64-twin
  "$QEMU" "$AGENT_ARM" --controller="$ADDR" --platform=twin \
    --device_class=orin-agx --instance=0 --device_id=$DEV --twin_seed=7 \
    --twin_time_scale=0.01 --work_dir="$TMP/agent" >"$TMP/agent.log" 2>&1 &
  pids+=($!)
  connected=no
  for _ in $(seq 300); do
    if "${CLI[@]}" devices --format=csv 2>/dev/null | grep "^$DEV,orin-agx,.*,yes," >/dev/null; then
      connected=yes; break
    fi
    sleep 0.1
  done
  if [ $connected != yes ]; then
    fail "twin sweep: the aarch64 agent did not register within 30 s" "$(tail -5 "$TMP/agent.log")"
  else
    pass "twin sweep: the aarch64 twin agent registered as $DEV (class orin-agx)"
    cat >"$TMP/sweep.yaml" <<'EOF'
name: aarch64-twin
device_classes: [orin-agx]
models: [lenet5]
datasets: [fashion-mnist]
tasks: [train, infer]
batch_sizes: [64]
loader_workers: [1]
power_modes:
  - {preset: MAXN}
  - {cpu_cores: 4, cpu_freq_khz: 1497600, gpu_freq_hz: 510000000}
runtimes: [native]
repetitions: 1
minibatches: 100
seed: 1
telemetry_hz: 20
timeout_s: 120
max_retries: 0
EOF
    t0=$(date +%s)
    sweep=$("${CLI[@]}" submit --quiet "$TMP/sweep.yaml" 2>"$TMP/submit.err")
    watched=$(timeout 300 "${CLI[@]}" watch "$sweep" 2>/dev/null)
    t1=$(date +%s)
    if [[ "$watched" == *"finished: 4 done, 0 failed, 0 cancelled"* ]]; then
      pass "twin sweep $sweep: $watched ($((t1 - t0)) s)"
    else
      fail "twin sweep: not every run done" "submit: $sweep $(cat "$TMP/submit.err")
watch: $watched
$(tail -5 "$TMP/agent.log")"
    fi
    ran=$("${CLI[@]}" runs --sweep="$sweep" --format=csv 2>/dev/null | grep -c ",$DEV,")
    check "twin sweep: the 4 runs ran on $DEV ($ran rows name it)" test "$ran" -eq 4
  fi
fi

# 4. What a JetPack board gets (docs/deployment.md): the bundle and the
# agent image, each checked by its script by running the agent from its own
# files alone (chroot) under qemu.
if out=$(infra/cross/bundle-agent.sh "$CROSS" "$TMP/bundle" 2>&1) &&
   [ -x "$TMP/bundle/bin/powersweep-agent" ] && [ -s "$TMP/bundle.tar.gz" ]; then
  pass "bundle: $(tail -1 <<<"$out" | sed 's/^bundle-agent: //')"
else
  fail "bundle-agent.sh $CROSS" "$(tail -3 <<<"$out")"
fi
if infra/scripts/start-dockerd.sh >"$TMP/dockerd.txt" 2>&1; then
  if out=$(infra/cross/build-agent-image.sh "$CROSS" --force 2>&1); then
    pass "agent image: $(grep '^build-agent-image: .* built and checked' <<<"$out" | sed 's/^build-agent-image: //')"
  else
    fail "build-agent-image.sh $CROSS" "$(tail -3 <<<"$out")"
  fi
else
  echo "SKIP agent image: no Docker engine ($(tail -1 "$TMP/dockerd.txt"))"
fi

# 5. The workload, when it was cross-built (against the sysroot).
if [ -n "$CROSS_WL" ]; then
  WL=$CROSS_WL/workloads/powersweep-workload
  SYSROOT=$(sed -n 's/^POWERSWEEP_SYSROOT:[A-Z]*=//p' "$CROSS_WL/CMakeCache.txt" 2>/dev/null)
  if [ ! -x "$WL" ] || [ ! -d "$SYSROOT" ]; then
    fail "workload: $WL or its sysroot '$SYSROOT' is missing"
  else
    desc=$(file -b "$WL")
    check "file: $WL is ARM aarch64" grep -q "ARM aarch64" <<<"$desc"
    if "$QEMU" -L "$SYSROOT" "$WL" --help >"$TMP/wl-help.txt" 2>&1 &&
       grep -q "run" "$TMP/wl-help.txt"; then
      pass "workload --help under qemu: $(head -1 "$TMP/wl-help.txt")"
    else
      fail "workload --help under qemu" "$(head -5 "$TMP/wl-help.txt")"
    fi
    t0=$(date +%s)
    "$QEMU" -L "$SYSROOT" "$WL" run --model lenet5 \
      --dataset-path /usr/share/datasets/fashion-mnist --task train \
      --batch-size 32 --workers 1 --minibatches 2 --seed 1 --threads 2 \
      --records-fd 1 >"$TMP/wl-records.jsonl" 2>"$TMP/wl-stderr.txt"
    rc=$?
    t1=$(date +%s)
    n=$(grep -c '"minibatch"' "$TMP/wl-records.jsonl")
    if [ $rc -eq 0 ] && [ "$n" -eq 2 ] && grep -q '"finished"' "$TMP/wl-records.jsonl"; then
      pass "workload: LeNet-5 trained 2 minibatches under qemu, started/2 minibatch/finished records ($((t1 - t0)) s)"
    else
      fail "workload: a 2-minibatch LeNet-5 run under qemu (exit $rc, $n minibatch records)" "$(tail -5 "$TMP/wl-stderr.txt")"
    fi

    # 6. A host sweep: the aarch64 agent (--platform=host) under qemu starts
    # the aarch64 workload, through a script that runs it under qemu too
    # (qemu-user does not follow execve into an aarch64 binary by itself).
    if [ -n "${ADDR:-}" ]; then
      printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$(command -v "$QEMU")" "$SYSROOT" \
        "$(readlink -f "$WL")" >"$TMP/workload-under-qemu"
      chmod +x "$TMP/workload-under-qemu"
      HOST_DEV=aarch64-host
      "$QEMU" "$AGENT_ARM" --controller="$ADDR" --device_id=$HOST_DEV \
        --workload_bin="$TMP/workload-under-qemu" --work_dir="$TMP/host-agent" \
        >"$TMP/host-agent.log" 2>&1 &
      pids+=($!)
      for _ in $(seq 300); do
        "${CLI[@]}" devices --format=csv 2>/dev/null | grep -q "^$HOST_DEV,host,.*,yes," && break
        sleep 0.1
      done
      cat >"$TMP/host-sweep.yaml" <<'EOF'
name: aarch64-host
device_classes: [host]
models: [lenet5]
datasets: [fashion-mnist]
tasks: [train, infer]
batch_sizes: [32]
loader_workers: [1]
power_modes:
  - {cpu_cores: 1}
runtimes: [native]
repetitions: 1
minibatches: 5
seed: 1
telemetry_hz: 10
timeout_s: 120
max_retries: 0
EOF
      t0=$(date +%s)
      hsweep=$("${CLI[@]}" submit --quiet "$TMP/host-sweep.yaml" 2>"$TMP/host-submit.err")
      watched=$(timeout 300 "${CLI[@]}" watch "$hsweep" 2>/dev/null)
      t1=$(date +%s)
      ran=$("${CLI[@]}" runs --sweep="$hsweep" --format=csv 2>/dev/null | grep -c ",$HOST_DEV,")
      if [[ "$watched" == *"finished: 2 done, 0 failed, 0 cancelled"* ]] && [ "$ran" -eq 2 ]; then
        pass "host sweep $hsweep: the aarch64 agent ran the aarch64 workload (LeNet-5 train and infer, 5 minibatches): $watched ($((t1 - t0)) s)"
      else
        fail "host sweep: the aarch64 agent running the aarch64 workload" "submit: $hsweep $(cat "$TMP/host-submit.err")
watch: $watched
$(tail -5 "$TMP/host-agent.log")"
      fi
    fi
  fi
fi

echo "aarch64: $passed passed, $failed failed"
[ $failed -eq 0 ]
