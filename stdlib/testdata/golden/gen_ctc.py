"""Goldens of ctc_loss (torch's F.ctc_loss): /usr/bin/python3 gen_ctc.py

Padded [N, S] and concatenated 1-d targets, every reduction, input and
target lengths that vary within a batch (a target length of 0 included),
repeated labels (which need a blank between them), a blank other than 0,
unbatched [T, C] input, lengths as lists and as int64/int32 tensors,
impossible alignments with zero_infinity both ways, float64; gradients
(replayed by vjp_of_sum) with respect to log_probs, whose NaNs over an
impossible sample's input steps and whose extra exp(log_probs) term
(torch's kernel's) tref reproduces; and errors.
"""

import math

import torch
import torch.nn.functional as F

from gen_common import Golden

torch.manual_seed(61)
g = Golden("ctc")
grad_case = g.grad_case

REDUCTIONS = ("none", "sum", "mean")


def logp(t, n, c, dtype=torch.float32):
    """Log-softmaxed random scores [T, N, C] (or [T, C] with n None)."""
    shape = (t, c) if n is None else (t, n, c)
    return F.log_softmax(torch.randn(shape, dtype=torch.float64) * 2, -1).to(dtype)


# A batch of 4 with input lengths 12, 9, 12, 8 and target lengths 4, 3, 0,
# 5; sample 0 repeats a label (1 1), sample 3 has two repeats.
T, N, C = 12, 4, 5
lp = logp(T, N, C)
padded = torch.tensor([[1, 1, 2, 3, 0, 0], [4, 2, 4, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 2, 3, 3, 1, 4]])
il, tl = [12, 9, 12, 8], [4, 3, 0, 5]
concat = torch.cat([padded[i, :tl[i]] for i in range(N)])
for red in REDUCTIONS:
    g.case("padded/%s" % red, "ctc_loss", F.ctc_loss, [lp, padded, il, tl], {"reduction": red})
    g.case("concat/%s" % red, "ctc_loss", F.ctc_loss, [lp, concat, il, tl], {"reduction": red})
g.case("default-mean", "ctc_loss", F.ctc_loss, [lp, padded, il, tl])
g.case("positional", "ctc_loss", F.ctc_loss, [lp, padded, il, tl, 0, "sum", False])
g.case("tensor-lengths", "ctc_loss", F.ctc_loss, [lp, padded, torch.tensor(il), torch.tensor(tl)], {"reduction": "none"})
g.case("int32", "ctc_loss", F.ctc_loss, [lp, padded.int(), torch.tensor(il, dtype=torch.int32), torch.tensor(tl, dtype=torch.int32)],
       {"reduction": "none"})
g.case("float64", "ctc_loss", F.ctc_loss, [lp.double(), padded, il, tl], {"reduction": "none"}, rtol=1e-12, atol=1e-12)
g.case("float64/mean", "ctc_loss", F.ctc_loss, [lp.double(), concat, il, tl], rtol=1e-12, atol=1e-12)
# Padding wider than the longest target, and garbage (even blanks) in it.
wide = torch.cat([padded, torch.full((N, 3), 0)], 1)
wide[1, 3:] = 3
g.case("padded/wide", "ctc_loss", F.ctc_loss, [lp, wide, il, tl], {"reduction": "none"})
# Every input as long as T, and T longer than every input.
g.case("full-lengths", "ctc_loss", F.ctc_loss, [lp, padded, [T] * N, tl], {"reduction": "none"})
g.case("short-inputs", "ctc_loss", F.ctc_loss, [lp, padded, [10, 9, 7, 8], tl], {"reduction": "none"})
# A minimal alignment: input length = target length + repeats.
g.case("tight", "ctc_loss", F.ctc_loss, [lp, padded, [5, 3, 1, 7], tl], {"reduction": "none"})

# blank other than 0: labels 0..C-1 but one.
for blank in (2, C - 1):
    labels = [c for c in range(C) if c != blank]
    l0, l1, l2, l3 = labels
    tgt = torch.tensor([[l0, l0, l1, l2, l3], [l3, l1, l1, l0, l0], [l2] * 5, [l1, l0, l1, l0, l1]])
    for red in REDUCTIONS:
        g.case("blank%d/%s" % (blank, red), "ctc_loss", F.ctc_loss, [lp, tgt, [12, 10, 11, 9], [5, 3, 2, 5]], {"blank": blank, "reduction": red})

# Unbatched: [T, C], the lengths of one sample (a list, a 0-d tensor, a
# 1-element tensor), targets 1-d (concatenated: all of them count) or [1, S].
ulp = logp(8, None, 6)
ut = torch.tensor([3, 1, 1, 5])
for red in REDUCTIONS:
    g.case("unbatched/%s" % red, "ctc_loss", F.ctc_loss, [ulp, ut, [8], [4]], {"reduction": red})
g.case("unbatched/0d-lengths", "ctc_loss", F.ctc_loss, [ulp, ut, torch.tensor(7), torch.tensor(4)], {"reduction": "none"})
g.case("unbatched/padded", "ctc_loss", F.ctc_loss, [ulp, torch.tensor([[3, 1, 1, 5, 2]]), torch.tensor([8]), torch.tensor([3])], {"reduction": "none"})
g.case("unbatched/impossible", "ctc_loss", F.ctc_loss, [ulp, ut, [4], [4]], {"reduction": "none"})

# Impossible alignments (input shorter than target + repeats), with and
# without zero_infinity.
ilp = logp(6, 3, 4, torch.float64)
it = torch.tensor([[1, 2, 2], [3, 1, 0], [1, 1, 1]])
for zi in (False, True):
    for red in REDUCTIONS:
        g.case("impossible/zi=%s/%s" % (zi, red), "ctc_loss", F.ctc_loss, [ilp, it, [6, 2, 4], [3, 2, 3]],
               {"reduction": red, "zero_infinity": zi}, rtol=1e-12, atol=1e-12)
# -inf log-probabilities making one sample impossible, another not.
ninf = ilp.clone()
ninf[:, 0, 2] = -math.inf
ninf[:, 1, 0] = -math.inf
for zi in (False, True):
    g.case("neg-inf/zi=%s" % zi, "ctc_loss", F.ctc_loss, [ninf, it, [6, 5, 6], [3, 2, 3]], {"reduction": "none", "zero_infinity": zi},
           rtol=1e-12, atol=1e-12)

# Input length 0: torch's kernel reads outside the sample; tref gives 0 for
# an empty target and inf otherwise (the other samples are torch's).
zl = F.ctc_loss(lp, padded, [12, 0, 0, 8], [4, 3, 0, 5], reduction="none")
zl[1], zl[2] = math.inf, 0.0
g.expect("input-length-0", "ctc_loss", [lp, padded, [12, 0, 0, 8], [4, 3, 0, 5]], {"reduction": "none"}, zl)
g.expect("input-length-0/zi", "ctc_loss", [lp, padded, [12, 0, 0, 8], [4, 3, 0, 5]], {"reduction": "none", "zero_infinity": True},
         torch.where(zl == math.inf, torch.zeros_like(zl), zl))
# An empty batch.
g.case("empty-batch", "ctc_loss", F.ctc_loss, [logp(5, 0, 3), torch.zeros(0, 2, dtype=torch.long), [], []], {"reduction": "none"})
g.case("empty-batch/sum", "ctc_loss", F.ctc_loss, [logp(5, 0, 3), torch.zeros(0, 2, dtype=torch.long), [], []], {"reduction": "sum"})

# Gradients with respect to log_probs: torch's kernel adds exp(log_probs)
# over each sample's input steps, and gives NaN there for an impossible one.
for red in REDUCTIONS:
    grad_case("padded/%s" % red, "ctc_loss", F.ctc_loss, [lp, padded, il, tl], {"reduction": red}, atol=1e-4)
grad_case("concat/sum", "ctc_loss", F.ctc_loss, [lp, concat, il, tl], {"reduction": "sum"}, atol=1e-4)
grad_case("blank2", "ctc_loss", F.ctc_loss, [lp, torch.tensor([[0, 0, 1, 3, 4], [4, 1, 1, 0, 0], [3] * 5, [1, 0, 1, 0, 1]]),
          [12, 10, 11, 9], [5, 3, 2, 5]], {"blank": 2}, atol=1e-4)
grad_case("unbatched", "ctc_loss", F.ctc_loss, [ulp, ut, [8], [4]], {"reduction": "none"}, atol=1e-4)
grad_case("short-inputs", "ctc_loss", F.ctc_loss, [lp.double(), padded, [10, 9, 7, 8], tl], {"reduction": "none"}, atol=1e-10)
grad_case("tight/float64", "ctc_loss", F.ctc_loss, [lp.double(), padded, [5, 3, 1, 7], tl], {"reduction": "sum"}, atol=1e-10)
for zi in (False, True):
    for red in ("none", "mean"):
        grad_case("impossible/zi=%s/%s" % (zi, red), "ctc_loss", F.ctc_loss, [ilp, it, [6, 2, 4], [3, 2, 3]],
                  {"reduction": red, "zero_infinity": zi}, atol=1e-10)
grad_case("unnormalized", "ctc_loss", F.ctc_loss, [torch.randn(7, 2, 4, dtype=torch.float64), torch.tensor([[1, 3, 3], [2, 0, 0]]),
          [7, 5], [3, 1]], {"reduction": "none"}, atol=1e-10)

# Errors.
def err(name, args, substring, kwargs=None):
    g.error(name, "ctc_loss", args, substring, kwargs)


err("blank-range", [lp, padded, il, tl], "blank must be in label range [0, 5), got 5", {"blank": 5})
err("blank-negative", [lp, padded, il, tl], "blank must be in label range", {"blank": -1})
err("input-length-big", [lp, padded, [13, 9, 12, 8], tl], "input_lengths[0] is 13; it must be in [0, T] = [0, 12]")
err("input-length-negative", [lp, padded, [12, -1, 12, 8], tl], "input_lengths[1] is -1")
err("target-length-negative", [lp, padded, il, [4, 3, -1, 5]], "target_lengths[2] is -1")
err("input-lengths-size", [lp, padded, [12, 9, 12], tl], "input_lengths must be of size batch_size (4), got 3 values")
err("target-lengths-size", [lp, padded, il, [4, 3, 0, 5, 1]], "target_lengths must be of size batch_size (4), got 5 values")
err("padded-short", [lp, padded[:, :4], il, tl], "padded targets must have size at least max(target_lengths) = 5 at dimension 1")
err("padded-rows", [lp, padded[:3], il, tl], "padded targets must have one row per sample")
err("concat-size", [lp, concat[:-1], il, tl], "concatenated targets must have sum(target_lengths) = 12 elements")
err("target-range", [lp, torch.tensor([[1, 5], [1, 1], [1, 1], [2, 1]]), il, [2, 1, 0, 1]], "target 1 of sample 0 is 5, outside the classes [0, 5)")
err("target-blank", [lp, torch.tensor([[1, 0], [1, 1], [1, 1], [2, 1]]), il, [2, 1, 0, 1]], "target 1 of sample 0 is the blank (0)")
err("target-float", [lp, padded.float(), il, tl], "targets must be an integer tensor")
err("targets-3d", [lp, padded.reshape(4, 3, 2), il, tl], "targets must be [N, S] padded or 1-d concatenated")
err("log-probs-int", [padded, padded, il, tl], "log_probs must be float32 or float64")
err("log-probs-half", [lp.half(), padded, il, tl], "log_probs must be float32 or float64")
err("log-probs-1d", [lp[0, 0], padded, il, tl], "log_probs must be [T, N, C] or unbatched [T, C]")
err("lengths-float", [lp, padded, torch.tensor(il, dtype=torch.float32), tl], "input_lengths must be a list of ints or a 0-d or 1-d integer tensor")
err("lengths-string", [lp, padded, il, "x"], "target_lengths must be a list of ints or an integer tensor")
err("reduction", [lp, padded, il, tl], "reduction must be", {"reduction": "avg"})

g.write()
