package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Reductions of torch that are tref's reductions with torch's argument
// conventions: amax and amin (the values only, ties sharing the
// gradient), count_nonzero, and var_mean and std_mean (a positional
// record, so r[0], r[1] and destructuring work as on torch's tuple).
func init() {
	register("amax", "amax(input, dim=none, keepdim=false): the largest values over dim (an int or a list; every dimension when none or []), the gradient shared evenly among tied maxima, as torch.amax", extremeBuiltin(ops.Max))
	register("amin", "amin(input, dim=none, keepdim=false): the smallest values over dim (an int or a list; every dimension when none or []), the gradient shared evenly among tied minima, as torch.amin", extremeBuiltin(ops.Min))
	register("count_nonzero", "count_nonzero(input, dim=none): the int64 number of nonzero elements (NaN counts) over dim (an int or a list; every dimension when none), as torch.count_nonzero", countNonzeroBuiltin)
	register("var_mean", "var_mean(input, dim=none, correction=1, keepdim=false): {var, mean} over dim, var divided by n - correction (r[0], r[1] too), as torch.var_mean", momentMeanBuiltin(ops.Var))
	register("std_mean", "std_mean(input, dim=none, correction=1, keepdim=false): {std, mean} over dim, std the square root of var (r[0], r[1] too), as torch.std_mean", momentMeanBuiltin(ops.Std))
}

// extremeBuiltin is amax (op Max) or amin (op Min).
func extremeBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := eval.None
		keepdim := false
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "keepdim?", &keepdim); err != nil {
			return nil, err
		}
		dims, err := dimsArg(th, b.Name, dim, true)
		if err != nil {
			return nil, err
		}
		return named(b.Name)(th.Submit(op, ops.ReduceAttrs{Dims: dims, Keepdim: keepdim}, x))
	}
}

func countNonzeroBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dim, true)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	nonzero := c.Op(ops.LogicalNot, nil, c.Op(ops.LogicalNot, nil, x))
	return named(b.Name)(c.Result(c.Op(ops.Sum, ops.ReduceAttrs{Dims: dims}, nonzero)))
}

// momentMeanBuiltin is var_mean (op Var) or std_mean (op Std).
func momentMeanBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := eval.None
		keepdim := false
		correction := 1
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "correction|unbiased?", &correction, "keepdim?", &keepdim); err != nil {
			return nil, err
		}
		dims, err := dimsArg(th, b.Name, dim, true)
		if err != nil {
			return nil, err
		}
		attrs := ops.ReduceAttrs{Dims: dims, Keepdim: keepdim, Correction: correction}
		moment, err := th.Submit(op, attrs, x)
		if err != nil {
			return named(b.Name)(nil, err)
		}
		mean, err := th.Submit(ops.Mean, attrs, x)
		if err != nil {
			eval.Release(th.RT, moment)
			return named(b.Name)(nil, err)
		}
		return eval.NewResult([]string{op.Name(), "mean"}, []eval.Value{moment, mean}), nil
	}
}
