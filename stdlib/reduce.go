package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Reduction builtins. dim= is an int, a list of ints or none (every
// dimension); keepdim= keeps reduced dimensions as size 1. Dtypes follow
// torch: sum and prod of integers and bools give int64, mean/var/std need
// floats, argmax/argmin give int64 indices, any/all give bools.

var reduceDocs = map[string]string{
	"sum":    "sum(x, dim=none, keepdim=false): sum over dim (every dimension when none)",
	"mean":   "mean(x, dim=none, keepdim=false): mean over dim (float tensors)",
	"prod":   "prod(x, dim=none, keepdim=false): product over dim",
	"max":    "max(x, dim=none, keepdim=false): largest value over dim (argmax gives its index)",
	"min":    "min(x, dim=none, keepdim=false): smallest value over dim (argmin gives its index)",
	"any":    "any(x, dim=none, keepdim=false): whether some element over dim is nonzero",
	"all":    "all(x, dim=none, keepdim=false): whether every element over dim is nonzero",
	"argmax": "argmax(x, dim=none, keepdim=false): index of the first largest value (of the flattened x when dim is none)",
	"argmin": "argmin(x, dim=none, keepdim=false): index of the first smallest value (of the flattened x when dim is none)",
	"var":    "var(x, dim=none, correction=1, keepdim=false): variance over dim, divided by n - correction",
	"std":    "std(x, dim=none, correction=1, keepdim=false): standard deviation over dim, sqrt(var)",
}

func init() {
	for name, doc := range reduceDocs {
		register(name, doc, reduceBuiltin(name))
	}
}

func reduceBuiltin(name string) eval.BuiltinFunc {
	moments := name == "var" || name == "std"
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		dim := eval.None
		keepdim := false
		correction := 1
		pairs := []any{"x", &x, "dim?", &dim}
		if moments {
			pairs = append(pairs, "correction?", &correction)
		}
		pairs = append(pairs, "keepdim?", &keepdim)
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		dims, err := dimsArg(th, b.Name, dim, name != "argmax" && name != "argmin")
		if err != nil {
			return nil, err
		}
		return th.Submit(name, ops.ReduceAttrs{Dims: dims, Keepdim: keepdim, Correction: correction}, x)
	}
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
