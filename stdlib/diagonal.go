package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("diagonal", "diagonal(input, offset=0, dim1=0, dim2=1): the diagonal of input over dimensions dim1 and dim2 (above the main one for offset > 0, below for offset < 0), as the last dimension of the result, as torch.diagonal", diagonalBuiltin)
	register("trace", "trace(input): the sum of the main diagonal of a 2-d input (integers give int64), as torch.trace", traceBuiltin)
}

func diagonalBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	offset, dim1, dim2 := 0, 0, 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "offset?", &offset, "dim1?", &dim1, "dim2?", &dim2); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.diagonal(b.Name, x, offset, dim1, dim2)))
}

// diagonal is torch.diagonal(x, offset, dim1, dim2): dim1 and dim2 moved
// last and merged, then the elements at (i, i + offset) picked.
func (c *chain) diagonal(fname string, x *refs.Ref, offset, dim1, dim2 int) *refs.Ref {
	l, err := diagonalLayout(fname, x.Shape(), dim1, dim2)
	if err != nil {
		c.Fail(err)
	}
	if c.Err() != nil {
		return nil
	}
	idx := diagonalPositions(l.rows, l.cols, offset)
	moved := c.Op(ops.Permute, ops.PermuteAttrs{Dims: l.perm}, x)
	flat := c.Reshape(moved, slices.Concat(l.outer, tensor.Shape{l.rows * l.cols}))
	return c.Op(ops.IndexSelect, ops.DimAttrs{Dim: len(l.outer)}, flat, c.Host(idx))
}

// diagLayout is how diagonal lays out a tensor: perm moves dim1 and dim2
// last (rows, then cols), after the outer dimensions in order.
type diagLayout struct {
	perm       []int
	outer      tensor.Shape
	rows, cols int
}

// diagonalLayout checks dim1 and dim2 of torch.diagonal on a tensor of
// shape s and lays it out.
func diagonalLayout(fname string, s tensor.Shape, dim1, dim2 int) (diagLayout, error) {
	a, err1 := tensor.NormDim(dim1, len(s))
	d, err2 := tensor.NormDim(dim2, len(s))
	switch {
	case len(s) < 2:
		return diagLayout{}, fmt.Errorf("%s: the input must have at least 2 dimensions, got shape %v", fname, s)
	case err1 != nil || err2 != nil:
		return diagLayout{}, fmt.Errorf("%s: dim1 %d and dim2 %d must be dimensions of a tensor of shape %v", fname, dim1, dim2, s)
	case a == d:
		return diagLayout{}, fmt.Errorf("%s: dim1 and dim2 are both dimension %d; they must differ", fname, a)
	}
	l := diagLayout{rows: s[a], cols: s[d]}
	for k := range s {
		if k != a && k != d {
			l.perm = append(l.perm, k)
			l.outer = append(l.outer, s[k])
		}
	}
	l.perm = append(l.perm, a, d)
	return l, nil
}

func traceBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	if len(x.Shape()) != 2 {
		return nil, fmt.Errorf("%s: the input must be 2-d, got shape %v", b.Name, x.Shape())
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Sum, ops.ReduceAttrs{}, c.diagonal(b.Name, x, 0, 0, 1))))
}

// diagonalPositions are the flat positions (i*cols + j) of the elements
// (i, i + offset) of a rows×cols matrix, as an int64 index.
func diagonalPositions(rows, cols, offset int) *tensor.Dense {
	var pos []int64
	for i := range rows {
		if j := i + offset; j >= 0 && j < cols {
			pos = append(pos, int64(i*cols+j))
		}
	}
	idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(pos)}, DType: tensor.Int64})
	copy(idx.I64(), pos)
	return idx
}
