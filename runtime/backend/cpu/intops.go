package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the integer ops of runtime/ops/intops.go (gcd, lcm and the
// shifts), computed in the result's own width: the minimum's absolute
// value wraps to itself and products wrap, as in torch's kernels, which
// widening to int64 would not reproduce.

func init() {
	for _, op := range ops.IntBinary {
		narrowExempt[op] = true
		Register(op, intBinaryKernel(op.Name()))
	}
}

// gcdOf is torch's calc_gcd: Euclid's algorithm on |a| and |b| in T, so
// that gcd(MinInt, 0) is MinInt and gcd(MinInt, 6) is -2, as torch gives.
func gcdOf[T integer](a, b T) T {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for a != 0 {
		a, b = b%a, a
	}
	return b
}

// lcmOf is torch's |a / gcd(a, b) * b| (0 when the gcd is 0). C computes
// int8 and int16 operands in int and truncates the absolute value back
// (lcm(127, 2) is -2 in int8), which promote asks for; wider ones wrap in
// their own width.
func lcmOf[T integer](a, b T, promote bool) T {
	g := gcdOf(a, b)
	if g == 0 {
		return 0
	}
	if promote {
		v := int64(a) / int64(g) * int64(b)
		if v < 0 {
			v = -v
		}
		return T(v)
	}
	v := a / g * b
	if v < 0 {
		v = -v
	}
	return v
}

// shiftLeft is a << b, 0 for b negative or past the width (torch 2's
// definition; Go's << gives 0 past the width).
func shiftLeft[T integer](a, b T) T {
	if b < 0 {
		return 0
	}
	return a << b
}

// shiftRight is a >> b, arithmetic for signed T; b negative or past the
// width leaves the sign alone (torch 2's definition; Go's >> does that
// past the width).
func shiftRight[T integer](a, b T) T {
	if b < 0 {
		if a < 0 {
			return ^T(0)
		}
		return 0
	}
	return a >> b
}

// intBinaryRow is the row function of an integer op for T.
func intBinaryRow[T integer](name string, promote bool) func(o, a, b []T) error {
	var f func(x, y T) T
	switch name {
	case "gcd":
		f = gcdOf[T]
	case "lcm":
		f = func(x, y T) T { return lcmOf(x, y, promote) }
	case "bitwise_left_shift":
		f = shiftLeft[T]
	default:
		f = shiftRight[T]
	}
	return func(o, a, b []T) error {
		sa, sb := stride(a, o), stride(b, o)
		for i := range o {
			o[i] = f(a[i*sa], b[i*sb])
		}
		return nil
	}
}

func intBinaryT[T integer](name string, out, a, b *tensor.Dense, view func(*tensor.Dense) []T) error {
	promote := out.DType == tensor.Int8 || out.DType == tensor.Int16
	return runBinary(view(out), out.Shape, view(a), a.Shape, view(b), b.Shape, intBinaryRow[T](name, promote))
}

func intBinaryKernel(name string) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		if err := checkInputs(name, ins, 2); err != nil {
			return err
		}
		a, b := castTo(ins[0], out.DType), castTo(ins[1], out.DType)
		switch out.DType {
		case tensor.Uint8:
			return intBinaryT(name, out, a, b, (*tensor.Dense).U8)
		case tensor.Int8:
			return intBinaryT(name, out, a, b, (*tensor.Dense).I8)
		case tensor.Int16:
			return intBinaryT(name, out, a, b, (*tensor.Dense).I16)
		case tensor.Int32:
			return intBinaryT(name, out, a, b, (*tensor.Dense).I32)
		case tensor.Int64:
			return intBinaryT(name, out, a, b, (*tensor.Dense).I64)
		case tensor.Uint16:
			return intBinaryT(name, out, a, b, (*tensor.Dense).U16)
		case tensor.Uint32:
			return intBinaryT(name, out, a, b, (*tensor.Dense).U32)
		case tensor.Uint64:
			return intBinaryT(name, out, a, b, (*tensor.Dense).U64)
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
	}
}
