package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("cross", "cross(input, other, dim=none): the cross product of 3-vectors along dim (size 3 in both; the other dimensions broadcast); without dim, input's first dimension of size 3, as torch.cross (torch.linalg.cross's -1: pass dim=-1)", crossBuiltin)
}

func crossBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	var dimArg eval.OptInt
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y, "dim?", &dimArg); err != nil {
		return nil, err
	}
	out, err := tensor.Broadcast(x.Shape(), y.Shape())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	dim, err := crossDim(b.Name, dimArg, x.Shape())
	if err != nil {
		return nil, err
	}
	k, err := tensor.NormDim(dim, len(out))
	if err != nil || len(out) == 0 {
		return nil, fmt.Errorf("%s: dim %d is out of range for the broadcast shape %v", b.Name, dim, out)
	}
	fromEnd := k - len(out) // the same dimension of x and of y, counted from the end
	for _, t := range []struct {
		name string
		s    tensor.Shape
	}{{"input", x.Shape()}, {"other", y.Shape()}} {
		if own := len(t.s) + fromEnd; own < 0 || t.s[own] != 3 {
			return nil, fmt.Errorf("%s: %s of shape %v must have size 3 in dimension %d", b.Name, t.name, t.s, dim)
		}
	}
	c := newChain(th)
	// (x1·y2 - x2·y1, x2·y0 - x0·y2, x0·y1 - x1·y0): x rotated by one
	// times y rotated by two, less x rotated by two times y rotated by one.
	rot := func(t *refs.Ref, first int64) *refs.Ref {
		idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Int64})
		copy(idx.I64(), []int64{first, (first + 1) % 3, (first + 2) % 3})
		return c.Op(ops.IndexSelect, ops.DimAttrs{Dim: len(t.Shape()) + fromEnd}, t, c.Host(idx))
	}
	left := c.Op(ops.Mul, nil, rot(x, 1), rot(y, 2))
	right := c.Op(ops.Mul, nil, rot(x, 2), rot(y, 1))
	return named(b.Name)(c.Result(c.Op(ops.Sub, nil, left, right)))
}

// crossDim is cross's dim: the one given, or input's first dimension of
// size 3 counted from the end (so that it names the same dimension of the
// broadcast shape), as torch.cross.
func crossDim(name string, d eval.OptInt, input tensor.Shape) (int, error) {
	if d.Set {
		return d.V, nil
	}
	for i, n := range input {
		if n == 3 {
			return i - len(input), nil
		}
	}
	return 0, fmt.Errorf("%s: input of shape %v has no dimension of size 3; pass dim", name, input)
}
