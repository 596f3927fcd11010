package stdlib

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Neural-network builtins (matmul, linear, conv2d, max_pool2d and
// attention live with linear algebra).
func init() {
	register("softmax", "softmax(x, dim=-1, dtype=none): exp(x) / sum(exp(x)) along dim, computed stably; with dtype (a float dtype), of x converted to it first, as torch", builtinSoftmax(ops.Softmax))
	register("log_softmax", "log_softmax(x, dim=-1, dtype=none): x - logsumexp(x) along dim, computed stably; with dtype (a float dtype), of x converted to it first, as torch", builtinSoftmax(ops.LogSoftmax))
	register("layer_norm", "layer_norm(input, normalized_shape=none, weight=none, bias=none, eps=1e-5): normalise over the trailing dimensions normalized_shape (the last one when none) to mean 0 and biased variance 1, then scale by weight and shift by bias, as torch's F.layer_norm; tref's earlier layer_norm(x, w, b, eps) (a weight tensor second) still works", builtinLayerNorm)
	register("rms_norm", "rms_norm(input, normalized_shape=none, weight=none, eps=1e-6): x / sqrt(mean(x**2) + eps) over the trailing dimensions normalized_shape (the last one when none), scaled by weight, as torch's F.rms_norm; tref's earlier rms_norm(x, w, eps) still works", builtinRMSNorm)
	register("dropout", "dropout(x, p=0.5, train=true) (torch's input=, training= too): zero each element with probability p and scale the rest by 1/(1-p); identity when train is false", builtinDropout)
	register("mse", "mse(a, b): mean squared error, mean((a - b)**2), broadcasting a and b", builtinMSE)
}

func builtinSoftmax(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := -1
		dtv := eval.Value(eval.None)
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim?", &dim, "dtype?", &dtv); err != nil {
			return nil, err
		}
		x, _, done, err := dtypeInput(th, b.Name, x, dtv, true)
		if err != nil {
			return nil, err
		}
		defer done()
		return th.Submit(op, ops.SoftmaxAttrs{Dim: dim}, x)
	}
}

// optionalTensor reads an optional tensor argument (none or absent: nil).
func optionalTensor(th *eval.Thread, fname, param string, v eval.Value) (*refs.Ref, error) {
	if v == nil || v == eval.None {
		return nil, nil
	}
	r, err := th.ToRef(v)
	if err != nil {
		return nil, fmt.Errorf("%s: argument %q must be a tensor or none, not %s", fname, param, eval.Describe(v))
	}
	return r, nil
}

// submitNorm submits layer_norm or rms_norm with whichever of w and b are
// given.
func submitNorm(th *eval.Thread, op ops.Op, x *refs.Ref, wv, bv eval.Value, eps float64) (eval.Value, error) {
	name := op.Name()
	ins := []*refs.Ref{x}
	a := ops.NormAttrs{Eps: eps}
	w, err := optionalTensor(th, name, "weight", wv)
	if err != nil {
		return nil, err
	}
	if w != nil {
		ins, a.HasWeight = append(ins, w), true
	}
	b, err := optionalTensor(th, name, "bias", bv)
	if err != nil {
		return nil, err
	}
	if b != nil {
		ins, a.HasBias = append(ins, b), true
	}
	return th.Submit(op, a, ins...)
}

func builtinLayerNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	return builtinNorm(th, ops.LayerNorm, 1e-5, args, kwargs)
}

func builtinRMSNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	return builtinNorm(th, ops.RMSNorm, 1e-6, args, kwargs)
}

// builtinNorm is layer_norm and rms_norm in torch's form (input,
// normalized_shape, weight, [bias,] eps), or in tref's earlier form
// (x, w, [b,] eps), recognised by a tensor with dimensions or none second
// (torch's normalized_shape is never none).
func builtinNorm(th *eval.Thread, op ops.Op, eps float64, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	name := op.Name()
	hasBias := op == ops.LayerNorm
	var x *refs.Ref
	var shape, w, b eval.Value = eval.None, eval.None, eval.None
	legacy := false
	if len(args) > 1 {
		switch a := args[1].(type) {
		case eval.Tensor:
			legacy = len(a.Ref.Shape()) > 0
		case eval.NoneType:
			legacy = true
		}
	}
	pairs := []any{"x|input", &x}
	if !legacy {
		pairs = append(pairs, "normalized_shape?", &shape)
	}
	pairs = append(pairs, "w|weight?", &w)
	if hasBias {
		pairs = append(pairs, "b|bias?", &b)
	}
	pairs = append(pairs, "eps?", &eps)
	if err := eval.UnpackArgs(th, name, args, kwargs, pairs...); err != nil {
		return nil, err
	}
	xs := x.Shape()
	var ns []int
	if _, none := shape.(eval.NoneType); !none {
		if err := eval.UnpackArgs(th, name, []eval.Value{shape}, nil, "normalized_shape", &ns); err != nil {
			return nil, err
		}
		k := len(ns)
		if k == 0 || k > len(xs) || !xs[len(xs)-k:].Equal(tensor.Shape(ns)) {
			return nil, fmt.Errorf("%s: normalized_shape %v needs an input of shape [*, %s], got %v",
				name, tensor.Shape(ns), strings.Trim(tensor.Shape(ns).String(), "[]"), xs)
		}
	}
	if len(ns) <= 1 {
		return submitNorm(th, op, x, w, b, eps)
	}
	// Several trailing dimensions: normalise them flattened into one.
	n := tensor.Shape(ns).Numel()
	flat := append(xs[:len(xs)-len(ns):len(xs)-len(ns)].Clone(), n)
	c := newChain(th)
	params := []eval.Value{w, b}
	for i, v := range params {
		r, err := optionalTensor(th, name, []string{"weight", "bias"}[i], v)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		if !r.Shape().Equal(tensor.Shape(ns)) {
			return nil, fmt.Errorf("%s: normalized_shape %v needs a %s of that shape, got %v", name, tensor.Shape(ns), []string{"weight", "bias"}[i], r.Shape())
		}
		params[i] = eval.Tensor{Ref: c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{n}}, r)}
	}
	if c.Err() != nil {
		return c.Result(nil)
	}
	y, err := submitNorm(th, op, c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: flat}, x), params[0], params[1], eps)
	if err != nil {
		c.Release()
		return nil, err
	}
	yr := y.(eval.Tensor).Ref
	c.Keep(yr)
	return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: xs}, yr))
}

func builtinDropout(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	p, train := 0.5, true
	if err := eval.UnpackArgs(th, "dropout", args, kwargs, "x|input", &x, "p?", &p, "train|training?", &train); err != nil {
		return nil, err
	}
	if p < 0 || p > 1 {
		return nil, fmt.Errorf("dropout: p must be in [0, 1], got %v", p)
	}
	if !train || p == 0 {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	// The keep-mask is drawn on the host from the script's stream, so the
	// same seed drops the same elements on every device.
	mask, err := newHost(th, "dropout", x.Shape(), tensor.Bool)
	if err != nil {
		return nil, err
	}
	th.Rand().FillBernoulli(mask.U8(), 1-p)
	m := th.RT.FromHost(th.Site(), mask)
	defer th.RT.Release(m)
	return th.Submit(ops.Dropout, ops.DropoutAttrs{P: p}, x, m)
}

func builtinMSE(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, b *refs.Ref
	if err := eval.UnpackArgs(th, "mse", args, kwargs, "a|input", &a, "b|target", &b); err != nil {
		return nil, err
	}
	return th.Submit(ops.MSE, nil, a, b)
}
