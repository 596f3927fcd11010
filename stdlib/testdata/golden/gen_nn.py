"""Goldens of the nn builtins: /usr/bin/python3 gen_nn.py

softmax, log_softmax, layer_norm, rms_norm, embedding, cross_entropy, mse
(and dropout's identity cases; its random masks are tested by properties
in Go). tref's signatures differ from torch.nn.functional where noted:
layer_norm(x, w, b, eps) normalises over the last dimension (torch's
normalized_shape = [x.shape[-1]]); rms_norm (not in torch 1.13) is checked
against its definition computed in float64. Integer inputs of softmax and
log_softmax compute as float32 in tref (torch refuses them).
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(2)
g = Golden("nn")


def randn(*shape, dtype=torch.float32, scale=3.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dtype)


# ---- softmax / log_softmax -----------------------------------------------

for name, fn in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
    for shape in ([5], [3, 7], [2, 3, 4], [4, 1, 6]):
        for dim in range(-len(shape), len(shape)):
            for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
                x = randn(*shape, dtype=dt)
                g.case("%s/%s/dim%d/%s" % (name, "x".join(map(str, shape)), dim, tag), name, fn, [x, dim])
    x = randn(3, 5)
    g.case(name + "/default-dim", name, lambda t: fn(t, -1), [x])
    g.case(name + "/kw", name, lambda t, dim: fn(t, dim), [x], {"dim": 0})
    g.case(name + "/large", name, fn, [torch.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1000.5]]), 1])
    g.case(name + "/inf", name, fn, [torch.tensor([[float("-inf"), 0.0, 1.0], [2.0, float("-inf"), 2.0]]), 1])
    g.case(name + "/nan", name, fn, [torch.tensor([[float("nan"), 0.0], [1.0, 2.0]]), 1])
    g.case(name + "/0d", name, fn, [torch.tensor(1.5), 0])
    g.case(name + "/empty", name, fn, [torch.zeros(0, 3), 1])
    g.case(name + "/wide", name, fn, [randn(3, 3000), -1])
    ints = torch.tensor([[1, 2, 3], [0, 0, 5]])
    g.expect(name + "/i64", name, [ints, 1], {}, fn(ints.float(), 1))
    g.error(name + "/dim-range", name, [x, 2], "dimension 2 out of range for a tensor of rank 2")

# ---- layer_norm / rms_norm -------------------------------------------------


def layer_norm(x, w=None, b=None, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), w, b, eps)


for shape in ([6], [3, 8], [2, 3, 16], [4, 257]):
    for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        d = shape[-1]
        x = randn(*shape, dtype=dt) + 2
        w, b = randn(d, dtype=dt, scale=1.0), randn(d, dtype=dt, scale=1.0)
        sh = "x".join(map(str, shape))
        g.case("layer_norm/%s/%s" % (sh, tag), "layer_norm", layer_norm, [x, w, b])
        g.case("layer_norm/%s/%s/plain" % (sh, tag), "layer_norm", layer_norm, [x])
x = randn(3, 8)
w, b = randn(8, scale=1.0), randn(8, scale=1.0)
g.case("layer_norm/w-only", "layer_norm", layer_norm, [x, w])
g.case("layer_norm/b-kw", "layer_norm", lambda t, b: layer_norm(t, None, b), [x], {"b": b})
g.case("layer_norm/none-w", "layer_norm", layer_norm, [x, None, b])
g.case("layer_norm/eps", "layer_norm", lambda t, w, b, eps: layer_norm(t, w, b, eps), [x, w, b], {"eps": 0.1})
g.case("layer_norm/constant", "layer_norm", layer_norm, [torch.full((2, 4), 3.0)])
g.error("layer_norm/bad-weight", "layer_norm", [x, randn(7)], "the weight has shape [7], expected [8]")
g.error("layer_norm/0d", "layer_norm", [torch.tensor(1.0)], "at least one dimension")


def rms_norm(x, w=None, eps=1e-6):
    x64 = x.double()
    y = x64 / torch.sqrt((x64 * x64).mean(-1, keepdim=True) + eps)
    if w is not None:
        y = y * w.double()
    return y.to(x.dtype)


for shape in ([6], [3, 8], [2, 3, 16], [4, 257]):
    for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        x = randn(*shape, dtype=dt)
        w = randn(shape[-1], dtype=dt, scale=1.0)
        sh = "x".join(map(str, shape))
        g.case("rms_norm/%s/%s" % (sh, tag), "rms_norm", rms_norm, [x, w])
        g.case("rms_norm/%s/%s/plain" % (sh, tag), "rms_norm", rms_norm, [x])
g.case("rms_norm/eps", "rms_norm", lambda t, w, eps: rms_norm(t, w, eps), [randn(2, 5), randn(5)], {"eps": 0.5})
g.error("rms_norm/bad-weight", "rms_norm", [randn(2, 5), randn(2, 5)], "the weight has shape [2, 5], expected [5]")

# ---- embedding -------------------------------------------------------------

table = randn(10, 4)
g.case("embedding/1d", "embedding", F.embedding, [torch.tensor([3, 0, 9, 3]), table])
g.case("embedding/2d", "embedding", F.embedding, [torch.tensor([[1, 2, 3], [9, 8, 7]]), table])
g.case("embedding/0d", "embedding", F.embedding, [torch.tensor(5), table])
g.case("embedding/empty", "embedding", F.embedding, [torch.zeros(0, dtype=torch.int64), table])
g.case("embedding/f64", "embedding", F.embedding, [torch.tensor([0, 1]), randn(2, 3, dtype=torch.float64)])
g.case("embedding/i64-table", "embedding", F.embedding, [torch.tensor([2, 0]), torch.arange(12).reshape(3, 4)])
g.error("embedding/out-of-range", "embedding", [torch.tensor([1, 10]), table],
        "id 10 at position [1] of the ids is out of range for a table of 10 rows")
g.error("embedding/negative", "embedding", [torch.tensor([[0, 1], [-1, 2]]), table],
        "id -1 at position [1, 0] of the ids is out of range")
g.error("embedding/float-ids", "embedding", [torch.tensor([1.0]), table], "ids must be int64, got float32")

# ---- cross_entropy ---------------------------------------------------------

for n, c in ((4, 10), (1, 3), (16, 100)):
    for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        logits = randn(n, c, dtype=dt)
        targets = torch.randint(0, c, (n,))
        g.case("cross_entropy/%dx%d/%s" % (n, c, tag), "cross_entropy", F.cross_entropy, [logits, targets])
logits = randn(5, 7)
g.case("cross_entropy/ignore", "cross_entropy", F.cross_entropy, [logits, torch.tensor([1, -100, 6, -100, 0])])
g.case("cross_entropy/ignore-kw", "cross_entropy", lambda l, t, ignore_index: F.cross_entropy(l, t, ignore_index=ignore_index),
       [logits, torch.tensor([1, 2, 6, 2, 0])], {"ignore_index": 2})
g.case("cross_entropy/unbatched", "cross_entropy", F.cross_entropy, [randn(6), torch.tensor(4)])
g.case("cross_entropy/spatial", "cross_entropy", F.cross_entropy, [randn(2, 5, 3, 4), torch.randint(0, 5, (2, 3, 4))])
g.case("cross_entropy/large", "cross_entropy", F.cross_entropy, [torch.tensor([[1000.0, 0.0], [0.0, -1000.0]]), torch.tensor([1, 0])])
g.error("cross_entropy/target-range", "cross_entropy", [logits, torch.tensor([1, 2, 7, 0, 0])],
        "target 7 at position [2] is out of range for 7 classes")
g.error("cross_entropy/shape", "cross_entropy", [logits, torch.tensor([1, 2])],
        "logits of shape [5, 7] need targets of shape [5], got [2]")
g.error("cross_entropy/float-targets", "cross_entropy", [logits, torch.zeros(5)], "targets must be int64 class indices")

# ---- mse -------------------------------------------------------------------

for shape in ([7], [3, 4], [2, 3, 5]):
    for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        g.case("mse/%s/%s" % ("x".join(map(str, shape)), tag), "mse", F.mse_loss,
               [randn(*shape, dtype=dt), randn(*shape, dtype=dt)])
a, b = randn(3, 4), randn(4)
g.expect("mse/broadcast", "mse", [a, b], {}, ((a - b) ** 2).mean())
g.expect("mse/scalar", "mse", [a, 0.5], {}, ((a - 0.5) ** 2).mean())
ia, ib = torch.tensor([1, 5, 2]), torch.tensor([0, 1, 2])
g.expect("mse/i64", "mse", [ia, ib], {}, ((ia - ib).float() ** 2).mean())
g.error("mse/shapes", "mse", [randn(3, 4), randn(3)], "cannot be broadcast")

# ---- dropout (identity cases only) ------------------------------------------

x = randn(3, 4)
g.expect("dropout/eval", "dropout", [x], {"train": False}, x)
g.expect("dropout/p0", "dropout", [x, 0.0], {}, x)
g.error("dropout/p-range", "dropout", [x, 1.5], "p must be in [0, 1]")

g.write()
