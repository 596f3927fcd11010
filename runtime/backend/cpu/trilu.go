package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The kernel of trilu (runtime/ops/trilu.go): each row of each matrix is
// a copied run and a zeroed run, moved as bytes.

func init() {
	Register(ops.Trilu, triluKernel)
}

func triluKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("trilu", ins, 1); err != nil {
		return err
	}
	a, err := ops.AttrsAs[ops.TriluAttrs]("trilu", attrs)
	if err != nil {
		return err
	}
	x := ins[0]
	r := len(x.Shape)
	m, n := x.Shape[r-2], x.Shape[r-1]
	esz := x.DType.Size()
	rows := x.Shape[:r-1].Numel()
	if rows*n == 0 {
		return nil
	}
	return parallelFor(rows, func(lo, hi int) error {
		for row := lo; row < hi; row++ {
			i := row % m
			// tril keeps columns j <= i + d; triu keeps j >= i + d.
			cut := min(max(i+a.Diagonal+1, 0), n)
			if a.Upper {
				cut = min(max(i+a.Diagonal, 0), n)
			}
			o := out.Buf[row*n*esz : (row+1)*n*esz]
			src := x.Buf[row*n*esz : (row+1)*n*esz]
			keepLo, keepHi := 0, cut // tril: [0, cut)
			if a.Upper {
				keepLo, keepHi = cut, n
			}
			if &o[0] != &src[0] {
				copy(o[keepLo*esz:keepHi*esz], src[keepLo*esz:keepHi*esz])
			}
			clear(o[:keepLo*esz])
			clear(o[keepHi*esz:])
		}
		return nil
	})
}
