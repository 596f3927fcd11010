package cpu

//go:generate go run elementwise_gen.go

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Binary elementwise kernels (arithmetic, comparisons, where). Operands
// whose dtype differs from the computation's are converted first; the
// computation runs on typed slices through row functions (the hot ones are
// generated into elementwise_rows.go), either straight over the whole
// output when shapes agree or one operand is a single element, or through
// bcastIter for general broadcasting. Float16 and bfloat16 compute in
// float32. Every loop reads element i of an operand before writing element
// i of the output, so out may alias a same-shaped operand (ops.Def.Inplace).

// number is the set of element types kernels compute in; bool computes as
// uint8 holding 0 or 1.
type number interface {
	~float32 | ~float64 | ~int64 | ~uint8
}

// float is the set of floating-point element types.
type float interface{ ~float32 | ~float64 }

func init() {
	for _, op := range ops.BinaryArith {
		Register(op, withScalar(binaryKernel(op.Name())))
	}
	for _, op := range ops.Comparisons {
		Register(op, withScalar(compareKernel(op.Name())))
	}
	Register(ops.Where, withScalar(whereKernel))
}

// withScalar lets the kernel of an op with a scalar form
// (ops.ScalarOperand: a binary op, or where) take it: the number becomes
// a 0-d operand of the kernel, which the row functions read as a
// constant, never a tensor of the program.
func withScalar(k Kernel) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		a, ok := ops.ScalarSlot(attrs)
		if !ok {
			return k(out, ins, attrs)
		}
		if len(ins) < 1 || len(ins) > 2 {
			return fmt.Errorf("a scalar operand goes with 1 or 2 tensors, got %d", len(ins))
		}
		var buf [3]*tensor.Dense
		at := a.Index(len(ins))
		all := append(append(append(buf[:0], ins[:at]...), a.Value.Dense()), ins[at:]...)
		return k(out, all, nil)
	}
}

func b2u(c bool) uint8 {
	if c {
		return 1
	}
	return 0
}

// maxNaN is torch.maximum on two elements: NaN wins. Go's max has exactly
// these semantics and compiles to branch-free code.
func maxNaN[T number](x, y T) T { return max(x, y) }

// minNaN is torch.minimum on two elements: NaN wins.
func minNaN[T number](x, y T) T { return min(x, y) }

func isFloat[T number]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

func isHalf(dt tensor.DType) bool { return dt == tensor.Float16 || dt == tensor.BFloat16 }

func checkInputs(name string, ins []*tensor.Dense, n int) error {
	if len(ins) != n {
		return fmt.Errorf("%s takes %d tensors, got %d", name, n, len(ins))
	}
	return nil
}

// viaFloat32 runs compute on a float32 copy of the output and converts the
// result into out (for float16 and bfloat16 results).
func viaFloat32(out *tensor.Dense, compute func(tmp *tensor.Dense) error) error {
	tmp := tensor.NewDense(tensor.Meta{Shape: out.Shape, DType: tensor.Float32})
	if err := compute(tmp); err != nil {
		return err
	}
	castInto(out, tmp)
	return nil
}

func binaryKernel(name string) Kernel {
	// The row functions are picked once: a generic function value made per
	// call would cost an allocation on every small op.
	f32, f64 := arithRow[float32](name), arithRow[float64](name)
	i64, u8 := arithRow[int64](name), arithRow[uint8](name)
	if simd := simdRowF32(name, f32); simd != nil {
		f32 = simd
	}
	var kernel Kernel
	kernel = func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 2); err != nil {
			return err
		}
		ct := out.DType
		if isHalf(ct) {
			return viaFloat32(out, func(tmp *tensor.Dense) error { return kernel(tmp, ins, attrs) })
		}
		a, b := castTo(ins[0], ct), castTo(ins[1], ct)
		switch ct {
		case tensor.Float32:
			return runBinary(out.F32(), out.Shape, a.F32(), a.Shape, b.F32(), b.Shape, f32)
		case tensor.Float64:
			return runBinary(out.F64(), out.Shape, a.F64(), a.Shape, b.F64(), b.Shape, f64)
		case tensor.Int64:
			return runBinary(out.I64(), out.Shape, a.I64(), a.Shape, b.I64(), b.Shape, i64)
		case tensor.Uint8:
			return runBinary(out.U8(), out.Shape, a.U8(), a.Shape, b.U8(), b.Shape, u8)
		case tensor.Bool:
			// On 0/1 values, + is or and * is and (as torch); the other
			// ops are rejected by inference.
			switch name {
			case "add", "maximum":
				return runBinary(out.U8(), out.Shape, a.U8(), a.Shape, b.U8(), b.Shape, boolOr)
			case "mul", "minimum":
				return runBinary(out.U8(), out.Shape, a.U8(), a.Shape, b.U8(), b.Shape, boolAnd)
			}
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, ct)
	}
	return kernel
}

// boolOr and boolAnd are + and * on bools (0/1 bytes).
var boolOr, boolAnd = maximumRow[uint8], minimumRow[uint8]

// arithRow picks the row function of a binary arithmetic op for T.
func arithRow[T number](name string) func(o, a, b []T) error {
	switch name {
	case "add":
		return addRow[T]
	case "sub":
		return subRow[T]
	case "mul":
		return mulRow[T]
	case "div":
		return divRow[T]
	case "maximum":
		return maximumRow[T]
	case "minimum":
		return minimumRow[T]
	}
	var z T
	switch any(z).(type) {
	case float32:
		return any(floatArithRow[float32](name)).(func(o, a, b []T) error)
	case float64:
		return any(floatArithRow[float64](name)).(func(o, a, b []T) error)
	}
	return intArithRow[T](name)
}

// stride is 0 when x is broadcast along a row of o, else 1.
func stride[T, O any](x []T, o []O) int {
	if len(x) == len(o) {
		return 1
	}
	return 0
}

// floatArithRow is floordiv, mod, pow, atan2, fmod, hypot or copysign on
// floats, or one of the binary special functions zeta, gammainc and
// gammaincc (special_more.go).
func floatArithRow[F float](name string) func(o, a, b []F) error {
	var f func(x, y float64) float64
	switch name {
	case "floordiv":
		f = ops.FloorDivFloat
	case "mod":
		f = ops.ModFloat
	case "pow":
		return powFloatRow[F]
	case "atan2":
		f = math.Atan2
	case "fmod":
		f = math.Mod
	case "hypot":
		f = math.Hypot
	case "copysign":
		f = math.Copysign
	case "zeta":
		f = zetaNegative
	case "gammainc":
		f = igamma
	case "gammaincc":
		f = igammac
	default:
		panic("cpu: no float row for " + name)
	}
	return func(o, a, b []F) error {
		sa, sb := stride(a, o), stride(b, o)
		for i := range o {
			o[i] = F(f(float64(a[i*sa]), float64(b[i*sb])))
		}
		return nil
	}
}

// powFloatRow is x ** y, with the common constant exponents 2 and 0.5
// done without math.Pow.
func powFloatRow[F float](o, a, b []F) error {
	sa, sb := stride(a, o), stride(b, o)
	if sb == 0 && sa == 1 {
		switch y := b[0]; y {
		case 2:
			for i, x := range a[:len(o)] {
				o[i] = x * x
			}
			return nil
		case 0.5:
			for i, x := range a[:len(o)] {
				o[i] = F(math.Sqrt(float64(x)))
			}
			return nil
		}
	}
	for i := range o {
		o[i] = F(math.Pow(float64(a[i*sa]), float64(b[i*sb])))
	}
	return nil
}

// intArithRow is floordiv, mod, fmod or pow on integers (computed in int64 and
// truncated back, which wraps uint8 as torch does).
func intArithRow[T number](name string) func(o, a, b []T) error {
	var f func(x, y int64) (int64, error)
	switch name {
	case "floordiv":
		f = ops.FloorDivInt
	case "mod":
		f = ops.ModInt
	case "pow":
		f = ops.PowInt
	case "fmod":
		f = ops.FmodInt
	case "atan2", "hypot", "copysign", "zeta", "gammainc", "gammaincc":
		// Inference makes their results floats: integers never get here.
		f = func(int64, int64) (int64, error) { return 0, errors.New(name + " computes in floating point") }
	default:
		panic("cpu: no integer row for " + name)
	}
	return func(o, a, b []T) error {
		sa, sb := stride(a, o), stride(b, o)
		for i := range o {
			v, err := f(int64(a[i*sa]), int64(b[i*sb]))
			if err != nil {
				return err
			}
			o[i] = T(v)
		}
		return nil
	}
}

// runBinary applies row over the broadcast of a and b into o.
func runBinary[T, O any](o []O, oShape tensor.Shape, a []T, as tensor.Shape, b []T, bs tensor.Shape, row func(o []O, a, b []T) error) error {
	n := len(o)
	if n == 0 {
		return nil
	}
	// Equal element counts mean equal shapes: an operand broadcast to the
	// output has every dimension equal to the output's or 1.
	if (len(a) == n || len(a) == 1) && (len(b) == n || len(b) == 1) {
		if n < parallelMin {
			return row(o, a, b)
		}
		return parallelFor(n, func(lo, hi int) error {
			return row(o[lo:hi], sliceRow(a, lo, hi, n), sliceRow(b, lo, hi, n))
		})
	}
	it := newBcastIter(oShape, as, bs)
	return parallelFor(n, func(lo, hi int) error {
		var err error
		it.rows(lo, hi, func(pos int, off *[maxInputs]int, m int) {
			if err == nil {
				err = row(o[pos:pos+m], rowOf(a, off[0], it.inner[0], m), rowOf(b, off[1], it.inner[1], m))
			}
		})
		return err
	})
}

// sliceRow is x's part of the output range [lo, hi) when x has either n
// elements or one.
func sliceRow[T any](x []T, lo, hi, n int) []T {
	if len(x) == n {
		return x[lo:hi]
	}
	return x
}

func compareKernel(name string) Kernel {
	f32, f64 := compareRow[float32](name), compareRow[float64](name)
	i64, u8 := compareRow[int64](name), compareRow[uint8](name)
	if simd := simdCompareF32(name, f32); simd != nil {
		f32 = simd
	}
	return func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		if err := checkInputs(name, ins, 2); err != nil {
			return err
		}
		ct := tensor.ResultType(ins[0].Meta, ins[1].Meta)
		if isHalf(ct) {
			ct = tensor.Float32
		}
		a, b := castTo(ins[0], ct), castTo(ins[1], ct)
		o := out.U8()
		switch ct {
		case tensor.Float32:
			return runBinary(o, out.Shape, a.F32(), a.Shape, b.F32(), b.Shape, f32)
		case tensor.Float64:
			return runBinary(o, out.Shape, a.F64(), a.Shape, b.F64(), b.Shape, f64)
		case tensor.Int64:
			return runBinary(o, out.Shape, a.I64(), a.Shape, b.I64(), b.Shape, i64)
		case tensor.Uint8, tensor.Bool:
			return runBinary(o, out.Shape, a.U8(), a.Shape, b.U8(), b.Shape, u8)
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, ct)
	}
}

// compareRow picks the row function of a comparison for T.
func compareRow[T number](name string) func(o []uint8, a, b []T) error {
	switch name {
	case "eq":
		return eqRow[T]
	case "ne":
		return neRow[T]
	case "lt":
		return ltRow[T]
	case "le":
		return leRow[T]
	case "gt":
		return gtRow[T]
	case "ge":
		return geRow[T]
	}
	panic("cpu: unknown comparison " + name)
}

// whereKernel is where(cond, a, b): a where cond is true, else b. It
// selects on the elements' bits with a mask, which needs no branch on the
// (often unpredictable) condition.
func whereKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("where", ins, 3); err != nil {
		return err
	}
	ct := out.DType
	if isHalf(ct) {
		return viaFloat32(out, func(tmp *tensor.Dense) error { return whereKernel(tmp, ins, attrs) })
	}
	c := castTo(ins[0], tensor.Bool)
	a, b := castTo(ins[1], ct), castTo(ins[2], ct)
	switch ct.Size() {
	case 1:
		return runWhere(out.U8(), out.Shape, c, a.U8(), a.Shape, b.U8(), b.Shape, whereRow[uint8])
	case 4:
		return runWhere(bitsOf[uint32](out), out.Shape, c, bitsOf[uint32](a), a.Shape, bitsOf[uint32](b), b.Shape, whereRow32)
	case 8:
		return runWhere(bitsOf[uint64](out), out.Shape, c, bitsOf[uint64](a), a.Shape, bitsOf[uint64](b), b.Shape, whereRow[uint64])
	}
	return fmt.Errorf("where has no cpu kernel for %v", ct)
}

// bitsOf views d's buffer as unsigned words of its element size.
func bitsOf[U uint32 | uint64](d *tensor.Dense) []U {
	var z U
	n := len(d.Buf) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*U)(unsafe.Pointer(&d.Buf[0])), n)
}

// whereRow32 is where's row on 32-bit elements, vectorised where the CPU
// allows.
var whereRow32 = func() func(o []uint32, c []uint8, a, b []uint32) {
	if simd := simdWhereU32(whereRow[uint32]); simd != nil {
		return simd
	}
	return whereRow[uint32]
}()

func runWhere[U uint8 | uint32 | uint64](o []U, oShape tensor.Shape, cond *tensor.Dense, a []U, as tensor.Shape, b []U, bs tensor.Shape,
	row func(o []U, c []uint8, a, b []U)) error {
	n := len(o)
	if n == 0 {
		return nil
	}
	c := cond.U8()
	it := newBcastIter(oShape, cond.Shape, as, bs)
	return parallelFor(n, func(lo, hi int) error {
		it.rows(lo, hi, func(pos int, off *[maxInputs]int, m int) {
			row(o[pos:pos+m], rowOf(c, off[0], it.inner[0], m), rowOf(a, off[1], it.inner[1], m), rowOf(b, off[2], it.inner[2], m))
		})
		return nil
	})
}

func whereRow[U uint8 | uint32 | uint64](o []U, c []uint8, a, b []U) {
	sc, sa, sb := stride(c, o), stride(a, o), stride(b, o)
	if sc == 1 && sa == 1 && sb == 1 {
		c, a, b = c[:len(o)], a[:len(o)], b[:len(o)]
		for i := range o {
			mask := -U(b2u(c[i] != 0))
			o[i] = b[i] ^ ((a[i] ^ b[i]) & mask)
		}
		return
	}
	for i := range o {
		mask := -U(b2u(c[i*sc] != 0))
		x, y := a[i*sa], b[i*sb]
		o[i] = y ^ ((x ^ y) & mask)
	}
}
