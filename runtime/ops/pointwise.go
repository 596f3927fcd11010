package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The pointwise ops beyond the arithmetic set (elementwise.go), with
// torch 1.13's dtype rules:
//
//   - floor, ceil, round, trunc keep the dtype; on integers they copy
//     (round with decimals needs floats); bools are an error.
//   - sign keeps the dtype, bools included; sign(NaN) is 0 as in torch.
//   - erf computes in floating point: integers and bools give float32.
//   - the activations leaky_relu, elu, softplus, hardsigmoid, hardswish and
//     gelu_tanh need a float input (torch has no integer kernels for them).
//   - isnan and isinf give bools for every dtype (false for integers).
//   - nan_to_num keeps the dtype and copies integers.

// The pointwise ops.
var (
	Floor = Register(roundingDef("floor"))
	Ceil  = Register(roundingDef("ceil"))
	Trunc = Register(roundingDef("trunc"))
	// Round takes RoundAttrs.
	Round = Register(roundingDef("round"))
	Sign  = Register(&Def{Name: "sign", Infer: inferSame("sign"), Flops: perOutput, Inplace: []int{0}})
	// NanToNum takes NanToNumAttrs.
	NanToNum = Register(&Def{Name: "nan_to_num", Infer: inferSame("nan_to_num"), Flops: perOutput, Inplace: []int{0}})
	Erf      = Register(&Def{Name: "erf", Infer: inferUnary("erf", true), Flops: perOutput, Inplace: []int{0}})
	// LeakyRelu takes LeakyReluAttrs.
	LeakyRelu = Register(activationDef("leaky_relu"))
	// Elu takes EluAttrs.
	Elu = Register(activationDef("elu"))
	// Softplus takes SoftplusAttrs.
	Softplus    = Register(activationDef("softplus"))
	Hardsigmoid = Register(activationDef("hardsigmoid"))
	Hardswish   = Register(activationDef("hardswish"))
	GeluTanh    = Register(activationDef("gelu_tanh"))
	Isnan       = Register(isClassDef("isnan"))
	Isinf       = Register(isClassDef("isinf"))
)

// RoundingUnary keep the dtype and need a number (not bool).
var RoundingUnary = []Op{Floor, Ceil, Trunc}

// Activations are the float-only activations; their attributes are those
// named in each op's doc.
var Activations = []Op{LeakyRelu, Elu, Softplus, Hardsigmoid, Hardswish, GeluTanh}

// RoundAttrs are the attributes of "round": round half to even at
// Decimals decimal places (negative: to tens, hundreds...).
type RoundAttrs struct {
	Decimals int
}

// LeakyReluAttrs are the attributes of "leaky_relu": x where x > 0, else
// x * NegativeSlope.
type LeakyReluAttrs struct {
	NegativeSlope float64
}

// EluAttrs are the attributes of "elu": x where x > 0, else
// Alpha * (exp(x) - 1).
type EluAttrs struct {
	Alpha float64
}

// SoftplusAttrs are the attributes of "softplus": log(1 + exp(Beta x)) /
// Beta, and x itself where Beta x > Threshold.
type SoftplusAttrs struct {
	Beta, Threshold float64
}

// NanToNumAttrs are the attributes of "nan_to_num": NaN becomes Nan, +inf
// PosInf and -inf NegInf; without HasPosInf (HasNegInf) the largest
// (lowest) finite value of the dtype.
type NanToNumAttrs struct {
	Nan, PosInf, NegInf  float64
	HasPosInf, HasNegInf bool
}

func roundingDef(name string) *Def {
	return &Def{Name: name, Infer: inferRounding(name), Flops: perOutput, Inplace: []int{0}}
}

func activationDef(name string) *Def {
	return &Def{Name: name, Infer: inferActivation(name), Flops: perOutput, Inplace: []int{0}}
}

func isClassDef(name string) *Def {
	return &Def{Name: name, Infer: inferIsClass(name), Flops: perOutput, Inplace: []int{0}}
}

func inferSame(name string) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		return in[0], nil
	}
}

func inferRounding(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		x := in[0]
		if x.DType == tensor.Bool {
			return tensor.Meta{}, fmt.Errorf("%s is not supported on bool tensors; use astype first", name)
		}
		if a, ok := attrs.(RoundAttrs); ok && a.Decimals != 0 && !x.DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("round with decimals needs a float tensor (got %v)", x)
		}
		return x, nil
	}
}

func inferActivation(name string) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		if !in[0].DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("%s needs a float tensor; use astype(x, \"float32\") (got %v)", name, in[0])
		}
		return in[0], nil
	}
}

func inferIsClass(name string) InferFunc {
	return func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		return tensor.Meta{Shape: in[0].Shape, DType: tensor.Bool}, nil
	}
}
