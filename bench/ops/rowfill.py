"""bench/ops/rowfill.tr in python3-torch: buf[i] = row * i for 4096 rows of
a [4096, 256] float32 buffer, timed the same way (loop plus one sum)."""

import time

import torch

torch.set_num_threads(1)
n = 4096
buf = torch.zeros(n, 256)
row = torch.ones(256)
t0 = time.perf_counter()
for i in range(n):
    buf[i] = row * i
s = buf.sum().item()
dt = time.perf_counter() - t0
print("torch", n, "row assignments:", dt, "s,", dt / n * 1e9, "ns/row, sum", s)
