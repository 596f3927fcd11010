"""libtorch's side of bench/gemm/run.sh: the same workloads as main.go,
printed in the same format ("torch gemm 1024 <best> <median>").

Run with Debian's python3-torch (/usr/bin/python3); set OPENBLAS_CORETYPE.
"""

import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def report(kind, size, flops, budget, fn):
    fn()
    rates = []
    start = time.perf_counter()
    while len(rates) < 3 or time.perf_counter() - start < budget:
        t = time.perf_counter()
        fn()
        rates.append(flops / (time.perf_counter() - t) / 1e9)
    rates.sort()
    print("torch %s %s %.1f %.1f" % (kind, size, rates[-1], rates[len(rates) // 2]), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="256,1024,2048")
    p.add_argument("--no-conv", action="store_true")
    p.add_argument("--time", type=float, default=2.0)
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    torch.manual_seed(0)
    print("torch %s, %d threads, OPENBLAS_CORETYPE=%s" % (
        torch.__version__, torch.get_num_threads(), os.environ.get("OPENBLAS_CORETYPE", "")), file=sys.stderr)
    with torch.no_grad():
        for n in (int(s) for s in args.sizes.split(",")):
            a, b = torch.randn(n, n), torch.randn(n, n)
            c = torch.empty(n, n)
            report("gemm", str(n), 2.0 * n ** 3, args.time, lambda: torch.matmul(a, b, out=c))
        if not args.no_conv:
            x, w = torch.randn(32, 64, 56, 56), torch.randn(64, 64, 3, 3)
            report("conv2d", "32x64x56x56", 2.0 * 32 * 64 * 56 * 56 * 64 * 9, args.time,
                   lambda: F.conv2d(x, w, padding=1))


if __name__ == "__main__":
    main()
