package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// naiveAttention materialises the whole score matrix of each batch, in
// float64.
func naiveAttention(q, k, v *tensor.Dense, a ops.AttentionAttrs) []float64 {
	d, err := ops.AttentionLayout(q.Shape, k.Shape, v.Shape)
	if err != nil {
		panic(err)
	}
	scale := 1 / math.Sqrt(float64(d.E))
	if a.HasScale {
		scale = a.Scale
	}
	nb := d.Batch.Numel()
	qo := batchOffsets(d.Batch, d.QBatch, d.L*d.E)
	ko := batchOffsets(d.Batch, d.KBatch, d.S*d.E)
	vo := batchOffsets(d.Batch, d.VBatch, d.S*d.Ev)
	out := make([]float64, nb*d.L*d.Ev)
	for b := range nb {
		for i := range d.L {
			s := make([]float64, d.S)
			mx := math.Inf(-1)
			for j := range d.S {
				if a.Causal && j > i {
					s[j] = math.Inf(-1)
					continue
				}
				for e := range d.E {
					s[j] += q.At(qo[b]+i*d.E+e) * k.At(ko[b]+j*d.E+e)
				}
				s[j] *= scale
				mx = max(mx, s[j])
			}
			var sum float64
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			for c := range d.Ev {
				var acc float64
				for j := range s {
					acc += s[j] / sum * v.At(vo[b]+j*d.Ev+c)
				}
				out[(b*d.L+i)*d.Ev+c] = acc
			}
		}
	}
	return out
}

func TestAttentionAgainstFullSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, tc := range []struct {
		name    string
		q, k, v []int
		a       ops.AttentionAttrs
	}{
		{"blocks-one-head", []int{200, 16}, []int{150, 16}, []int{150, 8}, ops.AttentionAttrs{}},
		{"blocks-causal", []int{200, 16}, []int{150, 16}, []int{150, 8}, ops.AttentionAttrs{Causal: true}},
		{"many-heads", []int{2, 4, 70, 8}, []int{2, 4, 90, 8}, []int{2, 4, 90, 5}, ops.AttentionAttrs{Causal: true}},
		{"broadcast-kv", []int{3, 4, 10, 8}, []int{1, 4, 12, 8}, []int{12, 6}, ops.AttentionAttrs{Scale: 0.3, HasScale: true}},
		{"scale-zero", []int{5, 4}, []int{6, 4}, []int{6, 3}, ops.AttentionAttrs{HasScale: true}},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			q, k, v := randDense(r, dt, tc.q...), randDense(r, dt, tc.k...), randDense(r, dt, tc.v...)
			got := execShapeOp(t, "attention", tc.a, q, k, v)
			tol := map[tensor.DType]float64{tensor.Float32: 1e-4, tensor.Float64: 1e-12}[dt]
			assertClose(t, tc.name+"/"+dt.String(), got, naiveAttention(q, k, v, tc.a), tol, tol)
		}
	}
}

func TestAttentionNoKeysGivesZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	q, k, v := randDense(r, tensor.Float32, 3, 4), randDense(r, tensor.Float32, 0, 4), randDense(r, tensor.Float32, 0, 2)
	got := execShapeOp(t, "attention", ops.AttentionAttrs{}, q, k, v)
	assertClose(t, "no keys", got, make([]float64, 6), 0, 0)
}

func TestExpf(t *testing.T) {
	for x := -87.0; x <= 0; x += 0.0137 {
		got, want := float64(expf(float32(x))), math.Exp(float64(float32(x)))
		if math.Abs(got-want) > 3e-7*want {
			t.Fatalf("expf(%v) = %v, want %v", x, got, want)
		}
	}
	if expf(float32(math.Inf(-1))) != 0 || !math.IsNaN(float64(expf(float32(math.NaN())))) {
		t.Fatal("expf(-inf) must be 0 and expf(NaN) NaN")
	}
}

func TestExpSubSum(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 7, 8, 9, 64, 333} {
		row := make([]float32, n)
		for i := range row {
			row[i] = float32(r.NormFloat64() * 30)
		}
		row[0] = float32(math.Inf(-1))
		if n > 2 {
			row[1] = -200 // far below float32's range: 0
			row[2] = -87.5
		}
		mx := float32(math.Inf(-1))
		for _, x := range row {
			mx = max(mx, x)
		}
		want := make([]float64, n)
		var wantSum float64
		for i, x := range row {
			want[i] = math.Exp(float64(x - mx))
			if x-mx < -87 {
				want[i] = 0
			}
			wantSum += want[i]
		}
		sum := expSubSum(row, mx)
		for i, w := range want {
			if math.Abs(float64(row[i])-w) > 3e-7*w {
				t.Fatalf("n=%d: exp element %d = %v, want %v", n, i, row[i], w)
			}
		}
		if math.Abs(float64(sum)-wantSum) > 1e-6*wantSum {
			t.Fatalf("n=%d: sum %v, want %v", n, sum, wantSum)
		}
	}
}

func BenchmarkAttention(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const heads, L, E = 8, 1024, 64
	q, k, v := randDense(r, tensor.Float32, heads, L, E), randDense(r, tensor.Float32, heads, L, E), randDense(r, tensor.Float32, heads, L, E)
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{heads, L, E}, DType: tensor.Float32})
	for _, causal := range []bool{false, true} {
		name := "full"
		if causal {
			name = "causal"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := Run(ops.Attention, out, []*tensor.Dense{q, k, v}, ops.AttentionAttrs{Causal: causal}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*heads*L*L*E*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
