package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Neural-network builtins (matmul, linear, conv2d, max_pool2d and
// attention live with linear algebra).
func init() {
	register("softmax", "softmax(x, dim=-1): exp(x) / sum(exp(x)) along dim, computed stably", builtinSoftmax(ops.Softmax))
	register("log_softmax", "log_softmax(x, dim=-1): x - logsumexp(x) along dim, computed stably", builtinSoftmax(ops.LogSoftmax))
	register("layer_norm", "layer_norm(x, w=none, b=none, eps=1e-5): normalise over the last dimension (mean 0, biased variance 1), then scale by w and shift by b", builtinLayerNorm)
	register("rms_norm", "rms_norm(x, w=none, eps=1e-6): x / sqrt(mean(x**2) + eps) over the last dimension, scaled by w", builtinRMSNorm)
	register("embedding", "embedding(ids, table): rows of table [rows, dim] picked by the int64 ids; result shape ids.shape + [dim]", builtinEmbedding)
	register("dropout", "dropout(x, p=0.5, train=true): zero each element with probability p and scale the rest by 1/(1-p); identity when train is false", builtinDropout)
	register("mse", "mse(a, b): mean squared error, mean((a - b)**2), broadcasting a and b", builtinMSE)
}

func builtinSoftmax(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := -1
		if err := eval.UnpackArgs(th, op.Name(), args, kwargs, "x", &x, "dim?", &dim); err != nil {
			return nil, err
		}
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
	w, err := optionalTensor(th, name, "w", wv)
	if err != nil {
		return nil, err
	}
	if w != nil {
		ins, a.HasWeight = append(ins, w), true
	}
	b, err := optionalTensor(th, name, "b", bv)
	if err != nil {
		return nil, err
	}
	if b != nil {
		ins, a.HasBias = append(ins, b), true
	}
	return th.Submit(op, a, ins...)
}

func builtinLayerNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var w, b eval.Value
	eps := 1e-5
	if err := eval.UnpackArgs(th, "layer_norm", args, kwargs, "x", &x, "w?", &w, "b?", &b, "eps?", &eps); err != nil {
		return nil, err
	}
	return submitNorm(th, ops.LayerNorm, x, w, b, eps)
}

func builtinRMSNorm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var w eval.Value
	eps := 1e-6
	if err := eval.UnpackArgs(th, "rms_norm", args, kwargs, "x", &x, "w?", &w, "eps?", &eps); err != nil {
		return nil, err
	}
	return submitNorm(th, ops.RMSNorm, x, w, nil, eps)
}

func builtinEmbedding(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var ids, table *refs.Ref
	if err := eval.UnpackArgs(th, "embedding", args, kwargs, "ids", &ids, "table", &table); err != nil {
		return nil, err
	}
	return th.Submit(ops.Embedding, nil, ids, table)
}

func builtinDropout(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	p, train := 0.5, true
	if err := eval.UnpackArgs(th, "dropout", args, kwargs, "x", &x, "p?", &p, "train?", &train); err != nil {
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
	if err := eval.UnpackArgs(th, "mse", args, kwargs, "a", &a, "b", &b); err != nil {
		return nil, err
	}
	return th.Submit(ops.MSE, nil, a, b)
}
