"""Goldens of torch.nn.init 1.13's deterministic parts: /usr/bin/python3 gen_nninit.py

calculate_gain's values, exactly (float64, rtol and atol 0; the int 1 of
the linear nonlinearities as an int), and the initializers that draw no
random numbers (constant_, ones_, zeros_, eye_, dirac_) over dtypes and
shapes: torch fills a clone in place, tref returns the filled tensor. The
random initializers are checked by spec/torch_porting_init.tr (bounds,
standard deviations, orthogonality, seeding).

Errors: each error case first runs torch on the same arguments and checks
that torch fails with a message containing the case's substring, so that
tref's message is held to torch's wording where it keeps it.
"""

import torch
from torch.nn import init

from gen_common import Golden, f32

g = Golden("nninit")

# calculate_gain: every nonlinearity torch knows; leaky_relu's slope as
# tref passes it (a float literal is float32, rounded before torch sees it).
for n in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
          "conv_transpose2d", "conv_transpose3d", "sigmoid"]:
    v = init.calculate_gain(n)
    assert v == 1 and isinstance(v, int)
    g.expect("gain/" + n, "calculate_gain", [n], {}, torch.tensor(v, dtype=torch.int64), rtol=0, atol=0)
for label, n, param in [("tanh", "tanh", None), ("relu", "relu", None),
                        ("selu", "selu", None), ("leaky_relu", "leaky_relu", None),
                        ("leaky_relu/0.2", "leaky_relu", f32(0.2)),
                        ("leaky_relu/int1", "leaky_relu", 1),
                        ("leaky_relu/neg3", "leaky_relu", -3),
                        ("leaky_relu/0.0", "leaky_relu", 0.0),
                        ("relu/param_ignored", "relu", 5)]:
    v = init.calculate_gain(n, param)
    args = [n] if param is None else [n, param]
    g.expect("gain/" + label, "calculate_gain", args, {}, torch.tensor(v, dtype=torch.float64), rtol=0, atol=0)
g.expect("gain/leaky_relu/none_kw", "calculate_gain", ["leaky_relu"], {"param": None},
         torch.tensor(init.calculate_gain("leaky_relu", None), dtype=torch.float64), rtol=0, atol=0)


def filled(f):
    """torch's in-place initializer f applied to a copy."""
    return lambda t, *a, **k: f(t.clone(), *a, **k)


def empty(shape, dtype=torch.float32):
    # the data is never read by either side: zeros keep the golden small
    return torch.zeros(shape, dtype=dtype)


# constant_, ones_, zeros_ keep the shape and dtype
for label, shape, dtype, val in [("f32", [2, 3], torch.float32, 0.3),
                                 ("f64", [4], torch.float64, -1.5),
                                 ("i64/trunc", [2, 2], torch.int64, 2.75),
                                 ("i64/neg_trunc", [3], torch.int64, -2.75),
                                 ("i64/int", [3], torch.int64, 7),
                                 ("i64/big", [2], torch.int64, 2**62 + 1),
                                 ("u8/wrap", [3], torch.uint8, -1),
                                 ("u8/max", [3], torch.uint8, 255),
                                 ("i8/min", [2], torch.int8, -128),
                                 ("bool", [2, 2], torch.bool, 0.5),
                                 ("f16", [3], torch.float16, 0.1),
                                 ("inf", [2], torch.float32, float("inf")),
                                 ("0d", [], torch.float32, 4.0),
                                 ("empty", [0, 3], torch.float32, 1.0)]:
    g.case("constant/" + label, "constant_", filled(init.constant_), [empty(shape, dtype), val])
g.case("constant/kw", "constant_", filled(init.constant_), [empty([2])], {"val": 1.25})
for label, shape, dtype in [("f32", [2, 3], torch.float32), ("i64", [4], torch.int64),
                            ("bool", [3], torch.bool), ("f64_3d", [2, 1, 2], torch.float64)]:
    g.case("ones/" + label, "ones_", filled(init.ones_), [empty(shape, dtype)])
    g.case("zeros/" + label, "zeros_", filled(init.zeros_), [empty(shape, dtype).add(1) if dtype != torch.bool else empty(shape, dtype)])

# eye_: square, wide, tall, empty, integer
for label, shape, dtype in [("square", [3, 3], torch.float32), ("wide", [2, 5], torch.float32),
                            ("tall", [4, 2], torch.float64), ("int", [2, 3], torch.int64),
                            ("empty", [0, 3], torch.float32)]:
    g.case("eye/" + label, "eye_", filled(init.eye_), [empty(shape, dtype)])

# dirac_: temporal, spatial, volumetric; more outputs or inputs; groups
for label, shape, groups in [("3d", [3, 3, 5], 1), ("3d/even_k", [2, 2, 4], 1),
                             ("4d", [4, 2, 3, 3], 1), ("4d/more_in", [2, 5, 3, 1], 1),
                             ("5d", [2, 2, 3, 2, 3], 1), ("3d/groups2", [4, 2, 3], 2),
                             ("4d/groups3", [6, 1, 3, 3], 3), ("empty_out", [0, 2, 3], 1)]:
    args = [empty(shape)] if groups == 1 else [empty(shape), groups]
    g.case("dirac/" + label, "dirac_", filled(init.dirac_), args)
g.case("dirac/int", "dirac_", filled(init.dirac_), [empty([2, 2, 3], torch.int64)], {"groups": 2})


def torch_error(name, fn, args, kwargs, ref, substring):
    """An error case whose substring torch's own message contains."""
    try:
        ref(*args, **(kwargs or {}))
    except Exception as e:  # noqa: BLE001 - ValueError or RuntimeError
        if substring not in str(e):
            raise AssertionError("%s: torch says %r, not %r" % (name, str(e), substring))
    else:
        raise AssertionError("%s: torch did not fail" % name)
    g.error(name, fn, args, substring, kwargs)


torch_error("err/gain/unknown", "calculate_gain", ["Relu"], None,
            init.calculate_gain, "Unsupported nonlinearity Relu")
torch_error("err/gain/slope_bool", "calculate_gain", ["leaky_relu", True], None,
            init.calculate_gain, "not a valid number")
torch_error("err/gain/slope_str", "calculate_gain", ["leaky_relu", "x"], None,
            init.calculate_gain, "negative_slope x not a valid number")
for fn, ref in [("xavier_uniform_", init.xavier_uniform_), ("xavier_normal_", init.xavier_normal_),
                ("kaiming_uniform_", init.kaiming_uniform_), ("kaiming_normal_", init.kaiming_normal_)]:
    torch_error("err/%s/1d" % fn, fn, [empty([5])], None, ref,
                "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    torch_error("err/%s/0d" % fn, fn, [empty([])], None, ref,
                "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
for fn, ref in [("kaiming_uniform_", init.kaiming_uniform_), ("kaiming_normal_", init.kaiming_normal_)]:
    torch_error("err/%s/mode" % fn, fn, [empty([3, 4])], {"mode": "fan_avg"}, ref,
                "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']")
    torch_error("err/%s/mode_lowered" % fn, fn, [empty([3, 4])], {"mode": "FAN_AVG"}, ref,
                "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']")
    torch_error("err/%s/nonlinearity" % fn, fn, [empty([3, 4])], {"nonlinearity": "swish"}, ref,
                "Unsupported nonlinearity swish")
    torch_error("err/%s/a_bool" % fn, fn, [empty([3, 4])], {"a": True}, ref,
                "not a valid number")
torch_error("err/eye/1d", "eye_", [empty([3])], None, init.eye_,
            "Only tensors with 2 dimensions are supported")
torch_error("err/eye/3d", "eye_", [empty([2, 2, 2])], None, init.eye_,
            "Only tensors with 2 dimensions are supported")
torch_error("err/dirac/2d", "dirac_", [empty([3, 3])], None, init.dirac_,
            "Only tensors with 3, 4, or 5 dimensions are supported")
torch_error("err/dirac/6d", "dirac_", [empty([1, 1, 1, 1, 1, 1])], None, init.dirac_,
            "Only tensors with 3, 4, or 5 dimensions are supported")
torch_error("err/dirac/groups", "dirac_", [empty([4, 2, 3]), 3], None, init.dirac_,
            "dim 0 must be divisible by groups")
torch_error("err/orthogonal/1d", "orthogonal_", [empty([4])], None, init.orthogonal_,
            "Only tensors with 2 or more dimensions are supported")
torch_error("err/sparse/1d", "sparse_", [empty([4]), 0.5], None, init.sparse_,
            "Only tensors with 2 dimensions are supported")
torch_error("err/constant/u8", "constant_", [empty([2], torch.uint8), 300], None, init.constant_,
            "value cannot be converted to type")
torch_error("err/constant/i64_inf", "constant_", [empty([2], torch.int64), float("inf")], None, init.constant_,
            "value cannot be converted to type")
torch_error("err/constant/f16", "constant_", [empty([2], torch.float16), 1e6], None, init.constant_,
            "value cannot be converted to type")
torch_error("err/constant/i8", "constant_", [empty([2], torch.int8), 127.5], None, init.constant_,
            "value cannot be converted to type")

g.write()
