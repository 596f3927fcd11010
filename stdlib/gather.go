package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Gather/scatter builtins with torch's argument orders: gather(x, dim,
// index), scatter(x, dim, index, src), scatter_add, index_select(x, dim,
// index), masked_fill(x, mask, value), one_hot(x, num_classes=-1). The
// ops' semantics are documented in runtime/ops/gather.go.

func init() {
	register("gather", "gather(x, dim, index): out[i][j] = x[i][index[i][j]] for dim 1 (torch.gather); the result has index's shape", gatherBuiltin)
	register("scatter", "scatter(x, dim, index, src=none, value=none): x with src's elements (or the number value) written where index says along dim (torch.scatter; the last of repeated indices wins)", scatterBuiltin("scatter"))
	register("scatter_add", "scatter_add(x, dim, index, src): x with src's elements added where index says along dim (torch.scatter_add)", scatterBuiltin("scatter_add"))
	register("scatter_reduce", `scatter_reduce(x, dim, index, src, reduce, include_self=true): x with src's elements combined where index says along dim by reduce ("sum", "prod", "mean", "amax" or "amin"; x's own element too unless include_self is false) (torch.scatter_reduce)`, scatterReduceBuiltin)
	register("index_select", "index_select(x, dim, index): the slices of x along dim that the 1-d int64 index names, in its order", indexSelectBuiltin)
	register("masked_fill", "masked_fill(x, mask, value): x with value where the bool mask (broadcast to x's shape) is true, in x's dtype", maskedFillBuiltin)
	register("one_hot", "one_hot(x, num_classes=-1): int64 class indices as one-hot int64 vectors in a new last dimension; -1 takes max(x) + 1 classes", oneHotBuiltin)
}

func gatherBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index *refs.Ref
	var dim int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim", &dim, "index", &index); err != nil {
		return nil, err
	}
	return th.Submit(ops.Gather, ops.DimAttrs{Dim: dim}, x, index)
}

func indexSelectBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index *refs.Ref
	var dim int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim", &dim, "index", &index); err != nil {
		return nil, err
	}
	return th.Submit(ops.IndexSelect, ops.DimAttrs{Dim: dim}, x, index)
}

// asDType returns r as an owned value of dtype dt (r itself, retained,
// when it already has it).
func asDType(th *eval.Thread, r *refs.Ref, dt tensor.DType) (eval.Value, error) {
	if r.DType() == dt {
		th.RT.Retain(r)
		return eval.Tensor{Ref: r}, nil
	}
	return th.Submit(ops.Astype, ops.CastAttrs{To: dt}, r)
}

// scalarArg reads a number or 0-d tensor argument as an owned 0-d tensor
// of dtype dt (torch converts such values to the input's dtype).
func scalarArg(th *eval.Thread, fname, param string, v eval.Value, dt tensor.DType) (eval.Value, error) {
	r, err := th.ToRef(v)
	if err != nil || len(r.Shape()) != 0 {
		return nil, fmt.Errorf("%s: argument %q must be a number or a 0-d tensor, not %s", fname, param, eval.Describe(v))
	}
	return asDType(th, r, dt)
}

func scatterBuiltin(name string) eval.BuiltinFunc {
	op := ops.Scatter
	if name == "scatter_add" {
		op = ops.ScatterAdd
	}
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, index *refs.Ref
		var dim int
		src, value := eval.None, eval.None
		pairs := []any{"x|input", &x, "dim", &dim, "index", &index, "src", &src}
		if name == "scatter" {
			pairs[len(pairs)-2] = "src?"
			pairs = append(pairs, "value?", &value)
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		_, noSrc := src.(eval.NoneType)
		_, noValue := value.(eval.NoneType)
		var s eval.Value
		var err error
		switch {
		case noSrc == noValue:
			return nil, fmt.Errorf("%s: give one of src (a tensor) and value (a number)", b.Name)
		case !noValue:
			s, err = scalarArg(th, b.Name, "value", value, x.DType())
		default:
			if t, ok := src.(eval.Tensor); ok {
				// A tensor src keeps its dtype, which must be x's.
				th.RT.Retain(t.Ref)
				s = t
			} else {
				// A number is the value form (torch.scatter(x, d, i, 1.5)).
				s, err = scalarArg(th, b.Name, "src", src, x.DType())
			}
		}
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, s)
		return th.Submit(op, ops.DimAttrs{Dim: dim}, x, index, s.(eval.Tensor).Ref)
	}
}

func maskedFillBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, mask *refs.Ref
	var value eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "mask", &mask, "value", &value); err != nil {
		return nil, err
	}
	if mask.DType() != tensor.Bool {
		return nil, fmt.Errorf("%s: the mask must be a bool tensor, got %v", b.Name, mask.Meta())
	}
	if s, err := ops.BroadcastShapes(mask.Shape(), x.Shape()); err != nil || !s.Equal(x.Shape()) {
		return nil, fmt.Errorf("%s: a mask of shape %v does not broadcast to the input's shape %v", b.Name, mask.Shape(), x.Shape())
	}
	v, err := scalarArg(th, b.Name, "value", value, x.DType())
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, v)
	return th.Submit(ops.Where, nil, mask, v.(eval.Tensor).Ref, x)
}

func oneHotBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	n := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input|tensor", &x, "num_classes?", &n); err != nil {
		return nil, err
	}
	if x.DType() != tensor.Int64 {
		return nil, fmt.Errorf("%s needs an int64 tensor of class indices, got %v", b.Name, x.Meta())
	}
	if n == -1 {
		// torch counts max(x) + 1 classes, which needs x's values now.
		if x.Shape().Numel() == 0 {
			return nil, fmt.Errorf("%s: cannot infer the number of classes of an empty tensor; give num_classes", b.Name)
		}
		m, err := th.Submit(ops.Max, ops.ReduceAttrs{}, x)
		if err != nil {
			return nil, err
		}
		d, err := th.RT.Read(m.(eval.Tensor).Ref)
		if err != nil {
			eval.Release(th.RT, m)
			return nil, err
		}
		n = max(int(d.I64()[0])+1, 0)
		eval.Release(th.RT, m)
	}
	return th.Submit(ops.OneHot, ops.OneHotAttrs{NumClasses: n}, x)
}

func scatterReduceBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index, src *refs.Ref
	var dim int
	var reduce string
	includeSelf := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim", &dim, "index", &index, "src", &src, "reduce", &reduce, "include_self?", &includeSelf); err != nil {
		return nil, err
	}
	return th.Submit(ops.ScatterReduce, ops.ScatterReduceAttrs{Dim: dim, Reduce: reduce, IncludeSelf: includeSelf}, x, index, src)
}
