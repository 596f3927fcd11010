"""Goldens of embedding's options (stdlib/embedding.go):
/usr/bin/python3 gen_embedding.py

F.embedding with padding_idx, max_norm (norm_type 2, 1, inf, 3) and
scale_grad_by_freq, forward and gradient with respect to the table (the
ids are constants); torch renorms a copy of the table in place for
max_norm, tref leaves its table as it is and gives the same rows and the
same gradient. torch.embedding_renorm_ (in place in torch, the table it
leaves; its gradient the table's own, as torch renorms under no_grad).
Then the errors.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(1920)
g = Golden("embedding")


def ids(*shape, hi=6):
    return torch.randint(0, hi, shape)


def emb(i, w, **kw):
    return F.embedding(i, w.clone(), **kw)


for label, kw in [
    ("padding", {"padding_idx": 2}),
    ("padding-negative", {"padding_idx": -1}),
    ("max-norm", {"max_norm": 1.5}),
    ("max-norm-l1", {"max_norm": 2.0, "norm_type": 1.0}),
    ("max-norm-inf", {"max_norm": 0.75, "norm_type": float("inf")}),
    ("max-norm-p3", {"max_norm": 1.0, "norm_type": 3.0}),
    ("freq", {"scale_grad_by_freq": True}),
    ("all", {"padding_idx": 0, "max_norm": 1.25, "scale_grad_by_freq": True}),
]:
    i, w = ids(3, 4), torch.randn(6, 5) * 2
    i[0, 0] = 2
    i[1, :2] = 5
    i[2, 1] = 0
    g.case("forward/" + label, "embedding", emb, [i, w], kw)
    g.grad_case(label, "embedding", F.embedding, [i, w], kw)

g.case("forward/float64-1d", "embedding", emb, [ids(7), torch.randn(6, 3, dtype=torch.float64)], {"padding_idx": 3, "max_norm": 1.0}, rtol=1e-12, atol=1e-12)



def renorm(w, i, max_norm, norm_type):
    w = w.clone()
    with torch.no_grad():
        torch.embedding_renorm_(w, i, max_norm, norm_type)
    return w


def renorm_grad(w, i, max_norm, norm_type):
    # torch's use: renorm the table in place, then read it; the gradient
    # reaches the table as if nothing had been renormed
    return w + (renorm(w.detach(), i, max_norm, norm_type) - w.detach())


for label, norm_type in [("l2", 2.0), ("l1", 1.0), ("inf", float("inf"))]:
    w = torch.randn(7, 4) * 2
    i = torch.tensor([[1, 3, 3], [6, 0, 1]])
    g.case("renorm/" + label, "embedding_renorm_", renorm, [w, i, 1.5, norm_type])
    g.grad_case("renorm/" + label, "embedding_renorm_", renorm_grad, [w, i, 1.5, norm_type])
g.case("renorm/int32-ids-float64", "embedding_renorm_", renorm,
       [torch.randn(5, 3, dtype=torch.float64) * 3, torch.tensor([4, 0], dtype=torch.int32), 0.5, 2.0], rtol=1e-12, atol=1e-12)
g.case("renorm/no-ids", "embedding_renorm_", renorm, [torch.randn(3, 2) * 5, torch.zeros(0, dtype=torch.int64), 1.0, 2.0])
g.error("renorm/range", "embedding_renorm_", [torch.randn(3, 2), torch.tensor([3]), 1.0, 2.0], "embedding_renorm_: id 3 is out of range for a table of 3 rows")
g.error("renorm/ids-dtype", "embedding_renorm_", [torch.randn(3, 2), torch.tensor([1.0]), 1.0, 2.0], "embedding_renorm_: ids must be int64 or int32")
g.error("renorm/table", "embedding_renorm_", [torch.randn(3), torch.tensor([1]), 1.0, 2.0], "embedding_renorm_: table must be a float matrix")

for label, args, kw, msg in [
    ("padding-range", [ids(2), torch.randn(6, 2)], {"padding_idx": 6}, "embedding: padding_idx 6 must be within the table's 6 rows"),
    ("sparse", [ids(2), torch.randn(6, 2)], {"sparse": True}, "embedding: sparse gradients are not supported"),
    ("max-norm-negative", [ids(2), torch.randn(6, 2)], {"max_norm": -1.0}, "embedding: max_norm must be a number >= 0, got -1"),
]:
    g.error("error/" + label, "embedding", args, msg, kw)

g.write()
