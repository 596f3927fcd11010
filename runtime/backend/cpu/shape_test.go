package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// execShapeOp infers op's result, runs its cpu kernel and returns the result.
func execShapeOp(t *testing.T, op string, attrs any, ins ...*tensor.Dense) *tensor.Dense {
	t.Helper()
	metas := make([]tensor.Meta, len(ins))
	for i, in := range ins {
		metas[i] = in.Meta
	}
	m, err := ops.MustLookup(op).Def().Infer(metas, attrs)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	out := tensor.NewDense(m)
	for i := range out.Buf {
		out.Buf[i] = 0xA5 // poison: the kernel must write every element
	}
	if err := runName(op, out, ins, attrs); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return out
}

// iotaDense fills a tensor of the given meta with distinct values 1, 2, ...
// (wrapping for narrow types).
func iotaDense(dt tensor.DType, shape ...int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i := range d.Numel() {
		switch dt {
		case tensor.Bool:
			d.Set(i, float64(i%2))
		case tensor.Uint8:
			d.Set(i, float64(i%251))
		case tensor.Float16, tensor.BFloat16:
			d.Set(i, float64(i%200))
		default:
			d.Set(i, float64(i+1))
		}
	}
	return d
}

// unravel is the row-major multi-index of linear index i.
func unravel(i int, s tensor.Shape) []int {
	idx := make([]int, len(s))
	for k := len(s) - 1; k >= 0; k-- {
		idx[k] = i % s[k]
		i /= s[k]
	}
	return idx
}

func ravel(idx []int, s tensor.Shape) int {
	i := 0
	for k, n := range s {
		i = i*n + idx[k]
	}
	return i
}

func sameDense(t *testing.T, what string, got, want *tensor.Dense) {
	t.Helper()
	if got.DType != want.DType || !got.Shape.Equal(want.Shape) {
		t.Fatalf("%s: got %v, want %v", what, got.Meta, want.Meta)
	}
	for i := range want.Numel() {
		if g, w := got.At(i), want.At(i); g != w {
			t.Fatalf("%s: element %d (%v) is %v, want %v", what, i, unravel(i, want.Shape), g, w)
		}
	}
}

var shapeDTypes = []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Uint8, tensor.Bool, tensor.Float16}

func randShape(r *rand.Rand, rank, maxDim int) tensor.Shape {
	s := make(tensor.Shape, rank)
	for k := range s {
		s[k] = 1 + r.IntN(maxDim)
	}
	return s
}

func TestPermuteMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s := randShape(r, r.IntN(5), 5)
		x := iotaDense(dt, s...)
		perm := r.Perm(len(s))
		got := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: perm}, x)
		want := tensor.NewDense(got.Meta)
		for i := range want.Numel() {
			oi := unravel(i, got.Shape)
			ii := make([]int, len(s))
			for k, d := range perm {
				ii[d] = oi[k]
			}
			want.Set(i, x.At(ravel(ii, s)))
		}
		sameDense(t, "permute", got, want)
	}
}

func TestTransposeLarge(t *testing.T) {
	// Big enough for the tiled path and for more than one worker.
	for _, s := range []tensor.Shape{{300, 517}, {3, 67, 129}, {2, 40, 3, 33}} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Uint8, tensor.Float16} {
			x := iotaDense(dt, s...)
			n := len(s)
			perm := make([]int, n)
			for k := range perm {
				perm[k] = k
			}
			perm[n-1], perm[n-2] = n-2, n-1
			got := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: perm}, x)
			back := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: perm}, got)
			sameDense(t, "transpose twice", back, x)
			for i := 0; i < got.Numel(); i += 97 {
				oi := unravel(i, got.Shape)
				oi[n-1], oi[n-2] = oi[n-2], oi[n-1]
				if got.At(i) != x.At(ravel(oi, s)) {
					t.Fatalf("%v %v: transposed element %d wrong", s, dt, i)
				}
			}
		}
	}
}

func TestPermuteInverseProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		s := randShape(r, 1+r.IntN(4), 6)
		x := iotaDense(tensor.Float32, s...)
		perm := r.Perm(len(s))
		inv := make([]int, len(perm))
		for i, p := range perm {
			inv[p] = i
		}
		y := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: perm}, x)
		sameDense(t, "permute inverse", execShapeOp(t, "permute", ops.PermuteAttrs{Dims: inv}, y), x)
	}
}

func TestReshapeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		s := randShape(r, 1+r.IntN(4), 5)
		x := iotaDense(tensor.Int64, s...)
		flat := execShapeOp(t, "reshape", ops.ReshapeAttrs{Shape: tensor.Shape{-1}}, x)
		if !flat.Shape.Equal(tensor.Shape{s.Numel()}) {
			t.Fatalf("reshape %v to [-1] gave %v", s, flat.Shape)
		}
		sameDense(t, "reshape round trip", execShapeOp(t, "reshape", ops.ReshapeAttrs{Shape: s}, flat), x)
	}
}

func TestExpandMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 100 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		to := randShape(r, 1+r.IntN(4), 4)
		from := to[r.IntN(len(to)):].Clone()
		for k := range from {
			if r.IntN(2) == 0 {
				from[k] = 1
			}
		}
		x := iotaDense(dt, from...)
		got := execShapeOp(t, "expand", ops.ExpandAttrs{Shape: to}, x)
		want := tensor.NewDense(got.Meta)
		lead := len(to) - len(from)
		for i := range want.Numel() {
			oi := unravel(i, to)
			ii := make([]int, len(from))
			for k := range from {
				if from[k] != 1 {
					ii[k] = oi[k+lead]
				}
			}
			want.Set(i, x.At(ravel(ii, from)))
		}
		sameDense(t, "expand", got, want)
	}
}

func TestCatStack(t *testing.T) {
	a := iotaDense(tensor.Float32, 2, 3)
	b := iotaDense(tensor.Float32, 2, 1)
	got := execShapeOp(t, "cat", ops.CatAttrs{Dim: 1}, a, b)
	want := []float32{1, 2, 3, 1, 4, 5, 6, 2}
	for i, w := range want {
		if got.F32()[i] != w {
			t.Fatalf("cat dim 1: %v, want %v", got.F32(), want)
		}
	}
	// Promotion: int64 joins float32 as float32; 1-d empty tensors are skipped.
	c := iotaDense(tensor.Int64, 1, 3)
	got = execShapeOp(t, "cat", ops.CatAttrs{Dim: 0}, a, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{0}, DType: tensor.Float32}), c)
	want = []float32{1, 2, 3, 4, 5, 6, 1, 2, 3}
	if got.DType != tensor.Float32 || !got.Shape.Equal(tensor.Shape{3, 3}) {
		t.Fatalf("cat with promotion gave %v", got.Meta)
	}
	for i, w := range want {
		if got.F32()[i] != w {
			t.Fatalf("cat dim 0: %v, want %v", got.F32(), want)
		}
	}
	got = execShapeOp(t, "stack", ops.CatAttrs{Dim: 1}, a, a)
	want = []float32{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}
	if !got.Shape.Equal(tensor.Shape{2, 2, 3}) {
		t.Fatalf("stack dim 1 gave %v", got.Shape)
	}
	for i, w := range want {
		if got.F32()[i] != w {
			t.Fatalf("stack dim 1: %v, want %v", got.F32(), want)
		}
	}
}

// TestStackIsCatOfUnsqueeze checks stack(xs, d) == cat([unsqueeze(x, d)], d).
func TestStackIsCatOfUnsqueeze(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 60 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s := randShape(r, r.IntN(4), 4)
		n := 1 + r.IntN(4)
		dim := r.IntN(len(s) + 1)
		xs := make([]*tensor.Dense, n)
		us := make([]*tensor.Dense, n)
		for i := range xs {
			xs[i] = iotaDense(dt, s...)
			for j := range xs[i].Numel() {
				xs[i].Set(j, float64((j*7+i*3)%50))
			}
			u := append(s[:dim:dim], append(tensor.Shape{1}, s[dim:]...)...)
			us[i] = execShapeOp(t, "reshape", ops.ReshapeAttrs{Shape: u}, xs[i])
		}
		sameDense(t, "stack vs cat of unsqueeze",
			execShapeOp(t, "stack", ops.CatAttrs{Dim: dim}, xs...),
			execShapeOp(t, "cat", ops.CatAttrs{Dim: dim}, us...))
	}
}

// TestCatSplitRoundTrip cuts a tensor into pieces with index slices (as
// split does) and joins them back with cat.
func TestCatSplitRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 60 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s := randShape(r, 1+r.IntN(3), 6)
		dim := r.IntN(len(s))
		x := iotaDense(dt, s...)
		var pieces []*tensor.Dense
		for start := 0; start < s[dim]; {
			size := 1 + r.IntN(s[dim])
			items := make([]ops.IndexItem, dim+1)
			for k := range dim {
				items[k] = ops.IndexItem{Kind: ops.IndexSlice, Step: 1}
			}
			items[dim] = ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: start + size, Step: 1, HasStart: true, HasStop: true}
			pieces = append(pieces, execShapeOp(t, "index", ops.IndexAttrs{Items: items}, x))
			start += size
		}
		sameDense(t, "cat of split", execShapeOp(t, "cat", ops.CatAttrs{Dim: dim}, pieces...), x)
	}
}
