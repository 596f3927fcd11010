package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Bandwidth benchmarks on 16M-element float32 tensors (64 MB each), next to
// a plain copy() of 64 MB for the machine's memory-copy bandwidth. Bytes
// per op count every byte read and written (a copy moves 128 MB), so the
// MB/s columns compare directly. Run:
//
//	go test ./runtime/backend/cpu -run '^$' -bench 'Copy64MB|Elementwise16M|Reduce16M' -benchtime 10x

const benchN = 16 << 20

func benchDense(dt tensor.DType, shape ...int) *tensor.Dense {
	rng := rand.New(rand.NewPCG(1, 1))
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: dt})
	switch dt {
	case tensor.Float32:
		for i, x := range d.F32() {
			d.F32()[i] = x + float32(rng.NormFloat64())
		}
	default:
		for i := range d.Numel() {
			d.Set(i, float64(rng.IntN(2)))
		}
	}
	return d
}

func BenchmarkCopy64MB(b *testing.B) {
	src, dst := benchDense(tensor.Float32, benchN), benchDense(tensor.Float32, benchN)
	b.SetBytes(2 * 4 * benchN)
	for b.Loop() {
		copy(dst.F32(), src.F32())
	}
}

func BenchmarkElementwise16M(b *testing.B) {
	x := benchDense(tensor.Float32, 4096, 4096)
	y := benchDense(tensor.Float32, 4096, 4096)
	row := benchDense(tensor.Float32, 4096)
	s := benchDense(tensor.Float32)
	cond := benchDense(tensor.Bool, 4096, 4096)
	out := tensor.NewDense(x.Meta)
	outB := tensor.NewDense(tensor.Meta{Shape: x.Shape, DType: tensor.Bool})
	outI := tensor.NewDense(tensor.Meta{Shape: x.Shape, DType: tensor.Int64})
	cases := []struct {
		name  string
		op    string
		out   *tensor.Dense
		ins   []*tensor.Dense
		attrs any
		bytes int64
	}{
		{"add", "add", out, []*tensor.Dense{x, y}, nil, 12},
		{"mul", "mul", out, []*tensor.Dense{x, y}, nil, 12},
		{"div", "div", out, []*tensor.Dense{x, y}, nil, 12},
		{"add_inplace", "add", x, []*tensor.Dense{x, y}, nil, 12},
		{"mul_scalar", "mul", out, []*tensor.Dense{x, s}, nil, 8},
		{"add_row", "add", out, []*tensor.Dense{x, row}, nil, 8},
		{"maximum", "maximum", out, []*tensor.Dense{x, y}, nil, 12},
		{"gt", "gt", outB, []*tensor.Dense{x, y}, nil, 9},
		{"where", "where", out, []*tensor.Dense{cond, x, y}, nil, 13},
		{"neg", "neg", out, []*tensor.Dense{x}, nil, 8},
		{"relu", "relu", out, []*tensor.Dense{x}, nil, 8},
		{"exp", "exp", out, []*tensor.Dense{x}, nil, 8},
		{"clamp", "clamp", out, []*tensor.Dense{x}, ops.ClampAttrs{Min: -1, Max: 1, HasMin: true, HasMax: true}, 8},
		{"astype_int64", "astype", outI, []*tensor.Dense{x}, ops.CastAttrs{To: tensor.Int64}, 12},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(c.bytes * benchN)
			for b.Loop() {
				if err := Run(c.op, c.out, c.ins, c.attrs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReduce16M(b *testing.B) {
	x := benchDense(tensor.Float32, 4096, 4096)
	cases := []struct {
		name string
		op   string
		dims []int
	}{
		{"sum_all", "sum", nil},
		{"sum_dim1", "sum", []int{1}},
		{"sum_dim0", "sum", []int{0}},
		{"mean_all", "mean", nil},
		{"max_all", "max", nil},
		{"max_dim1", "max", []int{1}},
		{"argmax_all", "argmax", nil},
		{"var_all", "var", nil},
		{"any_all", "any", nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			attrs := ops.ReduceAttrs{Dims: c.dims, Correction: 1}
			m, err := ops.MustLookup(c.op).Infer([]tensor.Meta{x.Meta}, attrs)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(m)
			b.SetBytes(4 * benchN)
			for b.Loop() {
				if err := Run(c.op, out, []*tensor.Dense{x}, attrs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
