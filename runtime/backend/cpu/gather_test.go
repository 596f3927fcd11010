package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// coords is the multi-index of flat position i in shape s.
func coords(s tensor.Shape, i int) []int {
	c := make([]int, len(s))
	for d := len(s) - 1; d >= 0; d-- {
		c[d] = i % s[d]
		i /= s[d]
	}
	return c
}

// flatAt is the flat position of multi-index c in shape s.
func flatAt(s tensor.Shape, c []int) int {
	off := 0
	for d := range s {
		off = off*s[d] + c[d]
	}
	return off
}

// randGatherCase draws an input shape, a dim and an index shape that fits
// gather (every dimension but dim at most the input's) with in-range values.
func randGatherCase(r *rand.Rand, rank, maxDim, maxN int) (tensor.Shape, int, *tensor.Dense) {
	s := randShape(r, rank, maxDim)
	dim := r.IntN(rank)
	is := make(tensor.Shape, rank)
	for d := range is {
		is[d] = 1 + r.IntN(s[d])
	}
	is[dim] = 1 + r.IntN(maxN)
	idx := tensor.NewDense(tensor.Meta{Shape: is, DType: tensor.Int64})
	for i := range idx.I64() {
		idx.I64()[i] = int64(r.IntN(s[dim]))
	}
	return s, dim, idx
}

func run1(t *testing.T, op ops.Op, out tensor.Meta, attrs any, ins ...*tensor.Dense) *tensor.Dense {
	t.Helper()
	o := tensor.NewDense(out)
	if err := Run(op, o, ins, attrs); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return o
}

func TestGatherMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for trial := range 300 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s, dim, idx := randGatherCase(r, 1+r.IntN(4), 5, 7)
		x := iotaDense(dt, s...)
		got := run1(t, ops.Gather, tensor.Meta{Shape: idx.Shape, DType: dt}, ops.DimAttrs{Dim: dim - len(s)}, x, idx)
		for i := range idx.Numel() {
			c := coords(idx.Shape, i)
			c[dim] = int(idx.I64()[i])
			if g, w := got.At(i), x.At(flatAt(s, c)); g != w {
				t.Fatalf("gather %v dim %d index %v: element %d is %v, want %v", s, dim, idx.Shape, i, g, w)
			}
		}
	}
}

func TestScatterMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for trial := range 300 {
		dt := shapeDTypes[trial%len(shapeDTypes)]
		s, dim, idx := randGatherCase(r, 1+r.IntN(4), 5, 7)
		x := iotaDense(dt, s...)
		ss := idx.Shape.Clone()
		for d := range ss {
			ss[d] += r.IntN(2) // src may be larger than the index
		}
		src := iotaDense(dt, ss...)
		for _, op := range []ops.Op{ops.Scatter, ops.ScatterAdd} {
			if op == ops.ScatterAdd && dt == tensor.Bool {
				continue
			}
			got := run1(t, op, x.Meta, ops.DimAttrs{Dim: dim}, x, idx, src)
			want := x.Clone()
			for i := range idx.Numel() {
				c := coords(idx.Shape, i)
				v := src.At(flatAt(ss, c))
				c[dim] = int(idx.I64()[i])
				k := flatAt(s, c)
				if op == ops.ScatterAdd {
					v += want.At(k)
				}
				want.Set(k, v)
			}
			for i := range want.Numel() {
				if g, w := got.At(i), want.At(i); g != w && !(dt == tensor.Float16 && g-w < 1 && w-g < 1) {
					t.Fatalf("%s %v %v dim %d: element %d is %v, want %v", op, dt, s, dim, i, g, w)
				}
			}
		}
	}
}

// TestGatherIndexSelectParallel runs shapes above parallelMin, where the
// kernels split their work, against the same ops on a serial reference.
func TestGatherIndexSelectParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	x := iotaDense(tensor.Float32, 700, 600)
	idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{700, 500}, DType: tensor.Int64})
	for i := range idx.I64() {
		idx.I64()[i] = int64(r.IntN(600))
	}
	got := run1(t, ops.Gather, tensor.Meta{Shape: idx.Shape, DType: tensor.Float32}, ops.DimAttrs{Dim: 1}, x, idx)
	for i, v := range idx.I64() {
		if g, w := got.F32()[i], x.F32()[i/500*600+int(v)]; g != w {
			t.Fatalf("gather: element %d is %v, want %v", i, g, w)
		}
	}
	// Along the last dimension 4- and 8-byte elements take their own
	// path (selectElems), others copy rows.
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int64, tensor.Int16} {
		x := iotaDense(dt, 700, 600)
		for _, dim := range []int{0, 1} {
			ids := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{450}, DType: tensor.Int64})
			for i := range ids.I64() {
				ids.I64()[i] = int64(r.IntN(x.Shape[dim]))
			}
			os := x.Shape.Clone()
			os[dim] = 450
			got := run1(t, ops.IndexSelect, tensor.Meta{Shape: os, DType: dt}, ops.DimAttrs{Dim: dim}, x, ids)
			for i := range got.Numel() {
				c := coords(os, i)
				c[dim] = int(ids.I64()[c[dim]])
				if g, w := got.At(i), x.At(flatAt(x.Shape, c)); g != w {
					t.Fatalf("index_select %s dim %d: element %d is %v, want %v", dt, dim, i, g, w)
				}
			}
		}
	}
}
