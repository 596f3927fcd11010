"""The chain of bench/ops/smallops.tr in python3-torch: 100k adds on [4]
tensors, timed the same way (loop plus one final reduction)."""

import time

import torch

torch.set_num_threads(1)
n = 100000
x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = torch.tensor([0.5, 0.25, 0.125, 0.0625])
t0 = time.perf_counter()
for i in range(n):
    x = x + y
s = x.sum().item()
dt = time.perf_counter() - t0
print("torch", n, "adds:", dt, "s,", dt / n * 1e9, "ns/op, sum", s)
