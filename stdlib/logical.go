package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// The elementwise logical functions of torch: each input counts as true
// where it is nonzero (NaN included), the result is a bool tensor of the
// broadcast shape, and nothing is differentiated.
func init() {
	register("logical_and", "logical_and(input, other): true where both input and other are nonzero (broadcasting; any dtypes; a bool result), as torch.logical_and", logicalBuiltin(logicalAnd))
	register("logical_or", "logical_or(input, other): true where input or other is nonzero (broadcasting; any dtypes; a bool result), as torch.logical_or", logicalBuiltin(logicalOr))
	register("logical_xor", "logical_xor(input, other): true where exactly one of input and other is nonzero (broadcasting; any dtypes; a bool result), as torch.logical_xor", logicalBuiltin(logicalXor))
}

// logicalBuiltin is a binary logical function given the negations
// (logical_not) of its two inputs.
func logicalBuiltin(f func(c *chain, notA, notB *refs.Ref) *refs.Ref) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, y *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y); err != nil {
			return nil, err
		}
		c := newChain(th)
		return c.Result(f(c, c.Op(ops.LogicalNot, nil, x), c.Op(ops.LogicalNot, nil, y)))
	}
}

// logicalAnd is a ∧ b = ¬(¬a ∨ ¬b).
func logicalAnd(c *chain, notA, notB *refs.Ref) *refs.Ref {
	return c.Op(ops.LogicalNot, nil, c.Op(ops.BitwiseOr, nil, notA, notB))
}

// logicalOr is a ∨ b = ¬(¬a ∧ ¬b).
func logicalOr(c *chain, notA, notB *refs.Ref) *refs.Ref {
	return c.Op(ops.LogicalNot, nil, c.Op(ops.BitwiseAnd, nil, notA, notB))
}

// logicalXor is a ⊕ b = ¬a ⊕ ¬b.
func logicalXor(c *chain, notA, notB *refs.Ref) *refs.Ref {
	return c.Op(ops.BitwiseXor, nil, notA, notB)
}
