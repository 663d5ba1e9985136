#!/usr/bin/env python3
"""Benchmark: achieved GFLOP/s of powersweep-workload's gemm and conv kernels
against torch.matmul and torch.nn.functional.conv2d in PyTorch, same shapes,
threads and warm-up, in one run.

For each shape it runs `powersweep-workload run --model gemm|conv
--kernel-shape S` and then kernel_reference.py under /usr/bin/python3,
alternating for --rounds rounds, and prints each side's GFLOP/s (FLOPs per
iteration / median iteration time; powersweep's from its records:
workload.kernel.flops and each minibatch record's compute_s) and the ratio
powersweep / PyTorch (goal >= 0.95). Figures are medians over the rounds.
This is a benchmark, not a test: it asserts nothing.

  workloads/bench/bench_kernels_vs_pytorch.py \\
      --workload build/workloads/powersweep-workload [--threads 2]
      [--rounds 3] [--quick]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "kernel_reference.py")

# (kernel, --kernel-shape): rows of the built-in DeepBench table
# (common/kernel_shape.cc) small enough for a laptop CPU. The reference
# gets the shape the workload reports (workload.kernel.shape).
SHAPES = [
    ("gemm", "deepbench-train-1"),     # 1760 x 16 x 1760
    ("gemm", "deepbench-train-21"),    # the same, A transposed
    ("gemm", "deepbench-server-12"),   # 3072 x 1 x 1024
    ("gemm", "deepbench-device-10"),   # 176 x 1500 x 1408
    ("conv", "deepbench-train-9"),     # 1 -> 16 channels, 48 x 480
    ("conv", "deepbench-train-13"),    # 3 -> 64 channels, 108 x 108 / 2
    ("conv", "deepbench-device-2"),    # 1x1, 64 -> 256 channels, 56 x 56
    ("conv", "deepbench-device-13"),   # 3x3, 512 -> 512 channels, 7 x 7
]


def reference_dims(kernel, text):
    """The explicit shape (e.g. m1760-n16-k1760-tn) as the reference's --dims."""
    tokens = text.split("-")
    num = {}
    word = None
    for t in tokens:
        key = t.rstrip("0123456789")
        if key != t:
            num[key] = int(t[len(key):])
        else:
            word = t
    if kernel == "gemm":
        return "%d,%d,%d,%d,%d" % (num["m"], num["n"], num["k"],
                                   word[0] == "t", word[1] == "t")
    ph = num.get("padh", num.get("pad", 0))
    pw = num.get("padw", num.get("pad", 0))
    sh = num.get("strideh", num.get("stride", 1))
    sw = num.get("stridew", num.get("stride", 1))
    return ",".join(str(v) for v in (num["n"], num["c"], num["h"], num["w"],
                                     num["k"], num["r"], num["s"], ph, pw, sh,
                                     sw))


def run_powersweep(binary, kernel, shape, threads, warmup, iterations):
    cmd = [binary, "run", "--model", kernel, "--kernel-shape", shape,
           "--threads", str(threads), "--warmup-iterations", str(warmup),
           "--minibatches", str(iterations), "--seed", "1", "--records-fd",
           "1"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    flops, text, times = None, None, []
    for line in out.splitlines():
        e = json.loads(line)
        if "started" in e:
            flops = e["started"]["workload"]["kernel"]["flops"]
            text = e["started"]["workload"]["kernel"]["shape"]
        elif "minibatch" in e:
            times.append(e["minibatch"]["compute_s"])
    return flops / statistics.median(times) / 1e9, text


def run_pytorch(kernel, dims, threads, warmup, iterations):
    cmd = ["/usr/bin/python3", REFERENCE, "--kernel", kernel, "--dims", dims,
           "--threads", str(threads), "--warmup", str(warmup),
           "--iterations", str(iterations)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    return r["flops"] / statistics.median(r["times_s"]) / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", default="build/workloads/powersweep-workload")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true",
                   help="fewer iterations (a smoke run)")
    a = p.parse_args()
    warmup = 3 if a.quick else 5
    iterations = 10 if a.quick else 30
    print("threads %d, %d warm-up + %d timed iterations, median of %d rounds"
          % (a.threads, warmup, iterations, a.rounds))
    print("kernel shape                    | powersweep GFLOP/s | pytorch "
          "GFLOP/s | ratio")
    ratios = []
    for kernel, shape in SHAPES:
        ps, pt = [], []
        for _ in range(a.rounds):
            gflops, text = run_powersweep(a.workload, kernel, shape, a.threads,
                                          warmup, iterations)
            ps.append(gflops)
            pt.append(run_pytorch(kernel, reference_dims(kernel, text),
                                  a.threads, warmup, iterations))
        ps_g, pt_g = statistics.median(ps), statistics.median(pt)
        ratios.append(ps_g / pt_g)
        print("%-4s %-26s | %18.1f | %15.1f | %5.2f"
              % (kernel, shape, ps_g, pt_g, ps_g / pt_g))
        sys.stdout.flush()
    print("min ratio %.2f, geometric mean %.2f (goal >= 0.95)"
          % (min(ratios),
             statistics.geometric_mean(ratios)))


if __name__ == "__main__":
    main()
