package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func TestReducePlan(t *testing.T) {
	cases := []struct {
		shape tensor.Shape
		dims  []int
		want  plan
		perm  []int
	}{
		{tensor.Shape{2, 3, 4}, []int{0, 1, 2}, plan{1, 24, 1}, nil},
		{tensor.Shape{2, 3, 4}, []int{1}, plan{2, 3, 4}, nil},
		{tensor.Shape{2, 3, 4}, []int{2}, plan{6, 4, 1}, nil},
		{tensor.Shape{2, 3, 4}, []int{0}, plan{1, 2, 12}, nil},
		{tensor.Shape{2, 3, 4}, []int{1, 2}, plan{2, 12, 1}, nil},
		{tensor.Shape{2, 3, 4}, []int{0, 2}, plan{3, 8, 1}, []int{1, 0, 2}},
		{tensor.Shape{2, 1, 4}, []int{0, 2}, plan{1, 8, 1}, nil},
		{tensor.Shape{2, 3, 1}, []int{2}, plan{6, 1, 1}, nil},
		{tensor.Shape{}, nil, plan{1, 1, 1}, nil},
		{tensor.Shape{0, 3}, []int{0}, plan{3, 0, 1}, nil},
	}
	for _, c := range cases {
		p, perm := reducePlan(c.shape, c.dims)
		if p != c.want || !slices.Equal(perm, c.perm) {
			t.Errorf("reduce %v over %v: plan %+v perm %v, want %+v perm %v", c.shape, c.dims, p, perm, c.want, c.perm)
		}
	}
}

// refReduce reduces x over dims one output element at a time, in float64.
func refReduce(name string, x *tensor.Dense, dims []int, correction int) []float64 {
	outShape := ops.ReduceShape(x.Shape, dims, true)
	out := make([]float64, outShape.Numel())
	groups := make([][]float64, len(out))
	for i := range x.Numel() {
		// The output index: x's multi-index with reduced dims set to 0.
		rem, o, stride := i, 0, 1
		for d := len(x.Shape) - 1; d >= 0; d-- {
			c := rem % x.Shape[d]
			rem /= x.Shape[d]
			if !slices.Contains(dims, d) {
				o += c * stride
			}
			stride *= outShape[d]
		}
		groups[o] = append(groups[o], x.At(i))
	}
	for o, g := range groups {
		switch name {
		case "sum", "mean", "var":
			s := 0.0
			for _, v := range g {
				s += v
			}
			m := s / float64(len(g))
			switch name {
			case "sum":
				out[o] = s
			case "mean":
				out[o] = m
			default:
				d := 0.0
				for _, v := range g {
					d += (v - m) * (v - m)
				}
				out[o] = d / float64(len(g)-correction)
			}
		case "max", "argmax":
			best := 0
			for k, v := range g {
				if v > g[best] {
					best = k
				}
			}
			out[o] = g[best]
			if name == "argmax" {
				out[o] = float64(best)
			}
		case "any":
			for _, v := range g {
				if v != 0 {
					out[o] = 1
				}
			}
		}
	}
	return out
}

// TestReduceLarge covers the three ways a large reduction is split: along
// outer, along r with merged partial results, and (below the threshold)
// not at all, plus the copy for non-contiguous dims.
func TestReduceLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		shape []int
		dims  []int
	}{
		{[]int{300000}, []int{0}},          // r-split, inner 1
		{[]int{600, 500}, []int{1}},        // outer split
		{[]int{600, 500}, []int{0}},        // r-split, inner 500
		{[]int{3, 100000}, []int{1}},       // outer < workers: r-split
		{[]int{40, 50, 150}, []int{0, 2}},  // permuted copy, outer split
		{[]int{20, 2, 8000}, []int{0, 2}},  // permuted copy, r-split
		{[]int{2, 150000, 1}, []int{1}},    // size-1 dims dropped
		{[]int{512, 512}, []int{0, 1}},     // full reduction
		{[]int{7, 11}, []int{1}},           // serial
		{[]int{300, 1000}, []int{-1, -2}},  // negative dims
		{[]int{1 << 18, 3}, []int{0}},      // tall, narrow columns
		{[]int{16, 16, 1024}, []int{1}},    // middle dim
		{[]int{2, 3, 4, 5, 100}, []int{4}}, // many outer dims
		{[]int{100, 3, 4, 5, 9}, []int{0}}, // many inner dims
		{[]int{90, 3, 40, 5, 9}, []int{1, 3}},
	}
	for _, c := range cases {
		x := ewRandDense(rng, tensor.Float32, c.shape...)
		dims, err := ops.ReduceDims(c.dims, len(c.shape))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"sum", "mean", "var", "max", "argmax", "any"} {
			if name == "argmax" && len(dims) != 1 {
				continue
			}
			attrs := ops.ReduceAttrs{Dims: c.dims, Correction: 1}
			out := ewRun(t, name, attrs, x)
			want := refReduce(name, x, dims, 1)
			if out.Numel() != len(want) {
				t.Fatalf("%s %v over %v: %d results, want %d", name, c.shape, c.dims, out.Numel(), len(want))
			}
			for i, w := range want {
				if name != "argmax" && name != "any" {
					w = tensor.RoundF32(w)
				}
				if g := out.At(i); !ewClose(g, w) {
					t.Fatalf("%s %v over %v: element %d = %v, want %v", name, c.shape, c.dims, i, g, w)
				}
			}
		}
	}
}

// TestArgmaxFirstAcrossChunks puts equal maxima in both halves of a split
// reduction: the first one must win.
func TestArgmaxFirstAcrossChunks(t *testing.T) {
	n := 1 << 19
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32})
	x.F32()[n-10] = 5
	x.F32()[n/2+3] = 5
	x.F32()[100] = -1
	for _, c := range []struct {
		name string
		want int64
	}{{"argmax", int64(n/2 + 3)}, {"argmin", 100}} {
		out := ewRun(t, c.name, ops.ReduceAttrs{}, x)
		if got := out.I64()[0]; got != c.want {
			t.Errorf("%s = %d, want %d", c.name, got, c.want)
		}
	}
	x.F32()[n-1] = float32(math.NaN())
	x.F32()[n-2] = float32(math.NaN())
	if got := ewRun(t, "argmax", ops.ReduceAttrs{}, x).I64()[0]; got != int64(n-2) {
		t.Errorf("argmax with NaN = %d, want the first NaN at %d", got, n-2)
	}
	if got := ewRun(t, "max", ops.ReduceAttrs{}, x).F32()[0]; got == got {
		t.Errorf("max with NaN = %v, want NaN", got)
	}
}

// TestSumFloat32Accuracy sums values whose float32 running sum would lose
// digits; the float64 accumulation keeps the result correctly rounded.
func TestSumFloat32Accuracy(t *testing.T) {
	n := 1 << 22
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32})
	exact := 0.0
	for i := range x.F32() {
		v := float32(1 + float64(i%1000)*1e-3)
		x.F32()[i] = v
		exact += float64(v)
	}
	got := float64(ewRun(t, "sum", ops.ReduceAttrs{}, x).F32()[0])
	if rel := math.Abs(got-exact) / exact; rel > 1e-7 {
		t.Errorf("sum = %v, want %v (relative error %g)", got, exact, rel)
	}
}

func TestReduceIntegerAndBool(t *testing.T) {
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Bool})
	copy(x.U8(), []uint8{1, 0, 1, 1, 1, 1})
	if got := ewRun(t, "sum", ops.ReduceAttrs{Dims: []int{1}}, x); got.DType != tensor.Int64 || !slices.Equal(got.I64(), []int64{2, 3}) {
		t.Errorf("sum of bools = %v %v, want int64 [2 3]", got.DType, got.I64())
	}
	if got := ewRun(t, "all", ops.ReduceAttrs{Dims: []int{1}}, x); !slices.Equal(got.U8(), []uint8{0, 1}) {
		t.Errorf("all = %v, want [0 1]", got.U8())
	}
	y := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Int64})
	copy(y.I64(), []int64{math.MaxInt64, 1, 5})
	if got := ewRun(t, "sum", ops.ReduceAttrs{}, y).I64()[0]; got != math.MinInt64+5 {
		t.Errorf("int64 sum = %d, want the wrapped %d", got, int64(math.MinInt64+5))
	}
	if got := ewRun(t, "min", ops.ReduceAttrs{}, y).I64()[0]; got != 1 {
		t.Errorf("min = %d, want 1", got)
	}
}
