package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/internal/cputime"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Bandwidth benchmarks on 16M-element float32 tensors (64 MB each), next to
// a plain copy() of 64 MB for the machine's memory-copy bandwidth. Bytes
// per op count every byte read and written (a copy moves 128 MB), so the
// MB/s columns compare directly. Each also reports cpu-GB/s: bytes per
// second of CPU time (all threads), which a shared machine disturbs far
// less than wall time. bench/ops/run.sh runs them. By hand:
//
//	go test ./runtime/backend/cpu -run '^$' -bench 'Copy64MB|Elementwise16M|Reduce16M' -benchtime 10x

const benchN = 16 << 20

func benchDense(dt tensor.DType, shape ...int) *tensor.Dense {
	rng := rand.New(rand.NewPCG(1, 1))
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: dt})
	switch dt {
	case tensor.Float32:
		for i := range d.F32() {
			d.F32()[i] = float32(rng.NormFloat64())
		}
	case tensor.Int64:
		for i := range d.I64() {
			d.I64()[i] = int64(rng.IntN(100))
		}
	default:
		for i := range d.Numel() {
			d.Set(i, float64(rng.IntN(2)))
		}
	}
	return d
}

// measure runs fn in b.Loop and reports bytes per CPU-second next to the
// wall-clock MB/s that SetBytes gives.
func measure(b *testing.B, bytes int64, fn func()) {
	b.SetBytes(bytes)
	c0 := cputime.Process()
	n := 0
	for b.Loop() {
		fn()
		n++
	}
	if cpu := cputime.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(n)/cpu.Seconds()/1e9, "cpu-GB/s")
	}
}

func BenchmarkCopy64MB(b *testing.B) {
	src, dst := benchDense(tensor.Float32, benchN), benchDense(tensor.Float32, benchN)
	measure(b, 2*4*benchN, func() { copy(dst.F32(), src.F32()) })
}

// BenchmarkCopy64MBParallel is the same copy split the way the kernels
// split their work (parallelFor, GOMAXPROCS goroutines): the machine's copy
// bandwidth when every core moves memory, the fair reference for kernels
// that use every core.
func BenchmarkCopy64MBParallel(b *testing.B) {
	src, dst := benchDense(tensor.Float32, benchN), benchDense(tensor.Float32, benchN)
	s, d := src.F32(), dst.F32()
	measure(b, 2*4*benchN, func() {
		parallelFor(benchN, func(lo, hi int) error {
			copy(d[lo:hi], s[lo:hi])
			return nil
		})
	})
}

func BenchmarkElementwise16M(b *testing.B) {
	x := benchDense(tensor.Float32, 4096, 4096)
	y := benchDense(tensor.Float32, 4096, 4096)
	row := benchDense(tensor.Float32, 4096)
	s := benchDense(tensor.Float32)
	cond := benchDense(tensor.Bool, 4096, 4096)
	// Outputs are written once first: the first touch of fresh pages would
	// otherwise be timed as page faults.
	out := benchDense(tensor.Float32, 4096, 4096)
	outB := benchDense(tensor.Bool, 4096, 4096)
	outI := benchDense(tensor.Int64, 4096, 4096)
	// add_inplace accumulates into a tensor of its own: were it x, every
	// later case would read values that grow with each round (x += y),
	// and the math rows would leave their fast paths.
	acc := benchDense(tensor.Float32, 4096, 4096)
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
		{"add_inplace", "add", acc, []*tensor.Dense{acc, y}, nil, 12},
		{"mul_scalar", "mul", out, []*tensor.Dense{x, s}, nil, 8},
		{"add_row", "add", out, []*tensor.Dense{x, row}, nil, 8},
		{"maximum", "maximum", out, []*tensor.Dense{x, y}, nil, 12},
		{"gt", "gt", outB, []*tensor.Dense{x, y}, nil, 9},
		{"eq_scalar", "eq", outB, []*tensor.Dense{x, s}, nil, 5},
		{"where", "where", out, []*tensor.Dense{cond, x, y}, nil, 13},
		{"neg", "neg", out, []*tensor.Dense{x}, nil, 8},
		{"relu", "relu", out, []*tensor.Dense{x}, nil, 8},
		{"exp", "exp", out, []*tensor.Dense{x}, nil, 8},
		{"log", "log", out, []*tensor.Dense{x}, nil, 8},
		{"sqrt", "sqrt", out, []*tensor.Dense{x}, nil, 8},
		{"rsqrt", "rsqrt", out, []*tensor.Dense{x}, nil, 8},
		{"tanh", "tanh", out, []*tensor.Dense{x}, nil, 8},
		{"sigmoid", "sigmoid", out, []*tensor.Dense{x}, nil, 8},
		{"gelu", "gelu", out, []*tensor.Dense{x}, nil, 8},
		{"silu", "silu", out, []*tensor.Dense{x}, nil, 8},
		{"sin", "sin", out, []*tensor.Dense{x}, nil, 8},
		{"cos", "cos", out, []*tensor.Dense{x}, nil, 8},
		{"clamp", "clamp", out, []*tensor.Dense{x}, ops.ClampAttrs{Min: -1, Max: 1, HasMin: true, HasMax: true}, 8},
		{"astype_int64", "astype", outI, []*tensor.Dense{x}, ops.CastAttrs{To: tensor.Int64}, 12},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			measure(b, c.bytes*benchN, func() {
				if err := runName(c.op, c.out, c.ins, c.attrs); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkReduce16M(b *testing.B) {
	x := benchDense(tensor.Float32, 4096, 4096)
	// any stops at the first nonzero element: on zeros it reads them all.
	zeros := tensor.NewDense(x.Meta)
	cases := []struct {
		name string
		op   string
		dims []int
		in   *tensor.Dense // x when nil
	}{
		{"sum_all", "sum", nil, nil},
		{"sum_dim1", "sum", []int{1}, nil},
		{"sum_dim0", "sum", []int{0}, nil},
		{"mean_all", "mean", nil, nil},
		{"max_all", "max", nil, nil},
		{"max_dim1", "max", []int{1}, nil},
		{"argmax_all", "argmax", nil, nil},
		{"argmin_dim1", "argmin", []int{1}, nil},
		{"var_all", "var", nil, nil},
		{"std_dim1", "std", []int{1}, nil},
		{"all_all", "all", nil, nil},
		{"any_all", "any", nil, zeros},
	}
	for _, c := range cases {
		in := c.in
		if in == nil {
			in = x
		}
		b.Run(c.name, func(b *testing.B) {
			attrs := ops.ReduceAttrs{Dims: c.dims, Correction: 1}
			m, err := ops.MustLookup(c.op).Def().Infer([]tensor.Meta{in.Meta}, attrs)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(m)
			measure(b, 4*benchN, func() {
				if err := runName(c.op, out, []*tensor.Dense{in}, attrs); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
