package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The bitwise builtins, as torch.bitwise_and, bitwise_or, bitwise_xor and
// bitwise_not: integer and bool tensors (runtime/ops/bitwise.go). other
// may be a number, which takes x's dtype (x an integer tensor).

func init() {
	docs := map[ops.Op]string{
		ops.BitwiseAnd: "bitwise_and(x, other): the bits set in both (logical and on bools), integer and bool tensors, broadcasting",
		ops.BitwiseOr:  "bitwise_or(x, other): the bits set in either (logical or on bools), integer and bool tensors, broadcasting",
		ops.BitwiseXor: "bitwise_xor(x, other): the bits set in one only (logical xor on bools), integer and bool tensors, broadcasting",
	}
	for op, doc := range docs {
		register(op.Name(), doc, bitwiseBuiltin(op))
	}
	register("bitwise_not", "bitwise_not(x): every bit flipped (logical not on bools), integer and bool tensors", unaryBuiltin(ops.BitwiseNot))
}

func bitwiseBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var other eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "other", &other); err != nil {
			return nil, err
		}
		if t, ok := other.(eval.Tensor); ok {
			return th.Submit(op, nil, x, t.Ref)
		}
		if x.DType() == tensor.Bool {
			return nil, fmt.Errorf("%s: other must be a tensor when x is a bool tensor, not %s", b.Name, eval.Describe(other))
		}
		s, err := scalarArg(th, b.Name, "other", other, x.DType())
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, s)
		return th.Submit(op, nil, x, s.(eval.Tensor).Ref)
	}
}
