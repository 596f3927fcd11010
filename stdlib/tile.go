package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Shape builtins of torch that are other builtins with torch's argument
// conventions: tile, swapaxes/swapdims and unflatten.
func init() {
	register("tile", "tile(input, dims): input repeated dims[i] times along dimension i; dims shorter than input's rank is padded with 1s on the left (also x.tile(2, 3)), as torch.tile", tileBuiltin)
	register("swapaxes", "swapaxes(input, axis0, axis1): transpose(input, axis0, axis1), as torch.swapaxes", swapBuiltin("axis"))
	register("swapdims", "swapdims(input, dim0, dim1): transpose(input, dim0, dim1), as torch.swapdims", swapBuiltin("dim"))
	register("unflatten", "unflatten(input, dim, sizes): dimension dim of input split into dimensions of the given sizes (one may be -1), as torch.unflatten", unflattenBuiltin)
}

func tileBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dims []int
	if err := unpackShaped(th, b.Name, "dims", args, kwargs, &x, &dims); err != nil {
		return nil, err
	}
	if pad := len(x.Shape()) - len(dims); pad > 0 {
		dims = slices.Concat(slices.Repeat([]int{1}, pad), dims)
	}
	sizes := make([]eval.Value, len(dims))
	for i, d := range dims {
		sizes[i] = eval.Int(d)
	}
	l := eval.NewList(sizes)
	defer eval.Release(th.RT, l)
	return builtinRepeat(th, b, []eval.Value{eval.Tensor{Ref: x}, l}, nil)
}

// swapBuiltin is transpose with torch's keywords prefix+"0" and
// prefix+"1".
func swapBuiltin(prefix string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var d0, d1 int
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, prefix+"0", &d0, prefix+"1", &d1); err != nil {
			return nil, err
		}
		return transpose(th, b.Name, x, d0, d1)
	}
}

func unflattenBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim int
	var sizes []int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "sizes", &sizes); err != nil {
		return nil, err
	}
	s := x.Shape()
	k, err := tensor.NormDim(dim, len(s))
	if err != nil || len(s) == 0 {
		return nil, fmt.Errorf("%s: dim %d is out of range for a tensor of shape %v", b.Name, dim, s)
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("%s: sizes must be a non-empty list", b.Name)
	}
	inner, err := inferSizes(b.Name, sizes, s[k])
	if err != nil {
		return nil, err
	}
	out := slices.Concat(s[:k], inner, s[k+1:])
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: out}, x)
}

// inferSizes resolves one -1 among sizes so that they multiply to n.
func inferSizes(fname string, ints []int, n int) (tensor.Shape, error) {
	sizes := tensor.Shape(ints) // printed as [2, -1]
	out := make(tensor.Shape, len(sizes))
	free, known := -1, 1
	for i, v := range sizes {
		switch {
		case v == -1 && free < 0:
			free = i
		case v < 0:
			return nil, fmt.Errorf("%s: sizes %v may hold one -1 and otherwise no negative size", fname, sizes)
		case v > 0 && known > math.MaxInt/v:
			return nil, fmt.Errorf("%s: sizes %v are too large", fname, sizes)
		default:
			known *= v
			out[i] = v
		}
	}
	if free >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("%s: sizes %v cannot split a dimension of size %d", fname, sizes, n)
		}
		out[free] = n / known
		known = n
	}
	if known != n {
		return nil, fmt.Errorf("%s: sizes %v multiply to %d, but the dimension has size %d", fname, sizes, known, n)
	}
	return out, nil
}
