"""gpu-link-peak.py - the host<->GPU link's measured peak, for gpu-check.sh.

Times PyTorch's own copies between pinned host memory and the GPU (the
fastest path a peer has) with CUDA events, best of several, for the
bandwidth that tref's pinned staging pool is judged against. Also times a
pageable copy, which is what a peer without pinned memory gets.

    python3 scripts/gpu-link-peak.py [MiB...]    # default 1 4 64 256

Small copies pay a fixed cost each: compare tref's copies with the peak
at their own size.

Then, on the host side of a copy from pageable memory (the lines start
with "host", which gpu-check's reading of the table skips): allocating
pinned memory (cudaHostAlloc), pinning pageable memory in place
(cudaHostRegister) and unpinning it, and a memcpy into pinned memory on
one thread and on all of PyTorch's: what a first copy of a tensor made
on the host costs before the link moves it.
"""

import ctypes
import sys
import time

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
    try:
        host_costs(64)
    except Exception as e:  # diagnostics only
        print("host costs failed:", e)


def cudart():
    """The process's libcudart (loaded by torch), for cudaHostAlloc."""
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    raise OSError("no libcudart in the process")


def host_costs(mib, reps=4):
    """Prints the host's rates (GB/s) for the steps of a first copy in."""
    n = mib << 20
    rt = cudart()
    alloc = register = unregister = 0.0
    for _ in range(reps):
        p = ctypes.c_void_p()
        t0 = time.perf_counter()
        if rt.cudaHostAlloc(ctypes.byref(p), ctypes.c_size_t(n), 0) != 0:
            raise RuntimeError("cudaHostAlloc failed")
        alloc += time.perf_counter() - t0
        rt.cudaFreeHost(p)
        x = torch.ones(n, dtype=torch.uint8)  # pageable, touched
        t0 = time.perf_counter()
        if rt.cudaHostRegister(ctypes.c_void_p(x.data_ptr()), ctypes.c_size_t(n), 1) != 0:
            raise RuntimeError("cudaHostRegister failed")
        t1 = time.perf_counter()
        rt.cudaHostUnregister(ctypes.c_void_p(x.data_ptr()))
        register += t1 - t0
        unregister += time.perf_counter() - t1
    src = torch.ones(n, dtype=torch.uint8)
    dst = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    threads = torch.get_num_threads()
    rates = []
    for t in (1, threads):
        torch.set_num_threads(t)
        dst.copy_(src)
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            dst.copy_(src)
            best = min(best, time.perf_counter() - t0)
        rates.append(n / best / 1e9)
    torch.set_num_threads(threads)
    gb = n * reps / 1e9
    print("host %d MiB: cudaHostAlloc %.2f GB/s, cudaHostRegister %.2f GB/s, cudaHostUnregister %.2f GB/s, "
          "memcpy into pinned %.2f GB/s on 1 thread, %.2f on %d" %
          (mib, gb / alloc, gb / register, gb / unregister, rates[0], rates[1], threads))


if __name__ == "__main__":
    main()
