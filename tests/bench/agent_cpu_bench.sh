#!/usr/bin/env bash
# agent_cpu_bench.sh BUILD_DIR: the whole powersweep-agent process's CPU
# (utime + stime of the agent, not of its workload) as a share of one core:
# idle (connected, heartbeating) for 20 s, then during one real LeNet-5
# training run on this host at 10 Hz and at 100 Hz telemetry (duration_s
# RUN_S, default 20, each): in steady state (from 5 s into the run to 3 s
# before its end) and over the whole run with its start and end. Prints
# the figures; asserts nothing (a benchmark).
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
DIR=$(mktemp -d /tmp/agent-cpu-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DIR"' EXIT
TICK=$(getconf CLK_TCK)
cpu_s() { awk -v t="$TICK" '{ sub(/.*\) /, ""); split($0, f, " "); printf "%.3f", (f[12] + f[13]) / t }' "/proc/$1/stat"; }

"$BUILD/controller/powersweep-controller" --listen=127.0.0.1:0 --db="$DIR/db" \
  --port_file="$DIR/port" >"$DIR/controller.log" 2>&1 &
for _ in $(seq 100); do [ -s "$DIR/port" ] && break; sleep 0.1; done
ADDR="127.0.0.1:$(cat "$DIR/port")"
"$BUILD/agent/powersweep-agent" --controller="$ADDR" --device_id=bench-host \
  --work_dir="$DIR/agent" --workload_bin="$BUILD/workloads/powersweep-workload" \
  --cpus=0 --log_level=warning >"$DIR/agent.log" 2>&1 &
AGENT=$!
sleep 3
c0=$(cpu_s $AGENT); sleep 20; c1=$(cpu_s $AGENT)
echo "agent idle (connected): $(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.3f", (b-a)/20*100}')% of a core"

for hz in 10 100; do
  cat >"$DIR/sweep-$hz.yaml" <<YAML
name: agent-cpu-$hz
device_classes: [host]
models: [lenet5]
datasets: [fashion-mnist]
tasks: [train]
batch_sizes: [64]
loader_workers: [0]
power_modes: [{cpu_cores: 1}]
runtimes: [native]
repetitions: 1
duration_s: ${RUN_S:-20}
seed: 1
telemetry_hz: $hz
timeout_s: 120
YAML
  c0=$(cpu_s $AGENT); t0=$(date +%s.%N)
  out=$("$BUILD/controller/cli/powersweep" --controller="$ADDR" submit "$DIR/sweep-$hz.yaml")
  id=$(grep -o 'sweep [0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*')
  # Steady state: from 5 s into the run to 3 s before its end.
  sleep 5; s0=$(cpu_s $AGENT); u0=$(date +%s.%N)
  sleep $(( ${RUN_S:-20} - 8 )); s1=$(cpu_s $AGENT); u1=$(date +%s.%N)
  "$BUILD/controller/cli/powersweep" --controller="$ADDR" watch "$id" >/dev/null 2>&1
  c1=$(cpu_s $AGENT); t1=$(date +%s.%N)
  echo "agent during a LeNet-5 training run at $hz Hz: $(awk -v a="$s0" -v b="$s1" -v s="$u0" -v e="$u1" 'BEGIN{printf "%.3f", (b-a)/(e-s)*100}')% of a core in steady state, $(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" 'BEGIN{printf "%.3f", (b-a)/(e-s)*100}')% over the whole run ($(awk -v s="$t0" -v e="$t1" 'BEGIN{printf "%.1f", e-s}') s with start and end)"
done
