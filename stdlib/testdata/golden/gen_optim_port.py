"""Goldens of the optimizers and learning-rate schedules ported from
torch.optim 1.13: /usr/bin/python3 gen_optim_port.py

Optimizers (adadelta, adamax, nadam, radam, rprop, asgd; adam and adamw
with amsgrad and maximize): torch's optimizer (foreach=False) steps a few
parameters through 10 steps of given random gradients (some of them exactly
zero, so that rprop meets products of each sign), with weight decay, lr
overrides (group["lr"] set before a step, update's lr= in tref) and float64
parameters, and the final parameters and state are compared with tref's.
tref replays them through the test builtin optim_steps (optim_port_test.go).
Radam's 10 steps cross its rectification switch-over (rho_t > 5 from step
6 with the default betas), and asgd's t0=3 starts its averaging.

Schedules: the rate torch's scheduler gives at each step (stepped in a
loop, as in training: its chainable form where it has one) against tref's
closed form at that step, through the test builtin lr_steps, within 1e-12:
milestones, cycle ends, restarts and the phases of onecycle with and
without three_phase. Then the errors of invalid arguments.

Numbers pass to tref as float32 (see gen_common.py): every float
hyperparameter is rounded to float32 before torch sees it.
"""

import torch

from gen_common import Golden, f32

torch.manual_seed(1913)
g = Golden("optim_port")
O = torch.optim
S = torch.optim.lr_scheduler

STEPS = 10


def rounded(v):
    if isinstance(v, float):
        return f32(v)
    if isinstance(v, dict):
        return {k: rounded(e) for k, e in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(rounded(e) for e in v)
    return v


def make_grads(shapes, dtype, steps=STEPS, none_at=None):
    out = []
    for _ in range(steps):
        gs = []
        for i, s in enumerate(shapes):
            if i == none_at:
                gs.append(None)
                continue
            x = torch.randn(s, dtype=torch.float64)
            x[torch.rand(s) < 0.2] = 0  # exact zeros: rprop's sign 0
            gs.append(x.to(dtype))
        out.append(gs)
    return out


def optim_case(label, name, cls, kwargs, keys, dtype=torch.float32, lrs=None,
               torch_kwargs=None, none_at=None, rtol=None, atol=None, sched=None, mom_kw="momentum"):
    """Replays STEPS steps of torch's cls(params, **kwargs) and states the
    final params and the state fields keys (slots per parameter, shared
    numbers once) that tref's optim_steps(name, ...) must give.

    lrs[i] sets step i's lr (a number) or its rates (a dict of lr and
    momentum or beta1, update's keyword arguments); sched(opt) makes a
    torch scheduler whose lr and momentum (mom_kw: "momentum" or "beta1",
    betas[0]) at each step, rounded to float32, are passed on so."""
    kwargs = {k: rounded(v) for k, v in kwargs.items()}
    shapes = [(2, 3), (3,)]
    params0 = [torch.randn(s, dtype=torch.float64).to(dtype) for s in shapes]
    grads = make_grads(shapes, dtype, none_at=none_at)
    if lrs is not None:
        lrs = [rounded(v) for v in lrs]
    ps = [p.clone().requires_grad_() for p in params0]
    opt = cls(ps, foreach=False, **kwargs, **(torch_kwargs or {}))
    group = opt.param_groups[0]
    base, base_betas, base_momentum = group["lr"], group.get("betas"), group.get("momentum")
    sch = sched(opt) if sched else None
    if sch:
        lrs = []
    for i in range(STEPS):
        for p, gr in zip(ps, grads[i]):
            p.grad = None if gr is None else gr.clone()
        if sch:
            m = group["betas"][0] if mom_kw == "beta1" else group["momentum"]
            lrs.append({"lr": f32(group["lr"]), mom_kw: f32(m)})
        h = None if lrs is None else lrs[i]
        # what update is not given is the optimizer's own
        group["lr"] = base if h is None else h.get("lr", base) if isinstance(h, dict) else h
        h = h if isinstance(h, dict) else {}
        if "betas" in group:
            group["betas"] = (h.get("beta1", base_betas[0]), base_betas[1])
        if "momentum" in group:
            group["momentum"] = h.get("momentum", base_momentum)
        opt.step()
        if sch:
            sch.step()
    out = [p.detach().clone() for p in ps]
    for k in keys:
        if k == "step":
            out.append(torch.tensor(STEPS))
        elif k in ("eta", "mu", "mu_product"):
            out.append(opt.state[ps[0]][k].clone())
        else:
            out.extend(opt.state[p][k].clone() for p in ps)
    if lrs is not None:
        lrs = [[e for kv in h.items() for e in kv] if isinstance(h, dict) else h for h in lrs]
    g.expect("optim/" + label, "optim_steps", [name, params0, grads, lrs, list(keys)], kwargs, out, rtol=rtol, atol=atol)


# float64 parameters show the order of the arithmetic (torch's FMAs
# differ from tref's multiply-then-add in the last bit only)
F64 = dict(dtype=torch.float64, rtol=1e-11, atol=1e-13)
LRS = [0.5, 0.25, None, 0.125, 2.0, 1.0, 0.5, None, 0.75, 0.1]

ad = ["step", "square_avg", "acc_delta"]
optim_case("adadelta/default", "adadelta", O.Adadelta, {}, ad)
optim_case("adadelta/wd-rho", "adadelta", O.Adadelta, {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1}, ad)
optim_case("adadelta/maximize-lrs", "adadelta", O.Adadelta, {"maximize": True}, ad, lrs=LRS)
optim_case("adadelta/float64", "adadelta", O.Adadelta, {"weight_decay": 0.05}, ad, **F64)
optim_case("adadelta/rho-1", "adadelta", O.Adadelta, {"rho": 1.0}, ad)

am = ["exp_avg", "exp_inf"]
optim_case("adamax/default", "adamax", O.Adamax, {}, am)
optim_case("adamax/wd-betas", "adamax", O.Adamax, {"lr": 0.01, "betas": [0.8, 0.9], "eps": 1e-3, "weight_decay": 0.2}, am)
optim_case("adamax/maximize-lrs", "adamax", O.Adamax, {"maximize": True}, am, lrs=[v and v / 100 for v in LRS])
optim_case("adamax/float64", "adamax", O.Adamax, {"weight_decay": 0.05}, am, **F64)

na = ["mu_product", "exp_avg", "exp_avg_sq"]
optim_case("nadam/default", "nadam", O.NAdam, {}, na)
optim_case("nadam/wd-decay", "nadam", O.NAdam, {"lr": 0.01, "betas": [0.85, 0.99], "eps": 1e-6, "weight_decay": 0.1, "momentum_decay": 0.05}, na)
optim_case("nadam/lrs", "nadam", O.NAdam, {}, na, lrs=[v and v / 100 for v in LRS])
optim_case("nadam/float64", "nadam", O.NAdam, {"momentum_decay": 0.5}, na, **F64)

ra = ["exp_avg", "exp_avg_sq"]
optim_case("radam/default", "radam", O.RAdam, {}, ra)
optim_case("radam/wd-betas", "radam", O.RAdam, {"lr": 0.01, "betas": [0.8, 0.95], "eps": 1e-6, "weight_decay": 0.1}, ra)
optim_case("radam/lrs", "radam", O.RAdam, {}, ra, lrs=[v and v / 100 for v in LRS])
optim_case("radam/float64", "radam", O.RAdam, {"weight_decay": 0.01}, ra, **F64)

rp = ["prev", "step_size"]
optim_case("rprop/default", "rprop", O.Rprop, {}, rp)
optim_case("rprop/etas-sizes", "rprop", O.Rprop, {"lr": 0.05, "etas": [0.3, 1.5], "step_sizes": [0.01, 0.08]}, rp)
optim_case("rprop/maximize", "rprop", O.Rprop, {"maximize": True}, rp)
# lr only sets the first step sizes: later overrides change nothing
optim_case("rprop/lrs", "rprop", O.Rprop, {}, rp, lrs=[v and v / 10 for v in LRS])
optim_case("rprop/float64", "rprop", O.Rprop, {"lr": 0.1, "step_sizes": [1e-3, 0.3]}, rp, **F64)

asg = ["eta", "mu", "ax"]
optim_case("asgd/default", "asgd", O.ASGD, {}, asg)
optim_case("asgd/averaging", "asgd", O.ASGD, {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3.0, "weight_decay": 0.1}, asg)
optim_case("asgd/maximize-lrs", "asgd", O.ASGD, {"t0": 2.0, "maximize": True}, asg, lrs=[v and v / 10 for v in LRS])
optim_case("asgd/float64", "asgd", O.ASGD, {"lr": 0.1, "lambd": 0.1, "t0": 4.0}, asg, **F64)
# the default lr (a float64 0.01) makes eta float32-rounded at once
optim_case("asgd/float64-default", "asgd", O.ASGD, {"t0": 4.0}, asg, **F64)

adm = ["exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
optim_case("adam/amsgrad", "adam", O.Adam, {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}, adm)
optim_case("adam/maximize", "adam", O.Adam, {"lr": 0.01, "maximize": True}, ["exp_avg", "exp_avg_sq"])
optim_case("adamw/amsgrad-maximize", "adamw", O.AdamW, {"lr": 0.01, "amsgrad": True, "maximize": True}, adm, lrs=[v and v / 100 for v in LRS])

# maximize on the optimizers of optim.go and optim_more.go
optim_case("sgd/maximize-momentum", "sgd", O.SGD, {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.1, "maximize": True}, ["momentum_buffer"])
optim_case("sgd/maximize-nesterov", "sgd", O.SGD, {"lr": 0.05, "momentum": 0.5, "nesterov": True, "maximize": True}, ["momentum_buffer"], **F64)
optim_case("rmsprop/maximize-centered", "rmsprop", O.RMSprop, {"momentum": 0.8, "centered": True, "weight_decay": 0.1, "maximize": True}, ["square_avg", "momentum_buffer", "grad_avg"])
optim_case("adagrad/maximize", "adagrad", O.Adagrad, {"lr_decay": 0.1, "weight_decay": 0.1, "maximize": True}, ["sum"])

# momentum (beta1) scheduled as OneCycleLR and CyclicLR cycle it: the
# rates torch's scheduler sets at each step, passed as update's lr= and
# momentum= or beta1=
ONE = lambda o: S.OneCycleLR(o, f32(0.2), total_steps=STEPS)
ONE3 = lambda o: S.OneCycleLR(o, f32(0.2), total_steps=STEPS, three_phase=True, anneal_strategy="linear", base_momentum=f32(0.5), max_momentum=f32(0.9))
CYC = lambda o: S.CyclicLR(o, f32(0.01), f32(0.1), step_size_up=3, base_momentum=f32(0.6), max_momentum=f32(0.95))
optim_case("sgd/onecycle", "sgd", O.SGD, {"lr": 0.1, "momentum": 0.9, "dampening": 0.1}, ["momentum_buffer"], sched=ONE)
optim_case("sgd/onecycle-nesterov", "sgd", O.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True}, ["momentum_buffer"], sched=ONE3, **F64)
optim_case("sgd/cyclic", "sgd", O.SGD, {"lr": 0.1, "momentum": 0.9}, ["momentum_buffer"], sched=CYC)
optim_case("rmsprop/onecycle", "rmsprop", O.RMSprop, {"momentum": 0.9}, ["square_avg", "momentum_buffer"], sched=ONE)
optim_case("adam/onecycle", "adam", O.Adam, {}, ["exp_avg", "exp_avg_sq"], sched=ONE, mom_kw="beta1")
optim_case("adamw/onecycle-amsgrad", "adamw", O.AdamW, {"amsgrad": True}, adm, sched=ONE3, mom_kw="beta1", **F64)
optim_case("adamax/onecycle", "adamax", O.Adamax, {}, am, sched=ONE, mom_kw="beta1")
optim_case("nadam/onecycle", "nadam", O.NAdam, {}, na, sched=ONE3, mom_kw="beta1")
optim_case("radam/onecycle", "radam", O.RAdam, {}, ra, sched=ONE, mom_kw="beta1")
# a momentum scheduled to 0 leaves the buffer as it is, and back above 0
# carries on from it
optim_case("sgd/momentum-0", "sgd", O.SGD, {"lr": 0.1, "momentum": 0.9}, ["momentum_buffer"], lrs=[None, {"momentum": 0.0}, None, {"momentum": 0.0}, {"momentum": 0.5}] + [None] * 5)
optim_case("sgd/momentum-0-first", "sgd", O.SGD, {"lr": 0.1, "momentum": 0.9}, ["momentum_buffer"], lrs=[{"momentum": 0.0}, {"momentum": 0.0}] + [None] * 8)
optim_case("rmsprop/momentum-0", "rmsprop", O.RMSprop, {"momentum": 0.9}, ["square_avg", "momentum_buffer"], lrs=[None, {"lr": 0.02, "momentum": 0.0}, {"momentum": 0.0}, {"momentum": 0.3}] + [None] * 6)

# a parameter whose gradient is always none is left as it is
optim_case("nadam/none-grad", "nadam", O.NAdam, {}, [], none_at=1)
optim_case("asgd/none-grad", "asgd", O.ASGD, {"t0": 2.0}, [], none_at=0)

# optimizer errors
for i, (fn, kw, msg) in enumerate([
    ("adadelta", {"rho": 1.5}, "adadelta: invalid rho 1.5 (torch requires 0 <= rho <= 1)"),
    ("adadelta", {"lr": -1.0}, "adadelta: invalid lr -1 (torch requires 0 <= lr)"),
    ("adamax", {"betas": [1.0, 0.5]}, "adamax: invalid betas[0] 1 (torch requires 0 <= betas[0] < 1)"),
    ("adamax", {"betas": [0.5]}, "adamax: betas must be a list of two numbers"),
    ("nadam", {"momentum_decay": -0.5}, "nadam: invalid momentum_decay -0.5"),
    ("nadam", {"betas": [0.9, 1.0]}, "nadam: invalid betas[1] 1"),
    ("radam", {"eps": -0.5}, "radam: invalid eps -0.5"),
    ("radam", {"weight_decay": -0.5}, "radam: invalid weight_decay -0.5"),
    ("rprop", {"etas": [1.5, 2.0]}, "rprop: invalid etas[0] 1.5 (torch requires 0 < etas[0] < 1 < etas[1])"),
    ("rprop", {"etas": [0.5, 1.0]}, "rprop: invalid etas[1] 1"),
    ("rprop", {"step_sizes": [0.5, "x"]}, "rprop: step_sizes must be a list of two numbers"),
    ("asgd", {"weight_decay": -0.5}, "asgd: invalid weight_decay -0.5"),
    ("asgd", {"lr": -0.5}, "asgd: invalid lr -0.5"),
]):
    g.error("optim-error/%d-%s" % (i, fn), fn, [], msg, kw)


# Schedules: the rates torch's scheduler gives, step by step.
def rates(make, n, lr=0.5):
    w = torch.zeros(1, requires_grad=True)
    opt = O.SGD([w], lr=lr, momentum=0.9)
    sched = make(opt)
    out = []
    for i in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        if i < n - 1:
            sched.step()
    return out


def sched_case(label, name, make, n, args, kwargs, lr=None):
    """make(opt) is torch's scheduler for the rounded arguments; tref's
    name(*args, step=i, **kwargs) for i < n must give its rates."""
    args, kwargs = rounded(args), {k: rounded(v) for k, v in kwargs.items()}
    want = rates(lambda o: make(o, *args[1:] if lr is None else args, **kwargs), n, lr=args[0] if lr is None else lr)
    g.expect("sched/" + label, "lr_steps", [name, n] + list(args), kwargs, torch.tensor(want, dtype=torch.float64), rtol=1e-12, atol=1e-15)


sched_case("multistep/basic", "multistep_lr", lambda o, milestones, gamma=0.1: S.MultiStepLR(o, milestones, gamma=gamma), 20, [0.5], {"milestones": [3, 7, 12]})
sched_case("multistep/repeated-unsorted", "multistep_lr", lambda o, milestones, gamma=0.1: S.MultiStepLR(o, milestones, gamma=gamma), 15, [0.3], {"milestones": [9, 4, 4, 0, -2], "gamma": 0.5})
sched_case("exponential/basic", "exponential_lr", lambda o, gamma: S.ExponentialLR(o, gamma), 60, [0.5], {"gamma": 0.9})
sched_case("exponential/grow", "exponential_lr", lambda o, gamma: S.ExponentialLR(o, gamma), 200, [0.001], {"gamma": 1.05})
sched_case("linear/default", "linear_lr", lambda o, **k: S.LinearLR(o, **k), 10, [0.5], {})
sched_case("linear/decay", "linear_lr", lambda o, **k: S.LinearLR(o, **k), 30, [0.1], {"start_factor": 1.0, "end_factor": 0.05, "total_iters": 20})
sched_case("linear/to-zero", "linear_lr", lambda o, **k: S.LinearLR(o, **k), 12, [0.1], {"start_factor": 0.5, "end_factor": 0.0, "total_iters": 7})
sched_case("linear/zero-iters", "linear_lr", lambda o, **k: S.LinearLR(o, **k), 5, [0.1], {"start_factor": 0.25, "total_iters": 0})
sched_case("polynomial/default", "polynomial_lr", lambda o, **k: S.PolynomialLR(o, **k), 9, [0.5], {})
sched_case("polynomial/power", "polynomial_lr", lambda o, **k: S.PolynomialLR(o, **k), 30, [0.1], {"total_iters": 25, "power": 2.5})
sched_case("polynomial/sqrt", "polynomial_lr", lambda o, **k: S.PolynomialLR(o, **k), 14, [0.1], {"total_iters": 10, "power": 0.5})
sched_case("polynomial/zero-iters", "polynomial_lr", lambda o, **k: S.PolynomialLR(o, **k), 4, [0.1], {"total_iters": 0})


def onecycle(label, total, n=None, **kw):
    max_lr = rounded(0.4)
    kw = {k: rounded(v) for k, v in kw.items()}
    want = rates(lambda o: S.OneCycleLR(o, max_lr, total_steps=total, **kw), total + 1 if n is None else n)
    g.expect("sched/onecycle-" + label, "lr_steps", ["onecycle_lr", total + 1 if n is None else n, max_lr], dict(kw, total_steps=total), torch.tensor(want, dtype=torch.float64), rtol=1e-12, atol=1e-15)


onecycle("default", 40)
onecycle("linear", 37, anneal_strategy="linear")
onecycle("three-phase", 50, three_phase=True)
onecycle("three-phase-linear", 33, three_phase=True, anneal_strategy="linear", pct_start=0.4, div_factor=10.0, final_div_factor=100.0)
onecycle("short-rise", 7, pct_start=0.1)
onecycle("no-rise", 10, pct_start=0.0)
onecycle("all-rise", 10, n=10, pct_start=1.0)  # step 10 would divide by zero

def cyclic(o, base_lr, max_lr, **kw):
    return S.CyclicLR(o, base_lr, max_lr, **kw)


sched_case("cyclic/triangular", "cyclic_lr", cyclic, 45, [0.01, 0.1], {"step_size_up": 5}, lr=0.5)
sched_case("cyclic/asymmetric", "cyclic_lr", cyclic, 45, [0.01, 0.1], {"step_size_up": 3, "step_size_down": 7}, lr=0.5)
sched_case("cyclic/triangular2", "cyclic_lr", cyclic, 60, [0.001, 0.1], {"step_size_up": 4, "mode": "triangular2"}, lr=0.5)
sched_case("cyclic/exp-range", "cyclic_lr", cyclic, 60, [0.001, 0.1], {"step_size_up": 6, "step_size_down": 2, "mode": "exp_range", "gamma": 0.97}, lr=0.5)
sched_case("cyclic/no-fall", "cyclic_lr", cyclic, 20, [0.001, 0.1], {"step_size_up": 4, "step_size_down": 0}, lr=0.5)
sched_case("cyclic/default", "cyclic_lr", cyclic, 5, [0.001, 0.1], {}, lr=0.5)


def momenta(label, name, make, n, kwargs, cls=O.SGD):
    """The momentum (betas[0] for an optimizer with betas) that make(opt),
    given kwargs rounded, sets at each of n steps against tref's
    name(step=i, **kwargs)."""
    kwargs = {k: rounded(v) for k, v in kwargs.items()}
    w = torch.zeros(1, requires_grad=True)
    opt = cls([w], lr=0.5, momentum=0.3) if cls is O.SGD else cls([w], lr=0.5)
    sched = make(opt, **kwargs)
    group = opt.param_groups[0]
    out = []
    for i in range(n):
        out.append(group["betas"][0] if "betas" in group else group["momentum"])
        opt.step()
        if i < n - 1:
            sched.step()
    g.expect("sched/" + label, "lr_steps", [name, n], kwargs, torch.tensor(out, dtype=torch.float64), rtol=1e-12, atol=1e-15)


def onecycle_m(o, **kw):
    return S.OneCycleLR(o, 0.4, **kw)


momenta("onecycle-momentum/default", "onecycle_momentum", onecycle_m, 41, {"total_steps": 40})
momenta("onecycle-momentum/adam", "onecycle_momentum", onecycle_m, 31, {"total_steps": 30, "base_momentum": 0.7, "max_momentum": 0.99}, cls=O.Adam)
momenta("onecycle-momentum/linear", "onecycle_momentum", onecycle_m, 38, {"total_steps": 37, "anneal_strategy": "linear", "pct_start": 0.4})
momenta("onecycle-momentum/three-phase", "onecycle_momentum", onecycle_m, 51, {"total_steps": 50, "three_phase": True})
momenta("onecycle-momentum/three-phase-linear", "onecycle_momentum", onecycle_m, 34, {"total_steps": 33, "three_phase": True, "anneal_strategy": "linear", "base_momentum": 0.5, "max_momentum": 0.8})
momenta("onecycle-momentum/no-rise", "onecycle_momentum", onecycle_m, 11, {"total_steps": 10, "pct_start": 0.0})


def cyclic_m(o, **kw):
    return S.CyclicLR(o, 0.01, 0.1, **kw)


momenta("cyclic-momentum/triangular", "cyclic_momentum", cyclic_m, 45, {"step_size_up": 5})
momenta("cyclic-momentum/asymmetric", "cyclic_momentum", cyclic_m, 45, {"step_size_up": 3, "step_size_down": 7, "base_momentum": 0.5, "max_momentum": 0.95})
momenta("cyclic-momentum/triangular2", "cyclic_momentum", cyclic_m, 60, {"step_size_up": 4, "mode": "triangular2"})
momenta("cyclic-momentum/exp-range", "cyclic_momentum", cyclic_m, 60, {"step_size_up": 6, "step_size_down": 2, "mode": "exp_range", "gamma": 0.97})
momenta("cyclic-momentum/default", "cyclic_momentum", cyclic_m, 5, {})


def warm(o, **kw):
    return S.CosineAnnealingWarmRestarts(o, **kw)


sched_case("warm-restarts/fixed", "cosine_warm_restarts_lr", lambda o, **k: warm(o, **k), 40, [0.5], {"T_0": 7})
sched_case("warm-restarts/mult", "cosine_warm_restarts_lr", lambda o, **k: warm(o, **k), 80, [0.5], {"T_0": 3, "T_mult": 2, "eta_min": 0.01})
sched_case("warm-restarts/mult3", "cosine_warm_restarts_lr", lambda o, **k: warm(o, **k), 60, [0.1], {"T_0": 2, "T_mult": 3})
sched_case("warm-restarts/one", "cosine_warm_restarts_lr", lambda o, **k: warm(o, **k), 6, [0.1], {"T_0": 1})

# schedule errors
for label, fn, args, kw, msg in [
    ("multistep-step", "multistep_lr", [0.1, -1, [2]], {}, "multistep_lr: step must be at least 0, got -1"),
    ("linear-start", "linear_lr", [0.1, 1], {"start_factor": 0.0}, "linear_lr: start_factor must be in (0, 1] and end_factor in [0, 1], got 0 and 1"),
    ("linear-end", "linear_lr", [0.1, 1], {"end_factor": 1.5}, "linear_lr: start_factor must be in (0, 1] and end_factor in [0, 1]"),
    ("polynomial-negative-power", "polynomial_lr", [0.1, 5], {"power": -1.0}, "polynomial_lr: the rate at step 5 is 0 to the power -1 (torch divides by zero)"),
    ("onecycle-past", "onecycle_lr", [0.1, 11, 10], {}, "onecycle_lr: step 11 is past total_steps 10"),
    ("onecycle-total", "onecycle_lr", [0.1, 0, 0], {}, "onecycle_lr: expected a positive total_steps, got 0"),
    ("onecycle-pct", "onecycle_lr", [0.1, 0, 10], {"pct_start": 1.5}, "onecycle_lr: expected pct_start between 0 and 1, got 1.5"),
    ("onecycle-anneal", "onecycle_lr", [0.1, 0, 10], {"anneal_strategy": "exp"}, "onecycle_lr: anneal_strategy must be \"cos\" or \"linear\", not \"exp\""),
    ("onecycle-div", "onecycle_lr", [0.1, 0, 10], {"div_factor": 0.0}, "onecycle_lr: div_factor and final_div_factor must not be 0"),
    # pct_start·total_steps = 1: the rise has length 0, and torch divides by it at step 0
    ("onecycle-empty-phase", "onecycle_lr", [0.1, 0, 4], {"pct_start": 0.25}, "onecycle_lr: phase 1 of the cycle has length 0 (torch divides by zero)"),
    ("onecycle-empty-last-phase", "onecycle_lr", [0.1, 10, 10], {"pct_start": 1.0}, "onecycle_lr: phase 2 of the cycle has length 0 (torch divides by zero)"),
    ("cyclic-mode", "cyclic_lr", [0.1, 1.0, 0], {"mode": "cosine"}, "cyclic_lr: mode must be \"triangular\", \"triangular2\" or \"exp_range\", not \"cosine\""),
    ("cyclic-empty", "cyclic_lr", [0.1, 1.0, 0], {"step_size_up": 0, "step_size_down": 0}, "cyclic_lr: the cycle (step_size_up + step_size_down) has length 0"),
    ("cyclic-no-rise", "cyclic_lr", [0.1, 1.0, 0], {"step_size_up": 0, "step_size_down": 4}, "cyclic_lr: the rise (step_size_up) has length 0"),
    ("cyclic-down", "cyclic_lr", [0.1, 1.0, 0], {"step_size_down": "x"}, 'cyclic_lr: argument "step_size_down" must be a number or none, not string'),
    ("onecycle-momentum-past", "onecycle_momentum", [11, 10], {}, "onecycle_momentum: step 11 is past total_steps 10"),
    ("onecycle-momentum-pct", "onecycle_momentum", [0, 10], {"pct_start": -0.5}, "onecycle_momentum: expected pct_start between 0 and 1, got -0.5"),
    ("onecycle-momentum-empty-phase", "onecycle_momentum", [0, 4], {"pct_start": 0.25}, "onecycle_momentum: phase 1 of the cycle has length 0 (torch divides by zero)"),
    ("cyclic-momentum-mode", "cyclic_momentum", [0], {"mode": "cos"}, "cyclic_momentum: mode must be"),
    ("cyclic-momentum-step", "cyclic_momentum", [-1], {}, "cyclic_momentum: step must be at least 0, got -1"),
    ("warm-T0", "cosine_warm_restarts_lr", [0.1, 0, 0], {}, "cosine_warm_restarts_lr: expected a positive T_0 and T_mult >= 1, got 0 and 1"),
    ("warm-Tmult", "cosine_warm_restarts_lr", [0.1, 0, 3], {"T_mult": 0}, "cosine_warm_restarts_lr: expected a positive T_0 and T_mult >= 1, got 3 and 0"),
]:
    g.error("sched-error/" + label, fn, args, msg, kw)

g.write()
