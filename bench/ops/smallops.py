"""The chain of bench/ops/smallops.tr in python3-torch: 100k adds on [4]
tensors, timed the same way (loop plus one final reduction). An argument
overrides the number of adds. The CPU time of the loop goes to stderr."""

import sys
import time

import torch

torch.set_num_threads(1)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = torch.tensor([0.5, 0.25, 0.125, 0.0625])
t0, c0 = time.perf_counter(), time.process_time()
for i in range(n):
    x = x + y
s = x.sum().item()
dt, dc = time.perf_counter() - t0, time.process_time() - c0
print("torch", n, "adds:", dt, "s,", dt / max(n, 1) * 1e9, "ns/op, sum", s, file=sys.stderr if n == 0 else sys.stdout)
print("cpu ns/op", dc / max(n, 1) * 1e9, file=sys.stderr)
