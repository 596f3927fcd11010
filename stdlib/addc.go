package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's fused multiply-add and divide-add: input + value·(t1 ∘ t2),
// broadcasting the three tensors; gradients come from the ops.
func init() {
	register("addcmul", "addcmul(input, tensor1, tensor2, value=1): input + value * tensor1 * tensor2 (broadcasting), as torch.addcmul", addcBuiltin(ops.Mul))
	register("addcdiv", "addcdiv(input, tensor1, tensor2, value=1): input + value * tensor1 / tensor2 (broadcasting; tensor1 and tensor2 not both integers), as torch.addcdiv", addcBuiltin(ops.Div))
}

// addcBuiltin is addcmul (combine Mul) or addcdiv (combine Div).
func addcBuiltin(combine ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, t1, t2 *refs.Ref
		value := 1.0
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "tensor1", &t1, "tensor2", &t2, "value?", &value); err != nil {
			return nil, err
		}
		if combine == ops.Div && !t1.DType().IsFloat() && !t2.DType().IsFloat() {
			return nil, fmt.Errorf("%s: tensor1 and tensor2 are both %s/%s integers; torch refuses integer division here, convert one to a float dtype", b.Name, t1.DType(), t2.DType())
		}
		c := newChain(th)
		// torch's order: (value * tensor1) ∘ tensor2, then input + that.
		scaled := t1
		if value != 1 {
			dt := t1.DType()
			if !dt.IsFloat() && value != float64(int64(value)) {
				dt = tensor.Float32
			}
			scaled = c.Op(ops.Mul, nil, t1, c.scalar(value, dt))
		}
		return c.Result(c.Op(ops.Add, nil, x, c.Op(combine, nil, scaled, t2)))
	}
}
