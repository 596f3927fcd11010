package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The random functions of torch.nn.functional: rrelu, the channel-wise
// and alpha dropouts and gumbel_softmax. Their noise is drawn on the host
// from the thread's seeded stream (as dropout's mask), so a seed repeats
// them on every device, though the numbers are not torch's; arguments
// are checked before anything is drawn. The result is the input times
// (and plus) that noise, so the gradient is torch's: the noise, or for
// gumbel_softmax the softmax's.
func init() {
	register("rrelu", "rrelu(input, lower=1/8, upper=1/3, training=false): x where x > 0, else x·a: in evaluation a = (lower + upper)/2 (leaky_relu), in training a slope drawn uniformly from [lower, upper) for each element, from the seeded stream (the gradient is that slope), as F.rrelu", rreluBuiltin)
	register("dropout1d", "dropout1d(input, p=0.5, training=true): each channel of [N, C, L] (or [C, L]) zeroed with probability p, the others scaled by 1/(1-p); from the seeded stream; identity when training is false, as F.dropout1d", featureDropoutBuiltin(dropout1d))
	register("dropout2d", "dropout2d(input, p=0.5, training=true): each channel of [N, C, H, W] zeroed with probability p, the others scaled by 1/(1-p); from the seeded stream; identity when training is false, as F.dropout2d in torch 1.13: a 3-d input is taken as [N, C, L] (not as an unbatched [C, H, W]), and other ranks of at least 2 zero the slices input[n, c] (torch warns of both, tref does not); in training a rank below 2 is an error", featureDropoutBuiltin(dropout2d))
	register("dropout3d", "dropout3d(input, p=0.5, training=true): each channel of [N, C, D, H, W] (or [C, D, H, W]) zeroed with probability p, the others scaled by 1/(1-p); from the seeded stream; identity when training is false, as F.dropout3d in torch 1.13: an input of another rank is taken as unbatched, its slices input[c] zeroed (torch warns of it, tref does not; a 1-d input's elements each, a 0-d one is an error in training)", featureDropoutBuiltin(dropout3d))
	register("alpha_dropout", "alpha_dropout(input, p=0.5, training=false): each element kept with probability 1-p, else set to SELU's saturation -1.7580993408473766, then scaled by a = 1/sqrt((1.7580993408473766²·p + 1)(1-p)) and shifted so that zero mean and unit variance are kept: x·a + 1.7580993408473766·a·p where kept, 1.7580993408473766·a·(p - 1) where not (p = 1 gives input·0); from the seeded stream; identity when training is false, as F.alpha_dropout", featureDropoutBuiltin(alphaDropout))
	register("feature_alpha_dropout", "feature_alpha_dropout(input, p=0.5, training=false): alpha_dropout with one draw per channel (the slices input[n, c] of an input of rank 2 or more; a lower rank is an error in training), as F.feature_alpha_dropout", featureDropoutBuiltin(featureAlphaDropout))
	register("gumbel_softmax", "gumbel_softmax(logits, tau=1.0, hard=false, eps=1e-10, dim=-1): softmax((logits + g)/tau) along dim, g standard Gumbel noise -log(E), E exponential, from the seeded stream; hard gives the one-hot of its (first) maximum as y_hard - stop_gradient(y_soft) + y_soft, so the gradient is the soft sample's; eps is ignored (deprecated in torch), as F.gumbel_softmax", gumbelSoftmaxBuiltin)
}

func rreluBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	lower, upper := 1.0/8, 1.0/3
	training := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "lower?", &lower, "upper?", &upper, "training?", &training); err != nil {
		return nil, err
	}
	if !(lower <= upper) {
		return nil, fmt.Errorf("%s: the lower bound %v must not exceed the upper bound %v", b.Name, lower, upper)
	}
	dt := x.DType()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, dt)
	}
	c := newChain(th)
	if !training {
		return c.Result(c.Op(ops.LeakyRelu, ops.LeakyReluAttrs{NegativeSlope: (lower + upper) / 2}, x))
	}
	slope, err := newHost(th, b.Name, x.Shape(), dt)
	if err != nil {
		return c.Abort(err)
	}
	src := th.Rand()
	for i := range slope.Numel() {
		slope.Set(i, lower+(upper-lower)*src.Float64())
	}
	// torch: x·slope where x <= 0 (NaN stays), else x.
	neg := c.Op(ops.Le, nil, x, c.scalar(0, dt))
	return c.Result(c.Op(ops.Where, nil, neg, c.Op(ops.Mul, nil, x, c.Host(slope)), x))
}

// The dropouts of featureDropoutBuiltin.
const (
	dropout1d = iota
	dropout2d
	dropout3d
	alphaDropout
	featureAlphaDropout
)

// featureDropoutBuiltin is one of the dropouts above, torch's
// _dropout_impl: the noise, one draw per element (alpha_dropout) or per
// channel, is kept with probability 1-p; p = 1 gives input·0.
func featureDropoutBuiltin(kind int) eval.BuiltinFunc {
	alpha := kind == alphaDropout || kind == featureAlphaDropout
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		p, training := 0.5, !alpha
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "p?", &p, "training?", &training); err != nil {
			return nil, err
		}
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("%s: dropout probability has to be between 0 and 1, but got %v", b.Name, p)
		}
		xs := x.Shape()
		if kind == dropout1d && len(xs) != 2 && len(xs) != 3 {
			return nil, fmt.Errorf("%s: expected an input of shape [N, C, L] or [C, L], got %v", b.Name, xs)
		}
		if !training || p == 0 || xs.Numel() == 0 {
			th.RT.Retain(x)
			return eval.Tensor{Ref: x}, nil
		}
		dt := x.DType()
		c := newChain(th)
		if p == 1 {
			return c.Result(c.Op(ops.Mul, nil, x, c.scalar(0, dt)))
		}
		if !dt.IsFloat() {
			return c.Abort(fmt.Errorf("%s: the input must be floating point, got %s", b.Name, dt))
		}
		// The noise's shape against x: x's own (alpha_dropout), or
		// [N, C, 1, ...] of x, or of x with a batch of 1 before it
		// (dropout1d's and dropout3d's unbatched inputs), the 1 left off.
		noise := xs.Clone()
		if kind != alphaDropout {
			batched := xs
			if kind == dropout1d && len(xs) == 2 || kind == dropout3d && len(xs) != 5 {
				batched = slices.Concat(tensor.Shape{1}, xs)
			}
			if len(batched) < 2 {
				return c.Abort(fmt.Errorf("%s: feature dropout requires an input of at least 2 dimensions, got %v", b.Name, xs))
			}
			noise = slices.Repeat(tensor.Shape{1}, len(batched))
			noise[0], noise[1] = batched[0], batched[1]
			noise = noise[len(batched)-len(xs):]
		}
		keep, err := newHost(th, b.Name, noise, tensor.Bool)
		if err != nil {
			return c.Abort(err)
		}
		th.Rand().FillBernoulli(keep.U8(), 1-p)
		// torch: noise/(1-p), or noise·a and b = (noise - 1)·alpha·a + alpha·a·p.
		scale, err := newHost(th, b.Name, noise, dt)
		if err != nil {
			return c.Abort(err)
		}
		kept := 1 / (1 - p)
		const selu = 1.7580993408473766 // SELU's scale·alpha
		a := 1 / math.Sqrt((selu*selu*p+1)*(1-p))
		if alpha {
			kept = a
		}
		for i, k := range keep.U8() {
			if k != 0 {
				scale.Set(i, kept)
			}
		}
		y := c.Op(ops.Mul, nil, x, c.Host(scale))
		if !alpha {
			return c.Result(y)
		}
		shift, err := newHost(th, b.Name, noise, dt)
		if err != nil {
			return c.Abort(err)
		}
		for i, k := range keep.U8() {
			shift.Set(i, selu*a*p-selu*a*float64(1-k))
		}
		return c.Result(c.Op(ops.Add, nil, y, c.Host(shift)))
	}
}

func gumbelSoftmaxBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	tau, eps := 1.0, 1e-10
	hard := false
	dim := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "logits", &x, "tau?", &tau, "hard?", &hard, "eps?", &eps, "dim?", &dim); err != nil {
		return nil, err
	}
	dt, xs := x.DType(), x.Shape()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the logits must be floating point, got %s", b.Name, dt)
	}
	d, err := tensor.NormDim(dim, len(xs))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	gumbel, err := newHost(th, b.Name, xs, dt)
	if err != nil {
		return nil, err
	}
	src := th.Rand()
	for i := range gumbel.Numel() {
		// E = -log(u), u uniform in (0, 1): positive and finite.
		u := (float64(src.Uint64()>>11) + 0.5) / (1 << 53)
		gumbel.Set(i, -math.Log(-math.Log(u)))
	}
	c := newChain(th)
	soft := c.Op(ops.Softmax, ops.SoftmaxAttrs{Dim: d}, c.Op(ops.Div, nil, c.Op(ops.Add, nil, x, c.Host(gumbel)), c.scalar(tau, dt)))
	if !hard || c.Err() != nil {
		return c.Result(soft)
	}
	// y_hard - y_soft is a constant; adding y_soft gives y_hard with
	// y_soft's gradient.
	diff := c.detached(func() *refs.Ref {
		top := c.Op(ops.Argmax, ops.ReduceAttrs{Dims: []int{d}, Keepdim: true}, soft)
		n := 1
		if len(xs) > 0 {
			n = xs[d]
		}
		pos := make([]int64, n)
		for i := range pos {
			pos[i] = int64(i)
		}
		at := slices.Repeat(tensor.Shape{1}, len(xs))
		if len(xs) > 0 {
			at[d] = n
		}
		oneHot := c.Cast(c.Op(ops.Eq, nil, c.hostInts(pos, at), top), dt)
		return c.Op(ops.Sub, nil, oneHot, soft)
	})
	return c.Result(c.Op(ops.Add, nil, diff, soft))
}
