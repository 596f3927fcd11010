package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/autograd"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("embedding", "embedding(ids, table, padding_idx=none, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, sparse=false) (torch's input=, weight= too): rows of table [rows, dim] picked by the int64 ids, of shape ids.shape + [dim], as F.embedding: the padding_idx row (negative: from the end) gets no gradient; with max_norm each row picked is scaled down to a norm_type-norm of max_norm where it is above (torch writes those rows back into weight in place; here the table stays as it is, and its gradient is torch's: the rows' own); scale_grad_by_freq divides each row's gradient by how many times ids picks it; sparse gradients are not made (sparse=true is an error)", builtinEmbedding)
}

func builtinEmbedding(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var ids, table *refs.Ref
	var pad eval.OptInt
	maxNormV := eval.Value(eval.None)
	normType := 2.0
	var byFreq, sparse bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "ids|input", &ids, "table|weight", &table, "padding_idx?", &pad, "max_norm?", &maxNormV,
		"norm_type?", &normType, "scale_grad_by_freq?", &byFreq, "sparse?", &sparse); err != nil {
		return nil, err
	}
	if sparse {
		return nil, fmt.Errorf("%s: sparse gradients are not supported (sparse=true); the gradient is dense", b.Name)
	}
	maxNorm, renorm, err := optFloat(th, b.Name, "max_norm", maxNormV)
	if err != nil {
		return nil, err
	}
	ts := table.Shape()
	plain := !pad.Set && !renorm && !byFreq
	if plain || len(ts) != 2 || !table.DType().IsFloat() {
		// the op's own checks and errors
		return th.Submit(ops.Embedding, nil, ids, table)
	}
	rows := ts[0]
	p := pad.V
	if pad.Set {
		if p < -rows || p >= rows {
			return nil, fmt.Errorf("%s: padding_idx %d must be within the table's %d rows", b.Name, p, rows)
		}
		if p < 0 {
			p += rows
		}
	}
	if renorm && !(maxNorm >= 0) {
		return nil, fmt.Errorf("%s: max_norm must be a number >= 0, got %v", b.Name, maxNorm)
	}
	c := newChain(th)
	out := c.Op(ops.Embedding, nil, ids, table)
	if c.Err() != nil {
		return c.Result(nil)
	}
	dt, os := table.DType(), out.Shape()
	// ids' positions broadcast over the row's dim
	column := func(x *refs.Ref) *refs.Ref { return c.Reshape(x, append(os[:len(os)-1:len(os)-1], 1)) }
	if renorm {
		// rows·s, s = max_norm / (norm + 1e-7) where the norm is above,
		// with the rows' own gradient (torch renorms weight in place,
		// outside the tape)
		norm := c.Op(ops.Norm, ops.VectorNormAttrs{P: normType, Dims: []int{len(os) - 1}, Keepdim: true}, out)
		scale := c.Op(ops.Div, nil, c.scalar(maxNorm, dt), c.Op(ops.Add, nil, norm, c.scalar(1e-7, dt)))
		scale = c.Op(ops.Where, nil, c.Op(ops.Gt, nil, norm, c.scalar(maxNorm, dt)), scale, c.scalar(1, dt))
		frozen := c.constant(out)
		out = c.Op(ops.Add, nil, c.constant(c.Op(ops.Mul, nil, out, scale)), c.Op(ops.Sub, nil, out, frozen))
	}
	if byFreq {
		vs, err := readInts(th, ids)
		if err != nil {
			return c.Abort(err)
		}
		count := map[int64]int{}
		for _, v := range vs {
			count[v]++
		}
		w := tensor.NewDense(tensor.Meta{Shape: append(ids.Shape().Clone(), 1), DType: dt})
		for i, v := range vs {
			w.Set(i, 1/float64(count[v]))
		}
		// out + (out - out)·w: out itself, its gradient times w
		frozen := c.constant(out)
		out = c.Op(ops.Add, nil, frozen, c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, out, frozen), c.Host(w)))
	}
	if pad.Set {
		isPad := c.Op(ops.Eq, nil, ids, c.Constant(ops.IntScalar(int64(p))))
		if ids.DType() != tensor.Int64 {
			isPad = c.Op(ops.Eq, nil, c.Cast(ids, tensor.Int64), c.Constant(ops.IntScalar(int64(p))))
		}
		out = c.Op(ops.Where, nil, column(isPad), c.constant(out), out)
	}
	return c.Result(out)
}

// constant is x as a constant to every grad (stop_gradient's copy).
func (c *chain) constant(x *refs.Ref) *refs.Ref {
	if x == nil || !autograd.Recording(c.Thread().RT) {
		return x
	}
	return c.detached(func() *refs.Ref { return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: x.Shape().Clone()}, x) })
}
