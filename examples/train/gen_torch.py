#!/usr/bin/python3
"""Writes the torch side of examples/train (torch 1.13, run with
/usr/bin/python3 examples/train/gen_torch.py from the repository root):

  init.npz     the MLP 784-128-10's initial weights (torch.manual_seed(0),
               nn.Linear's default init), as w1 [128, 784], b1, w2 [10, 128], b2
  order.npy    the order of a shuffled epoch (torch.randperm(60000) after
               seeding 1), uint16 [60000] to stay small
  step1.npz    the gradients of the first step's loss (grad_w1, ...)
  step10.npz   the parameters after 10 steps of SGD(0.1)
  torch_results.json  torch's test accuracy after one epoch from init.npz
               with SGD(0.1), batch 64, in order.npy's order, and after
               five (epochs 2-5 shuffled by torch.randperm)
"""
import gzip
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
data = "/usr/share/datasets/fashion-mnist"


def idx(name):
    with gzip.open(os.path.join(data, name)) as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


x_train = torch.tensor(idx("train-images-idx3-ubyte.gz").reshape(60000, 784), dtype=torch.float32) / 255.0
y_train = torch.tensor(idx("train-labels-idx1-ubyte.gz"), dtype=torch.int64)
x_test = torch.tensor(idx("t10k-images-idx3-ubyte.gz").reshape(10000, 784), dtype=torch.float32) / 255.0
y_test = torch.tensor(idx("t10k-labels-idx1-ubyte.gz"), dtype=torch.int64)

torch.manual_seed(0)
fc1, fc2 = torch.nn.Linear(784, 128), torch.nn.Linear(128, 10)
init = {"w1": fc1.weight, "b1": fc1.bias, "w2": fc2.weight, "b2": fc2.bias}
np.savez(os.path.join(here, "init.npz"), **{k: v.detach().numpy() for k, v in init.items()})


def model(p, x):
    return F.linear(F.relu(F.linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])


torch.manual_seed(1)
perm = torch.randperm(60000)
np.save(os.path.join(here, "order.npy"), perm.numpy().astype(np.uint16))


def train(steps, epochs=1):
    p = {k: v.detach().clone().requires_grad_() for k, v in init.items()}
    opt = torch.optim.SGD(list(p.values()), lr=0.1)
    first = None
    accs = []
    order = perm
    for e in range(epochs):
        if e > 0:
            order = torch.randperm(60000)
        for s in range(min(steps, (60000 + 63) // 64)):
            b = order[s * 64:(s + 1) * 64]
            opt.zero_grad()
            loss = F.cross_entropy(model(p, x_train[b]), y_train[b])
            loss.backward()
            if s == 0 and e == 0:
                first = {"grad_" + k: v.grad.detach().clone().numpy() for k, v in p.items()}
                first["loss"] = loss.detach().numpy()
            opt.step()
        with torch.no_grad():
            accs.append((model(p, x_test).argmax(1) == y_test).float().mean().item())
    return p, first, accs


p10, first, _ = train(10)
np.savez(os.path.join(here, "step1.npz"), **first)
np.savez(os.path.join(here, "step10.npz"), **{k: v.detach().numpy() for k, v in p10.items()})
_, _, accs = train(60000 // 64 + 1, epochs=5)
with open(os.path.join(here, "torch_results.json"), "w") as f:
    json.dump({"epoch1_test_accuracy": accs[0], "epoch5_test_accuracy": accs[4]}, f, indent=1)
    f.write("\n")
print("torch: test accuracy after each epoch", accs)
