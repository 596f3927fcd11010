package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// More losses of torch.nn.functional, composed of tref's ops with torch
// 1.13's formulas (so values and gradients are torch's, including where
// torch clamps), its argument names and defaults, and reduction= ("mean",
// "sum" or "none").
func init() {
	register("margin_ranking_loss", "margin_ranking_loss(input1, input2, target, margin=0, reduction=\"mean\"): max(0, -target·(input1 - input2) + margin) (broadcasting; the three of one rank), as F.margin_ranking_loss", builtinMarginRankingLoss)
	register("soft_margin_loss", "soft_margin_loss(input, target, reduction=\"mean\"): log(1 + exp(-target·input)) (target broadcasting to input), as F.soft_margin_loss", builtinSoftMarginLoss)
	register("hinge_embedding_loss", "hinge_embedding_loss(input, target, margin=1.0, reduction=\"mean\"): input where target == 1, max(0, margin - input) where target == -1 (their sum elsewhere, as torch), as F.hinge_embedding_loss", builtinHingeEmbeddingLoss)
	register("cosine_embedding_loss", "cosine_embedding_loss(input1, input2, target, margin=0, reduction=\"mean\"): 1 - cos(input1, input2) where target == 1, max(0, cos - margin) where target == -1, 0 elsewhere, the cosine over the last dimension of [N, D] inputs with a [N] target (or [D] with a 0-d one), as F.cosine_embedding_loss", builtinCosineEmbeddingLoss)
	register("triplet_margin_loss", "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=false, reduction=\"mean\"): max(0, margin + d(anchor, positive) - d(anchor, negative)) with d pairwise_distance(p, eps) over the last dimension; swap takes min(d(anchor, negative), d(positive, negative)), as F.triplet_margin_loss", builtinTripletMarginLoss)
	register("poisson_nll_loss", "poisson_nll_loss(input, target, log_input=true, full=false, eps=1e-8, reduction=\"mean\"): exp(input) - target·input (log_input), else input - target·log(input + eps); full adds the Stirling term target·log(target) - target + 0.5·log(2π·target) where target > 1, as F.poisson_nll_loss", builtinPoissonNLLLoss)
	register("gaussian_nll_loss", "gaussian_nll_loss(input, target, var, full=false, eps=1e-6, reduction=\"mean\"): 0.5·(log(v) + (input - target)²/v) with v = var clamped to eps (its gradient passing unclamped, as torch's no_grad clamp); var has input's shape, or one fewer dimension, or a last dimension of 1; full adds 0.5·log(2π); a negative var is an error, as F.gaussian_nll_loss", builtinGaussianNLLLoss)
	register("multilabel_soft_margin_loss", "multilabel_soft_margin_loss(input, target, weight=none, reduction=\"mean\"): -(target·logsigmoid(input) + (1 - target)·logsigmoid(-input)), times weight, averaged over the last (class) dimension, as F.multilabel_soft_margin_loss", builtinMultilabelSoftMarginLoss)
	register("multi_margin_loss", "multi_margin_loss(input, target, p=1, margin=1.0, weight=none, reduction=\"mean\"): per sample of input [N, C] (or [C]) with int64 class target [N], the sum over the classes i other than y = target of max(0, margin - input[y] + input[i])^p (p 1 or 2; a NaN term adds nothing, as torch's z > 0 test), times weight[y], divided by C; reduction \"none\" gives target's shape (0-d for a 0-d target), as F.multi_margin_loss", builtinMultiMarginLoss)
}

// reductionArgs unpacks a loss's arguments: before, torch's deprecated
// size_average and reduce (accepted only as none), reduction, then after.
func reductionArgs(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg, before, after []any) (ops.Reduction, error) {
	reduction := "mean"
	var sizeAverage, reduce eval.Value = eval.None, eval.None
	pairs := append(before, "size_average?", &sizeAverage, "reduce?", &reduce, "reduction?", &reduction)
	pairs = append(pairs, after...)
	if err := eval.UnpackArgs(th, fname, args, kwargs, pairs...); err != nil {
		return 0, err
	}
	if err := noDeprecated(fname, sizeAverage, reduce); err != nil {
		return 0, err
	}
	return parseReduction(fname, reduction)
}

// floatScalar is the 0-d constant v in x's dtype, float32 when x's is not
// floating point (torch's Python float operand).
func (c *chain) floatScalar(x *refs.Ref, v float64) *refs.Ref {
	if x == nil {
		return nil
	}
	dt := x.DType()
	if !dt.IsFloat() {
		dt = tensor.Float32
	}
	return c.scalar(v, dt)
}

// clampMin0 is max(x, 0) with torch's clamp_min gradient (passed where
// x >= 0).
func (c *chain) clampMin0(x *refs.Ref) *refs.Ref {
	return c.Op(ops.Clamp, ops.ClampAttrs{Min: 0, HasMin: true}, x)
}

func builtinMarginRankingLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2, t *refs.Ref
	margin := 0.0
	r, err := reductionArgs(th, b.Name, args, kwargs, []any{"input1", &x1, "input2", &x2, "target", &t, "margin?", &margin}, nil)
	if err != nil {
		return nil, err
	}
	if len(x1.Shape()) != len(x2.Shape()) || len(x1.Shape()) != len(t.Shape()) {
		return nil, fmt.Errorf("%s: all input tensors should have the same number of dimensions, got input1 %v, input2 %v and target %v", b.Name, x1.Shape(), x2.Shape(), t.Shape())
	}
	c := newChain(th)
	z := c.Op(ops.Mul, nil, c.Op(ops.Neg, nil, t), c.Op(ops.Sub, nil, x1, x2))
	z = c.Op(ops.Add, nil, z, c.floatScalar(z, margin))
	return named(b.Name)(c.Result(c.reduce(r, c.clampMin0(z))))
}

func builtinSoftMarginLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	r, err := lossArgs(th, b.Name, args, kwargs, &x, &t, nil, nil)
	if err != nil {
		return nil, err
	}
	if s, err := ops.BroadcastShapes(x.Shape(), t.Shape()); err != nil || !s.Equal(x.Shape()) {
		return nil, fmt.Errorf("%s: the target's shape %v does not broadcast to the input's %v", b.Name, t.Shape(), x.Shape())
	}
	c := newChain(th)
	loss := c.Op(ops.Log1p, nil, c.Op(ops.Exp, nil, c.Op(ops.Mul, nil, c.Op(ops.Neg, nil, x), t)))
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}

func builtinHingeEmbeddingLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	margin := 1.0
	r, err := lossArgs(th, b.Name, args, kwargs, &x, &t, []any{"margin?", &margin}, nil)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	dt := x.DType()
	// torch: where(target != 1, clamp_min(margin - input, 0), 0) +
	// where(target != -1, input, 0).
	zero := c.scalar(0, dt)
	hinge := c.clampMin0(c.Op(ops.Sub, nil, c.scalar(margin, dt), x))
	outMargin := c.Op(ops.Where, nil, c.Op(ops.Ne, nil, t, c.scalar(1, t.DType())), hinge, zero)
	outSelf := c.Op(ops.Where, nil, c.Op(ops.Ne, nil, t, c.scalar(-1, t.DType())), x, zero)
	return named(b.Name)(c.Result(c.reduce(r, c.Op(ops.Add, nil, outMargin, outSelf))))
}

func builtinCosineEmbeddingLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2, t *refs.Ref
	margin := 0.0
	r, err := reductionArgs(th, b.Name, args, kwargs, []any{"input1", &x1, "input2", &x2, "target", &t, "margin?", &margin}, nil)
	if err != nil {
		return nil, err
	}
	td := len(t.Shape())
	switch {
	case td > 1:
		return nil, fmt.Errorf("%s: expected a 0-d or 1-d target, got shape %v (multi-target is not supported)", b.Name, t.Shape())
	case td == 1 && (len(x1.Shape()) != 2 || len(x2.Shape()) != 2):
		return nil, fmt.Errorf("%s: a 1-d target expects 2-d inputs, got shapes %v and %v", b.Name, x1.Shape(), x2.Shape())
	case td == 0 && (len(x1.Shape()) != 1 || len(x2.Shape()) != 1):
		return nil, fmt.Errorf("%s: a 0-d target expects 1-d inputs, got shapes %v and %v", b.Name, x1.Shape(), x2.Shape())
	}
	c := newChain(th)
	const epsilon = 1e-12 // torch's EPSILON
	sum := func(v *refs.Ref) *refs.Ref { return c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{td}}, v) }
	prod := sum(c.Op(ops.Mul, nil, x1, x2))
	mag1 := c.Op(ops.Add, nil, sum(c.Op(ops.Mul, nil, x1, x1)), c.floatScalar(prod, epsilon))
	mag2 := c.Op(ops.Add, nil, sum(c.Op(ops.Mul, nil, x2, x2)), c.floatScalar(prod, epsilon))
	cos := c.Op(ops.Div, nil, prod, c.Op(ops.Sqrt, nil, c.Op(ops.Mul, nil, mag1, mag2)))
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	dt := cos.DType()
	zero := c.scalar(0, dt)
	pos := c.Op(ops.Sub, nil, c.scalar(1, dt), cos)
	neg := c.clampMin0(c.Op(ops.Sub, nil, cos, c.scalar(margin, dt)))
	outPos := c.Op(ops.Where, nil, c.Op(ops.Eq, nil, t, c.scalar(1, t.DType())), pos, zero)
	outNeg := c.Op(ops.Where, nil, c.Op(ops.Eq, nil, t, c.scalar(-1, t.DType())), neg, zero)
	return named(b.Name)(c.Result(c.reduce(r, c.Op(ops.Add, nil, outPos, outNeg))))
}

// pairwiseDist is torch's pairwise_distance(a, b, p, eps): the p-norm of
// a - b + eps over the last dimension of the broadcast shape.
func (c *chain) pairwiseDist(a, b *refs.Ref, p, eps float64) *refs.Ref {
	d := c.Op(ops.Sub, nil, a, b)
	if c.Err() != nil {
		return nil
	}
	d = c.Op(ops.Add, nil, d, c.scalar(eps, d.DType()))
	return c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{-1}}, d)
}

func builtinTripletMarginLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, pos, neg *refs.Ref
	margin, p, eps := 1.0, 2.0, 1e-6
	swap := false
	r, err := reductionArgs(th, b.Name, args, kwargs, []any{"anchor", &a, "positive", &pos, "negative", &neg,
		"margin?", &margin, "p?", &p, "eps?", &eps, "swap?", &swap}, nil)
	if err != nil {
		return nil, err
	}
	da, dp, dn := len(a.Shape()), len(pos.Shape()), len(neg.Shape())
	if da != dp || dp != dn {
		return nil, fmt.Errorf("%s: all inputs should have the same number of dimensions, got %dD, %dD and %dD inputs", b.Name, da, dp, dn)
	}
	if da == 0 {
		return nil, fmt.Errorf("%s: the inputs are 0-d; they need a dimension to take the distance over", b.Name)
	}
	for i, x := range []*refs.Ref{a, pos, neg} {
		if !x.DType().IsFloat() {
			return nil, fmt.Errorf("%s: %s must be floating point, got %s", b.Name, []string{"anchor", "positive", "negative"}[i], x.DType())
		}
	}
	c := newChain(th)
	dPos := c.pairwiseDist(a, pos, p, eps)
	dNeg := c.pairwiseDist(a, neg, p, eps)
	if swap {
		dNeg = c.Op(ops.Minimum, nil, dNeg, c.pairwiseDist(pos, neg, p, eps))
	}
	z := c.Op(ops.Add, nil, c.floatScalar(dPos, margin), dPos)
	z = c.Op(ops.Sub, nil, z, dNeg)
	return named(b.Name)(c.Result(c.reduce(r, c.clampMin0(z))))
}

func builtinPoissonNLLLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	logInput, full := true, false
	eps := 1e-8
	reduction := "mean"
	var sizeAverage, reduce eval.Value = eval.None, eval.None
	// torch's order: eps sits between size_average and reduce.
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "target", &t, "log_input?", &logInput, "full?", &full,
		"size_average?", &sizeAverage, "eps?", &eps, "reduce?", &reduce, "reduction?", &reduction); err != nil {
		return nil, err
	}
	if err := noDeprecated(b.Name, sizeAverage, reduce); err != nil {
		return nil, err
	}
	r, err := parseReduction(b.Name, reduction)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	var loss *refs.Ref
	if logInput {
		loss = c.Op(ops.Sub, nil, c.Op(ops.Exp, nil, x), c.Op(ops.Mul, nil, t, x))
	} else {
		shifted := c.Op(ops.Add, nil, x, c.floatScalar(x, eps))
		loss = c.Op(ops.Sub, nil, x, c.Op(ops.Mul, nil, t, c.Op(ops.Log, nil, shifted)))
	}
	if full {
		// torch masks (not guards) the term where target <= 1, so its
		// gradient with respect to the target is torch's there too.
		tf := c.floatOrF32(t)
		if c.Err() != nil {
			return named(b.Name)(c.Result(nil))
		}
		dt := tf.DType()
		stirling := c.Op(ops.Sub, nil, c.Op(ops.Mul, nil, tf, c.Op(ops.Log, nil, tf)), tf)
		stirling = c.Op(ops.Add, nil, stirling,
			c.Op(ops.Mul, nil, c.scalar(0.5, dt), c.Op(ops.Log, nil, c.Op(ops.Mul, nil, c.scalar(2*math.Pi, dt), tf))))
		stirling = c.Op(ops.Where, nil, c.Op(ops.Le, nil, tf, c.scalar(1, dt)), c.scalar(0, dt), stirling)
		loss = c.Op(ops.Add, nil, loss, stirling)
	}
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}

func builtinGaussianNLLLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t, v *refs.Ref
	full := false
	eps := 1e-6
	reduction := "mean"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "target", &t, "var", &v, "full?", &full, "eps?", &eps, "reduction?", &reduction); err != nil {
		return nil, err
	}
	xs, vs := x.Shape(), v.Shape()
	c := newChain(th)
	if !vs.Equal(xs) {
		switch {
		case len(xs) > 0 && vs.Equal(xs[:len(xs)-1]):
			// one variance per row: unsqueeze it to broadcast along the last
			// dimension.
			v = c.Reshape(v, append(vs.Clone(), 1))
		case len(xs) > 0 && len(vs) == len(xs) && vs[:len(vs)-1].Equal(xs[:len(xs)-1]) && vs[len(vs)-1] == 1:
		default:
			return c.Abort(fmt.Errorf("%s: var of shape %v is of incorrect size for input %v: it needs the input's shape, the input's without its last dimension, or that with a last dimension of 1", b.Name, vs, xs))
		}
	}
	r, err := parseReduction(b.Name, reduction)
	if err != nil {
		return c.Abort(err)
	}
	if !v.DType().IsFloat() {
		return c.Abort(fmt.Errorf("%s: var must be floating point, got %s", b.Name, v.DType()))
	}
	negative := c.Op(ops.Any, ops.ReduceAttrs{}, c.Op(ops.Lt, nil, v, c.scalar(0, v.DType())))
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	d, err := th.RT.Read(negative)
	if err != nil {
		return c.Abort(err)
	}
	if d.At(0) != 0 {
		return c.Abort(fmt.Errorf("%s: var has negative entries", b.Name))
	}
	// torch clamps a clone of var in place under no_grad: the value is
	// clamp(var, eps), the gradient passes to var unchanged. Here that is
	// the clamped value plus (var - var), constant-folded to 0 but not to
	// the gradient.
	var clamped, same *refs.Ref
	c.detached(func() *refs.Ref {
		clamped = c.Op(ops.Clamp, ops.ClampAttrs{Min: eps, HasMin: true}, v)
		same = c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: v.Shape()}, v)
		return nil
	})
	vc := c.Op(ops.Add, nil, clamped, c.Op(ops.Sub, nil, v, same))
	diff := c.Op(ops.Sub, nil, x, t)
	inner := c.Op(ops.Add, nil, c.Op(ops.Log, nil, vc), c.Op(ops.Div, nil, c.Op(ops.Mul, nil, diff, diff), vc))
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	dt := inner.DType()
	loss := c.Op(ops.Mul, nil, c.scalar(0.5, dt), inner)
	if full {
		loss = c.Op(ops.Add, nil, loss, c.scalar(0.5*math.Log(2*math.Pi), dt))
	}
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}

func builtinMultilabelSoftMarginLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	var weight eval.Value = eval.None
	r, err := lossArgs(th, b.Name, args, kwargs, &x, &t, []any{"weight?", &weight}, nil)
	if err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s: expected an input of shape [..., C], got a 0-d tensor", b.Name)
	}
	c := newChain(th)
	one := c.floatScalar(t, 1)
	pos := c.Op(ops.Mul, nil, t, logsigmoid(c, x))
	neg := c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, one, t), logsigmoid(c, c.Op(ops.Neg, nil, x)))
	loss := c.weighted(b.Name, c.Op(ops.Neg, nil, c.Op(ops.Add, nil, pos, neg)), weight)
	classes := xs[len(xs)-1]
	loss = c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{len(xs) - 1}}, loss)
	loss = c.Op(ops.Div, nil, loss, c.floatScalar(loss, float64(classes)))
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}

func builtinMultiMarginLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	p := 1
	margin := 1.0
	var weight eval.Value = eval.None
	r, err := lossArgs(th, b.Name, args, kwargs, &x, &t, []any{"p?", &p, "margin?", &margin, "weight?", &weight}, nil)
	if err != nil {
		return nil, err
	}
	if p != 1 && p != 2 {
		return nil, fmt.Errorf("%s: only p == 1 and p == 2 are supported, got %d", b.Name, p)
	}
	xs, ts := x.Shape(), t.Shape()
	if len(xs) > 2 || (len(xs) > 0 && xs[len(xs)-1] == 0) {
		return nil, fmt.Errorf("%s: expected a non-empty vector or matrix (with an optional 0-size batch), got shape %v", b.Name, xs)
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	}
	if t.DType() != tensor.Int64 {
		return nil, fmt.Errorf("%s: the target must be int64 class indices, got %s", b.Name, t.DType())
	}
	rows, classes := 1, 1
	switch len(xs) {
	case 1:
		classes = xs[0]
	case 2:
		rows, classes = xs[0], xs[1]
	}
	if len(ts) > 1 || ts.Numel() != rows {
		return nil, fmt.Errorf("%s: inconsistent target size %v for input of shape %v: it needs %d class indices", b.Name, ts, xs, rows)
	}
	w, err := optionalTensor(th, b.Name, "weight", weight)
	if err != nil {
		return nil, err
	}
	if w != nil && !w.Shape().Equal(tensor.Shape{classes}) {
		return nil, fmt.Errorf("%s: weight must be one-dimensional with one element per class (%d), got shape %v", b.Name, classes, w.Shape())
	}
	c := newChain(th)
	if rows > 0 {
		outside := c.Op(ops.Any, ops.ReduceAttrs{}, c.Op(ops.BitwiseOr, nil,
			c.Op(ops.Lt, nil, t, c.Constant(ops.IntScalar(0))), c.Op(ops.Ge, nil, t, c.Constant(ops.IntScalar(int64(classes))))))
		if c.Err() != nil {
			return named(b.Name)(c.Result(nil))
		}
		d, err := th.RT.Read(outside)
		if err != nil {
			return c.Abort(err)
		}
		if d.At(0) != 0 {
			return c.Abort(fmt.Errorf("%s: target out of range: class indices must be in [0, %d)", b.Name, classes))
		}
	}
	dt := x.DType()
	xm := c.Reshape(x, tensor.Shape{rows, classes})
	tc := c.Reshape(t, tensor.Shape{rows, 1})
	// z = margin - input[y] + input[i], its hinge (squared for p = 2),
	// without the class y itself.
	z := c.Op(ops.Add, nil, c.Op(ops.Sub, nil, c.scalar(margin, dt), c.Op(ops.Gather, ops.DimAttrs{Dim: 1}, xm, tc)), xm)
	// only z > 0 counts, as torch: a NaN z adds nothing
	h := c.Op(ops.Where, nil, c.Op(ops.Gt, nil, z, c.scalar(0, dt)), z, c.scalar(0, dt))
	if p == 2 {
		h = c.Op(ops.Mul, nil, h, h)
	}
	isTarget := c.Op(ops.Eq, nil, c.Op(ops.OneHot, ops.OneHotAttrs{NumClasses: classes}, c.Reshape(t, tensor.Shape{rows})), c.Constant(ops.IntScalar(1)))
	h = c.Op(ops.Where, nil, isTarget, c.scalar(0, dt), h)
	if w != nil {
		wy := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, w, c.Reshape(t, tensor.Shape{rows}))
		h = c.Op(ops.Mul, nil, h, c.Reshape(wy, tensor.Shape{rows, 1}))
	}
	loss := c.Op(ops.Div, nil, c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}}, h), c.scalar(float64(classes), dt))
	loss = c.Reshape(loss, ts) // the target's shape (0-d for a 0-d one), as torch
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}
