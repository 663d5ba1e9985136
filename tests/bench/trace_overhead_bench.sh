#!/usr/bin/env bash
# trace_overhead_bench.sh BUILD_DIR: what kernel event traces cost a run.
# A real controller and one host agent (root, for perf_event_open) run the
# same LeNet-5 training run (batch 64, one core, no loader workers,
# MINIBATCHES minibatches, default 400) as two sweeps per round: without
# traces and with `traces: [syscalls, block, writeback]` (TRACES to
# change), alternating for ROUNDS rounds (default 3). Prints each run's
# mean minibatch time (end to end, minibatches 10 on) and the agent's
# tracer CPU time, then the medians and their ratio. Asserts nothing (a
# benchmark); goal: traced / untraced <= 1.03.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
ROUNDS=${ROUNDS:-3}
MINIBATCHES=${MINIBATCHES:-400}
TRACES=${TRACES:-[syscalls, block, writeback]}
DIR=$(mktemp -d /tmp/trace-overhead-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DIR"' EXIT

"$BUILD/controller/powersweep-controller" --listen=127.0.0.1:0 --db="$DIR/db" \
  --port_file="$DIR/port" >"$DIR/controller.log" 2>&1 &
for _ in $(seq 100); do [ -s "$DIR/port" ] && break; sleep 0.1; done
ADDR="127.0.0.1:$(cat "$DIR/port")"
"$BUILD/agent/powersweep-agent" --controller="$ADDR" --device_id=bench-host \
  --work_dir="$DIR/agent" --workload_bin="$BUILD/workloads/powersweep-workload" \
  --cpus=0 --log_level=warning >"$DIR/agent.log" 2>&1 &
sleep 3

sweep() {  # sweep NAME TRACES_LINE -> sweep id
  cat >"$DIR/$1.yaml" <<YAML
name: $1
device_classes: [host]
models: [lenet5]
datasets: [fashion-mnist]
tasks: [train]
batch_sizes: [64]
loader_workers: [0]
power_modes: [{cpu_cores: 1}]
runtimes: [native]
minibatches: $MINIBATCHES
seed: 1
timeout_s: 600
$2
YAML
  local out id
  out=$("$BUILD/controller/cli/powersweep" --controller="$ADDR" submit "$DIR/$1.yaml")
  id=$(grep -o 'sweep [0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*')
  "$BUILD/controller/cli/powersweep" --controller="$ADDR" watch "$id" >/dev/null 2>&1 || true
  echo "$id"
}

measure() {  # measure SWEEP_ID -> "mean_ms tracer_cpu_s state"
  /usr/bin/python3 - "$DIR/db" "$1" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
sid = int(sys.argv[2])
ms, = db.execute(
    "select avg(m.e2e_s) * 1000 from minibatches m join runs r"
    " on r.run_id = m.run_id and r.attempt = m.attempt"
    " where r.sweep_id = ? and m.idx >= 10", (sid,)).fetchone()
state, result = db.execute(
    "select r.state, res.result_json from runs r left join run_results res"
    " on res.run_id = r.run_id and res.attempt = r.attempt"
    " where r.sweep_id = ?", (sid,)).fetchone()
traces = json.loads(result or "{}").get("traces", {})
print("%.3f %.3f %s %d" % (ms or 0, traces.get("tracerCpuS", traces.get("tracer_cpu_s", 0)),
                           state, len(traces.get("missing", []))))
PY
}

plain=(); traced=()
for r in $(seq "$ROUNDS"); do
  a=$(measure "$(sweep "plain-$r" "")")
  b=$(measure "$(sweep "traced-$r" "traces: $TRACES")")
  echo "round $r: without traces $(cut -d' ' -f1 <<<"$a") ms/minibatch ($(cut -d' ' -f3 <<<"$a")); with $TRACES $(cut -d' ' -f1 <<<"$b") ms/minibatch ($(cut -d' ' -f3 <<<"$b"), tracer CPU $(cut -d' ' -f2 <<<"$b") s, $(cut -d' ' -f4 <<<"$b") traces missing)"
  plain+=("$(cut -d' ' -f1 <<<"$a")"); traced+=("$(cut -d' ' -f1 <<<"$b")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mp=$(median "${plain[@]}"); mt=$(median "${traced[@]}")
echo "median over $ROUNDS rounds: without traces $mp ms, with $mt ms: traced / untraced $(awk -v a="$mp" -v b="$mt" 'BEGIN{printf "%.3f", b/a}') (goal <= 1.03)"
