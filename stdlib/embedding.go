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
	register("embedding", "embedding(ids, table, padding_idx=none, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, sparse=false) (torch's input=, weight= too): rows of table [rows, dim] picked by the int64 ids, of shape ids.shape + [dim], as F.embedding: the padding_idx row (negative: from the end) gets no gradient; with max_norm each row picked is scaled down to a norm_type-norm of max_norm where it is above (torch writes those rows back into weight in place; tref's tensors are values, so the table stays as it is: table = embedding_renorm_(table, ids, max_norm, norm_type) gives torch's table after the call; the gradient is torch's: the rows' own); scale_grad_by_freq divides each row's gradient by how many times ids picks it; sparse gradients are not made (sparse=true is an error)", builtinEmbedding)
	register("embedding_renorm_", "embedding_renorm_(table, ids, max_norm, norm_type): table with each row that ids picks scaled down to a norm_type-norm of max_norm where it is above (by max_norm / (norm + 1e-7)), the other rows as they are, as torch.embedding_renorm_ (which does it in place: here use the result, table = embedding_renorm_(table, ids, ...)); the gradient is the table's own (torch renorms under no_grad)", builtinEmbeddingRenorm)
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
		out = c.renormed(out, c.renormScale(out, maxNorm, normType))
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

// renormScale is the factor that brings each row (last dimension) of x
// down to a normType-norm of maxNorm where it is above, as torch's
// embedding_renorm_: maxNorm / (norm + 1e-7) there, else 1, keeping the
// row's dimension.
func (c *chain) renormScale(x *refs.Ref, maxNorm, normType float64) *refs.Ref {
	dt := x.DType()
	norm := c.Op(ops.Norm, ops.VectorNormAttrs{P: normType, Dims: []int{len(x.Shape()) - 1}, Keepdim: true}, x)
	scale := c.Op(ops.Div, nil, c.scalar(maxNorm, dt), c.Op(ops.Add, nil, norm, c.scalar(1e-7, dt)))
	return c.Op(ops.Where, nil, c.Op(ops.Gt, nil, norm, c.scalar(maxNorm, dt)), scale, c.scalar(1, dt))
}

// renormed is x·scale with x's own gradient: torch renorms in place
// under no_grad, outside the tape.
func (c *chain) renormed(x, scale *refs.Ref) *refs.Ref {
	return c.Op(ops.Add, nil, c.constant(c.Op(ops.Mul, nil, x, scale)), c.Op(ops.Sub, nil, x, c.constant(x)))
}

func builtinEmbeddingRenorm(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var table, ids *refs.Ref
	var maxNorm, normType float64
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "table|weight|input", &table, "ids|indices", &ids, "max_norm", &maxNorm, "norm_type", &normType); err != nil {
		return nil, err
	}
	ts := table.Shape()
	if len(ts) != 2 || !table.DType().IsFloat() {
		return nil, fmt.Errorf("%s: table must be a float matrix [rows, dim], got %v", b.Name, table.Meta())
	}
	if dt := ids.DType(); dt != tensor.Int64 && dt != tensor.Int32 {
		return nil, fmt.Errorf("%s: ids must be int64 or int32, got %v", b.Name, ids.Meta())
	}
	if !(maxNorm >= 0) {
		return nil, fmt.Errorf("%s: max_norm must be a number >= 0, got %v", b.Name, maxNorm)
	}
	vs, err := readInts(th, ids)
	if err != nil {
		return nil, err
	}
	rows := ts[0]
	picked := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{rows, 1}, DType: tensor.Bool})
	for _, v := range vs {
		if v < 0 || v >= int64(rows) {
			return nil, fmt.Errorf("%s: id %d is out of range for a table of %d rows", b.Name, v, rows)
		}
		picked.Set(int(v), 1)
	}
	c := newChain(th)
	scale := c.Op(ops.Where, nil, c.Host(picked), c.renormScale(table, maxNorm, normType), c.scalar(1, table.DType()))
	return named(b.Name)(c.Result(c.renormed(table, scale)))
}

// constant is x as a constant to every grad (stop_gradient's copy).
func (c *chain) constant(x *refs.Ref) *refs.Ref {
	if x == nil || !autograd.Recording(c.Thread().RT) {
		return x
	}
	return c.detached(func() *refs.Ref { return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: x.Shape().Clone()}, x) })
}
