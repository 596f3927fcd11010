#!/usr/bin/python3
"""The peer of examples/train/mlp.tr: one epoch of the MLP 784-128-10 on
Fashion-MNIST with SGD(0.1), batches of 64 in order.npy's order, from
init.npz, on THREADS threads (default 2); prints the seconds the steps
took, timed as mlp.tr times its loop, and the CPU seconds (user + system,
all threads) the steps used. Run from the repository root:
    /usr/bin/python3 bench/train/epoch_torch.py [THREADS]
"""
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "train")
data = "/usr/share/datasets/fashion-mnist"


def idx(name):
    with gzip.open(os.path.join(data, name)) as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


x = torch.tensor(idx("train-images-idx3-ubyte.gz").reshape(60000, 784), dtype=torch.float32) / 255.0
y = torch.tensor(idx("train-labels-idx1-ubyte.gz"), dtype=torch.int64)
init = np.load(os.path.join(here, "init.npz"))
order = torch.tensor(np.load(os.path.join(here, "order.npy")).astype(np.int64))
p = {k: torch.tensor(init[k]).requires_grad_() for k in ("w1", "b1", "w2", "b2")}
opt = torch.optim.SGD(list(p.values()), lr=0.1)
start, cpu = time.perf_counter(), time.process_time()
for s in range(60000 // 64 + 1):
    b = order[s * 64:(s + 1) * 64]
    opt.zero_grad()
    h = F.relu(F.linear(x.index_select(0, b), p["w1"], p["b1"]))
    loss = F.cross_entropy(F.linear(h, p["w2"], p["b2"]), y.index_select(0, b))
    loss.backward()
    opt.step()
    loss.item()
print("torch one epoch: %.3f s on %d threads, cpu %.3f s" % (time.perf_counter() - start, torch.get_num_threads(), time.process_time() - cpu))
