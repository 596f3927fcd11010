package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Products of many factors: multi_dot in the cheapest order and the
// Vandermonde matrix as a cumulative product, both as torch computes
// them.

func init() {
	register("multi_dot", "multi_dot(tensors): the product of two or more matrices in the order of multiplications that costs least (torch's dynamic programme over the shapes); the first may be a vector (a row) and the last a vector (a column), whose dimensions the result drops; one dtype (torch.linalg.multi_dot)", multiDotBuiltin)
	register("vander", "vander(x, N=none, increasing=false): the Vandermonde matrix [..., n, N] of x[..., n] (N defaults to n): the columns x^(N-1), ..., x, 1, or with increasing=true 1, x, ..., x^(N-1), as a cumulative product; integer and bool x give int64 (torch.vander; torch.linalg.vander(x, N) is vander(x, N, increasing=true))", vanderBuiltin)
}

func multiDotBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var xs []*refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensors", &xs); err != nil {
		return nil, err
	}
	if len(xs) < 2 {
		return nil, fmt.Errorf("%s: expected at least 2 tensors, got %d", b.Name, len(xs))
	}
	return multiDot(th, b.Name, xs)
}

// multiDot is the product of two or more factors xs, multi_dot's for the
// builtin fname.
func multiDot(th *eval.Thread, fname string, xs []*refs.Ref) (eval.Value, error) {
	// Each factor as a matrix: a leading vector is a row, a trailing one a
	// column.
	dims := make([]int, len(xs)+1)
	shapes := make([]tensor.Shape, len(xs))
	for i, x := range xs {
		s := x.Shape()
		switch {
		case x.DType() != xs[0].DType():
			return nil, fmt.Errorf("%s: tensor %d is %v and tensor 0 %v: they must have one dtype", fname, i, x.DType(), xs[0].DType())
		case len(s) == 1 && i == 0:
			s = tensor.Shape{1, s[0]}
		case len(s) == 1 && i == len(xs)-1:
			s = tensor.Shape{s[0], 1}
		case len(s) != 2:
			return nil, fmt.Errorf("%s: tensor %d has shape %v: expected a matrix (the first and last may be vectors)", fname, i, x.Shape())
		}
		if i > 0 && s[0] != dims[i] {
			return nil, fmt.Errorf("%s: tensor %d of shape %v does not follow tensor %d of shape %v (%d != %d)", fname, i, x.Shape(), i-1, xs[i-1].Shape(), s[0], dims[i])
		}
		dims[i], dims[i+1], shapes[i] = s[0], s[1], s
	}
	split := chainOrder(dims)
	c := newChain(th)
	mats := make([]*refs.Ref, len(xs))
	for i, x := range xs {
		mats[i] = c.Reshape(x, shapes[i])
	}
	var product func(i, j int) *refs.Ref
	product = func(i, j int) *refs.Ref {
		if i == j {
			return mats[i]
		}
		k := split[i][j]
		return c.Op(ops.Matmul, nil, product(i, k), product(k+1, j))
	}
	r := product(0, len(xs)-1)
	var out tensor.Shape
	if len(xs[0].Shape()) == 2 {
		out = append(out, dims[0])
	}
	if len(xs[len(xs)-1].Shape()) == 2 {
		out = append(out, dims[len(xs)])
	}
	return c.Result(c.Reshape(r, out))
}

// chainOrder is the matrix-chain order of least multiply-adds for
// matrices i of shape [dims[i], dims[i+1]]: split[i][j] is the k after
// which the product of i..j divides (the first of the cheapest, as
// torch's).
func chainOrder(dims []int) [][]int {
	n := len(dims) - 1
	cost := make([][]int64, n)
	split := make([][]int, n)
	for i := range n {
		cost[i], split[i] = make([]int64, n), make([]int, n)
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			cost[i][j] = -1
			for k := i; k < j; k++ {
				q := cost[i][k] + cost[k+1][j] + int64(dims[i])*int64(dims[k+1])*int64(dims[j+1])
				if cost[i][j] < 0 || q < cost[i][j] {
					cost[i][j], split[i][j] = q, k
				}
			}
		}
	}
	return split
}

func vanderBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	nv := eval.Value(eval.None)
	increasing := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "N?", &nv, "increasing?", &increasing); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: x must have at least one dimension, got a 0-d tensor", b.Name)
	}
	n := s[len(s)-1]
	cols := n
	if _, none := nv.(eval.NoneType); !none {
		v, ok := th.AsInt(nv)
		if !ok || v < 0 {
			return nil, fmt.Errorf("%s: N must be a non-negative int or none, not %s", b.Name, eval.Describe(nv))
		}
		cols = v
	}
	c := newChain(th)
	if !x.DType().IsFloat() {
		x = c.Cast(x, tensor.Int64)
	}
	out := append(s.Clone(), cols)
	if cols == 0 {
		return c.Result(c.Host(tensor.NewDense(tensor.Meta{Shape: out, DType: x.DType()})))
	}
	// [1, x, x, ..., x] (cols columns) multiplied cumulatively.
	col := c.Reshape(x, append(s.Clone(), 1))
	ones := c.Expand(c.scalar(1, x.DType()), append(s.Clone(), 1))
	parts := []*refs.Ref{ones}
	if cols > 1 {
		parts = append(parts, c.Expand(col, append(s.Clone(), cols-1)))
	}
	r := c.Op(ops.Cumprod, ops.ScanAttrs{Dim: len(s)}, c.Op(ops.Cat, ops.CatAttrs{Dim: len(s)}, parts...))
	if !increasing {
		r = c.flipped(r, len(s))
	}
	return c.Result(r)
}
