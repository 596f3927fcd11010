package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The losses of torch.nn.functional, with its argument names, defaults and
// reduction= ("mean", "sum" or "none").
func init() {
	register("nll_loss", "nll_loss(input, target, weight=none, ignore_index=-100, reduction=\"mean\"): negative log-likelihood of int class targets given log-probabilities [N, C] (or [C], or [N, C, d...]), as torch's F.nll_loss; mean divides by the summed weights of the counted targets", builtinNllLoss)
	register("cross_entropy", "cross_entropy(input, target, weight=none, ignore_index=-100, reduction=\"mean\", label_smoothing=0.0): nll_loss of log_softmax over the classes of logits [N, C] (or [C], or [N, C, d...]), as torch's F.cross_entropy; target holds int class indices, or class probabilities of the input's shape", builtinCrossEntropy)
	register("binary_cross_entropy", "binary_cross_entropy(input, target, weight=none, reduction=\"mean\"): -(target·log(input) + (1-target)·log(1-input)) with the logarithms clamped at -100, as torch's F.binary_cross_entropy", builtinBCE)
	register("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits(input, target, weight=none, reduction=\"mean\", pos_weight=none): binary_cross_entropy of sigmoid(input), computed stably from the logits, as torch's F.binary_cross_entropy_with_logits", builtinBCEWithLogits)
	register("l1_loss", "l1_loss(input, target, reduction=\"mean\"): |input - target|, broadcasting, as torch's F.l1_loss", builtinL1Loss)
	register("smooth_l1_loss", "smooth_l1_loss(input, target, reduction=\"mean\", beta=1.0): 0.5·d²/beta where d = |input - target| < beta, else d - 0.5·beta, as torch's F.smooth_l1_loss", builtinSmoothL1Loss)
	register("mse_loss", "mse_loss(input, target, reduction=\"mean\"): (input - target)², broadcasting, as torch's F.mse_loss (mse(a, b) is its mean)", builtinMSELoss)
}

func parseReduction(fname, s string) (ops.Reduction, error) {
	r, ok := ops.ParseReduction(s)
	if !ok {
		return 0, fmt.Errorf("%s: reduction must be \"mean\", \"sum\" or \"none\", got %q", fname, s)
	}
	return r, nil
}

// reduce applies a loss's reduction to its per-element values.
func (c *chain) reduce(r ops.Reduction, loss *refs.Ref) *refs.Ref {
	switch r {
	case ops.ReduceMean:
		return c.Op(ops.Mean, ops.ReduceAttrs{}, loss)
	case ops.ReduceSum:
		return c.Op(ops.Sum, ops.ReduceAttrs{}, loss)
	}
	return loss
}

// lossArgs unpacks a loss's arguments in torch's order: input, target,
// the loss's own parameters (before), torch's deprecated size_average and
// reduce (accepted only as none), reduction, then after.
func lossArgs(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg, x, t **refs.Ref, before, after []any) (ops.Reduction, error) {
	return reductionArgs(th, fname, args, kwargs, append([]any{"input", x, "target", t}, before...), after)
}

// noDeprecated refuses torch's size_average and reduce, which reduction=
// replaced.
func noDeprecated(fname string, sizeAverage, reduce eval.Value) error {
	for i, v := range []eval.Value{sizeAverage, reduce} {
		if _, none := v.(eval.NoneType); !none {
			return fmt.Errorf("%s: %s is deprecated in torch and not supported; use reduction=\"mean\", \"sum\" or \"none\"",
				fname, []string{"size_average", "reduce"}[i])
		}
	}
	return nil
}

// sameShape is torch's check that a loss's target matches its input.
func sameShape(fname string, x, t *refs.Ref) error {
	if !x.Shape().Equal(t.Shape()) {
		return fmt.Errorf("%s: the target's shape %v differs from the input's %v; torch requires the same shape", fname, t.Shape(), x.Shape())
	}
	return nil
}

// nllArgs unpacks nll_loss's and cross_entropy's shared arguments.
type nllArgs struct {
	x, target *refs.Ref
	weight    eval.Value
	attrs     ops.NllLossAttrs
}

func unpackNll(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg, smoothing bool) (nllArgs, error) {
	n := nllArgs{weight: eval.None}
	ignore := ops.DefaultIgnoreIndex
	reduction := "mean"
	eps := 0.0
	var sizeAverage, reduce eval.Value = eval.None, eval.None
	pairs := []any{"input", &n.x, "target", &n.target, "weight?", &n.weight, "size_average?", &sizeAverage,
		"ignore_index?", &ignore, "reduce?", &reduce, "reduction?", &reduction}
	if smoothing {
		pairs = append(pairs, "label_smoothing?", &eps)
	}
	if err := eval.UnpackArgs(th, fname, args, kwargs, pairs...); err != nil {
		return n, err
	}
	if err := noDeprecated(fname, sizeAverage, reduce); err != nil {
		return n, err
	}
	r, err := parseReduction(fname, reduction)
	if err != nil {
		return n, err
	}
	if eps < 0 || eps > 1 {
		return n, fmt.Errorf("%s: label_smoothing must be in [0, 1], got %v", fname, eps)
	}
	n.attrs = ops.NllLossAttrs{Reduction: r, IgnoreIndex: ignore, LabelSmoothing: eps}
	return n, nil
}

// submitNll runs nll_loss over logp with n's targets, weight and attributes.
func (c *chain) nll(n nllArgs, logp *refs.Ref) *refs.Ref {
	ins, err := withOptional(c.Thread(), "nll_loss", "weight", []*refs.Ref{logp, n.target}, n.weight)
	if err != nil {
		c.Fail(err)
		return nil
	}
	a := n.attrs
	a.HasWeight = len(ins) == 3
	return c.Op(ops.NllLoss, a, ins...)
}

func builtinNllLoss(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	n, err := unpackNll(th, "nll_loss", args, kwargs, false)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	return c.Result(c.nll(n, n.x))
}

func builtinCrossEntropy(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	n, err := unpackNll(th, "cross_entropy", args, kwargs, true)
	if err != nil {
		return nil, err
	}
	xs := n.x.Shape()
	if len(xs) == 0 {
		return nil, fmt.Errorf("cross_entropy: input must be [C] or [N, C, ...], got a 0-d tensor")
	}
	classDim := min(1, len(xs)-1)
	if n.target.DType().IsFloat() {
		return softCrossEntropy(th, n, classDim)
	}
	_, noWeight := n.weight.(eval.NoneType)
	if noWeight && n.attrs.Reduction == ops.ReduceMean && n.attrs.LabelSmoothing == 0 {
		// The common case has one fused op.
		return th.Submit(ops.CrossEntropy, ops.CrossEntropyAttrs{IgnoreIndex: n.attrs.IgnoreIndex}, n.x, n.target)
	}
	c := newChain(th)
	return c.Result(c.nll(n, c.Op(ops.LogSoftmax, ops.SoftmaxAttrs{Dim: classDim}, n.x)))
}

// softCrossEntropy is cross_entropy with class probabilities as targets:
// -Σ_c weight_c·target_c·log_softmax(input)_c per position (targets
// smoothed toward 1/C first), mean over the positions.
func softCrossEntropy(th *eval.Thread, n nllArgs, classDim int) (eval.Value, error) {
	xs := n.x.Shape()
	if !n.target.Shape().Equal(xs) {
		return nil, fmt.Errorf("cross_entropy: targets must be int64 class indices, or class probabilities of the input's shape %v; got %v", xs, n.target.Meta())
	}
	classes := xs[classDim]
	c := newChain(th)
	t := n.target
	if eps := n.attrs.LabelSmoothing; eps > 0 {
		dt := t.DType()
		t = c.Op(ops.Add, nil, c.Op(ops.Mul, nil, t, c.scalar(1-eps, dt)), c.scalar(eps/float64(classes), dt))
	}
	prod := c.Op(ops.Mul, nil, c.Op(ops.LogSoftmax, ops.SoftmaxAttrs{Dim: classDim}, n.x), t)
	if w, err := optionalTensor(th, "cross_entropy", "weight", n.weight); err != nil {
		c.Release()
		return nil, err
	} else if w != nil {
		if !w.Shape().Equal(tensor.Shape{classes}) {
			c.Release()
			return nil, fmt.Errorf("cross_entropy: input of shape %v has %d classes, but the weight has shape %v", xs, classes, w.Shape())
		}
		perClass := make(tensor.Shape, len(xs)-classDim)
		for i := range perClass {
			perClass[i] = 1
		}
		perClass[0] = classes
		prod = c.Op(ops.Mul, nil, prod, c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: perClass}, w))
	}
	loss := c.Op(ops.Neg, nil, c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{classDim}}, prod))
	return c.Result(c.reduce(n.attrs.Reduction, loss))
}

// weighted multiplies loss by an optional weight (broadcasting).
func (c *chain) weighted(fname string, loss *refs.Ref, weight eval.Value) *refs.Ref {
	w, err := optionalTensor(c.Thread(), fname, "weight", weight)
	if err != nil {
		c.Fail(err)
		return nil
	}
	if w == nil {
		return loss
	}
	return c.Op(ops.Mul, nil, loss, w)
}

func builtinBCE(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "binary_cross_entropy"
	var x, t *refs.Ref
	var weight eval.Value = eval.None
	r, err := lossArgs(th, fname, args, kwargs, &x, &t, []any{"weight?", &weight}, nil)
	if err != nil {
		return nil, err
	}
	if err := sameShape(fname, x, t); err != nil {
		return nil, err
	}
	c := newChain(th)
	dt := x.DType()
	clampLog := func(v *refs.Ref) *refs.Ref {
		return c.Op(ops.Clamp, ops.ClampAttrs{Min: -100, HasMin: true, MinFloat: true}, c.Op(ops.Log, nil, v))
	}
	one := c.scalar(1, dt)
	pos := c.Op(ops.Mul, nil, t, clampLog(x))
	neg := c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, one, t), clampLog(c.Op(ops.Sub, nil, one, x)))
	loss := c.weighted(fname, c.Op(ops.Neg, nil, c.Op(ops.Add, nil, pos, neg)), weight)
	return c.Result(c.reduce(r, loss))
}

func builtinBCEWithLogits(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "binary_cross_entropy_with_logits"
	var x, t *refs.Ref
	var weight, posWeight eval.Value = eval.None, eval.None
	r, err := lossArgs(th, fname, args, kwargs, &x, &t, []any{"weight?", &weight}, []any{"pos_weight?", &posWeight})
	if err != nil {
		return nil, err
	}
	if err := sameShape(fname, x, t); err != nil {
		return nil, err
	}
	c := newChain(th)
	dt := x.DType()
	one := c.scalar(1, dt)
	// (1 - t)·x + lw·(log(1 + exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1)·t
	softplus := c.Op(ops.Add, nil,
		c.Op(ops.Log, nil, c.Op(ops.Add, nil, one, c.Op(ops.Exp, nil, c.Op(ops.Neg, nil, c.Op(ops.Abs, nil, x))))),
		c.Op(ops.Relu, nil, c.Op(ops.Neg, nil, x)))
	pw, err := optionalTensor(th, fname, "pos_weight", posWeight)
	if err != nil {
		c.Release()
		return nil, err
	}
	if pw != nil {
		lw := c.Op(ops.Add, nil, one, c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, pw, one), t))
		softplus = c.Op(ops.Mul, nil, lw, softplus)
	}
	loss := c.Op(ops.Add, nil, c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, one, t), x), softplus)
	return c.Result(c.reduce(r, c.weighted(fname, loss, weight)))
}

func builtinL1Loss(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	r, err := lossArgs(th, "l1_loss", args, kwargs, &x, &t, nil, nil)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	return c.Result(c.reduce(r, c.Op(ops.Abs, nil, c.Op(ops.Sub, nil, x, t))))
}

func builtinMSELoss(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	r, err := lossArgs(th, "mse_loss", args, kwargs, &x, &t, nil, nil)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	d := c.Op(ops.Sub, nil, x, t)
	return c.Result(c.reduce(r, c.Op(ops.Mul, nil, d, d)))
}

func builtinSmoothL1Loss(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "smooth_l1_loss"
	var x, t *refs.Ref
	beta := 1.0
	r, err := lossArgs(th, fname, args, kwargs, &x, &t, nil, []any{"beta?", &beta})
	if err != nil {
		return nil, err
	}
	if beta < 0 {
		return nil, fmt.Errorf("smooth_l1_loss: beta must be non-negative, got %v", beta)
	}
	c := newChain(th)
	d := c.Op(ops.Abs, nil, c.Op(ops.Sub, nil, x, t))
	if beta == 0 {
		return c.Result(c.reduce(r, d)) // torch's l1_loss
	}
	if c.Err() != nil {
		return c.Result(nil)
	}
	dt := d.DType()
	if !dt.IsFloat() {
		dt = tensor.Float32
	}
	quad := c.Op(ops.Mul, nil, c.Op(ops.Mul, nil, d, d), c.scalar(0.5/beta, dt))
	lin := c.Op(ops.Sub, nil, d, c.scalar(0.5*beta, dt))
	loss := c.Op(ops.Where, nil, c.Op(ops.Lt, nil, d, c.scalar(beta, dt)), quad, lin)
	return c.Result(c.reduce(r, loss))
}
