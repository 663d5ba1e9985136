#!/bin/bash
# gpu-check.sh: powersweep on a machine with an NVIDIA GPU, end to end
# (docs/gpu.md). Builds the controller, agent, workload and CLI against a
# CUDA LibTorch, starts a controller and a host agent with NVML, sweeps
# LeNet-5 and ResNet-18 (train and infer, synthetic data) over GPU power
# limits and locked SM clocks, fits models, prints the Pareto front, and
# runs the same work as a PyTorch loop on the same GPU for comparison.
#
# Usage: infra/scripts/gpu-check.sh [--plan-only] [--out DIR]
#          [--sm-clocks MHZ,MHZ,...] [--power-limits W,W,...]
#          [--build DIR] [--minibatches N] [--python PY]
#
#   --plan-only      write the sweep file to DIR/gpu-sweep.yaml and stop
#                    (no GPU, build or processes needed; needs the clocks
#                    and limits given, else read from nvidia-smi)
#   --out DIR        where everything goes (default ./gpu-check-out)
#   --sm-clocks      SM clocks to lock, MHz (default: 3 of the GPU's
#                    supported clocks: lowest, middle, highest)
#   --power-limits   power limits, W (default: min, middle, max of the
#                    GPU's range)
#   --build DIR      build folder (default build-gpu)
#   --minibatches N  per run (default 200)
#   --python PY      Python with torch (CUDA) for Torch_DIR and the
#                    reference loop (default: python3)
#
# GPU knobs need root (NVML answers "Insufficient Permissions" otherwise):
# run as root, or the sweep runs at the GPU's own settings only. The agent
# sets the GPU back after each run and at exit; this script also resets
# locked clocks and the power limit it found when it exits.
set -euo pipefail

out=./gpu-check-out
build=build-gpu
clocks=""
limits=""
minibatches=200
python=python3
plan_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --plan-only) plan_only=1 ;;
    --out) out=$2; shift ;;
    --build) build=$2; shift ;;
    --sm-clocks) clocks=$2; shift ;;
    --power-limits) limits=$2; shift ;;
    --minibatches) minibatches=$2; shift ;;
    --python) python=$2; shift ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $minibatches in
  ''|*[!0-9]*) echo "gpu-check: --minibatches must be a positive integer" >&2
               exit 2 ;;
esac
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../.." && pwd)

# Three values of a comma list: its lowest, middle and highest.
three_of() {
  tr ',' '\n' <<<"$1" | sed '/^$/d' | sort -n | uniq | awk '
    { v[NR] = $1 } END {
      if (NR == 0) exit 1
      print v[1]; if (NR > 2) print v[int((NR + 1) / 2)]; if (NR > 1) print v[NR] }'
}

if [ -z "$clocks" ]; then
  command -v nvidia-smi >/dev/null || {
    echo "gpu-check: no nvidia-smi: give --sm-clocks and --power-limits" >&2
    exit 1; }
  clocks=$(nvidia-smi -i 0 --query-supported-clocks=graphics \
             --format=csv,noheader,nounits | tr -d ' ' | paste -sd,)
fi
if [ -z "$limits" ]; then
  command -v nvidia-smi >/dev/null || {
    echo "gpu-check: no nvidia-smi: give --power-limits" >&2; exit 1; }
  read -r lo hi < <(nvidia-smi -i 0 \
      --query-gpu=power.min_limit,power.max_limit \
      --format=csv,noheader,nounits | tr -d ',' )
  lo=${lo%.*}; hi=${hi%.*}
  limits="$lo,$(( (lo + hi) / 2 )),$hi"
fi
mapfile -t clock_set < <(three_of "$clocks") || true
mapfile -t limit_set < <(three_of "$limits") || true
if [ ${#clock_set[@]} -eq 0 ] || [ ${#limit_set[@]} -eq 0 ]; then
  echo "gpu-check: no SM clocks or power limits to sweep" \
       "(clocks '$clocks', limits '$limits')" >&2
  exit 1
fi
for v in "${clock_set[@]}" "${limit_set[@]}"; do
  case $v in
    ''|*[!0-9]*) echo "gpu-check: '$v' is not a whole number" >&2; exit 2 ;;
  esac
done

sweep=$out/gpu-sweep.yaml
{
  echo "# Written by infra/scripts/gpu-check.sh: host GPU power modes."
  echo "name: gpu-check"
  echo "device_classes: [host]"
  echo "workloads: [lenet5/synthetic, resnet18/synthetic]"
  echo "tasks: [train, infer]"
  echo "batch_sizes: [64]"
  echo "loader_workers: [0]"
  echo "power_modes:"
  echo "  - {}"
  for w in "${limit_set[@]}"; do echo "  - {gpu_power_limit_w: $w}"; done
  for c in "${clock_set[@]}"; do echo "  - {gpu_freq_mhz: $c}"; done
  echo "runtimes: [native]"
  echo "repetitions: 2"
  echo "minibatches: $minibatches"
  echo "seed: 42"
  echo "telemetry_hz: 20"
  echo "timeout_s: 600"
} >"$sweep"
echo "gpu-check: sweep file $sweep (${#limit_set[@]} power limits:" \
     "${limit_set[*]} W; ${#clock_set[@]} SM clocks: ${clock_set[*]} MHz)"
[ $plan_only -eq 1 ] && exit 0

# ---- facts of the machine
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,power.limit,power.default_limit \
    --format=csv 2>&1 || true
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda",
    torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
    "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'
} | tee "$out/facts.txt"

# ---- restore on exit, whatever the agent did
orig_limit=$(nvidia-smi -i 0 --query-gpu=power.limit --format=csv,noheader,nounits \
               2>/dev/null | tr -d ' ' || true)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$(id -u)" = 0 ]; then
    nvidia-smi -i 0 -rgc >/dev/null 2>&1 || true
    [ -n "$orig_limit" ] && nvidia-smi -i 0 -pl "${orig_limit%.*}" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

# ---- build against the CUDA LibTorch
torch_dir=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')/Torch
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$torch_dir" \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH"} >"$out/cmake.log"
cmake --build "$build" -j"$(nproc)" --target powersweep-controller \
  powersweep-agent powersweep-workload powersweep >"$out/build.log" 2>&1 || {
  echo "gpu-check: build failed, see $out/build.log" >&2; tail -20 "$out/build.log" >&2
  exit 1; }

# ---- a controller and a host agent with NVML
port_file=$out/controller.port
rm -f "$port_file" "$out/powersweep.db"*
"$build/controller/powersweep-controller" --listen=127.0.0.1:0 \
  --port_file="$port_file" --db="$out/powersweep.db" >"$out/controller.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.2; done
addr=127.0.0.1:$(cat "$port_file")
"$build/agent/powersweep-agent" --controller="$addr" --device_id=gpu-host \
  --nvml_library=libnvidia-ml.so.1 --work_dir="$out/agent" >"$out/agent.log" 2>&1 &
pids+=($!)
cli=("$build/controller/cli/powersweep" --controller="$addr")
"$build/agent/powersweep-agent" probe --nvml_library=libnvidia-ml.so.1 \
  | tee "$out/probe.txt"
for _ in $(seq 100); do
  "${cli[@]}" devices 2>/dev/null | grep -q gpu-host && break; sleep 0.3
done
"${cli[@]}" devices --modes gpu-host | tee "$out/modes.txt"

# ---- the sweep, the models, the front
id=$("${cli[@]}" submit "$sweep")
echo "gpu-check: sweep $id"
"${cli[@]}" watch "$id" || true
"${cli[@]}" summary --sweep "$id" | tee "$out/summary.txt"
"${cli[@]}" runs --sweep "$id" --format csv >"$out/runs.csv"
"${cli[@]}" fit --sweep "$id" | tee "$out/fit.txt" || true
for w in lenet5 resnet18; do
  for t in train infer; do
    "${cli[@]}" pareto --workload "$w" --task "$t" --device-class host \
      --measured | tee "$out/pareto-$w-$t.txt" || true
  done
done

# ---- the same work as a PyTorch loop on the same GPU
for w in lenet5 resnet18; do
  for t in train infer; do
    "$python" "$root/workloads/bench/pytorch_reference.py" --model "$w" \
      --task "$t" --dataset-path synthetic --batch-size 64 --workers 0 \
      --threads "$(nproc)" --minibatches "$minibatches" --warmup 3 \
      --device cuda | tee -a "$out/pytorch.jsonl"
  done
done
echo "gpu-check: done; results in $out (docs/gpu.md says how to read them)"
