package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// batch_norm and group_norm with torch.nn.functional's argument names.
func init() {
	register("batch_norm", "batch_norm(input, running_mean, running_var, weight=none, bias=none, training=false, momentum=0.1, eps=1e-5): normalise [N, C, ...] per channel, as torch's F.batch_norm. "+
		"Evaluation uses the running statistics; training uses the batch's (biased variance) and, since tensors are immutable, returns {output, running_mean, running_var} with the statistics torch would update in place "+
		"((1 - momentum) * running + momentum * batch, the batch variance unbiased); without running statistics training returns the output alone", builtinBatchNorm)
	register("group_norm", "group_norm(input, num_groups, weight=none, bias=none, eps=1e-5): normalise [N, C, ...] over groups of C/num_groups channels (and all positions) per sample, then scale and shift per channel, as torch's F.group_norm", builtinGroupNorm)
}

// channelDims lists the dimensions of x a per-channel statistic reduces:
// all but dimension 1.
func channelDims(rank int) []int {
	dims := []int{0}
	for d := 2; d < rank; d++ {
		dims = append(dims, d)
	}
	return dims
}

func builtinBatchNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "batch_norm"
	var x *refs.Ref
	var rmv, rvv, wv, bv eval.Value = eval.None, eval.None, eval.None, eval.None
	training := false
	momentum, eps := 0.1, 1e-5
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "running_mean", &rmv, "running_var", &rvv,
		"weight?", &wv, "bias?", &bv, "training?", &training, "momentum?", &momentum, "eps?", &eps); err != nil {
		return nil, err
	}
	stats := make([]*refs.Ref, 2)
	for i, v := range []eval.Value{rmv, rvv} {
		r, err := optionalTensor(th, fname, []string{"running_mean", "running_var"}[i], v)
		if err != nil {
			return nil, err
		}
		stats[i] = r
	}
	if (stats[0] == nil) != (stats[1] == nil) {
		return nil, fmt.Errorf("batch_norm: running_mean and running_var must both be tensors or both none")
	}
	if !training && stats[0] == nil {
		return nil, fmt.Errorf("batch_norm: running_mean and running_var must be tensors in evaluation mode (training=false)")
	}
	xs := x.Shape()
	if len(xs) < 2 {
		return nil, fmt.Errorf("batch_norm: expected an input of shape [N, C, ...], got %v", xs)
	}
	a := ops.BatchNormAttrs{Eps: eps}
	var affine []*refs.Ref
	for i, v := range []eval.Value{wv, bv} {
		r, err := optionalTensor(th, fname, []string{"weight", "bias"}[i], v)
		if err != nil {
			return nil, err
		}
		if r != nil {
			affine = append(affine, r)
			if i == 0 {
				a.HasWeight = true
			} else {
				a.HasBias = true
			}
		}
	}
	if !training {
		return th.Submit(ops.BatchNorm, a, append([]*refs.Ref{x, stats[0], stats[1]}, affine...)...)
	}
	count := xs.Numel() / max(1, xs[1])
	if count <= 1 {
		return nil, fmt.Errorf("batch_norm: expected more than 1 value per channel when training, got input of shape %v", xs)
	}
	c := newChain(th)
	dims := channelDims(len(xs))
	mean := c.Op(ops.Mean, ops.ReduceAttrs{Dims: dims}, x)
	variance := c.Op(ops.Var, ops.ReduceAttrs{Dims: dims, Correction: 0}, x)
	out := c.Op(ops.BatchNorm, a, append([]*refs.Ref{x, mean, variance}, affine...)...)
	if stats[0] == nil {
		return c.Result(out)
	}
	// running·(1 - momentum) + batch·momentum, in the running statistics' dtype.
	update := func(running, batch *refs.Ref, scale float64) *refs.Ref {
		if c.Err() != nil {
			return nil
		}
		dt := running.DType()
		kept := c.Op(ops.Mul, nil, running, c.scalar(1-momentum, dt))
		moved := c.Op(ops.Mul, nil, c.Op(ops.Astype, ops.CastAttrs{To: dt}, batch), c.scalar(momentum*scale, dt))
		return c.Op(ops.Add, nil, kept, moved)
	}
	newMean := update(stats[0], mean, 1)
	newVar := update(stats[1], variance, float64(count)/float64(count-1))
	return c.Record([]string{"output", "running_mean", "running_var"}, out, newMean, newVar)
}

func builtinGroupNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "group_norm"
	var x *refs.Ref
	var groups int
	var wv, bv eval.Value = eval.None, eval.None
	eps := 1e-5
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "num_groups", &groups, "weight?", &wv, "bias?", &bv, "eps?", &eps); err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(xs) < 2 {
		return nil, fmt.Errorf("group_norm: expected an input of shape [N, C, ...], got %v", xs)
	}
	if groups < 1 || xs[1]%groups != 0 {
		return nil, fmt.Errorf("group_norm: expected the %d channels of input %v to be divisible by num_groups=%d", xs[1], xs, groups)
	}
	w, err := optionalTensor(th, fname, "weight", wv)
	if err != nil {
		return nil, err
	}
	b, err := optionalTensor(th, fname, "bias", bv)
	if err != nil {
		return nil, err
	}
	for i, r := range []*refs.Ref{w, b} {
		if r != nil && !r.Shape().Equal(tensor.Shape{xs[1]}) {
			return nil, fmt.Errorf("group_norm: input %v has %d channels, but %s has shape %v", xs, xs[1], []string{"weight", "bias"}[i], r.Shape())
		}
	}
	c := newChain(th)
	rest := 1
	if xs[0] > 0 && groups > 0 {
		rest = xs.Numel() / xs[0] / groups
	}
	grouped := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{xs[0], groups, rest}}, x)
	y := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: xs}, c.Op(ops.LayerNorm, ops.NormAttrs{Eps: eps}, grouped))
	// The affine parameters broadcast as [C, 1, ...] over the positions.
	perChannel := append(tensor.Shape{xs[1]}, make(tensor.Shape, len(xs)-2)...)
	for i := 1; i < len(perChannel); i++ {
		perChannel[i] = 1
	}
	if w != nil {
		y = c.Op(ops.Mul, nil, y, c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: perChannel}, w))
	}
	if b != nil {
		y = c.Op(ops.Add, nil, y, c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: perChannel}, b))
	}
	return c.Result(y)
}
