package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("det", "det(A): the determinant of each square matrix A[..., n, n], of shape [...]; its gradient (det(A) times A⁻ᵀ) is an error at a singular A, where torch's is defined (torch.det, torch.linalg.det)", detBuiltin)
	register("inverse", "inverse(A): the inverse of each square matrix A[..., n, n]; a singular one is an error (torch.inverse, torch.linalg.inv)", inverseBuiltin)
	register("solve", "solve(A, B): X with A @ X = B, for square A[..., n, n] and B[..., n, k] or B[..., n] (a vector per matrix); batch dimensions broadcast; a singular A is an error (torch.linalg.solve)", solveBuiltin)
}

func detBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Det, nil, a)))
}

func inverseBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	n, err := ops.SquareBatch(b.Name, a.Meta())
	if err != nil {
		return nil, err
	}
	eye, err := identity(th, b.Name, n, n, a.Meta().DType)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Solve, nil, a, c.Expand(c.Host(eye), a.Shape()))))
}

func solveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs); err != nil {
		return nil, err
	}
	n, err := ops.SquareBatch(b.Name, a.Meta())
	if err != nil {
		return nil, err
	}
	if rhs.Meta().DType != a.Meta().DType {
		return nil, fmt.Errorf("%s: A is %v and B %v: they must have one dtype (use astype)", b.Name, a.Meta().DType, rhs.Meta().DType)
	}
	as, bs := a.Shape(), rhs.Shape()
	// B is a vector per matrix, as torch reads it: 1-d, or A's shape
	// without its last dimension.
	vector := len(bs) == 1 || (len(bs) == len(as)-1 && bs.Equal(as[:len(as)-1]))
	if len(bs) == 0 || (!vector && (len(bs) < 2 || bs[len(bs)-2] != n)) || (vector && bs[len(bs)-1] != n) {
		return nil, fmt.Errorf("%s: B of shape %v does not go with A of shape %v: want B[..., %d, k] or B[..., %d]", b.Name, bs, as, n, n)
	}
	c := newChain(th)
	if vector {
		rhs = c.Reshape(rhs, append(bs.Clone(), 1))
		bs = append(bs.Clone(), 1)
	}
	batch, err := tensor.Broadcast(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return c.Abort(fmt.Errorf("%s: the batch dimensions of A %v and B %v do not broadcast: %v", b.Name, as, bs, err))
	}
	k := bs[len(bs)-1]
	if wantA := append(batch.Clone(), n, n); !as.Equal(wantA) {
		a = c.Expand(a, wantA)
	}
	if wantB := append(batch.Clone(), n, k); !bs.Equal(wantB) {
		rhs = c.Expand(rhs, wantB)
	}
	x := c.Op(ops.Solve, nil, a, rhs)
	if vector {
		x = c.Reshape(x, append(batch.Clone(), n))
	}
	return named(b.Name)(c.Result(x))
}
