package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("clip_grad_value", "clip_grad_value(grads, clip_value): the gradient tree with each float leaf clamped to [-clip_value, clip_value], as torch.nn.utils.clip_grad_value_ (which clamps the .grad fields in place)", clipGradValueBuiltin)
	register("clip_grad_norm", "clip_grad_norm(grads, max_norm, norm_type=2.0, error_if_nonfinite=false): {grads, total_norm}: the gradient tree scaled by min(1, max_norm / (total_norm + 1e-6)), where total_norm is the norm of the float leaves' norms, as torch.nn.utils.clip_grad_norm_ (which scales the .grad fields in place and returns total_norm); norm_type may be inf", clipGradNormBuiltin)
}

func clipGradValueBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var grads eval.Value
	var clip float64
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "grads|parameters", &grads, "clip_value", &clip); err != nil {
		return nil, err
	}
	if math.IsNaN(clip) {
		return nil, fmt.Errorf("%s: clip_value must be a number, got %v", b.Name, clip)
	}
	clipped, err := zipTrees(th, []eval.Value{grads}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
		if t, ok := xs[0].(eval.Tensor); ok && t.Ref.DType().IsFloat() {
			return th.Submit(ops.Clamp, ops.ClampAttrs{Min: -clip, HasMin: true, Max: clip, HasMax: true}, t.Ref)
		}
		eval.Retain(th.RT, xs[0])
		return xs[0], nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	return clipped, nil
}

func clipGradNormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var grads eval.Value
	var maxNorm float64
	p := 2.0
	nonfinite := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "grads|parameters", &grads, "max_norm", &maxNorm, "norm_type?", &p, "error_if_nonfinite?", &nonfinite); err != nil {
		return nil, err
	}
	if math.IsNaN(p) || math.IsNaN(maxNorm) {
		return nil, fmt.Errorf("%s: max_norm and norm_type must be numbers, got %v and %v", b.Name, maxNorm, p)
	}
	c := newChain(th)
	defer c.Release()
	// The float leaves, in the order the tree is walked.
	var leaves []*refs.Ref
	walked, err := zipTrees(th, []eval.Value{grads}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
		if t, ok := xs[0].(eval.Tensor); ok && t.Ref.DType().IsFloat() {
			leaves = append(leaves, t.Ref)
		}
		return eval.None, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	eval.Release(th.RT, walked)
	if len(leaves) == 0 {
		eval.Retain(th.RT, grads)
		zero := th.RT.Constant(th.Site(), ops.FloatScalar(0, tensor.Float32))
		return eval.NewResult([]string{"grads", "total_norm"}, []eval.Value{grads, eval.Tensor{Ref: zero}}), nil
	}
	norms := make([]*refs.Ref, len(leaves))
	for i, g := range leaves {
		norms[i] = c.Op(ops.Norm, ops.VectorNormAttrs{P: p}, g)
	}
	total := c.Op(ops.Norm, ops.VectorNormAttrs{P: p}, c.Op(ops.Stack, ops.CatAttrs{Dim: 0}, norms...))
	if c.Err() != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, c.Err())
	}
	// coef = min(max_norm / (total + 1e-6), 1)
	dt := total.DType()
	coef := c.Op(ops.Clamp, ops.ClampAttrs{Max: 1, HasMax: true},
		c.Op(ops.Div, nil, c.scalar(maxNorm, dt), c.Op(ops.Add, nil, total, c.scalar(1e-6, dt))))
	if c.Err() != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, c.Err())
	}
	if nonfinite {
		d, err := th.RT.Read(total)
		if err != nil {
			return nil, err
		}
		if v := d.At(0); math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: the total norm of order %v of the gradients is %v (error_if_nonfinite=true)", b.Name, p, v)
		}
	}
	clipped, err := zipTrees(th, []eval.Value{grads}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
		if t, ok := xs[0].(eval.Tensor); ok && t.Ref.DType().IsFloat() {
			return th.Submit(ops.Mul, nil, t.Ref, coef)
		}
		eval.Retain(th.RT, xs[0])
		return xs[0], nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	th.RT.Retain(total)
	return eval.NewResult([]string{"grads", "total_norm"}, []eval.Value{clipped, eval.Tensor{Ref: total}}), nil
}
