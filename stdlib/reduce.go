package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Reduction builtins. dim= is an int, a list of ints or none (every
// dimension); keepdim= keeps reduced dimensions as size 1. Dtypes follow
// torch: sum and prod of integers and bools give int64, mean/var/std need
// floats, argmax/argmin give int64 indices, any/all give bools.

var reduceDocs = map[ops.Op]string{
	ops.Sum:    "sum(x, dim=none, keepdim=false, dtype=none): sum over dim (every dimension when none); with dtype, of x converted to dtype first, the result in dtype (as torch)",
	ops.Mean:   "mean(x, dim=none, keepdim=false, dtype=none): mean over dim (float tensors; with dtype, a float dtype, of x converted to it first)",
	ops.Prod:   "prod(x, dim=none, keepdim=false, dtype=none): product over dim; with dtype, of x converted to dtype first, the result in dtype",
	ops.Max:    "max(x, dim=none, keepdim=false): the largest value; with an int dim, {values, indices} over dim (r[0], r[1] too) as torch.max; with a list of dims, the values (torch.amax); max(a, b) of two tensors is maximum(a, b)",
	ops.Min:    "min(x, dim=none, keepdim=false): the smallest value; with an int dim, {values, indices} over dim (r[0], r[1] too) as torch.min; with a list of dims, the values (torch.amin); min(a, b) of two tensors is minimum(a, b)",
	ops.Any:    "any(x, dim=none, keepdim=false): whether some element over dim is nonzero",
	ops.All:    "all(x, dim=none, keepdim=false): whether every element over dim is nonzero",
	ops.Argmax: "argmax(x, dim=none, keepdim=false): index of the first largest value (of the flattened x when dim is none)",
	ops.Argmin: "argmin(x, dim=none, keepdim=false): index of the first smallest value (of the flattened x when dim is none)",
	ops.Var:    "var(x, dim=none, correction=1, keepdim=false): variance over dim, divided by n - correction",
	ops.Std:    "std(x, dim=none, correction=1, keepdim=false): standard deviation over dim, sqrt(var)",
}

func init() {
	for op, doc := range reduceDocs {
		register(op.Name(), doc+pythonDocs[op], reduceBuiltin(op))
	}
}

func reduceBuiltin(op ops.Op) eval.BuiltinFunc {
	moments := op == ops.Var || op == ops.Std
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		if v, handled, err := pythonReduce(th, b, op, args, kwargs); handled {
			return v, err
		}
		var x *refs.Ref
		dim := eval.None
		keepdim := false
		correction := 1
		pairs := []any{"x|input", &x, "dim?", &dim}
		if moments {
			pairs = append(pairs, "correction|unbiased?", &correction)
		}
		pairs = append(pairs, "keepdim?", &keepdim)
		dtv := eval.Value(eval.None)
		takesDType := op == ops.Sum || op == ops.Mean || op == ops.Prod
		if takesDType {
			pairs = append(pairs, "dtype?", &dtv)
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		if takesDType {
			cx, dt, done, err := dtypeInput(th, b.Name, x, dtv, op == ops.Mean)
			if err != nil {
				return nil, err
			}
			defer done()
			x = cx
			if dt != tensor.Invalid && !dt.IsFloat() && dt != tensor.Int64 {
				// torch accumulates in dtype: the int64 result wrapped to it
				r, err := reduceSubmit(th, b.Name, op, dim, keepdim, correction, x)
				if err != nil {
					return nil, err
				}
				defer eval.Release(th.RT, r)
				return asDType(th, r.(eval.Tensor).Ref, dt)
			}
		}
		return reduceSubmit(th, b.Name, op, dim, keepdim, correction, x)
	}
}

// dtypeInput is x converted to the dtype= argument dtv, as torch converts
// a reduction's or softmax's input first (x itself when dtv is none), the
// dtype (Invalid for none), and what releases the conversion once the
// caller is done with it. floatOnly refuses the integer dtypes (mean,
// softmax).
func dtypeInput(th *eval.Thread, fname string, x *refs.Ref, dtv eval.Value, floatOnly bool) (*refs.Ref, tensor.DType, func(), error) {
	none := func() {}
	dt, set, err := optDType(fname, dtv)
	if err != nil || !set {
		return x, tensor.Invalid, none, err
	}
	if floatOnly && !dt.IsFloat() {
		return nil, dt, none, fmt.Errorf("%s: dtype must be a floating-point dtype, got %s", fname, dt)
	}
	v, err := asDType(th, x, dt)
	if err != nil {
		return nil, dt, none, err
	}
	return v.(eval.Tensor).Ref, dt, func() { eval.Release(th.RT, v) }, nil
}

// reduceSubmit is reduceBuiltin's work once its arguments are read.
func reduceSubmit(th *eval.Thread, fname string, op ops.Op, dim eval.Value, keepdim bool, correction int, x *refs.Ref) (eval.Value, error) {
	if t, ok := dim.(eval.Tensor); ok && (op == ops.Max || op == ops.Min) && (len(t.Ref.Shape()) > 0 || t.Ref.DType().IsFloat()) {
		// torch.max(a, b) with a tensor b is maximum(a, b).
		if keepdim {
			return nil, fmt.Errorf("%s(a, b) of two tensors takes no keepdim", fname)
		}
		if op == ops.Max {
			return th.Submit(ops.Maximum, nil, x, t.Ref)
		}
		return th.Submit(ops.Minimum, nil, x, t.Ref)
	}
	dims, err := dimsArg(th, fname, dim, op != ops.Argmax && op != ops.Argmin)
	if err != nil {
		return nil, err
	}
	attrs := ops.ReduceAttrs{Dims: dims, Keepdim: keepdim, Correction: correction}
	if (op == ops.Max || op == ops.Min) && isInt(th, dim) {
		arg := ops.Argmax
		if op == ops.Min {
			arg = ops.Argmin
		}
		return valuesIndices(th, op, arg, attrs, x)
	}
	return th.Submit(op, attrs, x)
}

// isInt says whether a dim= argument is one int (not a list or none).
func isInt(th *eval.Thread, v eval.Value) bool {
	_, ok := th.AsInt(v)
	return ok
}

// valuesIndices is the {values, indices} result of torch.max(x, dim) and
// its kin: argOp gives the indices and the values are gathered at them,
// so that the gradient goes to the returned index as in torch (op, amax
// or amin, would share it among ties); a 0-d x takes op. It is a
// positional record, so r[0] and r[1] work as in torch.
func valuesIndices(th *eval.Thread, op, argOp ops.Op, attrs ops.ReduceAttrs, x *refs.Ref) (eval.Value, error) {
	src := x
	if x.DType() == tensor.Bool {
		// torch.max(x, dim) takes bools, torch.argmax does not: the
		// indices are those of the values as 0 and 1.
		b, err := th.Submit(ops.Astype, ops.CastAttrs{To: tensor.Uint8}, x)
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, b)
		src = b.(eval.Tensor).Ref
	}
	idx, err := th.Submit(argOp, attrs, src)
	if err != nil {
		return nil, err
	}
	vals, err := gatherValues(th, op, attrs, x, idx.(eval.Tensor).Ref)
	if err != nil {
		eval.Release(th.RT, idx)
		return nil, err
	}
	return eval.NewResult([]string{"values", "indices"}, []eval.Value{vals, idx}), nil
}

// gatherValues takes the elements of x at idx, the indices argmax or argmin
// gave over attrs' one dimension.
func gatherValues(th *eval.Thread, op ops.Op, attrs ops.ReduceAttrs, x, idx *refs.Ref) (eval.Value, error) {
	if len(x.Shape()) == 0 {
		return th.Submit(op, attrs, x)
	}
	dim, err := tensor.NormDim(attrs.Dims[0], len(x.Shape()))
	if err != nil {
		return nil, err
	}
	kept := ops.ReduceShape(x.Shape(), []int{dim}, true)
	at, err := th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: kept}, idx)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, at)
	vals, err := th.Submit(ops.Gather, ops.DimAttrs{Dim: dim}, x, at.(eval.Tensor).Ref)
	if err != nil || attrs.Keepdim {
		return vals, err
	}
	defer eval.Release(th.RT, vals)
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: idx.Shape()}, vals.(eval.Tensor).Ref)
}

// dimsArg reads a dim= argument: none (nil: every dimension), an int, or
// a list of ints when list is allowed.
func dimsArg(th *eval.Thread, fname string, v eval.Value, list bool) ([]int, error) {
	if _, none := v.(eval.NoneType); none {
		return nil, nil
	}
	if n, ok := th.AsInt(v); ok {
		return []int{n}, nil
	}
	if l, ok := v.(*eval.List); ok && list {
		dims := make([]int, len(l.Elems))
		for i, e := range l.Elems {
			n, ok := th.AsInt(e)
			if !ok {
				return nil, fmt.Errorf("%s: element %d of \"dim\" must be an int, not %s", fname, i, eval.Describe(e))
			}
			dims[i] = n
		}
		if len(dims) == 0 {
			return nil, nil
		}
		return dims, nil
	}
	want := "an int, a list of ints or none"
	if !list {
		want = "an int or none"
	}
	return nil, fmt.Errorf("%s: argument \"dim\" must be %s, not %s", fname, want, eval.Describe(v))
}
