package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The bitwise ops, as torch 1.13 (and ONNX's BitwiseAnd, BitwiseOr,
// BitwiseXor, BitwiseNot): on integer and bool tensors only, the binary
// ones with NumPy broadcasting and PyTorch promotion; on bools they are
// the logical and, or, xor and not.
var (
	BitwiseAnd = Register(bitwiseDef("bitwise_and"))
	BitwiseOr  = Register(bitwiseDef("bitwise_or"))
	BitwiseXor = Register(bitwiseDef("bitwise_xor"))
	BitwiseNot = Register(&Def{Name: "bitwise_not", Infer: inferBitwiseNot, Flops: perOutput, Inplace: []int{0}})
)

// BitwiseBinary lists the binary bitwise ops.
var BitwiseBinary = []Op{BitwiseAnd, BitwiseOr, BitwiseXor}

func bitwiseDef(name string) *Def {
	return &Def{Name: name, Infer: inferBitwise(name), Flops: perOutput, Inplace: []int{0, 1}}
}

func wantIntegral(name string, m tensor.Meta) error {
	if m.DType.IsFloat() {
		return fmt.Errorf("%s is not supported on %v tensors (integers and bools only)", name, m.DType)
	}
	return nil
}

func inferBitwise(name string) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 2); err != nil {
			return tensor.Meta{}, err
		}
		for _, m := range in {
			if err := wantIntegral(name, m); err != nil {
				return tensor.Meta{}, err
			}
		}
		shape, err := BroadcastShapes(in[0].Shape, in[1].Shape)
		if err != nil {
			return tensor.Meta{}, err
		}
		return tensor.Meta{Shape: shape, DType: tensor.ResultType(in[0], in[1])}, nil
	}
}

func inferBitwiseNot(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("bitwise_not", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	return in[0], wantIntegral("bitwise_not", in[0])
}

func init() {
	defineGrads(notDifferentiable("bitwise ops take integer and bool tensors", append(BitwiseBinary, BitwiseNot)...))
}
