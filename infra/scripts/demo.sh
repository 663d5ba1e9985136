#!/usr/bin/env bash
# The quick start: a controller and a virtual fleet of host agents on this
# machine run examples/sweeps/quickstart.yaml, then print a summary; beside
# them three twin agents (simulated Jetsons: two Orin AGX, one Xavier NX,
# docs/twin-model.md) run examples/sweeps/twin-quickstart.yaml, then the
# profiling plan of `powersweep plan-profiling` for the Orin AGX twins, a
# `fit` and a `best` query; four Xavier AGX twins (one of them deliberately
# 15% slow) run the device-instance variability study
# examples/sweeps/variability.yaml, then `powersweep variability`.
# Usage: infra/scripts/demo.sh [BUILD_DIR]   (make demo builds first)
# Environment: DEMO_AGENTS (default: one host agent per 2 cores, at most 4,
# each pinned to its own cores so their measurements do not interfere),
# DEMO_SWEEP (default the quickstart), DEMO_TWINS (1, default: start the
# twins and run the twin sweep; 0: host agents only), DEMO_CONTAINERS (1,
# default: when Debian's docker.io is installed, start dockerd if needed,
# build the workload image from this build and run
# examples/sweeps/container-quickstart.yaml natively and in containers, with
# kernel event traces, then `powersweep compare` and `powersweep traces`;
# 0: skip). examples/sweeps/closer18-quickstart.yaml
# (the CLOSER'18 study: synthetic vs real data, native and container) runs
# on the host agents, then `compare --by data` and its report. DEMO_VMS (1,
# default: when QEMU and the guest image build/vm-guest are there, the host
# agents offer vm runs, under QEMU's emulation where KVM cannot boot the
# guest, and examples/sweeps/vm-quickstart.yaml runs native vs VM, then
# `compare --by runtime --sides native,vm`; 0: skip).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
BIN_CONTROLLER=$BUILD/controller/powersweep-controller
BIN_CLI=$BUILD/controller/cli/powersweep
BIN_AGENT=$BUILD/agent/powersweep-agent
BIN_WORKLOAD=$BUILD/workloads/powersweep-workload
SWEEP_FILE=${DEMO_SWEEP:-examples/sweeps/quickstart.yaml}
TWIN_SWEEP_FILE=examples/sweeps/twin-quickstart.yaml
TWINS_ON=${DEMO_TWINS:-1}
CONTAINERS_ON=${DEMO_CONTAINERS:-1}
CONTAINER_SWEEP_FILE=examples/sweeps/container-quickstart.yaml
SUITE_SWEEP_FILE=examples/sweeps/suite-quickstart.yaml
VARIABILITY_SWEEP_FILE=examples/sweeps/variability.yaml
CLOSER_SWEEP_FILE=examples/sweeps/closer18-quickstart.yaml
VMS_ON=${DEMO_VMS:-1}
VM_SWEEP_FILE=examples/sweeps/vm-quickstart.yaml
# class:instance[:slowdown] of each twin agent.
TWINS=(orin-agx:0 orin-agx:1 xavier-nx:0 xavier-agx:0 xavier-agx:1
       xavier-agx:2 xavier-agx:3:1.15)
[ "$TWINS_ON" = 1 ] || TWINS=()
CORES=$(nproc)
AGENTS=${DEMO_AGENTS:-$(( CORES / 2 > 4 ? 4 : (CORES / 2 < 1 ? 1 : CORES / 2) ))}
OUT=var/demo
for b in "$BIN_CONTROLLER" "$BIN_CLI" "$BIN_AGENT" "$BIN_WORKLOAD"; do
  [ -x "$b" ] || { echo "demo: $b is missing; run 'make demo' (it builds first)" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT/logs"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

"$BIN_CONTROLLER" --listen=127.0.0.1:0 --port_file="$OUT/port" \
  --db="$OUT/powersweep.db" >"$OUT/logs/controller.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$OUT/port" ] && break; sleep 0.1; done
[ -s "$OUT/port" ] || { echo "demo: the controller did not start; see $OUT/logs/controller.log" >&2; cat "$OUT/logs/controller.log" >&2; exit 1; }
ADDR=127.0.0.1:$(cat "$OUT/port")
echo "demo: controller on $ADDR, database $OUT/powersweep.db"

# Containers: a running engine and the workload image of this very build.
AGENT_CONTAINER_FLAGS=()
if [ "$CONTAINERS_ON" = 1 ]; then
  if ./infra/scripts/start-dockerd.sh >"$OUT/logs/start-dockerd.log" 2>&1 &&
     ./infra/docker/build-workload-image.sh "$BUILD" >"$OUT/logs/workload-image.log" 2>&1; then
    AGENT_CONTAINER_FLAGS=(--container_images=powersweep-workload:local)
    echo "demo: Docker engine up; $(tail -1 "$OUT/logs/workload-image.log") built from $BIN_WORKLOAD"
  else
    echo "demo: no Docker engine (see $OUT/logs/start-dockerd.log, $OUT/logs/workload-image.log); skipping the container sweep"
    CONTAINERS_ON=0
  fi
fi

# VMs: QEMU and the guest image of this build (make build made it). KVM
# where it can boot the guest; otherwise QEMU's emulation, said loudly.
AGENT_VM_FLAGS=()
if [ "$VMS_ON" = 1 ]; then
  if [ -x /usr/bin/qemu-system-x86_64 ] && [ -f "$BUILD/vm-guest/GUEST" ]; then
    if [ -e /sys/module/kvm_pvm ] || ! [ -w /dev/kvm ]; then
      AGENT_VM_FLAGS=(--vm_accel=tcg)
      echo "demo: vm runs EMULATED (QEMU TCG: this machine's KVM cannot boot the guest); their times are not comparable with native ones"
    else
      AGENT_VM_FLAGS=(--vm_accel=kvm)
      echo "demo: vm runs with KVM"
    fi
  else
    echo "demo: no QEMU or no $BUILD/vm-guest (make vm-image); skipping the vm sweep"
    VMS_ON=0
  fi
fi

# The workload suite's data sets, generated in their real formats (kept
# between demos: generating again is skipped while the marker says done).
DATA=var/data
if ! grep -qs "complete: yes" "$DATA/cifar10-mini/.powersweep-dataset"; then
  rm -rf "$DATA/cifar10-mini"
  "$BIN_WORKLOAD" gen-dataset --format=cifar10 --out="$DATA/cifar10-mini" \
    --train-count=320 --test-count=64 --seed=1 >"$OUT/logs/gen-cifar10-mini.log" 2>&1
fi
if ! grep -qs "complete: yes" "$DATA/gld-mini/.powersweep-dataset"; then
  rm -rf "$DATA/gld-mini"
  "$BIN_WORKLOAD" gen-dataset --format=image-folder --out="$DATA/gld-mini" \
    --train-count=160 --test-count=48 --classes=10 --seed=1 >"$OUT/logs/gen-gld-mini.log" 2>&1
fi
echo "demo: data sets $DATA/cifar10-mini (CIFAR-10 binary) and $DATA/gld-mini (JPEG folders) ready"
DATASETS="fashion-mnist=/usr/share/datasets/fashion-mnist,cifar10-mini=$DATA/cifar10-mini,gld-mini=$DATA/gld-mini"

# Each agent gets its own CPUs when there are enough (2 per agent, as the
# quickstart's largest power mode uses 2 cores); otherwise they share all.
for i in $(seq 0 $((AGENTS - 1))); do
  cpus=""
  if [ $((AGENTS * 2)) -le "$CORES" ]; then cpus="--cpus=$((2 * i))-$((2 * i + 1))"; fi
  "$BIN_AGENT" --controller="$ADDR" --device_id="host-$i" $cpus \
    --workload_bin="$BIN_WORKLOAD" --work_dir="$OUT/agent-host-$i" \
    --dataset="$DATASETS" \
    "${AGENT_CONTAINER_FLAGS[@]}" "${AGENT_VM_FLAGS[@]}" \
    >"$OUT/logs/agent-host-$i.log" 2>&1 &
  pids+=($!)
done
# Twin agents: simulated Jetsons, no workload process; 1 simulated second
# takes 10 ms.
for t in "${TWINS[@]}"; do
  IFS=: read -r cls inst slowdown <<<"$t"
  "$BIN_AGENT" --controller="$ADDR" --platform=twin --device_class="$cls" \
    --instance="$inst" --twin_seed=42 --twin_time_scale=0.01 \
    --twin_slowdown="${slowdown:-1}" \
    --work_dir="$OUT/agent-$cls-twin-$inst" \
    >"$OUT/logs/agent-$cls-twin-$inst.log" 2>&1 &
  pids+=($!)
done
CLI=("$BIN_CLI" --controller="$ADDR")
for _ in $(seq 100); do
  n=$("${CLI[@]}" devices --format=csv 2>/dev/null | grep -c ',yes,' || true)
  [ "$n" -ge $((AGENTS + ${#TWINS[@]})) ] && break
  sleep 0.1
done
if [ $((AGENTS * 2)) -le "$CORES" ]; then
  echo "demo: $AGENTS host agent(s) connected, each with 2 of this machine's $CORES cores to itself"
else
  echo "demo: $AGENTS host agents connected; they SHARE this machine's $CORES cores, so their runs interfere"
fi
[ ${#TWINS[@]} -gt 0 ] && echo "demo: ${#TWINS[@]} twin agents connected (simulated: two orin-agx, one xavier-nx, four xavier-agx of which xavier-agx-twin-3 is 15% slow)"
"${CLI[@]}" devices
echo

SWEEP=$("${CLI[@]}" submit --quiet "$SWEEP_FILE")
echo "demo: submitted $SWEEP_FILE as sweep $SWEEP"
# One frame of the live view (`powersweep top` refreshes until Ctrl-C);
# heartbeats bring each agent's newest sample within a few seconds.
sleep 3
echo "demo: the fleet now (powersweep top --iterations=1):"
status=0
"${CLI[@]}" top --iterations=1 || status=$?
echo
"${CLI[@]}" watch "$SWEEP" || status=$?
echo
echo "Per-run results:"
"${CLI[@]}" runs --sweep="$SWEEP"
echo
echo "Summary over repetitions (mean ± sd):"
"${CLI[@]}" summary --sweep="$SWEEP"
echo
"${CLI[@]}" export --sweep="$SWEEP" --out="$OUT/export"
echo

SUITE_SWEEP=$("${CLI[@]}" submit --quiet "$SUITE_SWEEP_FILE")
echo "demo: submitted $SUITE_SWEEP_FILE as sweep $SUITE_SWEEP (ResNet-18 and MobileNetV3 on generated CIFAR-10 and JPEG sets)"
"${CLI[@]}" watch "$SUITE_SWEEP" || status=$?
echo
echo "Workload suite, per run (workers: loader workers, then 'drop' when the page cache was dropped per epoch):"
"${CLI[@]}" runs --sweep="$SUITE_SWEEP"
echo
"${CLI[@]}" export --sweep="$SUITE_SWEEP" --out="$OUT/export-suite"
echo "Per epoch (from $OUT/export-suite/minibatches.csv): stall, compute and the data set's page-cache residency at the epoch's start:"
python3 - "$OUT/export-suite" <<'PY'
import csv, os, sys
d = sys.argv[1]
runs = {r["run_id"]: r for r in csv.DictReader(open(os.path.join(d, "runs.csv")))}
cells = {}
for m in csv.DictReader(open(os.path.join(d, "minibatches.csv"))):
    c = cells.setdefault((m["run_id"], m["epoch"]), [0, 0.0, 0.0, ""])
    c[0] += 1; c[1] += float(m["stall_s"]); c[2] += float(m["compute_s"])
    if m["page_cache_resident"]:
        c[3] = "%.0f%%" % (100 * float(m["page_cache_resident"]))
print("%4s %-12s %-6s %-5s %5s %4s %9s %11s %9s" % ("run", "model", "task", "cache", "epoch", "mbs", "stall_s", "compute_s", "resident"))
for (run, epoch), (n, stall, comp, res) in sorted(cells.items(), key=lambda kv: (int(kv[0][0]), int(kv[0][1]))):
    r = runs[run]
    print("%4s %-12s %-6s %-5s %5s %4d %9.3f %11.3f %9s" % (run, r["model"], r["task"], r["page_cache"], epoch, n, stall, comp, res or "-"))
PY
echo

if [ "$CONTAINERS_ON" = 1 ]; then
  CSWEEP=$("${CLI[@]}" submit --quiet "$CONTAINER_SWEEP_FILE")
  echo "demo: submitted $CONTAINER_SWEEP_FILE as sweep $CSWEEP (native vs container)"
  "${CLI[@]}" watch "$CSWEEP" || status=$?
  echo
  echo "Native vs container, per metric (mean and 95% CI per side, Welch's t-test):"
  "${CLI[@]}" compare --sweep="$CSWEEP"
  echo
  echo "Their kernel event traces (the Appl. Sci. '23 study's; docs/traces.md):"
  "${CLI[@]}" traces --sweep="$CSWEEP" --top=5 || status=$?
  echo
fi

# The CLOSER'18 study at demo size: ResNet-50 and AlexNet
# training on synthetic data (no I/O) vs a real JPEG folder, natively and
# (with an engine) in containers.
CLOSER_FILE=$CLOSER_SWEEP_FILE
if [ "$CONTAINERS_ON" != 1 ]; then
  CLOSER_FILE=$OUT/closer18-native.yaml
  sed 's/^runtimes: .*/runtimes: [native]/' "$CLOSER_SWEEP_FILE" >"$CLOSER_FILE"
fi
CLOSER_SWEEP=$("${CLI[@]}" submit --quiet "$CLOSER_FILE")
echo "demo: submitted $CLOSER_FILE as sweep $CLOSER_SWEEP (CLOSER'18: synthetic vs real data$([ "$CONTAINERS_ON" = 1 ] && echo ', native vs container'))"
"${CLI[@]}" watch "$CLOSER_SWEEP" || status=$?
echo
echo "CLOSER'18: real data vs synthetic data per model (synthetic is the baseline):"
"${CLI[@]}" compare --sweep="$CLOSER_SWEEP" --by=data || status=$?
echo
echo "demo: the CLOSER'18 figure (throughput on synthetic vs real data):"
"${CLI[@]}" report --sweep="$CLOSER_SWEEP" --out="$OUT/report-closer18" || status=$?
echo

if [ "$VMS_ON" = 1 ]; then
  VM_SWEEP=$("${CLI[@]}" submit --quiet "$VM_SWEEP_FILE")
  echo "demo: submitted $VM_SWEEP_FILE as sweep $VM_SWEEP (native vs VM, ${AGENT_VM_FLAGS[*]})"
  "${CLI[@]}" watch "$VM_SWEEP" || status=$?
  echo
  echo "Native vs VM, per metric (the VM's CPU time is the whole QEMU process's):"
  "${CLI[@]}" compare --sweep="$VM_SWEEP" --by=runtime --sides=native,vm || status=$?
  echo
fi

if [ ${#TWINS[@]} -gt 0 ]; then
  TWIN_SWEEP=$("${CLI[@]}" submit --quiet "$TWIN_SWEEP_FILE")
  echo "demo: submitted $TWIN_SWEEP_FILE as sweep $TWIN_SWEEP (simulated Jetsons)"
  "${CLI[@]}" watch "$TWIN_SWEEP" || status=$?
  echo
  echo "Twin summary over repetitions (mean ± sd; time and energy SIMULATED):"
  "${CLI[@]}" summary --sweep="$TWIN_SWEEP"
  echo
  "${CLI[@]}" export --sweep="$TWIN_SWEEP" --out="$OUT/export-twin"
  echo

  # Time and energy models: profile the 8 modes plan-profiling proposes on
  # the two Orin AGX twins, fit, and ask for the least-energy mode whose
  # predicted epoch time is within a budget.
  "${CLI[@]}" plan-profiling --device-class=orin-agx --modes=8 \
    --workload=lenet5 --batch-size=64 --repetitions=2 --minibatches=200 \
    --out="$OUT/orin-profiling.yaml"
  PLAN_SWEEP=$("${CLI[@]}" submit --quiet "$OUT/orin-profiling.yaml")
  echo "demo: submitted the profiling plan $OUT/orin-profiling.yaml as sweep $PLAN_SWEEP (simulated Orin AGX)"
  "${CLI[@]}" watch "$PLAN_SWEEP" || status=$?
  echo
  "${CLI[@]}" fit --sweep="$PLAN_SWEEP" || status=$?
  echo
  echo "demo: the least-energy Orin AGX mode for LeNet-5 training with a predicted epoch under 1 s:"
  "${CLI[@]}" best --workload=lenet5 --device-class=orin-agx --batch-size=64 \
    --max-epoch-time=1s || status=$?
  echo
  echo "demo: figures of the profiling sweep (Pareto front measured and predicted, minibatch time, energy, held-out errors):"
  "${CLI[@]}" report --sweep="$PLAN_SWEEP" --out="$OUT/report" || status=$?
  echo

  # Device-instance variability: the same workload and mode on each of the
  # four Xavier AGX twins, repeated over time.
  VAR_SWEEP=$("${CLI[@]}" submit --quiet "$VARIABILITY_SWEEP_FILE")
  echo "demo: submitted $VARIABILITY_SWEEP_FILE as sweep $VAR_SWEEP (every run on each of the four simulated Xavier AGX)"
  "${CLI[@]}" watch "$VAR_SWEEP" || status=$?
  echo
  echo "Device-instance variability (SIMULATED boards; xavier-agx-twin-3 was started 15% slow):"
  "${CLI[@]}" variability --sweep="$VAR_SWEEP" --save-offsets || status=$?
  echo
fi
echo "demo: database $OUT/powersweep.db (open it with: sqlite3 $OUT/powersweep.db)"
echo "demo: logs in $OUT/logs/, CSV exports in $OUT/export/"
[ -f "$OUT/report-closer18/index.html" ] && echo "demo: the CLOSER'18 figures in $OUT/report-closer18/index.html"
[ -f "$OUT/report/index.html" ] && echo "demo: figures in $OUT/report/index.html (open it in a browser; PNG, SVG and CSV per figure beside it)"
exit $status
