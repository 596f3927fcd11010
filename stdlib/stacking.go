package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's hstack, vstack and dstack: cat after raising every tensor to at
// least 1, 2 or 3 dimensions the way torch.atleast_Nd does.
func init() {
	register("hstack", "hstack(tensors): the tensors joined column-wise: cat along dimension 1, or 0 when they are 1-d (0-d tensors count as 1-d), as torch.hstack", stackingBuiltin(1))
	register("vstack", "vstack(tensors): the tensors joined row-wise: cat along dimension 0 after making 0-d and 1-d tensors [1, n], as torch.vstack", stackingBuiltin(2))
	register("dstack", "dstack(tensors): the tensors joined depth-wise: cat along dimension 2 after making 0-d, 1-d [n] and 2-d [m, n] tensors [1, 1, 1], [1, n, 1] and [m, n, 1], as torch.dstack", stackingBuiltin(3))
}

// atLeast is the shape torch.atleast_1d, _2d or _3d gives a tensor of
// shape s.
func atLeast(rank int, s tensor.Shape) tensor.Shape {
	if len(s) >= rank {
		return s
	}
	switch {
	case len(s) == 0:
		out := make(tensor.Shape, rank)
		for i := range out {
			out[i] = 1
		}
		return out
	case rank == 2: // [n] -> [1, n]
		return tensor.Shape{1, s[0]}
	case len(s) == 1: // rank 3: [n] -> [1, n, 1]
		return tensor.Shape{1, s[0], 1}
	}
	return tensor.Shape{s[0], s[1], 1} // rank 3: [m, n] -> [m, n, 1]
}

// joinDim is the dimension hstack (rank 1), vstack (2) or dstack (3)
// joins along, given its first raised tensor.
func joinDim(rank int, first *refs.Ref) int {
	switch {
	case rank == 3:
		return 2
	case rank == 1 && len(first.Shape()) > 1:
		return 1
	}
	return 0
}

// stackingBuiltin is hstack (rank 1), vstack (2) or dstack (3).
func stackingBuiltin(rank int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var xs []*refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensors", &xs); err != nil {
			return nil, err
		}
		if len(xs) == 0 {
			return nil, fmt.Errorf("%s: expects a non-empty list of tensors", b.Name)
		}
		c := newChain(th)
		raised := make([]*refs.Ref, len(xs))
		for i, x := range xs {
			raised[i] = c.Reshape(x, atLeast(rank, x.Shape()))
		}
		if c.Err() != nil {
			return c.Result(nil)
		}
		dim := joinDim(rank, raised[0])
		if dim > 0 {
			for i, r := range raised {
				if len(r.Shape()) <= dim {
					return c.Abort(fmt.Errorf("%s: tensor %d has shape %v; joining along dimension %d needs the tensors to have at least %d dimensions", b.Name, i, xs[i].Shape(), dim, dim+1))
				}
			}
		}
		return named(b.Name)(c.Result(c.Op(ops.Cat, ops.CatAttrs{Dim: dim}, raised...)))
	}
}
