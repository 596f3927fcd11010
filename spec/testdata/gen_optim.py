#!/usr/bin/python3
"""Writes spec/optim.tr: tref's optimizers against torch.optim (torch 1.13),
10 steps on a small problem, parameters compared within 1e-6.
Run: /usr/bin/python3 spec/testdata/gen_optim.py > spec/optim.tr"""
import torch

CONFIGS = [
    ("sgd(0.1)", lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("sgd(0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("sgd(0.05, momentum=0.9, nesterov=true)", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True)),
    ("adam(lr=0.01, weight_decay=0.1)", lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1)),
    ("adam(lr=0.02, betas=[0.8, 0.99], eps=1e-6)", lambda ps: torch.optim.Adam(ps, lr=0.02, betas=(0.8, 0.99), eps=1e-6)),
    ("adamw()", lambda ps: torch.optim.AdamW(ps)),
    ("adamw(lr=0.01, weight_decay=0.5)", lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.5)),
    ("rmsprop()", lambda ps: torch.optim.RMSprop(ps)),
    ("rmsprop(lr=0.02, alpha=0.9, eps=1e-6, weight_decay=0.1)", lambda ps: torch.optim.RMSprop(ps, lr=0.02, alpha=0.9, eps=1e-6, weight_decay=0.1)),
    ("rmsprop(lr=0.005, momentum=0.9)", lambda ps: torch.optim.RMSprop(ps, lr=0.005, momentum=0.9)),
    ("rmsprop(lr=0.01, centered=true, weight_decay=0.05)", lambda ps: torch.optim.RMSprop(ps, lr=0.01, centered=True, weight_decay=0.05)),
    ("rmsprop(lr=0.003, alpha=0.95, momentum=0.5, centered=true)", lambda ps: torch.optim.RMSprop(ps, lr=0.003, alpha=0.95, momentum=0.5, centered=True)),
    ("adagrad()", lambda ps: torch.optim.Adagrad(ps)),
    ("adagrad(lr=0.1, lr_decay=0.05, weight_decay=0.1, eps=1e-6)", lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.05, weight_decay=0.1, eps=1e-6)),
    ("adagrad(lr=0.05, initial_accumulator_value=0.5)", lambda ps: torch.optim.Adagrad(ps, lr=0.05, initial_accumulator_value=0.5)),
]

def lit(t):
    return repr(t.tolist())

print("# Optimizers against torch.optim (torch 1.13): 10 steps each; written by")
print("# spec/testdata/gen_optim.py, do not edit.")
print("fn loss(p) { return ((p.w @ p.b[0]) ** 2).sum() + (p.w * p.w).sum() * 0.1 }")
print("fn train(opt) {")
print("  let p = {w: tensor([[1.0, -2.0], [0.5, 3.0]]), b: [tensor([0.1, 0.2]), 7]}")
print("  let s = opt.init(p)")
print("  for i in range(10) {")
print("    let r = opt.update(p, grad(loss)(p), s)")
print("    p = r.params")
print("    s = r.state")
print("  }")
print("  assert s.step == 10")
print("  assert p.b[1] == 7")
print("  return p")
print("}")
for name, make in CONFIGS:
    w = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    b = torch.tensor([0.1, 0.2], requires_grad=True)
    opt = make([w, b])
    for _ in range(10):
        opt.zero_grad()
        l = ((w @ b) ** 2).sum() + (w * w).sum() * 0.1
        l.backward()
        opt.step()
    print("{")
    print(f"  let q = train({name})")
    print(f"  assert_close(q.w, tensor({lit(w.detach())}), rtol=1e-6, atol=1e-6)")
    print(f"  assert_close(q.b[0], tensor({lit(b.detach())}), rtol=1e-6, atol=1e-6)")
    print("}")
# Schedules: the rates torch's schedulers give step by step (the literals
# are float32: within 1e-7).
def rates(make_sched, n=10):
    w = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.5)
    sched = make_sched(opt)
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out

S = torch.optim.lr_scheduler
for expr, make in [
    ("step_lr(0.5, i, 3, gamma=0.5)", lambda o: S.StepLR(o, step_size=3, gamma=0.5)),
    ("cosine_lr(0.5, i, 10, min_lr=0.01)", lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.01)),
    ("warmup_lr(0.5, i, 4, start_factor=0.25)", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4)),
]:
    print("{")
    print(f"  let want = {rates(make)!r}")
    print(f"  for i in range(10) {{ assert abs({expr} - want[i]) < 1e-7, \"{expr.split('(')[0]} at step \" + str(i) }}")
    print("}")

# Adam with a cosine schedule through update's lr=, against torch.
w = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
b = torch.tensor([0.1, 0.2], requires_grad=True)
opt = torch.optim.Adam([w, b], lr=0.05)
sched = S.CosineAnnealingLR(opt, T_max=10)
for _ in range(10):
    opt.zero_grad()
    l = ((w @ b) ** 2).sum() + (w * w).sum() * 0.1
    l.backward()
    opt.step()
    sched.step()
print("{")
print("  let opt = adam(lr=0.05)")
print("  let p = {w: tensor([[1.0, -2.0], [0.5, 3.0]]), b: [tensor([0.1, 0.2]), 7]}")
print("  let s = opt.init(p)")
print("  for i in range(10) {")
print("    let r = opt.update(p, grad(loss)(p), s, lr=cosine_lr(0.05, i, 10))")
print("    p = r.params")
print("    s = r.state")
print("  }")
print(f"  assert_close(p.w, tensor({lit(w.detach())}), rtol=1e-6, atol=1e-6)")
print(f"  assert_close(p.b[0], tensor({lit(b.detach())}), rtol=1e-6, atol=1e-6)")
print("}")
print("print(\"ok\")  ## ok")
print("---")
print("# mismatched trees are a positioned error")
print("let o = sgd(0.1)")
print("let p = {w: ones([2])}")
print("o.update(p, {v: ones([2])}, o.init(p))  ### \"sgd.update: the trees differ at the root: tree 2 has no field \\\"w\\\"\"")
print("---")
print("let o = adam()")
print("let p = {w: ones([2])}")
print("o.update(p, {w: ones([3])}, o.init(p))  ### \"adam.update: the gradient at w is a float32 tensor of shape \\\\[3\\\\], the parameter a float32 tensor of shape \\\\[2\\\\]\"")
print("""---
# a gradient that failed (an op's error, or an interrupt) fails the update
# with that error, with momentum and weight decay too
let bad = astype(tensor([4, 2]) // 0, "float32")
let p = {w: tensor([1.0, 2.0])}
let o = sgd(0.1, momentum=0.9, weight_decay=0.01)
assert_error(fn() => o.update(p, {w: bad}, o.init(p)), "integer division by zero")
let o2 = sgd(0.1, momentum=0.9)
let r = o2.update(p, {w: tensor([0.5, 0.5])}, o2.init(p))
assert_error(fn() => o2.update(r.params, {w: bad}, r.state), "integer division by zero")
let o3 = sgd(0.1, momentum=0.9, nesterov=true)
let r3 = o3.update(p, {w: tensor([0.5, 0.5])}, o3.init(p))
assert_error(fn() => o3.update(r3.params, {w: bad}, r3.state), "integer division by zero")
assert_error(fn() => adam(weight_decay=0.1).update(p, {w: bad}, adam().init(p)), "integer division by zero")
print("ok")  ## ok""")
print("---")
print("tree_map(fn(a, b) => a + b, [1, [2]], [1, 2])  ### \"tree_map: the trees differ at \\\\[1\\\\]: tree 1 has a list of 1, tree 2 has an int64 number\"")
print("---")
print("print(tree_map(fn(a, b) => a * b, {x: 2, y: [3]}, {x: 5, y: [7]}))  ## {x: 10, y: [21]}")
print("""---
# rmsprop's and adagrad's state: the slots torch keeps, none until the
# first step; a failed gradient fails their update too
let p = {w: tensor([1.0, 2.0])}
print(rmsprop(momentum=0.9, centered=true).init(p))  ## {step: 0, square_avg: {w: none}, momentum_buffer: {w: none}, grad_avg: {w: none}}
let s = adagrad(initial_accumulator_value=0.5).update(p, {w: tensor([1.0, -2.0])}, adagrad().init(p)).state
print(s.step, s.sum.w)  ## 1 tensor([1.5000, 4.5000])
let bad = astype(tensor([4, 2]) // 0, "float32")
let rc = rmsprop(momentum=0.5, centered=true, weight_decay=0.1)
assert_error(fn() => rc.update(p, {w: bad}, rc.init(p)), "integer division by zero")
let r1 = rc.update(p, {w: tensor([0.5, 0.5])}, rc.init(p))
assert_error(fn() => rc.update(r1.params, {w: bad}, r1.state), "integer division by zero")
assert_error(fn() => adagrad(weight_decay=0.1).update(p, {w: bad}, adagrad().init(p)), "integer division by zero")
print("ok")  ## ok
---
rmsprop(lr=0.5, alpha=-0.5)  ### "rmsprop: invalid hyperparameters \\\\(lr 0.5, alpha -0.5, eps 1e-08, weight_decay 0, momentum 0\\\\): none may be negative"
---
adagrad(initial_accumulator_value=-1)  ### "adagrad: invalid hyperparameters .*: none may be negative"
---
let o = rmsprop(momentum=0.9)
let p = {w: ones([2])}
let s = o.init(p)
o.update(p, {w: ones([2])}, {step: 0, square_avg: s.square_avg})  ### "rmsprop.update: the state has no \\"momentum_buffer\\" \\\\(was it made by rmsprop.init\\\\?\\\\)"
""", end="")
