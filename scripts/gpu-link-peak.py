"""gpu-link-peak.py - the host<->GPU link's measured peak, for gpu-check.sh.

Times PyTorch's own copies between pinned host memory and the GPU (the
fastest path a peer has) with CUDA events, best of several, for the
bandwidth that tref's pinned staging pool is judged against. Also times a
pageable copy, which is what a peer without pinned memory gets.

    python3 scripts/gpu-link-peak.py [MiB...]    # default 1 4 64 256

Small copies pay a fixed cost each: compare tref's copies with the peak
at their own size.
"""

import sys

import torch


def best_gbps(copy, nbytes, reps=8):
    """The fastest of reps timed runs of copy(), as GB/s (1e9 bytes)."""
    copy()  # warm-up
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        copy()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return nbytes / best / 1e9


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1, 4, 64, 256]
    dev = torch.device("cuda", 0)
    print("device", torch.cuda.get_device_name(0), "torch", torch.__version__)
    print("MiB h2d_pinned d2h_pinned h2d_pageable d2h_pageable (GB/s)")
    for mib in sizes:
        n = mib << 20
        pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        pageable = torch.empty(n, dtype=torch.uint8)
        on_dev = torch.empty(n, dtype=torch.uint8, device=dev)
        rates = [
            best_gbps(lambda: on_dev.copy_(pinned, non_blocking=True), n),
            best_gbps(lambda: pinned.copy_(on_dev, non_blocking=True), n),
            best_gbps(lambda: on_dev.copy_(pageable), n),
            best_gbps(lambda: pageable.copy_(on_dev), n),
        ]
        print("%d %s" % (mib, " ".join("%.2f" % r for r in rates)))


if __name__ == "__main__":
    main()
