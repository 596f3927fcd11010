package cpu

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func matrices(dt tensor.DType, shape tensor.Shape, v ...float64) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i, x := range v {
		d.Set(i, x)
	}
	return d
}

func runLinalg(t *testing.T, op ops.Op, ins ...*tensor.Dense) (*tensor.Dense, error) {
	t.Helper()
	metas := make([]tensor.Meta, len(ins))
	for i, in := range ins {
		metas[i] = in.Meta
	}
	m, err := op.Def().Infer(metas, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := tensor.NewDense(m)
	return out, Run(op, out, ins, nil)
}

// TestSolve: a system that needs a row exchange (a zero first pivot),
// two right-hand sides, a batch of two, float32, float64 and bfloat16.
func TestSolve(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32, tensor.BFloat16} {
		// A·X = B with X = [[1, 2], [3, -1], [-2, 0.5]] and the identity.
		a := matrices(dt, tensor.Shape{2, 3, 3},
			0, 2, 1, 1, 1, 1, 4, -1, 2,
			1, 0, 0, 0, 1, 0, 0, 0, 1)
		b := matrices(dt, tensor.Shape{2, 3, 2},
			4, -1.5, 2, 1.5, -3, 10,
			1, 2, 3, -1, -2, 0.5)
		x, err := runLinalg(t, ops.Solve, a, b)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{1, 2, 3, -1, -2, 0.5, 1, 2, 3, -1, -2, 0.5}
		for i, w := range want {
			if g := x.At(i); math.Abs(g-w) > 1e-2*math.Max(1, math.Abs(w)) && (dt != tensor.Float64 || math.Abs(g-w) > 1e-12) {
				t.Errorf("%v: element %d: got %v, want %v", dt, i, g, w)
			}
		}
	}
}

func TestSolveSingular(t *testing.T) {
	a := matrices(tensor.Float32, tensor.Shape{2, 2}, 1, 2, 2, 4)
	b := matrices(tensor.Float32, tensor.Shape{2, 1}, 1, 1)
	if _, err := runLinalg(t, ops.Solve, a, b); err == nil || !strings.Contains(err.Error(), "singular") {
		t.Fatalf("got %v, want a singular matrix's error", err)
	}
}

// TestDet: a permutation's sign, a product of pivots, a singular matrix,
// the empty matrix's 1.
func TestDet(t *testing.T) {
	a := matrices(tensor.Float64, tensor.Shape{3, 3, 3},
		0, 1, 0, 1, 0, 0, 0, 0, 1, // one exchange: -1
		2, 1, 3, 0, -1, 4, 1, 2, 0, // 2(0-8) - 1(0-4) + 3(0+1) = -9
		1, 2, 3, 2, 4, 6, 0, 1, 1) // rows 1 and 2 dependent: 0
	d, err := runLinalg(t, ops.Det, a)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{-1, -9, 0} {
		if g := d.At(i); math.Abs(g-w) > 1e-12 {
			t.Errorf("det %d: got %v, want %v", i, g, w)
		}
	}
	e, err := runLinalg(t, ops.Det, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 0, 0}, DType: tensor.Float32}))
	if err != nil || e.At(0) != 1 || e.At(1) != 1 {
		t.Fatalf("det of empty matrices: %v, %v", e, err)
	}
}

func TestSolveDetShapes(t *testing.T) {
	f := func(s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: tensor.Float32} }
	for _, c := range []struct {
		op  ops.Op
		in  []tensor.Meta
		err string
	}{
		{ops.Det, []tensor.Meta{f(2, 3)}, "square"},
		{ops.Det, []tensor.Meta{f(3)}, "square"},
		{ops.Det, []tensor.Meta{{Shape: tensor.Shape{2, 2}, DType: tensor.Int64}}, "float"},
		{ops.Solve, []tensor.Meta{f(2, 2), f(3, 1)}, "does not go with"},
		{ops.Solve, []tensor.Meta{f(4, 2, 2), f(2, 1)}, "does not go with"},
		{ops.Solve, []tensor.Meta{f(2, 2), {Shape: tensor.Shape{2, 1}, DType: tensor.Float64}}, "one dtype"},
	} {
		if _, err := c.op.Def().Infer(c.in, nil); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s%v: got %v, want an error saying %q", c.op, c.in, err, c.err)
		}
	}
}

// TestLUSolveBlocked: past 2·luBlock rows with many right-hand sides the
// substitutions run by blocks; A·X = B still holds, for a size that is
// not a multiple of the block, and agrees with the row-by-row path (one
// right-hand side at a time).
func TestLUSolveBlocked(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	n, k := 150, 20
	a := randMatrix(r, n, n)
	b := randMatrix(r, n, k)
	lu := append([]float64(nil), a...)
	perm := make([]int, n)
	if _, singular := luFactor(lu, n, perm); singular {
		t.Fatal("singular")
	}
	x := make([]float64, n*k)
	luSolve(lu, n, perm, b, x, k)
	sameValues(t, "A·X vs B", matmulRM(a, x, n, n, k), b)
	for c := range k {
		bc, xc := make([]float64, n), make([]float64, n)
		for i := range n {
			bc[i] = b[i*k+c]
		}
		luSolve(lu, n, perm, bc, xc, 1)
		for i := range n {
			if d := math.Abs(xc[i] - x[i*k+c]); d > 1e-9*(1+math.Abs(xc[i])) {
				t.Fatalf("column %d row %d: blocked %v, one at a time %v", c, i, x[i*k+c], xc[i])
			}
		}
	}
}
