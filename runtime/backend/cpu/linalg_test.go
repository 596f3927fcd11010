package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// randDense fills a tensor with normal values (float dtypes) or small
// integers, converted by Set.
func randDense(r *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i := range d.Numel() {
		if dt.IsFloat() {
			d.Set(i, r.NormFloat64())
		} else {
			d.Set(i, float64(r.IntN(19)-9))
		}
	}
	return d
}

// naiveMatmul is torch.matmul written out over ops.Matmul's layout, in
// float64, indexing the operands element by element.
func naiveMatmul(a, b *tensor.Dense) []float64 {
	d, err := ops.MatmulLayout(a.Shape, b.Shape)
	if err != nil {
		panic(err)
	}
	nb := d.BatchCount()
	out := make([]float64, nb*d.M*d.N)
	idx := make([]int, len(d.Batch))
	for t := range nb {
		aOff, bOff := 0, 0
		as, bs := d.ABatch.Strides(), d.BBatch.Strides()
		for i, x := range idx {
			aOff += min(x, d.ABatch[i]-1) * as[i]
			bOff += min(x, d.BBatch[i]-1) * bs[i]
		}
		aOff *= d.M * d.K
		bOff *= d.K * d.N
		for i := range d.M {
			for j := range d.N {
				var s float64
				for p := range d.K {
					s += a.At(aOff+i*d.K+p) * b.At(bOff+p*d.N+j)
				}
				out[(t*d.M+i)*d.N+j] = s
			}
		}
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < d.Batch[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// assertClose compares a kernel's result with a float64 reference.
func assertClose(t *testing.T, what string, got *tensor.Dense, want []float64, rtol, atol float64) {
	t.Helper()
	if got.Numel() != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, got.Numel(), len(want))
	}
	for i, w := range want {
		g := got.At(i)
		if math.Abs(g-w) > atol+rtol*math.Abs(w) || math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g, w)
		}
	}
}

func TestMatmulBatchPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name string
		a, b []int
	}{
		{"many-small", []int{40, 5, 7}, []int{40, 7, 9}},         // tiny products, no packing
		{"tiny-broadcast", []int{5, 1, 3, 4}, []int{1, 6, 4, 2}}, // tiny, both operands repeat
		{"many-medium", []int{30, 9, 17}, []int{30, 17, 20}},     // products split over goroutines
		{"few-large", []int{2, 130, 70}, []int{2, 70, 150}},      // each product parallel
		{"broadcast", []int{3, 1, 17, 33}, []int{1, 4, 33, 20}},  // both operands repeat
		{"shared-a", []int{65, 129}, []int{3, 129, 18}},          // A reused across the batch
		{"folded", []int{4, 50, 129}, []int{129, 70}},            // B shared: one product
		{"vector-batch", []int{129}, []int{6, 129, 40}},          // 1-d on the left
		{"batch-vector", []int{6, 40, 129}, []int{129}},          // 1-d on the right
		{"empty-k", []int{3, 4, 0}, []int{3, 0, 5}},              // zero-filled result
		{"empty-batch", []int{0, 4, 3}, []int{3, 5}},             // nothing to do
		{"dot-long", []int{1000}, []int{1000}},                   // 0-d result
		{"tall-skinny", []int{1000, 3}, []int{3, 1000}},          // k smaller than a step
		{"row-times-wide", []int{1, 300}, []int{300, 5000}},      // one row, split columns
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64} {
			a, b := randDense(r, dt, tc.a...), randDense(r, dt, tc.b...)
			got := execShapeOp(t, "matmul", nil, a, b)
			tol := 0.0
			if dt == tensor.Float32 {
				tol = 1e-4
			} else if dt == tensor.Float64 {
				tol = 1e-12
			}
			assertClose(t, tc.name+"/"+dt.String(), got, naiveMatmul(a, b), tol, tol)
		}
	}
}

func TestMatmulConvertedDTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	// float16 and bfloat16 compute in float32; uint8 wraps like torch's.
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		a, b := randDense(r, dt, 7, 9), randDense(r, dt, 9, 5)
		got := execShapeOp(t, "matmul", nil, a, b)
		if got.DType != dt {
			t.Fatalf("%s matmul gave %s", dt, got.DType)
		}
		assertClose(t, dt.String(), got, naiveMatmul(a, b), 1e-2, 1e-2)
	}
	a := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1, 2}, DType: tensor.Uint8})
	b := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 1}, DType: tensor.Uint8})
	copy(a.U8(), []uint8{200, 100})
	copy(b.U8(), []uint8{2, 3})
	if got := execShapeOp(t, "matmul", nil, a, b); got.U8()[0] != uint8((200*2+100*3)%256) {
		t.Fatalf("uint8 matmul = %d, want %d", got.U8()[0], (200*2+100*3)%256)
	}
	// int64 @ float32 promotes to float32.
	ai, bf := randDense(r, tensor.Int64, 3, 4), randDense(r, tensor.Float32, 4, 2)
	got := execShapeOp(t, "matmul", nil, ai, bf)
	if got.DType != tensor.Float32 {
		t.Fatalf("int64 @ float32 gave %s", got.DType)
	}
	assertClose(t, "mixed", got, naiveMatmul(ai, bf), 1e-5, 1e-5)
}

func TestLinearMatchesMatmulWithTransposedWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		x, w, b []int
	}{
		{[]int{200, 300}, []int{150, 300}, []int{150}},
		{[]int{2, 33, 65}, []int{17, 65}, []int{33, 17}},
		{[]int{9, 65}, []int{65}, nil},
		{[]int{5, 0}, []int{3, 0}, []int{3}},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64} {
			x, w := randDense(r, dt, tc.x...), randDense(r, dt, tc.w...)
			ins := []*tensor.Dense{x, w}
			var bias *tensor.Dense
			if tc.b != nil {
				bias = randDense(r, dt, tc.b...)
				ins = append(ins, bias)
			}
			got := execShapeOp(t, "linear", nil, ins...)
			// Reference: x @ wᵀ through the naive matmul, plus the bias.
			wt := w
			if len(tc.w) == 2 {
				wt = transposed(w)
			}
			want := naiveMatmul(x, wt)
			if bias != nil {
				for i := range want {
					want[i] += bias.At(i % bias.Numel())
				}
			}
			tol := map[tensor.DType]float64{tensor.Float32: 1e-4, tensor.Float64: 1e-12}[dt]
			assertClose(t, "linear "+dt.String(), got, want, tol, tol)
		}
	}
}

// transposed is the matrix dᵀ, materialised.
func transposed(d *tensor.Dense) *tensor.Dense {
	rows, cols := d.Shape[0], d.Shape[1]
	t := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{cols, rows}, DType: d.DType})
	for i := range rows {
		for j := range cols {
			t.Set(j*rows+i, d.At(i*cols+j))
		}
	}
	return t
}

// TestMatmulTNIsMatmulOfTheTranspose: matmul_tn(a, b) equals matmul(aᵀ, b)
// bit for bit (the packed panels hold the same values, so gradients do not
// change when a rule stops materialising the transpose), on every path of
// the GEMM: one tile, edges, several k blocks, split columns.
func TestMatmulTNIsMatmulOfTheTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, s := range [][3]int{{64, 128, 784}, {128, 784, 64}, {10, 128, 64}, {1, 1, 1}, {7, 5, 300}, {300, 1, 3}, {0, 4, 3}, {3, 4, 0}} {
		k, m, n := s[0], s[1], s[2]
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64} {
			a, b := randDense(r, dt, k, m), randDense(r, dt, k, n)
			got := execShapeOp(t, "matmul_tn", nil, a, b)
			want := execShapeOp(t, "matmul", nil, transposed(a), b)
			if !got.Shape.Equal(tensor.Shape{m, n}) || got.DType != dt {
				t.Fatalf("%v %s: matmul_tn gave %v", s, dt, got.Meta)
			}
			for i := range want.Numel() {
				if got.At(i) != want.At(i) {
					t.Fatalf("%v %s: element %d = %v, matmul of the transpose %v", s, dt, i, got.At(i), want.At(i))
				}
			}
		}
	}
}

func TestOuterDTypes(t *testing.T) {
	a := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Bool})
	b := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Bool})
	copy(a.U8(), []uint8{1, 0})
	copy(b.U8(), []uint8{1, 1, 0})
	got := execShapeOp(t, "outer", nil, a, b)
	if got.DType != tensor.Bool || string(got.U8()) != string([]uint8{1, 1, 0, 0, 0, 0}) {
		t.Fatalf("bool outer = %v %v", got.DType, got.U8())
	}
}

func BenchmarkMatmulBatched(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := randDense(r, tensor.Float32, 64, 64, 64), randDense(r, tensor.Float32, 64, 64, 64)
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{64, 64, 64}, DType: tensor.Float32})
	for b.Loop() {
		if err := Run(ops.Matmul, out, []*tensor.Dense{x, y}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*64*64*64*64*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMatmulTiny is a batch of 10000 4×4 products: no packing.
func BenchmarkMatmulTiny(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := randDense(r, tensor.Float32, 10000, 4, 4), randDense(r, tensor.Float32, 10000, 4, 4)
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{10000, 4, 4}, DType: tensor.Float32})
	for b.Loop() {
		if err := Run(ops.Matmul, out, []*tensor.Dense{x, y}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
