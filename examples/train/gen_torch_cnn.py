#!/usr/bin/python3
"""Writes the torch side of cnn_check.tr (torch 1.13; run from the
repository root with /usr/bin/python3 examples/train/gen_torch_cnn.py after
gen_torch.py, whose order.npy it reuses): a small CNN (conv 3x3 (8), relu,
max pool 2, conv 3x3 (16), relu, max pool 2, linear 784 -> 10) with torch's
initial weights (cnn_init.npz), the first step's loss and gradients
(cnn_step1.npz) and the parameters after 10 steps of SGD(0.1) on batches of
64 in order.npy's order (cnn_step10.npz)."""
import gzip
import os

import numpy as np
import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
with gzip.open("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz") as f:
    x = torch.tensor(np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(60000, 1, 28, 28), dtype=torch.float32) / 255.0
with gzip.open("/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz") as f:
    y = torch.tensor(np.frombuffer(f.read(), dtype=np.uint8, offset=8), dtype=torch.int64)
order = torch.tensor(np.load(os.path.join(here, "order.npy")).astype(np.int64))

torch.manual_seed(0)
c1, c2, fc = torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.Linear(784, 10)
p = {"c1": c1.weight, "b1": c1.bias, "c2": c2.weight, "b2": c2.bias, "w": fc.weight, "b": fc.bias}
np.savez(os.path.join(here, "cnn_init.npz"), **{k: v.detach().numpy() for k, v in p.items()})


def model(p, x):
    h = F.max_pool2d(F.relu(F.conv2d(x, p["c1"], p["b1"], padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p["c2"], p["b2"], padding=1)), 2)
    return F.linear(h.reshape(x.shape[0], 784), p["w"], p["b"])


opt = torch.optim.SGD(list(p.values()), lr=0.1)
for s in range(10):
    b = order[s * 64:(s + 1) * 64]
    opt.zero_grad()
    loss = F.cross_entropy(model(p, x[b]), y[b])
    loss.backward()
    if s == 0:
        first = {"grad_" + k: v.grad.numpy().copy() for k, v in p.items()}
        first["loss"] = loss.detach().numpy()
        np.savez(os.path.join(here, "cnn_step1.npz"), **first)
    opt.step()
np.savez(os.path.join(here, "cnn_step10.npz"), **{k: v.detach().numpy() for k, v in p.items()})
