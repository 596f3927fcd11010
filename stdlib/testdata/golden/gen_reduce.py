"""Goldens of the reduction builtins: /usr/bin/python3 gen_reduce.py

sum mean prod max min argmax argmin var std any all with dim= (none, an
int, negative, a list) and keepdim=, over dtypes and shapes including 0-d
and empty tensors. torch spells some of these differently (amax for max
over dims, one dim at a time for prod/any/all), so each reference below
states tref's meaning in torch terms.
"""

import torch

from gen_common import Golden

torch.manual_seed(1)
g = Golden("reduce")


def dims_of(x, dim):
    if dim is None or dim == []:
        return list(range(x.dim()))
    if isinstance(dim, int):
        return [dim]
    return list(dim)


def norm(x, dims):
    r = max(x.dim(), 1)
    return sorted(d % r for d in dims)


def over_dims(fn):
    """A reduction that torch applies one dim at a time (prod, any, all)."""
    def ref(x, dim=None, keepdim=False):
        if x.dim() == 0:
            return fn(x, 0, False)
        for d in reversed(norm(x, dims_of(x, dim))):
            x = fn(x, d, True)
        if not keepdim:
            for d in reversed(norm(x, dims_of(x, dim))):
                x = x.squeeze(d)
        return x
    return ref


def tuple_dims(fn):
    """A reduction torch takes with a tuple of dims (sum, mean, var...)."""
    def ref(x, dim=None, keepdim=False, **kw):
        return fn(x, dim=tuple(dims_of(x, dim)), keepdim=keepdim, **kw)
    return ref


def arg(fn):
    def ref(x, dim=None, keepdim=False):
        return fn(x, dim=dim, keepdim=keepdim)
    return ref


def values_indices(fn, amax):
    """max and min: (values, indices) over an int dim as torch.max(x, dim),
    the values alone over a list of dims as torch.amax."""
    def ref(x, dim=None, keepdim=False):
        if isinstance(dim, int):
            return tuple(fn(x, dim, keepdim=keepdim))
        return amax(x, dim=tuple(dims_of(x, dim)), keepdim=keepdim)
    return ref


REFS = {
    "sum": tuple_dims(torch.sum),
    "mean": tuple_dims(torch.mean),
    "prod": over_dims(lambda x, d, k: torch.prod(x, d, keepdim=k)),
    "max": values_indices(torch.max, torch.amax),
    "min": values_indices(torch.min, torch.amin),
    "argmax": arg(torch.argmax),
    "argmin": arg(torch.argmin),
    "var": tuple_dims(torch.var),
    "std": tuple_dims(torch.std),
    "any": over_dims(lambda x, d, k: torch.any(x, d, keepdim=k)),
    "all": over_dims(lambda x, d, k: torch.all(x, d, keepdim=k)),
}
FLOAT_ONLY = {"mean", "var", "std"}


def make(dt, shape):
    n = 1
    for s in shape:
        n *= s
    if dt == "bool":
        return (torch.arange(n) % 3 != 1).reshape(shape)
    if dt == "u8":
        return torch.randint(0, 5, shape, dtype=torch.uint8)
    if dt == "i64":
        return torch.randint(-4, 5, shape, dtype=torch.int64)
    t = torch.randn(shape, dtype=torch.float64).to(torch.float64 if dt == "f64" else torch.float32)
    return t


SHAPES = {
    "0d": [],
    "1": [1],
    "5": [5],
    "2x3": [2, 3],
    "2x3x4": [2, 3, 4],
    "3x1x4": [3, 1, 4],
    "2x3x4x5": [2, 3, 4, 5],
}
DIMS = [None, 0, -1, 1, [0, 1], [0, 2], [-1, 0], [1, 3], [0, 1, 2, 3], []]


def fits(shape, dim, name):
    r = len(shape)
    if dim is None:
        return True
    ds = [dim] if isinstance(dim, int) else dim
    if name in ("argmax", "argmin") and not isinstance(dim, int):
        return False
    if r == 0:
        return ds in ([0], [-1], [])
    return all(-r <= d < r for d in ds) and len(set(d % r for d in ds)) == len(ds)


def dim_name(dim):
    if dim is None:
        return "all"
    if isinstance(dim, int):
        return "d%d" % dim
    return "d" + ",".join(map(str, dim)) if dim else "dnone"


for name, ref in REFS.items():
    for sname, shape in SHAPES.items():
        for dim in DIMS:
            if not fits(shape, dim, name):
                continue
            for keepdim in (False, True):
                if name == "prod" and isinstance(dim, list) and len(shape) == 0:
                    continue
                x = make("f32", shape)
                kw = {}
                if dim is not None:
                    kw["dim"] = dim
                if keepdim:
                    kw["keepdim"] = True
                case = "%s/f32/%s/%s%s" % (name, sname, dim_name(dim), "/keep" if keepdim else "")
                g.case(case, name, ref, [x], kw)

# Dtypes.
for name, ref in REFS.items():
    for dt in ("f64", "i64", "u8", "bool"):
        if name in FLOAT_ONLY and dt != "f64":
            g.error("%s/error/%s" % (name, dt), name, [make(dt, [2, 3])], "%s needs a float tensor" % name)
            continue
        if name in ("argmax", "argmin") and dt == "bool":
            g.error("%s/error/bool" % name, name, [make(dt, [2, 3])], "not supported on bool")
            continue
        if name in ("any", "all") and dt == "u8":
            continue  # torch keeps uint8 here; tref gives bool (see the u8 cases below)
        for dim in (None, 1, [0, 1]):
            if name in ("argmax", "argmin") and isinstance(dim, list):
                continue
            x = make(dt, [2, 3])
            kw = {} if dim is None else {"dim": dim}
            g.case("%s/%s/%s" % (name, dt, dim_name(dim)), name, ref, [x], kw)
for name in ("any", "all"):
    x = torch.tensor([[0, 3, 0], [1, 2, 200]], dtype=torch.uint8)
    g.expect("%s/u8/d1" % name, name, [x], {"dim": 1}, REFS[name](x != 0, dim=1))

# Empty tensors: identities where torch has them, errors where it has none.
empty = torch.zeros(0, 3)
for name in ("sum", "mean", "prod", "var", "std", "any", "all"):
    g.case(name + "/empty/all", name, REFS[name], [empty])
    g.case(name + "/empty/d0", name, REFS[name], [empty], {"dim": 0})
    g.case(name + "/empty/d1", name, REFS[name], [empty], {"dim": 1})
for name in ("max", "min"):
    g.case(name + "/empty/d1", name, REFS[name], [empty], {"dim": 1})
    g.error(name + "/error/empty", name, [empty], "empty tensor")
    g.error(name + "/error/empty-d0", name, [empty], "of size 0", {"dim": 0})
for name in ("argmax", "argmin"):
    g.error(name + "/error/empty", name, [empty], "empty tensor")

# NaN handling and ties.
nanx = torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, 5.0, -1.0]])
for name in ("max", "min", "argmax", "argmin", "sum", "any", "all"):
    g.case(name + "/nan/d1", name, REFS[name], [nanx], {"dim": 1})
    g.case(name + "/nan/d0", name, REFS[name], [nanx], {"dim": 0})
ties = torch.tensor([[3, 1, 3], [0, 0, 0]], dtype=torch.int64)
for name in ("argmax", "argmin"):
    g.case(name + "/ties", name, REFS[name], [ties], {"dim": 1})
    g.case(name + "/ties-flat", name, REFS[name], [ties])
    g.case(name + "/keepdim-flat", name, REFS[name], [ties], {"keepdim": True})
g.case("max/inf", "max", REFS["max"], [torch.tensor([float("-inf"), float("-inf")])])
g.case("argmax/inf", "argmax", REFS["argmax"], [torch.tensor([float("-inf"), float("-inf")])])

# var/std corrections.
vx = make("f32", [3, 5])
for c in (0, 2):
    for name in ("var", "std"):
        g.case("%s/correction%d" % (name, c), name, lambda x, dim, correction: REFS[name](x, dim=dim, correction=correction),
               [vx], {"dim": 1, "correction": c})
g.case("var/one-element", "var", REFS["var"], [torch.tensor([2.5])])
g.case("std/positional", "std", lambda x, d, c: torch.std(x, dim=d, correction=c), [vx, 0, 0])

# Accuracy: float32 sums of many elements stay within 1e-5 of torch's.
acc = (torch.rand(20000) * 1000).float()
g.case("sum/accuracy/20000", "sum", REFS["sum"], [acc])
g.case("mean/accuracy/20000", "mean", REFS["mean"], [acc])
g.case("var/accuracy/20000", "var", REFS["var"], [acc])
acc2 = torch.randn(50, 400).float() + 100
for dim in (0, 1):
    g.case("sum/accuracy/50x400/d%d" % dim, "sum", REFS["sum"], [acc2], {"dim": dim})
    g.case("std/accuracy/50x400/d%d" % dim, "std", REFS["std"], [acc2], {"dim": dim})

# Integer sums wrap in int64 and bools count.
g.case("sum/i64/big", "sum", REFS["sum"], [torch.tensor([1 << 62, 1 << 62, 5])])
g.case("prod/i64/big", "prod", REFS["prod"], [torch.tensor([1 << 40, 1 << 30, 3])])
g.case("sum/bool/count", "sum", REFS["sum"], [torch.tensor([[True, False, True], [True, True, True]])], {"dim": 1})

# Errors.
x23 = make("f32", [2, 3])
g.error("sum/error/dim-range", "sum", [x23], "dimension 2 out of range", {"dim": 2})
g.error("sum/error/dup", "sum", [x23], "appears more than once", {"dim": [1, -1]})
g.error("argmax/error/dims", "argmax", [x23], "must be an int or none", {"dim": [0, 1]})
g.error("mean/error/int", "mean", [make("i64", [3])], "mean needs a float tensor; use astype")


# max/min over an int dim give (values, indices) as torch.max(x, dim): ties
# take the first index, NaN is the extreme and its index is given, bools
# work (torch.argmax rejects them).
for name in ("max", "min"):
    fn = getattr(torch, name)
    tx = torch.tensor([[3.0, 1.0, 3.0], [0.0, 0.0, -2.0]])
    g.case(name + "/dim/ties", name, lambda x, dim: tuple(fn(x, dim)), [tx], {"dim": 1})
    g.case(name + "/dim/positional", name, lambda x, d, k: tuple(fn(x, d, k)), [tx, -1, True])
    g.case(name + "/dim/bool", name, lambda x, dim: tuple(fn(x, dim)),
           [torch.tensor([[False, True, True], [False, False, False]])], {"dim": 1})
    g.case(name + "/dim/i64", name, lambda x, dim: tuple(fn(x, dim)), [make("i64", [3, 4])], {"dim": 0})
    g.case(name + "/dim/0d", name, lambda x, dim: tuple(fn(x, dim)), [torch.tensor(2.5)], {"dim": 0})

# max/min of two tensors: maximum/minimum (torch.max(a, b)), broadcasting.
for name in ("max", "min"):
    fn = getattr(torch, name)
    a = torch.tensor([[1.0, float("nan"), 3.0], [4.0, -5.0, 0.5]])
    g.case(name + "/two-tensors", name, fn, [a, torch.tensor([2.0, 2.0, 2.0])])
    g.case(name + "/two-tensors/0d-float", name, fn, [a, torch.tensor(1.5)])
    g.error(name + "/two-tensors/keepdim", name, [a, torch.tensor([2.0, 2.0, 2.0])], "takes no keepdim", {"keepdim": True})

g.write()
