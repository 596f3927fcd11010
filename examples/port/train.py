# The PyTorch original of train.tr: a small classifier trained by plain
# gradient descent, written the way PyTorch code is. Run it with
# /usr/bin/python3 train.py > expected.txt (python3-torch 1.13); train.tr
# prints the same lines.
import math

import torch
import torch.nn.functional as F

cfg = {"lr": 0.5, "steps": 60, "log_every": 10, "hidden": 16}
n, d = 128, 4
x = torch.sin(torch.arange(n * d, dtype=torch.float32).reshape(n, d) * 0.37)
y = (x[:, 0] * x[:, 1] + x[:, 2] > 0).long()


def init(rows, cols):
    # deterministic, scaled like torch's default: U(-1/sqrt(fan_in), ...)
    bound = 1 / math.sqrt(cols)
    return torch.cos(torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols) * 1.7) * bound


params = {
    "w1": init(cfg["hidden"], d), "b1": torch.zeros(cfg["hidden"]),
    "w2": init(2, cfg["hidden"]), "b2": torch.zeros(2),
}


def model(p, x):
    return F.linear(F.relu(F.linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])


history = []
for step in range(cfg["steps"]):
    ps = {k: v.clone().requires_grad_() for k, v in params.items()}
    loss = F.cross_entropy(model(ps, x), y)
    grads = torch.autograd.grad(loss, list(ps.values()))
    params = {k: p - cfg["lr"] * g for (k, p), g in zip(params.items(), grads)}
    history.append(loss.item())
    if step % cfg["log_every"] == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")

best = min(range(len(history)), key=lambda i: history[i])
print(f"best step {best} loss {history[best]:.4f}")
ws = sorted(k for k in params if k.startswith("w"))
print("weights", ", ".join([f"{k} {list(params[k].shape)}" for k in ws]), f"total {sum(v.numel() for v in params.values())}")
acc = (model(params, x).argmax(1) == y).float().mean().item()
print(f"accuracy {acc:.3f}", "ok" if acc > 0.9 else "low")
labels = {0: "neg", 1: "pos"}
counts = {}
for c in model(params, x).argmax(1).tolist():
    counts[labels[c]] = counts.get(labels[c], 0) + 1
print("predicted", ", ".join("%s=%d" % (k, counts[k]) for k in sorted(counts)))
print("lr {:.2f}, steps {}, first loss {:.4f}".format(cfg["lr"], cfg["steps"], history[0]))
