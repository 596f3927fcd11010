package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
)

// The special functions of torch (torch.special's erfc, erfinv, gammaln,
// digamma and polygamma): ops of runtime/ops/special.go, with cpu and
// libtorch kernels and gradient rules of every order.

var specialDocs = map[ops.Op]string{
	ops.Erfc:    "erfc(input): 1 - erf(input), precise where erf is near 1 (integers give float32), as torch.erfc",
	ops.Erfinv:  "erfinv(input): the inverse of erf on [-1, 1], ±inf at ±1 and NaN outside (integers give float32); very near ±1 more precise than torch's, which is off there by up to 1e-4 relative, as torch.erfinv",
	ops.Lgamma:  "lgamma(input): log|Γ(input)|, +inf at 0, at the negative integers and at ±inf (integers give float32), as torch.lgamma",
	ops.Digamma: "digamma(input): Γ'(x)/Γ(x), the derivative of lgamma; -inf at +0, +inf at -0, NaN at the negative integers (integers give float32), as torch.digamma",
}

func init() {
	for op, doc := range specialDocs {
		register(op.Name(), doc, unaryBuiltin(op))
	}
	register("polygamma", "polygamma(n, input): the n-th derivative of digamma at input (n in [0, 170]; x.polygamma(n) is the method form, except on a 0-d integer x, which reads as polygamma(x, n); float32 is computed in float64: at the negative integers, poles, trigamma gives about 1e31 where torch gives about 1e16, and high orders keep values that torch's float32 zeta rounds to 0), as torch.polygamma", polygammaBuiltin)
}

func polygammaBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var first, second eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "n", &first, "input|x", &second); err != nil {
		return nil, err
	}
	n, ok := th.AsInt(first)
	if !ok {
		// x.polygamma(n): the tensor came first.
		if n, ok = th.AsInt(second); !ok {
			return nil, fmt.Errorf("%s: n must be an int, got %s", b.Name, eval.Describe(first))
		}
		first, second = second, first
	}
	x, ok := second.(eval.Tensor)
	if !ok {
		return nil, fmt.Errorf("%s: input must be a tensor, got %s", b.Name, eval.Describe(second))
	}
	if n < 0 || n > ops.PolygammaMaxOrder {
		return nil, fmt.Errorf("%s: n must be in [0, %d], got %d", b.Name, ops.PolygammaMaxOrder, n)
	}
	return th.Submit(ops.Polygamma, ops.PolygammaAttrs{N: n}, x.Ref)
}
