package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// gcd, lcm, bitwise_left_shift and bitwise_right_shift: torch's integer
// ops (runtime/ops/intops.go) on integer tensors, computed in the
// promoted dtype's own width. Either operand may be an int, which takes
// the other's dtype (torch's gcd and lcm want two tensors).

func init() {
	docs := map[ops.Op]string{
		ops.Gcd:               "gcd(input, other): the greatest common divisor of |input| and |other| elementwise, gcd(0, 0) = 0; integer tensors only, broadcasting, either may be an int (which takes the tensor's dtype; torch wants tensors); the dtype's minimum is its own absolute value, as in torch's kernel (gcd(-128, 0) is -128 in int8); as torch.gcd (math.gcd is the gcd of two ints)",
		ops.Lcm:               "lcm(input, other): the least common multiple |input / gcd(input, other) · other| elementwise, 0 where either is 0, wrapping in the dtype as torch's does (int8 and int16 take the absolute value before they wrap: lcm(127, 2) is -2 in int8); integer tensors only, broadcasting, either may be an int (which takes the tensor's dtype; torch wants tensors); as torch.lcm",
		ops.BitwiseLeftShift:  "bitwise_left_shift(input, other): input shifted left by other bits, input·2^other wrapping in the dtype; integer tensors only, broadcasting, either may be an int (which takes the tensor's dtype); a shift that is negative or reaches the dtype's width gives 0, torch 2's definition (torch 1.13's cpu kernel leaves negative counts and counts past its C type's width to the hardware); as torch.bitwise_left_shift",
		ops.BitwiseRightShift: "bitwise_right_shift(input, other): input shifted right by other bits, arithmetic (the sign fills in) for signed dtypes; integer tensors only, broadcasting, either may be an int (which takes the tensor's dtype); a shift that is negative or reaches the dtype's width gives 0, or -1 for a negative input, torch 2's definition (torch 1.13's cpu kernel leaves negative counts and counts past its C type's width to the hardware); as torch.bitwise_right_shift",
	}
	for op, doc := range docs {
		register(op.Name(), doc, intBinaryBuiltin(op))
	}
}

func intBinaryBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, other eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &other); err != nil {
			return nil, err
		}
		xt, xok := x.(eval.Tensor)
		ot, ook := other.(eval.Tensor)
		switch {
		case xok && ook:
			return th.Submit(op, nil, xt.Ref, ot.Ref)
		case xok:
			s, err := intOperand(th, b.Name, "other", other, xt.Ref.DType())
			if err != nil {
				return nil, err
			}
			defer eval.Release(th.RT, s)
			return th.Submit(op, nil, xt.Ref, s.(eval.Tensor).Ref)
		case ook:
			s, err := intOperand(th, b.Name, "input", x, ot.Ref.DType())
			if err != nil {
				return nil, err
			}
			defer eval.Release(th.RT, s)
			return th.Submit(op, nil, s.(eval.Tensor).Ref, ot.Ref)
		}
		return nil, fmt.Errorf("%s: input or other must be a tensor, got %s and %s", b.Name, eval.Describe(x), eval.Describe(other))
	}
}

// intOperand is an int argument as an owned 0-d tensor of dtype dt (int64
// when dt is not an integer dtype, for the op to refuse).
func intOperand(th *eval.Thread, fname, param string, v eval.Value, dt tensor.DType) (eval.Value, error) {
	if _, ok := v.(eval.Int); !ok {
		return nil, fmt.Errorf("%s: %s must be an integer tensor or an int, not %s", fname, param, eval.Describe(v))
	}
	if !dt.IsInt() {
		dt = tensor.Int64
	}
	return scalarArg(th, fname, param, v, dt)
}
