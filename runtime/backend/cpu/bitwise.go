package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the bitwise ops of runtime/ops/bitwise.go, on each integer
// dtype's own width; bools are 0/1 bytes, so and, or and xor of bytes are
// their logical forms and not is x ^ 1.

func init() {
	for _, op := range ops.BitwiseBinary {
		Register(op, bitwiseKernel(op.Name()))
	}
	Register(ops.BitwiseNot, bitwiseNotKernel)
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// bitwiseRow is the row function of a binary bitwise op.
func bitwiseRow[T integer](name string) func(o, a, b []T) error {
	var f func(x, y T) T
	switch name {
	case "bitwise_and":
		f = func(x, y T) T { return x & y }
	case "bitwise_or":
		f = func(x, y T) T { return x | y }
	default:
		f = func(x, y T) T { return x ^ y }
	}
	return func(o, a, b []T) error {
		sa, sb := stride(a, o), stride(b, o)
		for i := range o {
			o[i] = f(a[i*sa], b[i*sb])
		}
		return nil
	}
}

func bitwiseT[T integer](name string, out, a, b *tensor.Dense, view func(*tensor.Dense) []T) error {
	return runBinary(view(out), out.Shape, view(a), a.Shape, view(b), b.Shape, bitwiseRow[T](name))
}

func bitwiseKernel(name string) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		if err := checkInputs(name, ins, 2); err != nil {
			return err
		}
		a, b := castTo(ins[0], out.DType), castTo(ins[1], out.DType)
		switch out.DType {
		case tensor.Bool, tensor.Uint8:
			return bitwiseT(name, out, a, b, (*tensor.Dense).U8)
		case tensor.Int8:
			return bitwiseT(name, out, a, b, (*tensor.Dense).I8)
		case tensor.Int16:
			return bitwiseT(name, out, a, b, (*tensor.Dense).I16)
		case tensor.Int32:
			return bitwiseT(name, out, a, b, (*tensor.Dense).I32)
		case tensor.Int64:
			return bitwiseT(name, out, a, b, (*tensor.Dense).I64)
		case tensor.Uint16:
			return bitwiseT(name, out, a, b, (*tensor.Dense).U16)
		case tensor.Uint32:
			return bitwiseT(name, out, a, b, (*tensor.Dense).U32)
		case tensor.Uint64:
			return bitwiseT(name, out, a, b, (*tensor.Dense).U64)
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
	}
}

func notT[T integer](out, x []T, mask T) error {
	return runUnary(out, x, func(o, a []T) {
		a = a[:len(o)]
		for i, v := range a {
			o[i] = v ^ mask
		}
	})
}

func bitwiseNotKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("bitwise_not", ins, 1); err != nil {
		return err
	}
	x := ins[0]
	switch out.DType {
	case tensor.Bool:
		return notT(out.U8(), x.U8(), 1)
	case tensor.Uint8:
		return notT(out.U8(), x.U8(), 0xff)
	case tensor.Int8:
		return notT(out.I8(), x.I8(), -1)
	case tensor.Int16:
		return notT(out.I16(), x.I16(), -1)
	case tensor.Int32:
		return notT(out.I32(), x.I32(), -1)
	case tensor.Int64:
		return notT(out.I64(), x.I64(), -1)
	case tensor.Uint16:
		return notT(out.U16(), x.U16(), 0xffff)
	case tensor.Uint32:
		return notT(out.U32(), x.U32(), 0xffffffff)
	case tensor.Uint64:
		return notT(out.U64(), x.U64(), 0xffffffffffffffff)
	}
	return fmt.Errorf("bitwise_not has no cpu kernel for %v", out.DType)
}
