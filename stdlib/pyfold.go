package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
)

// Python's sum, min, max, any and all, for code ported from Python:
// sum(losses), max(best, acc), min(xs, key=f), all([n > 0 for n in ns]).
// They answer only calls torch's reductions would not accept: an iterable
// (a list, a range; a string for min and max) in place of the tensor, or
// min and max of two or more values none of which is a tensor. The values
// combine with the script's own operators (+, <, >), so tensors among them
// sum as a + b does, gradients included.

// pythonDocs is what each reduction's reference adds for its Python form.
var pythonDocs = map[ops.Op]string{
	ops.Sum: "; sum(iterable, start=0) of a list or range is Python's: start + e0 + e1 + ... with the script's +",
	ops.Max: "; max(a, b, ...) of values none of which is a tensor, and max(iterable, key=none, default=) of a list, range or string, are Python's (the first largest, compared with >)",
	ops.Min: "; min(a, b, ...) of values none of which is a tensor, and min(iterable, key=none, default=) of a list, range or string, are Python's (the first smallest, compared with <)",
	ops.Any: "; any(iterable) of a list or range is Python's: whether some element is true",
	ops.All: "; all(iterable) of a list or range is Python's: whether every element is true",
}

// pythonReduce runs the Python form of op's builtin when the call is one
// (handled is then true).
func pythonReduce(th *eval.Thread, b *eval.Builtin, op ops.Op, args []eval.Value, kwargs []eval.Kwarg) (v eval.Value, handled bool, err error) {
	if len(args) == 0 {
		return nil, false, nil
	}
	iterable := isPythonIterable(args[0], op == ops.Max || op == ops.Min)
	switch op {
	case ops.Sum:
		if !iterable {
			return nil, false, nil
		}
		v, err = pythonSum(th, b.Name, args, kwargs)
	case ops.Any, ops.All:
		if !iterable {
			return nil, false, nil
		}
		v, err = pythonAnyAll(th, b.Name, op == ops.All, args, kwargs)
	case ops.Max, ops.Min:
		if !iterable && !(len(args) >= 2 && noTensor(args)) && !hasKeyword(kwargs, "key", "default") {
			return nil, false, nil
		}
		v, err = pythonExtreme(th, b.Name, op == ops.Max, args, kwargs)
	default:
		return nil, false, nil
	}
	return v, true, err
}

// isPythonIterable says whether v is an iterable torch's reductions do not
// take: a list or a range, or also a string when strings is set.
func isPythonIterable(v eval.Value, strings bool) bool {
	switch x := v.(type) {
	case *eval.List, eval.Range:
		return true
	case *eval.Record:
		return !x.Positional // a dict's keys; torch's reductions take an op's result
	case eval.String:
		return strings
	}
	return false
}

func noTensor(vs []eval.Value) bool {
	for _, v := range vs {
		if _, ok := v.(eval.Tensor); ok {
			return false
		}
	}
	return true
}

func hasKeyword(kwargs []eval.Kwarg, names ...string) bool {
	for _, k := range kwargs {
		for _, n := range names {
			if k.Name == n {
				return true
			}
		}
	}
	return false
}

// pythonSum is sum(iterable, start=0): start + e0 + e1 + ... left to right.
func pythonSum(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var it eval.Value
	var start eval.Value = eval.Int(0)
	if err := eval.UnpackArgs(th, fname, args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	if _, ok := start.(eval.String); ok {
		return nil, fmt.Errorf("%s: cannot sum strings; concatenate them with +", fname)
	}
	vals, err := collect(th, fname, it)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, eval.NewList(vals))
	acc := start
	eval.Retain(th.RT, acc)
	for _, v := range vals {
		next, err := th.Binary("+", acc, v)
		eval.Release(th.RT, acc)
		if err != nil {
			return nil, err
		}
		acc = next
	}
	return acc, nil
}

// pythonAnyAll is any(iterable) or all(iterable), stopping at the first
// element that decides it.
func pythonAnyAll(th *eval.Thread, fname string, all bool, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var it eval.Value
	if err := eval.UnpackArgs(th, fname, args, kwargs, "iterable", &it); err != nil {
		return nil, err
	}
	vals, err := collect(th, fname, it)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, eval.NewList(vals))
	for i, v := range vals {
		if t, ok := v.(eval.Tensor); ok && t.Ref.Shape().Numel() != 1 {
			return nil, fmt.Errorf("%s: element %d is a tensor of shape %v, whose truth is ambiguous; %s(x) of the tensor reduces its elements", fname, i, t.Ref.Shape(), fname)
		}
		t, err := th.Truth(v)
		if err != nil {
			return nil, err
		}
		if t != all {
			return eval.Bool(t), nil
		}
	}
	return eval.Bool(all), nil
}

// pythonExtreme is max (largest) or min of an iterable or of several
// values: the first one no later one beats under key, or default when the
// iterable is empty.
func pythonExtreme(th *eval.Thread, fname string, largest bool, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var key, dflt eval.Value
	for _, k := range kwargs {
		switch k.Name {
		case "key":
			key = k.Value
		case "default":
			dflt = k.Value
		default:
			return nil, fmt.Errorf("%s: unknown keyword argument %q", fname, k.Name)
		}
	}
	if _, none := key.(eval.NoneType); none {
		key = nil
	}
	var vals []eval.Value
	if len(args) == 1 {
		if !isPythonIterable(args[0], true) {
			return nil, fmt.Errorf("%s: %s is not iterable; %s(x, key=...) takes a list, a range, a record (its keys) or a string", fname, eval.Describe(args[0]), fname)
		}
		var err error
		if vals, err = collect(th, fname, args[0]); err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, eval.NewList(vals))
	} else {
		if dflt != nil {
			return nil, fmt.Errorf("%s: default= is only for one iterable argument", fname)
		}
		vals = args
	}
	if len(vals) == 0 {
		if dflt != nil {
			eval.Retain(th.RT, dflt)
			return dflt, nil
		}
		return nil, fmt.Errorf("%s: the iterable is empty and no default= is given", fname)
	}
	keyOf := func(v eval.Value) (eval.Value, error) {
		if key == nil {
			eval.Retain(th.RT, v)
			return v, nil
		}
		return th.Call(key, []eval.Value{v}, nil)
	}
	beats := "<"
	if largest {
		beats = ">"
	}
	best := vals[0]
	bestKey, err := keyOf(best)
	if err != nil {
		return nil, err
	}
	defer func() { eval.Release(th.RT, bestKey) }()
	for _, v := range vals[1:] {
		k, err := keyOf(v)
		if err != nil {
			return nil, err
		}
		better, err := compareValues(th, fname, beats, k, bestKey)
		if better {
			best = v
			bestKey, k = k, bestKey
		}
		eval.Release(th.RT, k)
		if err != nil {
			return nil, err
		}
	}
	eval.Retain(th.RT, best)
	return best, nil
}

// compareValues is the truth of a sym b (a < b, a > b) for ordering
// values, as Python's sorted and max compare them: numbers, strings, or
// tensors of one element.
func compareValues(th *eval.Thread, fname, sym string, a, b eval.Value) (bool, error) {
	c, err := th.Binary(sym, a, b)
	if err != nil {
		return false, err
	}
	if t, ok := c.(eval.Tensor); ok && t.Ref.Shape().Numel() != 1 {
		eval.Release(th.RT, c)
		return false, fmt.Errorf("%s: cannot order tensors of shape %v by %s; compare one-element tensors, or give key=", fname, t.Ref.Shape(), sym)
	}
	t, err := th.Truth(c)
	eval.Release(th.RT, c)
	return t, err
}
