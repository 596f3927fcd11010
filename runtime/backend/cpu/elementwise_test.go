package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// These tests cover what the torch goldens cannot afford to: tensors past
// the parallel threshold, aliasing of the output with an operand, and the
// broadcast iterator's dimension merging. References are computed one
// element at a time from multi-indices.

func ewRandDense(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: dt})
	for i := range d.Numel() {
		switch {
		case dt.IsFloat():
			d.Set(i, rng.NormFloat64()*4)
		case dt == tensor.Bool:
			d.Set(i, float64(rng.IntN(2)))
		default:
			d.Set(i, float64(rng.IntN(19)-9))
		}
	}
	return d
}

// ewBcastIndex maps output flat index i to the flat index of an operand of
// shape s broadcast to out.
func ewBcastIndex(out, s tensor.Shape, i int) int {
	idx, stride := 0, 1
	for d := len(out) - 1; d >= 0; d-- {
		c := i % out[d]
		i /= out[d]
		if j := d - (len(out) - len(s)); j >= 0 {
			if s[j] != 1 {
				idx += c * stride
			}
			stride *= s[j]
		}
	}
	return idx
}

func ewRefBinary(name string, x, y float64, dt tensor.DType) float64 {
	switch name {
	case "add":
		return x + y
	case "sub":
		return x - y
	case "mul":
		return x * y
	case "div":
		return x / y
	case "maximum":
		return math.Max(x, y)
	case "minimum":
		return math.Min(x, y)
	case "floordiv":
		if dt.IsFloat() {
			return ops.FloorDivFloat(x, y)
		}
		v, _ := ops.FloorDivInt(int64(x), int64(y))
		return float64(v)
	case "mod":
		if dt.IsFloat() {
			return ops.ModFloat(x, y)
		}
		v, _ := ops.ModInt(int64(x), int64(y))
		return float64(v)
	case "pow":
		return math.Pow(x, y)
	case "atan2":
		return math.Atan2(x, y)
	case "fmod":
		if dt.IsFloat() {
			return math.Mod(x, y)
		}
		v, _ := ops.FmodInt(int64(x), int64(y))
		return float64(v)
	case "hypot":
		return math.Hypot(x, y)
	case "copysign":
		return math.Copysign(x, y)
	case "eq":
		return ewB2F(x == y)
	case "ne":
		return ewB2F(x != y)
	case "lt":
		return ewB2F(x < y)
	case "le":
		return ewB2F(x <= y)
	case "gt":
		return ewB2F(x > y)
	case "ge":
		return ewB2F(x >= y)
	}
	panic(name)
}

func ewB2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func ewRun(t *testing.T, name string, attrs any, ins ...*tensor.Dense) *tensor.Dense {
	t.Helper()
	metas := make([]tensor.Meta, len(ins))
	for i, in := range ins {
		metas[i] = in.Meta
	}
	m, err := ops.MustLookup(name).Def().Infer(metas, attrs)
	if err != nil {
		t.Fatalf("%s: infer: %v", name, err)
	}
	out := tensor.NewDense(m)
	if err := runName(name, out, ins, attrs); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// ewClose compares with a float32-sized tolerance.
func ewClose(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return got == want || math.Abs(got-want) <= 1e-6+1e-5*math.Abs(want)
}

func TestBinaryLargeBroadcast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	layouts := []struct{ a, b []int }{
		{[]int{600, 500}, []int{600, 500}},
		{[]int{600, 500}, []int{500}},
		{[]int{600, 500}, []int{600, 1}},
		{[]int{600, 500}, []int{}},
		{[]int{}, []int{600, 500}},
		{[]int{30, 20, 500}, []int{30, 1, 500}},
		{[]int{1, 500}, []int{600, 1}},
	}
	names := opNames(ops.BinaryArith, ops.Comparisons)
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int64} {
		for _, l := range layouts {
			a := ewRandDense(rng, dt, l.a...)
			b := ewRandDense(rng, dt, l.b...)
			for i := range b.Numel() {
				if b.At(i) == 0 {
					b.Set(i, 3) // integer divisors and exponents must be usable
				}
				if dt == tensor.Int64 && b.At(i) < 0 {
					b.Set(i, -b.At(i))
				}
			}
			for _, name := range names {
				b := b
				if dt == tensor.Int64 && name == "hypot" {
					continue // hypot takes floats only
				}
				if dt == tensor.Int64 && name == "pow" {
					b = ewSmallExp(rng, b)
				}
				out := ewRun(t, name, nil, a, b)
				for i := range out.Numel() {
					x, y := a.At(ewBcastIndex(out.Shape, a.Shape, i)), b.At(ewBcastIndex(out.Shape, b.Shape, i))
					want := ewRefBinary(name, x, y, dt)
					if out.DType == tensor.Float32 {
						want = tensor.RoundF32(want)
					}
					if name == "pow" && dt == tensor.Int64 {
						v, _ := ops.PowInt(int64(x), int64(y))
						want = float64(v)
					}
					if !ewClose(out.At(i), want) {
						t.Fatalf("%v %s %v%v %v%v: element %d = %v, want %v (%v, %v)",
							dt, name, a.DType, a.Shape, b.DType, b.Shape, i, out.At(i), want, x, y)
					}
				}
			}
		}
	}
}

// ewSmallExp replaces b's values by exponents in [0, 3] so integer powers
// stay small.
func ewSmallExp(rng *rand.Rand, b *tensor.Dense) *tensor.Dense {
	c := b.Clone()
	for i := range c.Numel() {
		c.Set(i, float64(rng.IntN(4)))
	}
	return c
}

func TestIntDivisionByZeroInParallelChunk(t *testing.T) {
	for _, name := range []string{"floordiv", "mod"} {
		a := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1 << 19}, DType: tensor.Int64})
		b := a.Clone()
		for i := range b.I64() {
			b.I64()[i] = 7
		}
		b.I64()[len(b.I64())-5] = 0 // in the last goroutine's chunk
		out := tensor.NewDense(a.Meta)
		err := runName(name, out, []*tensor.Dense{a, b}, nil)
		if err == nil || !strings.Contains(err.Error(), "integer division by zero") {
			t.Errorf("%s by zero: got %v, want integer division by zero", name, err)
		}
	}
}

func TestPowNegativeIntegerExponent(t *testing.T) {
	a := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Int64})
	b := a.Clone()
	b.I64()[1] = -2
	err := Run(ops.Pow, tensor.NewDense(a.Meta), []*tensor.Dense{a, b}, nil)
	if err == nil || !strings.Contains(err.Error(), "negative integer powers") {
		t.Errorf("got %v, want the negative power error", err)
	}
}

// TestInplaceAliasing runs kernels with the output sharing a same-shaped
// operand's buffer, as the runtime does when that operand dies at the op.
func TestInplaceAliasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{7, 300000} {
		a := ewRandDense(rng, tensor.Float32, n)
		row := ewRandDense(rng, tensor.Float32, 1)
		for _, name := range []string{"add", "sub", "div", "maximum", "pow", "mod"} {
			for _, aliasFirst := range []bool{true, false} {
				x, y := a, row
				if !aliasFirst {
					x, y = row, a
				}
				want := ewRun(t, name, nil, x, y)
				alias := a.Clone()
				ins := []*tensor.Dense{alias, row}
				if !aliasFirst {
					ins = []*tensor.Dense{row, alias}
				}
				if err := runName(name, alias, ins, nil); err != nil {
					t.Fatal(err)
				}
				ewSame(t, name, alias, want)
			}
		}
		for _, name := range []string{"exp", "neg", "relu", "gelu"} {
			want := ewRun(t, name, nil, a)
			alias := a.Clone()
			if err := runName(name, alias, []*tensor.Dense{alias}, nil); err != nil {
				t.Fatal(err)
			}
			ewSame(t, name, alias, want)
		}
		clamp := ops.ClampAttrs{Min: -1, Max: 1, HasMin: true, HasMax: true}
		want := ewRun(t, "clamp", clamp, a)
		alias := a.Clone()
		if err := Run(ops.Clamp, alias, []*tensor.Dense{alias}, clamp); err != nil {
			t.Fatal(err)
		}
		ewSame(t, "clamp", alias, want)

		cond := ewRandDense(rng, tensor.Bool, n)
		b := ewRandDense(rng, tensor.Float32, n)
		want = ewRun(t, "where", nil, cond, a, b)
		alias = b.Clone()
		if err := Run(ops.Where, alias, []*tensor.Dense{cond, a, alias}, nil); err != nil {
			t.Fatal(err)
		}
		ewSame(t, "where", alias, want)
	}
}

func ewSame(t *testing.T, name string, got, want *tensor.Dense) {
	t.Helper()
	for i := range want.Numel() {
		g, w := got.At(i), want.At(i)
		if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Fatalf("%s in place (n=%d): element %d = %v, want %v", name, want.Numel(), i, g, w)
		}
	}
}

func TestBcastIterMergesDims(t *testing.T) {
	cases := []struct {
		out   tensor.Shape
		ins   []tensor.Shape
		shape []int
	}{
		{tensor.Shape{2, 3, 4}, []tensor.Shape{{2, 3, 4}, {2, 3, 4}}, []int{24}},
		{tensor.Shape{2, 3, 4}, []tensor.Shape{{2, 3, 4}, {4}}, []int{6, 4}},
		{tensor.Shape{2, 3, 4}, []tensor.Shape{{2, 3, 4}, {2, 3, 1}}, []int{6, 4}},
		{tensor.Shape{2, 3, 4}, []tensor.Shape{{2, 3, 4}, {2, 1, 4}}, []int{2, 3, 4}},
		{tensor.Shape{1, 5, 1}, []tensor.Shape{{5, 1}, {1}}, []int{5}},
		{tensor.Shape{}, []tensor.Shape{{}, {}}, []int{1}},
		{tensor.Shape{4, 5}, []tensor.Shape{{4, 1}, {1, 5}}, []int{4, 5}},
	}
	for _, c := range cases {
		it := newBcastIter(c.out, c.ins...)
		if !tensor.Shape(it.shape).Equal(c.shape) {
			t.Errorf("%v from %v: merged shape %v, want %v", c.out, c.ins, it.shape, c.shape)
		}
		// Every output position is visited once, in order, at the right offsets.
		next := 0
		it.rows(0, c.out.Numel(), func(pos int, off *[maxInputs]int, n int) {
			if pos != next {
				t.Fatalf("%v: row at %d, want %d", c.out, pos, next)
			}
			for k, s := range c.ins {
				if want := ewBcastIndex(c.out, s, pos); off[k] != want {
					t.Fatalf("%v: input %d offset %d at %d, want %d", c.out, k, off[k], pos, want)
				}
			}
			next += n
		})
		if next != c.out.Numel() {
			t.Errorf("%v: visited %d elements, want %d", c.out, next, c.out.Numel())
		}
	}
}

func TestBcastIterSubranges(t *testing.T) {
	out := tensor.Shape{3, 4, 5}
	it := newBcastIter(out, tensor.Shape{3, 1, 5}, tensor.Shape{4, 1})
	for lo := 0; lo < out.Numel(); lo += 7 {
		hi := min(lo+11, out.Numel())
		pos := lo
		it.rows(lo, hi, func(p int, off *[maxInputs]int, n int) {
			if p != pos || off[0] != ewBcastIndex(out, tensor.Shape{3, 1, 5}, p) || off[1] != ewBcastIndex(out, tensor.Shape{4, 1}, p) {
				t.Fatalf("[%d, %d): bad row at %d (offsets %v)", lo, hi, p, off[:2])
			}
			pos += n
		})
		if pos != hi {
			t.Fatalf("[%d, %d): ended at %d", lo, hi, pos)
		}
	}
}

func TestUnaryLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := ewRandDense(rng, tensor.Float32, 300000)
	refs := map[string]func(float64) float64{
		"exp":     math.Exp,
		"tanh":    math.Tanh,
		"sigmoid": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
		"abs":     math.Abs,
		"sqrt":    math.Sqrt,
	}
	for name, f := range refs {
		out := ewRun(t, name, nil, a)
		for i := range out.Numel() {
			if want := tensor.RoundF32(f(a.At(i))); !ewClose(out.At(i), want) {
				t.Fatalf("%s(%v) = %v, want %v", name, a.At(i), out.At(i), want)
			}
		}
	}
}

func TestCastSpecialValues(t *testing.T) {
	src := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{6}, DType: tensor.Float64})
	copy(src.F64(), []float64{-2.7, 2.7, -0.0, 255.9, 256.0, math.NaN()})
	cases := []struct {
		to   tensor.DType
		want []float64
	}{
		{tensor.Int64, []float64{-2, 2, 0, 255, 256}},
		{tensor.Uint8, []float64{254, 2, 0, 255, 0}},
		{tensor.Bool, []float64{1, 1, 0, 1, 1, 1}},
		{tensor.Float32, []float64{tensor.RoundF32(-2.7), tensor.RoundF32(2.7), 0, tensor.RoundF32(255.9), 256, math.NaN()}},
	}
	for _, c := range cases {
		out := ewRun(t, "astype", ops.CastAttrs{To: c.to}, src)
		for i, w := range c.want {
			if g := out.At(i); g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("astype %v: element %d (%v) = %v, want %v", c.to, i, src.At(i), g, w)
			}
		}
	}
}

func TestKernelsRejectWrongArity(t *testing.T) {
	a := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Float32})
	for _, name := range []string{"add", "eq", "where", "exp", "sum"} {
		err := runName(name, a, []*tensor.Dense{a, a, a, a}, ops.ReduceAttrs{})
		if err == nil || !strings.Contains(err.Error(), "takes") {
			t.Errorf("%s with 4 inputs: got %v", name, err)
		}
	}
}

// TestSIMDRowsMatchGeneric checks the vectorised float32 rows against the
// generic loops for every length up to 70 (tails included), each operand
// layout, and with the output aliasing an operand.
func TestSIMDRowsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, name := range []string{"add", "sub", "mul", "div", "maximum", "minimum"} {
		generic := arithRow[float32](name)
		simd := simdRowF32(name, generic)
		if simd == nil {
			t.Skip("no vectorised rows on this machine")
		}
		for n := range 71 {
			a, b := make([]float32, n), make([]float32, n)
			for i := range a {
				a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())+3
				if name == "maximum" || name == "minimum" {
					if rng.IntN(4) == 0 {
						a[i] = special[rng.IntN(len(special))]
					}
					if rng.IntN(4) == 0 {
						b[i] = special[rng.IntN(len(special))]
					}
				}
			}
			s := []float32{float32(rng.NormFloat64()) + 3}
			for _, l := range []struct {
				name string
				x, y []float32
			}{{"vv", a, b}, {"vs", a, s}, {"sv", s, b}} {
				want, got := make([]float32, n), make([]float32, n)
				if err := generic(want, l.x, l.y); err != nil {
					t.Fatal(err)
				}
				if err := simd(got, l.x, l.y); err != nil {
					t.Fatal(err)
				}
				if !sameF32s(got, want) {
					t.Fatalf("%s %s n=%d: %v, want %v", name, l.name, n, got, want)
				}
				if len(l.x) == n { // in place over the first operand
					alias := slices.Clone(l.x)
					if err := simd(alias, alias, l.y); err != nil {
						t.Fatal(err)
					}
					if !sameF32s(alias, want) {
						t.Fatalf("%s %s n=%d in place: %v, want %v", name, l.name, n, alias, want)
					}
				}
			}
		}
	}
}

// sameF32s compares element by element, NaN equal to NaN (and -0 to 0).
func sameF32s(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

func TestSIMDUnaryMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
	type row = func(o, a []float32)
	cases := map[string]func() (row, row){}
	for _, name := range []string{"neg", "abs", "relu"} {
		cases[name] = func() (row, row) {
			g := keepUnaryRow[float32](name)
			return g, simdUnaryF32(name, g)
		}
	}
	for _, c := range []ops.ClampAttrs{
		{Min: -0.5, Max: 1, HasMin: true, HasMax: true},
		{Min: 0.25, HasMin: true},
		{Max: -0.25, HasMax: true},
		{Min: 1, Max: -1, HasMin: true, HasMax: true},
	} {
		cases[fmt.Sprintf("clamp%+v", c)] = func() (row, row) {
			g := clampRow[float32](c)
			lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
			if c.HasMin {
				lo = float32(c.Min)
			}
			if c.HasMax {
				hi = float32(c.Max)
			}
			return g, simdClampF32(lo, hi, g)
		}
	}
	for name, mk := range cases {
		generic, simd := mk()
		if simd == nil {
			t.Skip("no vectorised rows on this machine")
		}
		for n := range 71 {
			a := make([]float32, n)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
				if rng.IntN(4) == 0 {
					a[i] = special[rng.IntN(len(special))]
				}
			}
			want, got := make([]float32, n), make([]float32, n)
			generic(want, a)
			simd(got, a)
			if !sameF32s(got, want) {
				t.Fatalf("%s n=%d: %v, want %v (input %v)", name, n, got, want, a)
			}
			simd(a, a) // in place
			if !sameF32s(a, want) {
				t.Fatalf("%s n=%d in place: %v, want %v", name, n, a, want)
			}
		}
	}
}

// runName is Run for tests that list ops by name.
func runName(name string, out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	return Run(ops.MustLookup(name), out, ins, attrs)
}

// opNames are the names of ops, for tests that list ops by name.
func opNames(list ...[]ops.Op) []string {
	var names []string
	for _, l := range list {
		for _, op := range l {
			names = append(names, op.Name())
		}
	}
	return names
}
