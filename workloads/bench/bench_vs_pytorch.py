#!/usr/bin/env python3
"""Benchmark: powersweep-workload's training loop and loader against PyTorch
with torch.utils.data.DataLoader, same configuration, in one run.

For each configuration (model, data set, batch size, loader workers,
threads, minibatches) it runs `powersweep-workload run` and then
pytorch_reference.py (under /usr/bin/python3), alternating for --rounds
rounds, and prints both sides' throughput (samples/s over the whole run,
first minibatch included on both sides), their ratio (powersweep / PyTorch:
above 1 means powersweep is faster) and each side's stall fraction (time
waiting for data / elapsed). Figures are medians over the rounds. This is a
benchmark, not a test: it asserts nothing.

  workloads/bench/bench_vs_pytorch.py --workload build/workloads/powersweep-workload \\
      [--data-dir var/data] [--rounds 1] [--quick]

Generated data sets (gen-dataset) are written under --data-dir when absent.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "pytorch_reference.py")
FASHION = "/usr/share/datasets/fashion-mnist"


def run_powersweep(binary, c):
    cmd = [binary, "run", "--model", c["model"], "--dataset-path", c["data"],
           "--task", "train", "--batch-size", str(c["batch"]), "--workers",
           str(c["workers"]), "--threads", str(c["threads"]), "--minibatches",
           str(c["minibatches"]), "--seed", "1", "--records-fd", "1"]
    if c.get("size"):
        cmd += ["--input-size", str(c["size"])]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    stall = 0.0
    elapsed = None
    n = 0
    for line in out.splitlines():
        e = json.loads(line)
        if "minibatch" in e:
            stall += e["minibatch"].get("stall_s", 0.0)
            n += 1
        elif "finished" in e:
            elapsed = e["finished"]["elapsed_s"]
    return {"samples_per_s": n * c["batch"] / elapsed,
            "stall_fraction": stall / elapsed}


def run_pytorch(c):
    cmd = ["/usr/bin/python3", REFERENCE, "--model", c["model"],
           "--dataset-path", c["data"], "--batch-size", str(c["batch"]),
           "--workers", str(c["workers"]), "--threads", str(c["threads"]),
           "--minibatches", str(c["minibatches"])]
    if c.get("size"):
        cmd += ["--input-size", str(c["size"])]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def ensure_folder(binary, path, train, classes):
    if os.path.exists(os.path.join(path, ".powersweep-dataset")):
        return
    subprocess.run([binary, "gen-dataset", "--format", "image-folder", "--out",
                    path, "--train-count", str(train), "--test-count", "100",
                    "--classes", str(classes)], check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", default="build/workloads/powersweep-workload")
    p.add_argument("--data-dir", default="var/data")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--quick", action="store_true",
                   help="fewer minibatches (a smoke run)")
    a = p.parse_args()
    folder = os.path.join(a.data_dir, "bench-folder")
    ensure_folder(a.workload, folder, 1600, 20)
    mb = 10 if a.quick else 30
    configs = [
        {"model": "lenet5", "data": FASHION, "batch": 64, "workers": 0,
         "threads": 1, "minibatches": 10 * mb},
        {"model": "lenet5", "data": FASHION, "batch": 64, "workers": 2,
         "threads": 1, "minibatches": 10 * mb},
        {"model": "resnet18", "data": folder, "batch": 16, "workers": 0,
         "threads": 2, "minibatches": mb, "size": 64},
        {"model": "resnet18", "data": folder, "batch": 16, "workers": 2,
         "threads": 2, "minibatches": mb, "size": 64},
    ]
    print("model     data          batch workers threads mbs | powersweep "
          "samples/s stall | pytorch samples/s stall | ratio")
    for c in configs:
        ps, pt = [], []
        for _ in range(a.rounds):
            ps.append(run_powersweep(a.workload, c))
            pt.append(run_pytorch(c))
        med = lambda rows, k: statistics.median(r[k] for r in rows)
        ps_tput, pt_tput = med(ps, "samples_per_s"), med(pt, "samples_per_s")
        data = "fashion-mnist" if c["data"] == FASHION else "jpeg-folder@%d" % c["size"]
        print("%-9s %-13s %5d %7d %7d %3d | %10.0f %10.1f%% | %10.0f %6.1f%% | %5.2f"
              % (c["model"], data, c["batch"], c["workers"], c["threads"],
                 c["minibatches"], ps_tput, 100 * med(ps, "stall_fraction"),
                 pt_tput, 100 * med(pt, "stall_fraction"), ps_tput / pt_tput))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
