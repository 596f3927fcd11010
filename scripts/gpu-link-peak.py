"""gpu-link-peak.py - the host<->GPU link's measured peak, for gpu-check.sh.

Times PyTorch's own copies between pinned host memory and the GPU (the
fastest path a peer has) with CUDA events, best of several, for the
bandwidth that tref's pinned staging pool is judged against. Also times a
pageable copy, which is what a peer without pinned memory gets.

    python3 scripts/gpu-link-peak.py [MiB]    # default 256
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
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    n = mib << 20
    dev = torch.device("cuda", 0)
    pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(n, dtype=torch.uint8)
    on_dev = torch.empty(n, dtype=torch.uint8, device=dev)
    print("device", torch.cuda.get_device_name(0), "torch", torch.__version__)
    print("h2d_pinned_GBps %.2f" % best_gbps(lambda: on_dev.copy_(pinned, non_blocking=True), n))
    print("d2h_pinned_GBps %.2f" % best_gbps(lambda: pinned.copy_(on_dev, non_blocking=True), n))
    print("h2d_pageable_GBps %.2f" % best_gbps(lambda: on_dev.copy_(pageable), n))
    print("d2h_pageable_GBps %.2f" % best_gbps(lambda: pageable.copy_(on_dev), n))
    print("copy_MiB", mib)


if __name__ == "__main__":
    main()
