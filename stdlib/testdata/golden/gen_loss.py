"""Goldens of the losses: /usr/bin/python3 gen_loss.py

nll_loss, cross_entropy (class indices with weight, ignore_index,
reduction and label_smoothing; class probabilities), binary_cross_entropy,
binary_cross_entropy_with_logits (weight, pos_weight), l1_loss,
smooth_l1_loss (beta) and mse_loss, called with torch.nn.functional's
positional order and keyword names.
"""

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(5)
g = Golden("loss")


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


REDUCTIONS = ("mean", "sum", "none")

# ---- nll_loss / cross_entropy ----------------------------------------------

for xs in ([5], [4, 6], [3, 5, 4], [2, 3, 2, 2]):
    c = xs[0] if len(xs) == 1 else xs[1]
    ts = [] if len(xs) == 1 else [xs[0]] + xs[2:]
    logits = randn(*xs) * 2
    t = torch.randint(0, c, ts)
    w = torch.rand(c) + 0.2
    tag = "x".join(map(str, xs))
    logp = F.log_softmax(logits, dim=min(1, len(xs) - 1))
    for red in REDUCTIONS:
        g.case("nll_loss/%s/%s" % (tag, red), "nll_loss", F.nll_loss, [logp, t], {"reduction": red})
        g.case("nll_loss/%s/%s/weight" % (tag, red), "nll_loss", F.nll_loss, [logp, t, w], {"reduction": red})
        g.case("cross_entropy/%s/%s" % (tag, red), "cross_entropy", F.cross_entropy, [logits, t], {"reduction": red})
        g.case("cross_entropy/%s/%s/weight" % (tag, red), "cross_entropy", F.cross_entropy, [logits, t, w], {"reduction": red})
        for eps in (0.1, 0.35):
            g.case("cross_entropy/%s/%s/smooth%g" % (tag, red, eps), "cross_entropy", F.cross_entropy, [logits, t],
                   {"reduction": red, "label_smoothing": eps})
            g.case("cross_entropy/%s/%s/smooth%g/weight" % (tag, red, eps), "cross_entropy", F.cross_entropy, [logits, t, w],
                   {"reduction": red, "label_smoothing": eps})
logits = randn(6, 4)
t = torch.tensor([0, 3, -100, 1, 2, -100])
w = torch.rand(4) + 0.2
for red in REDUCTIONS:
    g.case("nll_loss/ignore/%s" % red, "nll_loss", F.nll_loss, [F.log_softmax(logits, 1), t], {"reduction": red})
    g.case("cross_entropy/ignore/%s" % red, "cross_entropy", F.cross_entropy, [logits, t, w], {"reduction": red, "label_smoothing": 0.2})
    g.case("cross_entropy/ignore-index-kw/%s" % red, "cross_entropy", F.cross_entropy, [logits, t.clamp(min=0)],
           {"reduction": red, "ignore_index": 3})
g.case("nll_loss/positional", "nll_loss", F.nll_loss, [F.log_softmax(logits, 1), t, w, None, -100, None, "sum"])
g.case("cross_entropy/positional", "cross_entropy", F.cross_entropy, [logits, t, None, None, -100, None, "mean", 0.1])
g.case("cross_entropy/f64", "cross_entropy", F.cross_entropy, [logits.double(), t], {"label_smoothing": 0.1})
g.case("cross_entropy/all-ignored", "cross_entropy", F.cross_entropy, [logits[:2], torch.tensor([-100, -100]), w])
# Class probabilities as targets.
for xs in ([4, 5], [3, 4, 2], [5]):
    logits = randn(*xs)
    probs = torch.softmax(randn(*xs), dim=min(1, len(xs) - 1))
    c = xs[min(1, len(xs) - 1)]
    tag = "x".join(map(str, xs))
    for red in REDUCTIONS:
        g.case("cross_entropy/probs/%s/%s" % (tag, red), "cross_entropy", F.cross_entropy, [logits, probs], {"reduction": red})
    g.case("cross_entropy/probs/%s/weight-smooth" % tag, "cross_entropy", F.cross_entropy, [logits, probs, torch.rand(c) + 0.5],
           {"label_smoothing": 0.2})
g.error("nll_loss/target-range", "nll_loss", [F.log_softmax(randn(2, 3), 1), torch.tensor([0, 3])], "target 3 at position [1] is out of range for 3 classes")
g.error("cross_entropy/reduction", "cross_entropy", [randn(2, 3), torch.tensor([0, 1])], "reduction must be", {"reduction": "avg"})
g.error("cross_entropy/size_average", "cross_entropy", [randn(2, 3), torch.tensor([0, 1])], "size_average is deprecated", {"size_average": True})
g.error("nll_loss/weight-shape", "nll_loss", [randn(2, 3), torch.tensor([0, 1]), torch.ones(4)], "has 3 classes, but the weight has shape [4]")
g.error("cross_entropy/target-shape", "cross_entropy", [randn(2, 3), torch.tensor([0, 1, 2])], "need targets of shape [2]")

# ---- binary cross-entropy ------------------------------------------------------

p = torch.rand(3, 4) * 0.98 + 0.01
t = torch.rand(3, 4)
w = torch.rand(3, 4)
x = randn(3, 4) * 3
for red in REDUCTIONS:
    g.case("binary_cross_entropy/%s" % red, "binary_cross_entropy", F.binary_cross_entropy, [p, t], {"reduction": red})
    g.case("binary_cross_entropy/%s/weight" % red, "binary_cross_entropy", F.binary_cross_entropy, [p, t, w], {"reduction": red})
    g.case("binary_cross_entropy_with_logits/%s" % red, "binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits, [x, t],
           {"reduction": red})
    g.case("binary_cross_entropy_with_logits/%s/weight" % red, "binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
           [x, t, w], {"reduction": red})
    g.case("binary_cross_entropy_with_logits/%s/pos_weight" % red, "binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
           [x, t], {"reduction": red, "pos_weight": torch.rand(4) * 3})
g.case("binary_cross_entropy/edges", "binary_cross_entropy", F.binary_cross_entropy, [torch.tensor([0.0, 1.0, 0.0, 1.0]), torch.tensor([0.0, 1.0, 1.0, 0.0])],
       {"reduction": "none"})
g.case("binary_cross_entropy_with_logits/large", "binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
       [torch.tensor([-100.0, -20.0, 0.0, 20.0, 100.0]), torch.tensor([0.0, 1.0, 0.5, 0.0, 1.0])], {"reduction": "none"}, atol=1e-5)
g.case("binary_cross_entropy_with_logits/f64", "binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits, [x.double(), t.double()])
g.error("binary_cross_entropy/shape", "binary_cross_entropy", [p, t[0]], "the target's shape [4] differs from the input's [3, 4]")

# ---- l1 / smooth l1 / mse ---------------------------------------------------------

a, b = randn(4, 5), randn(4, 5)
for red in REDUCTIONS:
    g.case("l1_loss/%s" % red, "l1_loss", F.l1_loss, [a, b], {"reduction": red})
    g.case("mse_loss/%s" % red, "mse_loss", F.mse_loss, [a, b], {"reduction": red})
    for beta in (1.0, 0.5, 0.0, 3.0):
        g.case("smooth_l1_loss/%s/beta%g" % (red, beta), "smooth_l1_loss", F.smooth_l1_loss, [a, b], {"reduction": red, "beta": beta})
g.case("l1_loss/f64", "l1_loss", F.l1_loss, [a.double(), b.double()])
g.case("smooth_l1_loss/positional", "smooth_l1_loss", F.smooth_l1_loss, [a, b, None, None, "sum", 0.25])
g.case("mse_loss/kw", "mse_loss", lambda input, target: F.mse_loss(input, target), [], {"input": a, "target": b})

g.write()
