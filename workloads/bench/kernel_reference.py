#!/usr/bin/python3
"""The PyTorch side of the kernel benchmark (bench_kernels_vs_pytorch.py).

Times one DeepBench-style kernel as `powersweep-workload run --model gemm|conv`
does: float32 random operands made once, --warmup untimed iterations, then
--iterations timed ones (time.perf_counter around each), and prints one JSON
object: the FLOPs per iteration and the per-iteration times in seconds.

  gemm  torch.matmul(op(A), op(B), out=C): C preallocated, as powersweep's
        at::matmul_out (without out= PyTorch would allocate C every
        iteration, which the C++ runner does not);
  conv  torch.nn.functional.conv2d(x, w, stride=, padding=) (no bias), the
        forward pass; NCHW.

Run with Debian's /usr/bin/python3 (python3-torch).
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernel", choices=["gemm", "conv"], required=True)
    p.add_argument("--dims", required=True,
                   help="gemm: M,N,K,TA,TB; conv: N,C,H,W,K,R,S,PAD_H,PAD_W,"
                        "STRIDE_H,STRIDE_W")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    d = [int(x) for x in a.dims.split(",")]
    if a.kernel == "gemm":
        m, n, k, ta, tb = d
        A = torch.randn(k, m) if ta else torch.randn(m, k)
        B = torch.randn(n, k) if tb else torch.randn(k, n)
        A = A.t() if ta else A
        B = B.t() if tb else B
        C = torch.empty(m, n)
        flops = 2.0 * m * n * k

        def step():
            torch.matmul(A, B, out=C)
    else:
        n, c, h, w, k, r, s, ph, pw, sh, sw = d
        x = torch.randn(n, c, h, w)
        wt = torch.randn(k, c, r, s)
        oh = (h + 2 * ph - r) // sh + 1
        ow = (w + 2 * pw - s) // sw + 1
        flops = 2.0 * n * k * c * r * s * oh * ow

        def step():
            F.conv2d(x, wt, stride=(sh, sw), padding=(ph, pw))
    with torch.no_grad():
        for _ in range(a.warmup):
            step()
        times = []
        for _ in range(a.iterations):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
    print(json.dumps({"flops": flops, "times_s": times}))


if __name__ == "__main__":
    main()
