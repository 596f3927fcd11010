"""Shared helpers of the golden generators (run with Debian's /usr/bin/python3).

Each gen_<family>.py builds a Golden, adds cases and writes <family>.json next
to this file; stdlib/golden_test.go replays every case through the tref
builtin named by "fn" and compares with torch's result.

    from gen_common import Golden
    g = Golden("elementwise")
    g.case("add/bcast", "add", torch.add, [a, b])          # torch computes "out"
    g.case("sum/dim", "sum", torch.sum, [x], {"dim": 1})   # kwargs go to both
    g.error("add/shape", "add", [a, c], "cannot broadcast shapes")
    g.write()

Python values become ARGs: torch.Tensor -> tensor, bool -> bool, int -> int,
float -> float (tref passes it as a float32 scalar, so the generator rounds
it to float32 before torch sees it), str -> str, list/tuple -> list,
dict (string keys) -> record, None -> none. `ref` (the torch callable) gets the same values, so the case
states what torch computes; pass tref_args/tref_kwargs only when tref spells
an argument differently (a dtype name instead of torch.float32).
"""

import json
import math
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(v):
    """Rounds a Python float to the nearest float32 value."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _num(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def encode_tensor(t):
    """TENSOR: {"dtype", "shape", "data"} with flat row-major data."""
    t = t.detach().cpu().contiguous()
    dtype = str(t.dtype).replace("torch.", "")
    if t.dtype in (torch.float16, torch.bfloat16):
        flat = t.float().reshape(-1).tolist()
    else:
        flat = t.reshape(-1).tolist()
    return {"dtype": dtype, "shape": list(t.shape), "data": [_num(v) for v in flat]}


def encode_arg(v):
    """ARG for a Python value (see the module doc)."""
    if isinstance(v, torch.Tensor):
        return {"tensor": encode_tensor(v)}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": _num(f32(v))}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, (list, tuple)):
        return {"list": [encode_arg(e) for e in v]}
    if isinstance(v, dict):
        return {"record": {"keys": list(v), "values": [encode_arg(e) for e in v.values()]}}
    if v is None:
        return {"none": True}
    raise TypeError("cannot encode %r" % (v,))


def encode_out(v):
    """The "out" of a case: a TENSOR, or {"list": [TENSOR...]}."""
    if isinstance(v, (list, tuple)):
        return {"list": [encode_tensor(torch.as_tensor(e)) for e in v]}
    if isinstance(v, torch.Tensor):
        return encode_tensor(v)
    if isinstance(v, bool):
        return encode_tensor(torch.tensor(v))
    if isinstance(v, int):
        return encode_tensor(torch.tensor(v, dtype=torch.int64))
    if isinstance(v, float):
        return encode_tensor(torch.tensor(v, dtype=torch.float32))
    raise TypeError("cannot encode result %r" % (v,))


def _round_floats(v):
    if isinstance(v, float):
        return f32(v)
    if isinstance(v, list):
        return [_round_floats(e) for e in v]
    if isinstance(v, tuple):
        return tuple(_round_floats(e) for e in v)
    return v


class Golden:
    """Collects the cases of one family and writes <family>.json."""

    def __init__(self, family):
        self.family = family
        self.cases = []
        self.names = set()

    def _add(self, case):
        if case["name"] in self.names:
            raise ValueError("duplicate case name " + case["name"])
        self.names.add(case["name"])
        self.cases.append(case)

    def case(self, name, fn, ref, args, kwargs=None, rtol=None, atol=None,
             tref_args=None, tref_kwargs=None):
        """A case whose expected output is ref(*args, **kwargs) in torch."""
        kwargs = kwargs or {}
        args = _round_floats(list(args))
        kwargs = {k: _round_floats(v) for k, v in kwargs.items()}
        out = ref(*args, **kwargs)
        self.expect(name, fn, tref_args if tref_args is not None else args,
                    tref_kwargs if tref_kwargs is not None else kwargs,
                    out, rtol, atol)

    def expect(self, name, fn, args, kwargs, out, rtol=None, atol=None):
        """A case with an explicitly given expected output."""
        c = {"name": name, "fn": fn, "args": [encode_arg(a) for a in args]}
        if kwargs:
            c["kwargs"] = {k: encode_arg(v) for k, v in kwargs.items()}
        c["out"] = encode_out(out)
        if rtol is not None:
            c["rtol"] = rtol
        if atol is not None:
            c["atol"] = atol
        self._add(c)

    def grad_case(self, label, name, fn, args, kwargs=None, atol=2e-5, rtol=None):
        """A case "grad/<label>": torch autograd's gradients of
        sum(fn(args...) * w), w random, with respect to every float tensor
        argument (zeros for one the output does not depend on), replayed by
        tref's test builtin vjp_of_sum(name, w, args...)."""
        kwargs = kwargs or {}
        xs = [a.clone().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
        out = fn(*xs, **kwargs)
        w = torch.randn(tuple(out.shape), dtype=torch.float32)
        (out * w).sum().backward()
        grads = [torch.zeros_like(x) if x.grad is None else x.grad
                 for x in xs if isinstance(x, torch.Tensor) and x.is_floating_point()]
        self.case("grad/" + label, "vjp_of_sum", lambda *a, **k: grads, [name, w] + list(args), kwargs, atol=atol, rtol=rtol)

    def error(self, name, fn, args, substring, kwargs=None):
        """A case that must fail with an error containing substring."""
        c = {"name": name, "fn": fn, "args": [encode_arg(a) for a in _round_floats(list(args))]}
        if kwargs:
            c["kwargs"] = {k: encode_arg(v) for k, v in kwargs.items()}
        c["out"] = {"error": substring}
        self._add(c)

    def write(self):
        path = os.path.join(HERE, self.family + ".json")
        head = json.dumps({"family": self.family, "torch": torch.__version__})
        lines = [json.dumps(c, separators=(",", ":"), allow_nan=False) for c in self.cases]
        with open(path, "w") as f:
            # One case per line keeps diffs of regenerated files readable.
            f.write(head[:-1] + ', "cases": [\n' + ",\n".join(lines) + "\n]}\n")
        print("%s: %d cases" % (path, len(self.cases)), file=sys.stderr)
