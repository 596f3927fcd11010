#!/usr/bin/python3
"""Writes spec/checkpoint.tr and the checkpoints it loads (mlp.pt,
mlp_checkpoint.pth, evil.pt in spec/testdata), with torch 1.13: a model
trained a few steps in torch, its outputs on fixed inputs, and what load()
must make of the files. Run from the repository root:
/usr/bin/python3 spec/testdata/gen_checkpoint.py > spec/checkpoint.tr"""
import os

import torch

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(3)

net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 3))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for _ in range(3):
    opt.zero_grad()
    net(torch.randn(16, 4)).pow(2).mean().backward()
    opt.step()
net.eval()
torch.save(net.state_dict(), os.path.join(here, "mlp.pt"))
torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, os.path.join(here, "mlp_checkpoint.pth"))


class Evil:
    """What a malicious checkpoint pickles beside its tensors: a call of
    os.system, which torch.load would run."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


torch.save({"w": torch.ones(2), "payload": Evil()}, os.path.join(here, "evil.pt"))

x = torch.randn(5, 4)
with torch.no_grad():
    y = net(x)


def lit(t):
    return "tensor(" + repr(t.tolist()) + ")"


def names(keys):
    return "[" + ", ".join(f'"{k}"' for k in keys) + "]"


sd = net.state_dict()
ck = [f"model.{k}" for k in sd] + [f"optimizer.state.{i}.{k}" for i in range(len(opt.state_dict()["state"])) for k in ("step", "exp_avg", "exp_avg_sq")]
# The model's forward pass in tref, and an input; each chunk runs alone.
model = f"""fn forward(m, x) {{
  let h = relu(linear(x, m["0.weight"], m["0.bias"]))
  h = batch_norm(h, m["2.running_mean"], m["2.running_var"], m["2.weight"], m["2.bias"])
  return linear(h, m["3.weight"], m["3.bias"])
}}
let x = {lit(x)}"""
print(f"""# load() reads PyTorch checkpoints (torch.save's zip format: .pt, .pth,
# and a .bin that is a zip) as a record of tensors keyed as in the
# state_dict, as it reads .safetensors. Written by
# spec/testdata/gen_checkpoint.py with torch 1.13, do not edit.

# An nn.Module's state_dict: its tensors in order, with torch's dtypes;
# the forward pass on them gives torch's output.
{model}
let m = load("testdata/mlp.pt")
print(keys(m)) ## {names(sd)}
print(m["0.weight"].shape, m["0.weight"].dtype, m["2.num_batches_tracked"].dtype, m["2.num_batches_tracked"].item()) ## [8, 4] float32 int64 3
assert_close(forward(m, x), {lit(y)}, rtol=1e-5, atol=1e-6)
---
# A training checkpoint: nested dicts become dotted keys (the optimizer's
# state is keyed by parameter index); values that are not tensors, such
# as the epoch and the optimizer's settings, are left out.
{model}
let c = load("testdata/mlp_checkpoint.pth")
print(keys(c) == {names(ck)}) ## true
print("epoch" in c, c["optimizer.state.0.exp_avg"].shape, c["optimizer.state.0.step"].item()) ## false [8, 4] 3.0
let sd = {{k.removeprefix("model."): v for k, v in c.items() if k.startswith("model.")}}
assert_close(forward(sd, x), {lit(y)}, rtol=1e-5, atol=1e-6)
---
# The pickle is never executed: a global outside the tensor allow-list is
# an error naming it (torch.load would run os.system here).
let e = load("testdata/evil.pt")  ### "evil.pt: torch: .*global posix.system is not allowed"
""", end="")
