package stdlib

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
)

// The gradient goldens (testdata/golden/grad.json, gen_grad.py) call
// vjp_of_sum(name, w, args...; kwargs): the gradients of
// sum(name(args...; kwargs) * w) with respect to every float tensor among
// args, as a list, computed by grad; torch computes the same with
// autograd. A name "f.field" differentiates field of f's record result
// (max.values). The builtin exists only in this package's tests.
func init() {
	register("vjp_of_sum", "vjp_of_sum(name, w, args...): testing only", builtinVJPOfSum)
}

func builtinVJPOfSum(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	name, ok := args[0].(eval.String)
	if !ok || len(args) < 3 {
		return nil, fmt.Errorf("vjp_of_sum(name, w, args...)")
	}
	fname, field, _ := strings.Cut(string(name), ".")
	inner, ok := Universe()[fname]
	if !ok {
		return nil, fmt.Errorf("vjp_of_sum: no builtin %q", name)
	}
	w, ok := args[1].(eval.Tensor)
	if !ok {
		return nil, fmt.Errorf("vjp_of_sum: w must be a tensor")
	}
	rest := args[2:]
	var nums []int
	for i, a := range rest {
		if t, ok := a.(eval.Tensor); ok && t.Ref.DType().IsFloat() {
			nums = append(nums, i)
		}
	}
	f := eval.NewBound("f", func(th *eval.Thread, _, xs []eval.Value, _ []eval.Kwarg) (eval.Value, error) {
		out, err := eval.CallBuiltin(th, inner, xs, kwargs)
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, out)
		if r, isRecord := out.(*eval.Record); isRecord && field != "" {
			out, _ = r.Get(field)
		}
		ot, ok := out.(eval.Tensor)
		if !ok {
			return nil, fmt.Errorf("vjp_of_sum: %s gave %s", name, eval.Describe(out))
		}
		prod, err := th.Submit(ops.Mul, nil, ot.Ref, w.Ref)
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, prod)
		return th.Submit(ops.Sum, ops.ReduceAttrs{}, prod.(eval.Tensor).Ref)
	}, nil)
	defer eval.Release(th.RT, f)
	return gradCall(th, "grad", f, nums, false, false, rest, nil)
}
