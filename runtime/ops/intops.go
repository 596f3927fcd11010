package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The integer ops of torch: gcd, lcm and the bit shifts, on integer
// tensors only (not bools: torch has no kernel for them), with NumPy
// broadcasting and PyTorch promotion, computed in the result's own width.
var (
	// Gcd is torch.gcd: Euclid's algorithm on |a| and |b|, gcd(0, 0) = 0.
	Gcd = Register(intBinaryDef("gcd"))
	// Lcm is torch.lcm: |a / gcd(a, b) * b|, 0 when either is 0.
	Lcm = Register(intBinaryDef("lcm"))
	// BitwiseLeftShift is torch.bitwise_left_shift: a·2^b, wrapping.
	BitwiseLeftShift = Register(intBinaryDef("bitwise_left_shift"))
	// BitwiseRightShift is torch.bitwise_right_shift: a shifted right by
	// b, arithmetic (the sign fills) for signed dtypes.
	BitwiseRightShift = Register(intBinaryDef("bitwise_right_shift"))
)

// IntBinary lists the integer ops.
var IntBinary = []Op{Gcd, Lcm, BitwiseLeftShift, BitwiseRightShift}

func intBinaryDef(name string) *Def {
	return &Def{Name: name, Infer: inferIntBinary(name), Flops: perOutput, Inplace: []int{0, 1}}
}

func inferIntBinary(name string) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 2); err != nil {
			return tensor.Meta{}, err
		}
		if !in[0].DType.IsInt() || !in[1].DType.IsInt() {
			return tensor.Meta{}, fmt.Errorf("%s takes integer tensors, got %v and %v", name, in[0].DType, in[1].DType)
		}
		shape, err := BroadcastShapes(in[0].Shape, in[1].Shape)
		if err != nil {
			return tensor.Meta{}, err
		}
		return tensor.Meta{Shape: shape, DType: tensor.ResultType(in[0], in[1])}, nil
	}
}

func init() {
	defineGrads(notDifferentiable("gcd, lcm and the shifts take integer tensors", IntBinary...))
}
