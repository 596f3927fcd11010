package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func randFloats(r *rand.Rand, dt tensor.DType, scale float64, shape ...int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i := range d.Numel() {
		d.Set(i, (r.Float64()*2-1)*scale)
	}
	return d
}

func denseOf(dt tensor.DType, shape tensor.Shape, vals ...float64) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i, v := range vals {
		d.Set(i, v)
	}
	return d
}

// closeTo compares got with float64 reference values within rel (NaN
// matches NaN).
func closeTo(t *testing.T, what string, got *tensor.Dense, want []float64, rel float64) {
	t.Helper()
	if got.Numel() != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, got.Numel(), len(want))
	}
	for i, w := range want {
		g := got.At(i)
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if math.Abs(g-w) > rel*math.Max(1, math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: element %d is %v, want %v", what, i, g, w)
		}
	}
}

// refSoftmax is a direct float64 softmax over dim of x, one line at a time.
func refSoftmax(x *tensor.Dense, dim int, log bool) []float64 {
	s := x.Shape
	out := make([]float64, x.Numel())
	for i := range out {
		idx := unravel(i, s)
		if idx[dim] != 0 {
			continue // each line is computed from its first element
		}
		line := make([]int, s[dim])
		m := math.Inf(-1)
		for k := range line {
			idx[dim] = k
			line[k] = ravel(idx, s)
			m = math.Max(m, x.At(line[k]))
		}
		sum := 0.0
		for _, j := range line {
			sum += math.Exp(x.At(j) - m)
		}
		for _, j := range line {
			if log {
				out[j] = x.At(j) - m - math.Log(sum)
			} else {
				out[j] = math.Exp(x.At(j)-m) / sum
			}
		}
	}
	return out
}

func TestSoftmaxMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	shapes := []tensor.Shape{{7}, {3, 5}, {4, 3, 6}, {2, 3, 4, 5}, {40, 2000}}
	for _, s := range shapes {
		for dim := range s {
			for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
				x := randFloats(r, dt, 10, s...)
				for _, log := range []bool{false, true} {
					op := "softmax"
					if log {
						op = "log_softmax"
					}
					got := execShapeOp(t, op, ops.SoftmaxAttrs{Dim: dim - len(s)}, x)
					if got.DType != dt {
						t.Fatalf("%s of %v gave %v", op, dt, got.DType)
					}
					rel := 1e-6
					if dt == tensor.Float64 {
						rel = 1e-12
					}
					closeTo(t, op+s.String(), got, refSoftmax(x, dim, log), rel)
				}
			}
		}
	}
}

func TestSoftmaxEdgeCases(t *testing.T) {
	// Large logits stay finite (stability); a NaN poisons its row only;
	// an all -inf row is NaN, as in PyTorch.
	x := denseOf(tensor.Float32, tensor.Shape{3, 3},
		1000, 1001, 1002,
		1, math.NaN(), 2,
		math.Inf(-1), math.Inf(-1), math.Inf(-1))
	got := execShapeOp(t, "softmax", ops.SoftmaxAttrs{Dim: 1}, x)
	e := []float64{math.Exp(-2), math.Exp(-1), 1}
	sum := e[0] + e[1] + e[2]
	nan := math.NaN()
	closeTo(t, "softmax edge", got, []float64{e[0] / sum, e[1] / sum, e[2] / sum, nan, nan, nan, nan, nan, nan}, 1e-6)
	got = execShapeOp(t, "log_softmax", ops.SoftmaxAttrs{Dim: 1}, x)
	lse := math.Log(sum)
	closeTo(t, "log_softmax edge", got, []float64{-2 - lse, -1 - lse, -lse, nan, nan, nan, nan, nan, nan}, 1e-6)
	// The same rows as columns take the strided path.
	xt := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: []int{1, 0}}, x)
	for _, op := range []string{"softmax", "log_softmax"} {
		rows := execShapeOp(t, op, ops.SoftmaxAttrs{Dim: 1}, x)
		cols := execShapeOp(t, op, ops.SoftmaxAttrs{Dim: 0}, xt)
		back := execShapeOp(t, "permute", ops.PermuteAttrs{Dims: []int{1, 0}}, cols)
		want := make([]float64, 9)
		for i := range want {
			want[i] = rows.At(i)
		}
		closeTo(t, op+" edge strided", back, want, 1e-6)
	}
	// Integers compute as float32; a 0-d tensor's softmax is 1.
	got = execShapeOp(t, "softmax", ops.SoftmaxAttrs{Dim: 0}, denseOf(tensor.Int64, tensor.Shape{2}, 0, 0))
	if got.DType != tensor.Float32 {
		t.Fatalf("softmax of int64 gave %v", got.DType)
	}
	closeTo(t, "softmax int", got, []float64{0.5, 0.5}, 1e-7)
	closeTo(t, "softmax 0-d", execShapeOp(t, "softmax", ops.SoftmaxAttrs{Dim: -1}, denseOf(tensor.Float32, tensor.Shape{}, 3)), []float64{1}, 0)
	// float16 goes through float32 and comes back as float16.
	h := execShapeOp(t, "softmax", ops.SoftmaxAttrs{Dim: 0}, denseOf(tensor.Float16, tensor.Shape{2}, 1, 1))
	if h.DType != tensor.Float16 {
		t.Fatalf("softmax of float16 gave %v", h.DType)
	}
	closeTo(t, "softmax f16", h, []float64{0.5, 0.5}, 0)
}

func refNorm(x *tensor.Dense, w, b []float64, eps float64, rms bool) []float64 {
	d := x.Shape[len(x.Shape)-1]
	out := make([]float64, x.Numel())
	for r := 0; r < x.Numel()/d; r++ {
		mean, sq := 0.0, 0.0
		for i := range d {
			mean += x.At(r*d + i)
		}
		mean /= float64(d)
		if rms {
			mean = 0
		}
		for i := range d {
			v := x.At(r*d+i) - mean
			sq += v * v
		}
		s := 1 / math.Sqrt(sq/float64(d)+eps)
		for i := range d {
			z := (x.At(r*d+i) - mean) * s
			if w != nil {
				z *= w[i]
			}
			if b != nil {
				z += b[i]
			}
			out[r*d+i] = z
		}
	}
	return out
}

func TestNormsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, s := range []tensor.Shape{{5}, {3, 8}, {2, 3, 16}, {600, 128}} {
		d := s[len(s)-1]
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x := randFloats(r, dt, 3, s...)
			for i := range x.Numel() {
				x.Set(i, x.At(i)+5) // an offset mean tests the centring
			}
			w, b := randFloats(r, dt, 1, d), randFloats(r, dt, 1, d)
			wv, bv := nnWeights(w), nnWeights(b)
			rel := 1e-5
			if dt == tensor.Float64 {
				rel = 1e-12
			}
			got := execShapeOp(t, "layer_norm", ops.NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, x, w, b)
			closeTo(t, "layer_norm"+s.String(), got, refNorm(x, wv, bv, 1e-5, false), rel)
			got = execShapeOp(t, "layer_norm", ops.NormAttrs{Eps: 1e-5, HasBias: true}, x, b)
			closeTo(t, "layer_norm bias only", got, refNorm(x, nil, bv, 1e-5, false), rel)
			got = execShapeOp(t, "layer_norm", ops.NormAttrs{Eps: 1e-5}, x)
			closeTo(t, "layer_norm plain", got, refNorm(x, nil, nil, 1e-5, false), rel)
			got = execShapeOp(t, "rms_norm", ops.NormAttrs{Eps: 1e-6, HasWeight: true}, x, w)
			closeTo(t, "rms_norm"+s.String(), got, refNorm(x, wv, nil, 1e-6, true), rel)
			got = execShapeOp(t, "rms_norm", ops.NormAttrs{Eps: 1e-6}, x)
			closeTo(t, "rms_norm plain", got, refNorm(x, nil, nil, 1e-6, true), rel)
		}
	}
	// A constant row normalises to zero (eps keeps it finite).
	got := execShapeOp(t, "layer_norm", ops.NormAttrs{Eps: 1e-5}, denseOf(tensor.Float32, tensor.Shape{3}, 2, 2, 2))
	closeTo(t, "layer_norm constant", got, []float64{0, 0, 0}, 0)
}

func TestEmbedding(t *testing.T) {
	table := iotaDense(tensor.Float32, 4, 3)
	ids := denseOf(tensor.Int64, tensor.Shape{2, 2}, 3, 0, 1, 3)
	got := execShapeOp(t, "embedding", nil, ids, table)
	if !got.Shape.Equal(tensor.Shape{2, 2, 3}) {
		t.Fatalf("embedding shape %v", got.Shape)
	}
	closeTo(t, "embedding", got, []float64{10, 11, 12, 1, 2, 3, 4, 5, 6, 10, 11, 12}, 0)

	for _, bad := range []float64{4, -1} {
		ids := denseOf(tensor.Int64, tensor.Shape{2, 2}, 0, 1, bad, 2)
		out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 2, 3}, DType: tensor.Float32})
		err := Run(ops.Embedding, out, []*tensor.Dense{ids, table}, nil)
		want := fmt.Sprintf("id %d at position [1, 0] of the ids is out of range for a table of 4 rows", int(bad))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("embedding with id %v: error %v, want %q", bad, err, want)
		}
	}
}

func TestDropoutKernel(t *testing.T) {
	x := denseOf(tensor.Float32, tensor.Shape{4}, 1, 2, math.Inf(1), 4)
	mask := denseOf(tensor.Bool, tensor.Shape{4}, 1, 0, 0, 1)
	got := execShapeOp(t, "dropout", ops.DropoutAttrs{P: 0.75}, x, mask)
	closeTo(t, "dropout", got, []float64{4, 0, math.NaN(), 16}, 0)
	got = execShapeOp(t, "dropout", ops.DropoutAttrs{P: 1}, x, mask)
	closeTo(t, "dropout p=1", got, []float64{0, 0, math.NaN(), 0}, 0)
	got = execShapeOp(t, "dropout", ops.DropoutAttrs{P: 0.5}, denseOf(tensor.Int64, tensor.Shape{2}, 3, 3), denseOf(tensor.Bool, tensor.Shape{2}, 1, 0))
	if got.DType != tensor.Float32 {
		t.Fatalf("dropout of int64 gave %v", got.DType)
	}
	closeTo(t, "dropout int", got, []float64{6, 0}, 0)
}

func TestCrossEntropy(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	logits := randFloats(r, tensor.Float32, 4, 5, 7)
	targets := denseOf(tensor.Int64, tensor.Shape{5}, 0, 6, 3, -100, 2)
	want, n := 0.0, 0
	lsm := refSoftmax(logits, 1, true)
	for i := range 5 {
		tg := int(targets.At(i))
		if tg == -100 {
			continue
		}
		want -= lsm[i*7+tg]
		n++
	}
	got := execShapeOp(t, "cross_entropy", ops.CrossEntropyAttrs{IgnoreIndex: -100}, logits, targets)
	closeTo(t, "cross_entropy", got, []float64{want / float64(n)}, 1e-6)

	// [N, C, d] logits with [N, d] targets: the class dimension is 1.
	l3 := randFloats(r, tensor.Float64, 3, 2, 4, 3)
	t3 := denseOf(tensor.Int64, tensor.Shape{2, 3}, 0, 1, 2, 3, 3, 0)
	lsm = refSoftmax(l3, 1, true)
	want = 0
	for o := range 2 {
		for j := range 3 {
			want -= lsm[o*12+int(t3.At(o*3+j))*3+j]
		}
	}
	closeTo(t, "cross_entropy 3-d", execShapeOp(t, "cross_entropy", ops.CrossEntropyAttrs{IgnoreIndex: -100}, l3, t3), []float64{want / 6}, 1e-12)

	// Every target ignored: NaN, as in PyTorch.
	all := denseOf(tensor.Int64, tensor.Shape{5}, -100, -100, -100, -100, -100)
	closeTo(t, "all ignored", execShapeOp(t, "cross_entropy", ops.CrossEntropyAttrs{IgnoreIndex: -100}, logits, all), []float64{math.NaN()}, 0)

	bad := denseOf(tensor.Int64, tensor.Shape{5}, 0, 7, 0, 0, 0)
	err := Run(ops.CrossEntropy, tensor.NewDense(tensor.Meta{DType: tensor.Float32}), []*tensor.Dense{logits, bad}, ops.CrossEntropyAttrs{IgnoreIndex: -100})
	if err == nil || !strings.Contains(err.Error(), "target 7 at position [1] is out of range for 7 classes") {
		t.Fatalf("bad target: %v", err)
	}
}

func TestMSE(t *testing.T) {
	a := denseOf(tensor.Float32, tensor.Shape{2, 2}, 1, 2, 3, 4)
	b := denseOf(tensor.Float32, tensor.Shape{2}, 1, 1)
	closeTo(t, "mse broadcast", execShapeOp(t, "mse", nil, a, b), []float64{(0 + 1 + 4 + 9) / 4.0}, 1e-7)
	got := execShapeOp(t, "mse", nil, denseOf(tensor.Int64, tensor.Shape{2}, 1, 3), denseOf(tensor.Int64, tensor.Shape{2}, 0, 0))
	if got.DType != tensor.Float32 {
		t.Fatalf("mse of int64 gave %v", got.DType)
	}
	closeTo(t, "mse int", got, []float64{5}, 0)
}

func benchNN(b *testing.B, op string, attrs any, ins ...*tensor.Dense) {
	metas := make([]tensor.Meta, len(ins))
	for i, in := range ins {
		metas[i] = in.Meta
	}
	m, err := ops.MustLookup(op).Def().Infer(metas, attrs)
	if err != nil {
		b.Fatal(err)
	}
	out := tensor.NewDense(m)
	b.SetBytes(int64(len(ins[0].Buf)))
	for b.Loop() {
		if err := runName(op, out, ins, attrs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSoftmaxRows(b *testing.B) {
	x := randFloats(rand.New(rand.NewPCG(1, 1)), tensor.Float32, 3, 2048, 2048)
	benchNN(b, "softmax", ops.SoftmaxAttrs{Dim: -1}, x)
}

func BenchmarkSoftmaxCols(b *testing.B) {
	x := randFloats(rand.New(rand.NewPCG(1, 1)), tensor.Float32, 3, 2048, 2048)
	benchNN(b, "softmax", ops.SoftmaxAttrs{Dim: 0}, x)
}

func BenchmarkLayerNorm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, w, bias := randFloats(r, tensor.Float32, 3, 4096, 1024), randFloats(r, tensor.Float32, 1, 1024), randFloats(r, tensor.Float32, 1, 1024)
	benchNN(b, "layer_norm", ops.NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, x, w, bias)
}

func BenchmarkTranspose(b *testing.B) {
	x := randFloats(rand.New(rand.NewPCG(1, 1)), tensor.Float32, 3, 2048, 2048)
	benchNN(b, "permute", ops.PermuteAttrs{Dims: []int{1, 0}}, x)
}

func TestExpF32Accuracy(t *testing.T) {
	worst := 0.0
	for x := -104.0; x <= 89; x += 0.001953125 {
		want := math.Exp(x)
		if rel := math.Abs(expF32(x)-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 1e-7 {
		t.Errorf("expF32 relative error %g, want below 1e-7", worst)
	}
	if !math.IsNaN(expF32(math.NaN())) || expF32(math.Inf(-1)) != 0 || !math.IsInf(expF32(math.Inf(1)), 1) || expF32(-200) != 0 {
		t.Error("expF32 special values are wrong")
	}
}

// TestNNInplace runs the ops whose Def allows in-place execution with the
// output sharing x's buffer, as the cpu device does when x dies.
func TestNNInplace(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := randFloats(r, dt, 3, 5, 33)
		w, b := randFloats(r, dt, 1, 33), randFloats(r, dt, 1, 33)
		mask := denseOf(tensor.Bool, tensor.Shape{5, 33})
		for i := range mask.Buf {
			mask.Buf[i] = uint8(i % 2)
		}
		cases := []struct {
			op    string
			attrs any
			rest  []*tensor.Dense
		}{
			{"layer_norm", ops.NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}, []*tensor.Dense{w, b}},
			{"rms_norm", ops.NormAttrs{Eps: 1e-6, HasWeight: true}, []*tensor.Dense{w}},
			{"dropout", ops.DropoutAttrs{P: 0.3}, []*tensor.Dense{mask}},
		}
		for _, c := range cases {
			if ins := ops.MustLookup(c.op).Def().Inplace; len(ins) != 1 || ins[0] != 0 {
				t.Fatalf("%s: Inplace is %v, want [0]", c.op, ins)
			}
			want := execShapeOp(t, c.op, c.attrs, append([]*tensor.Dense{x}, c.rest...)...)
			alias := x.Clone()
			if err := runName(c.op, alias, append([]*tensor.Dense{alias}, c.rest...), c.attrs); err != nil {
				t.Fatal(err)
			}
			sameDense(t, c.op+" in place", alias, want)
		}
	}
}
