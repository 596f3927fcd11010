package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

func init() {
	register("weight_norm", "weight_norm(v, g, dim=0): v·(g / ‖v‖), the 2-norm taken over every dimension of v but dim (over all of them with dim=none or -1, as torch's), as torch._weight_norm: the weight torch.nn.utils.weight_norm's module computes from its weight_v and weight_g (g has v's rank, size 1 but along dim)", weightNormBuiltin)
}

func weightNormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var v, g *refs.Ref
	var dim eval.OptInt
	dim.Set, dim.V = true, 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "v", &v, "g", &g, "dim?", &dim); err != nil {
		return nil, err
	}
	vs := v.Shape()
	if !v.DType().IsFloat() || g.DType() != v.DType() {
		return nil, fmt.Errorf("%s: v and g must be float tensors of one dtype, got %s and %s", b.Name, v.DType(), g.DType())
	}
	var over []int
	if dim.Set && dim.V != -1 { // torch's -1 is every dimension, as none
		d := dim.V
		if d < -len(vs) || d >= len(vs) {
			return nil, fmt.Errorf("%s: dim %d is out of range for v of %d dimensions", b.Name, d, len(vs))
		}
		if d < 0 {
			d += len(vs)
		}
		for i := range vs {
			if i != d {
				over = append(over, i)
			}
		}
	} else {
		for i := range vs {
			over = append(over, i)
		}
	}
	c := newChain(th)
	var norm *refs.Ref
	if len(over) == 0 { // a 1-d v along its own dim: each element's norm
		norm = c.Op(ops.Abs, nil, v)
	} else {
		norm = c.Op(ops.Norm, ops.VectorNormAttrs{P: 2, Dims: over, Keepdim: true}, v)
	}
	return c.Result(c.Op(ops.Mul, nil, v, c.Op(ops.Div, nil, g, norm)))
}
