package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// torch's *_as methods: input given the shape or the dtype of another
// tensor (x.expand_as(y) is expand_as(x, y)).
func init() {
	register("expand_as", "expand_as(input, other): input broadcast to other's shape, as torch's Tensor.expand_as", likeBuiltin(func(c *chain, x, other *refs.Ref) *refs.Ref {
		return c.Op(ops.Expand, ops.ExpandAttrs{Shape: other.Shape()}, x)
	}))
	register("view_as", "view_as(input, other): input's elements in other's shape (reshape), as torch's Tensor.view_as", likeBuiltin(reshapeLike))
	register("reshape_as", "reshape_as(input, other): input's elements in other's shape, as torch's Tensor.reshape_as", likeBuiltin(reshapeLike))
	register("type_as", "type_as(input, other): input converted to other's dtype, as torch's Tensor.type_as", likeBuiltin(func(c *chain, x, other *refs.Ref) *refs.Ref {
		return c.Cast(x, other.DType())
	}))
}

// reshapeLike gives x other's shape.
func reshapeLike(c *chain, x, other *refs.Ref) *refs.Ref {
	return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: other.Shape()}, x)
}

// likeBuiltin is a builtin f(input, other) of two tensors computed by f.
func likeBuiltin(f func(c *chain, x, other *refs.Ref) *refs.Ref) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, other *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &other); err != nil {
			return nil, err
		}
		c := newChain(th)
		return named(b.Name)(c.Result(f(c, x, other)))
	}
}
