#!/usr/bin/env python3
"""Benchmark: do `powersweep best` answers hold under their budgets? (issue 24)

On twin devices (simulated Jetsons, docs/twin-model.md) it starts a real
controller and one twin agent per workload class, and for each workload:

  1. profiles the 8 modes `plan-profiling --modes 8` proposes (2
     repetitions) and fits a model (`fit`);
  2. measures the truth: 100 further modes (`plan-profiling --modes 100
     --after-sweep`, one run each);
  3. over a grid of budgets (epoch time 1.1x to 3x the fastest measured
     mode's, mean power between the lowest and highest measured), asks
     `best` three ways, all of the same stored model (--model-id):
     plain, --conservative, and --verify 3 (runs its 3 candidates, refits,
     answers from the measured modes);
  4. runs every mode plain and conservative picked that was not measured
     (one run each) and judges each answer by its measured value: met (the
     measured value is within the budget) and the gap to the best measured
     mode within the budget (energy for a time budget, epoch time for a
     power budget), over every mode measured for this workload.

It prints one line per answer and a summary per method: budgets met, the
worst and median gap, and the runs each answer cost (8 x 2 profiled runs
are shared; --verify adds 3). One agent per run, so the comparison has no
device-instance noise. Twin figures are simulated, and so are these.

  tests/bench/best_budget_bench.py [--build build] [--class xavier-agx]
      [--workloads lenet5/fashion-mnist/64,resnet18/cifar10/16,...]

This is a benchmark, not a test: it asserts nothing.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

TIME_FACTORS = (1.1, 1.25, 1.5, 2.0, 3.0)
POWER_STEPS = 5


class Fleet:
    def __init__(self, build, device_class, workdir):
        self.build, self.dir = build, workdir
        self.db = os.path.join(workdir, "powersweep.db")
        port_file = os.path.join(workdir, "port")
        self.procs = [subprocess.Popen(
            [os.path.join(build, "controller/powersweep-controller"),
             "--listen=127.0.0.1:0", "--port_file=" + port_file,
             "--db=" + self.db],
            stdout=subprocess.DEVNULL, stderr=open(
                os.path.join(workdir, "controller.log"), "w"))]
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        self.addr = "127.0.0.1:" + open(port_file).read().strip()
        self.procs.append(subprocess.Popen(
            [os.path.join(build, "agent/powersweep-agent"),
             "--controller=" + self.addr, "--platform=twin",
             "--device_class=" + device_class, "--instance=0",
             "--twin_seed=1", "--twin_time_scale=0",
             "--device_id=%s-twin-0" % device_class, "--log_level=warning"],
            stdout=subprocess.DEVNULL, stderr=open(
                os.path.join(workdir, "agent.log"), "w")))
        time.sleep(1.5)

    def cli(self, *args, check=True):
        r = subprocess.run(
            [os.path.join(self.build, "controller/cli/powersweep"),
             "--controller=" + self.addr] + list(args),
            capture_output=True, text=True)
        if check and r.returncode != 0:
            sys.exit("powersweep %s: exit %d\n%s%s" % (
                " ".join(args), r.returncode, r.stdout, r.stderr))
        return r

    def submit_and_wait(self, sweep_file):
        sweep = int(self.cli("--quiet", "submit", sweep_file).stdout.strip())
        self.cli("watch", str(sweep))
        return sweep

    def close(self):
        for p in reversed(self.procs):
            p.terminate()
            p.wait()


def knobs(row):
    """A mode's key (cores, kHz, Hz, Hz) from a `best --format json` row."""
    return (int(row["cores"]), round(float(row["cpu_mhz"]) * 1000),
            round(float(row["gpu_mhz"]) * 1e6),
            round(float(row["mem_mhz"]) * 1e6))


def measured_modes(fleet, sweeps, per_epoch):
    """Mode -> (epoch time s, epoch energy J, mean power W), means over the
    done runs of `sweeps`, read from the SQLite file: the mean minibatch
    time and the minibatches' phase energy, as the models count them."""
    db = sqlite3.connect("file:%s?mode=ro" % fleet.db, uri=True)
    rows = db.execute(
        "SELECT r.cpu_cores, r.cpu_freq_khz, r.gpu_freq_hz, r.mem_freq_hz,"
        " AVG(m.e2e_s), COUNT(m.idx),"
        " res.energy_stall_j + res.energy_compute_j"
        " FROM runs r JOIN run_results res"
        " ON res.run_id = r.run_id AND res.attempt = r.attempt"
        " JOIN minibatches m ON m.run_id = r.run_id AND m.attempt = r.attempt"
        " WHERE r.state = 'done' AND r.sweep_id IN (%s)"
        " GROUP BY r.run_id" % ",".join(str(s) for s in sweeps)).fetchall()
    db.close()
    acc = {}
    for cores, khz, gpu, mem, mean_s, n, phases in rows:
        acc.setdefault((cores, khz, gpu, mem), []).append(
            (mean_s * per_epoch, phases / n * per_epoch))
    out = {}
    for k, v in acc.items():
        t = statistics.mean(x[0] for x in v)
        e = statistics.mean(x[1] for x in v)
        out[k] = (t, e, e / t)
    return out


def write_modes_sweep(path, name, device_class, w, modes):
    model, data, batch = w
    with open(path, "w") as f:
        f.write("name: %s\ndevice_classes: [%s]\nmodels: [%s]\n"
                "datasets: [%s]\ntasks: [train]\nbatch_sizes: [%d]\n"
                "loader_workers: [0]\nruntimes: [native]\nrepetitions: 1\n"
                "minibatches: 100\nseed: 1\npower_modes:\n" % (
                    name, device_class, model, data, batch))
        for c, khz, gpu, mem in modes:
            f.write("  - {cpu_cores: %d, cpu_freq_khz: %d, gpu_freq_hz: %d, "
                    "mem_freq_hz: %d}\n" % (c, khz, gpu, mem))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--class", dest="cls", default="xavier-agx")
    p.add_argument("--workloads", default="lenet5/fashion-mnist/64,"
                   "resnet18/cifar10/16,mobilenetv3/gld23k/16,"
                   "vgg19/cifar10/16")
    a = p.parse_args()
    workloads = [(m, d, int(b)) for m, d, b in
                 (x.split("/") for x in a.workloads.split(","))]
    results = {"plain": [], "conservative": [], "verify": []}
    for w in workloads:
        with tempfile.TemporaryDirectory(prefix="best-bench-") as tmp:
            fleet = Fleet(a.build, a.cls, tmp)
            try:
                run_workload(fleet, a.cls, w, tmp, results)
            finally:
                fleet.close()
    print("\nmethod        budgets met   worst gap  median gap  runs per answer")
    for method, rows in results.items():
        if not rows:
            continue
        met = sum(r["met"] for r in rows)
        gaps = [r["gap"] for r in rows if r["met"]]
        print("%-12s  %3d of %-3d   %8.1f%%  %9.1f%%  %s" % (
            method, met, len(rows), max(gaps) if gaps else float("nan"),
            statistics.median(gaps) if gaps else float("nan"),
            "16 profiled + 3 verification" if method == "verify"
            else "16 profiled"))


def run_workload(fleet, cls, w, tmp, results):
    model, data, batch = w
    plan = os.path.join(tmp, "plan.yaml")
    fleet.cli("plan-profiling", "--device-class", cls, "--modes", "8",
              "--workload", model, "--dataset", data, "--batch-size",
              str(batch), "--minibatches", "100", "--repetitions", "2",
              "--out", plan)
    profiled = fleet.submit_and_wait(plan)
    fit = json.loads(fleet.cli("fit", "--sweep", str(profiled), "--format",
                               "json").stdout)
    model_id = str(fit[0]["model_id"])
    truth_plan = os.path.join(tmp, "truth.yaml")
    fleet.cli("plan-profiling", "--device-class", cls, "--modes", "100",
              "--after-sweep", str(profiled), "--workload", model,
              "--dataset", data, "--batch-size", str(batch),
              "--minibatches", "100", "--repetitions", "1", "--out",
              truth_plan)
    truth = fleet.submit_and_wait(truth_plan)
    per_epoch = per_epoch_minibatches(fleet, model_id)
    sweeps = [profiled, truth]
    meas = measured_modes(fleet, sweeps, per_epoch)
    fastest = min(v[0] for v in meas.values())
    lo_w = min(v[2] for v in meas.values())
    hi_w = max(v[2] for v in meas.values())
    budgets = [("--max-epoch-time", "%.4fs" % (f * fastest), f * fastest)
               for f in TIME_FACTORS]
    budgets += [("--max-power", "%.3fW" % (lo_w + (hi_w - lo_w) * k /
                                           (POWER_STEPS + 1)),
                 lo_w + (hi_w - lo_w) * k / (POWER_STEPS + 1))
                for k in range(1, POWER_STEPS + 1)]
    answers = []
    for flag, text, limit in budgets:
        common = ["best", "--model-id", model_id, flag, text]
        for method, extra in (("plain", []), ("conservative",
                                              ["--conservative"])):
            r = fleet.cli(*(common + extra + ["--format", "json"]),
                          check=False)
            if r.returncode != 0:
                answers.append((method, flag, limit, None))
                continue
            answers.append((method, flag, limit, knobs(json.loads(
                r.stdout)[0])))
        r = fleet.cli(*(common + ["--verify", "3"]), check=False)
        mode = re.search(r"verified best mode: cores=(\d+) cpu=([\d.]+)MHz "
                         r"gpu=([\d.]+)MHz mem=([\d.]+)MHz", r.stdout)
        if not mode:
            print("best --verify %s %s: exit %d\n%s%s" % (
                flag, text, r.returncode, r.stdout[-600:], r.stderr[-600:]))
        verify_sweep = re.search(r"verification sweep (\d+)", r.stdout)
        if verify_sweep:
            sweeps.append(int(verify_sweep.group(1)))
        answers.append(("verify", flag, limit, None if not mode else (
            int(mode.group(1)), round(float(mode.group(2)) * 1000),
            round(float(mode.group(3)) * 1e6),
            round(float(mode.group(4)) * 1e6))))
    # Run what was picked and not measured yet.
    meas = measured_modes(fleet, sweeps, per_epoch)
    missing = sorted({a[3] for a in answers if a[3] and a[3] not in meas})
    if missing:
        picks = os.path.join(tmp, "picks.yaml")
        write_modes_sweep(picks, "picks", cls, w, missing)
        sweeps.append(fleet.submit_and_wait(picks))
        meas = measured_modes(fleet, sweeps, per_epoch)
    for method, flag, limit, mode in answers:
        time_budget = flag == "--max-epoch-time"
        within = {k: v for k, v in meas.items()
                  if (v[0] if time_budget else v[2]) <= limit}
        if not within:
            continue
        best_mode, best_v = min(within.items(),
                                key=lambda kv: kv[1][1 if time_budget else 0])
        best_value = best_v[1] if time_budget else best_v[0]
        if mode is None or mode not in meas:
            results[method].append({"met": False, "gap": float("nan")})
            print("%-7s %-12s %-16s %-12s no answer" % (
                model, method, flag, "%.4g" % limit))
            continue
        v = meas[mode]
        got = v[0] if time_budget else v[2]
        value = v[1] if time_budget else v[0]
        met = got <= limit * 1.0001
        gap = 100 * (value / best_value - 1)
        results[method].append({"met": met, "gap": gap})
        print("%-7s %-12s %-16s %-12s measured %-10.4g %s gap %+.1f%%  "
              "picked %s, best measured %s" % (
                  model, method, flag, "%.4g" % limit, got,
                  "met   " if met else "MISSED", gap, mode_text(mode),
                  mode_text(best_mode)))


def mode_text(k):
    return "%dc/%gMHz/%gMHz/%gMHz" % (k[0], k[1] / 1e3, k[2] / 1e6,
                                      k[3] / 1e6)


def per_epoch_minibatches(fleet, model_id):
    """The model's epoch in minibatches, from its basis line."""
    out = fleet.cli("predict", "--model-id", model_id, "--preset",
                    "MAXN").stdout
    m = re.search(r"in (\d+) minibatches of", out)
    if not m:
        sys.exit("no epoch definition in: " + out)
    return int(m.group(1))


if __name__ == "__main__":
    main()
