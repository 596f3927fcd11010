package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's map, filter, isinstance and tuple.
func init() {
	register("map", "map(f, *iterables): the list of f applied to the values of the iterables taken together (as zip takes them, to the shortest), as Python's list(map(...))", builtinMap)
	register("filter", "filter(f, iterable): the list of the values of iterable for which f (none: the value itself) is true as an if reads it, as Python's list(filter(...))", builtinFilter)
	register("isinstance", "isinstance(x, types): whether x is of the type (a list of them: any), as Python's: int (also bools), float, bool, str, list, tuple (tref's tuples are lists), dict (records), tensor (tensors, not plain numbers)", builtinIsinstance)
	register("tuple", "tuple(iterable=[]): the list of iterable's values: tref's tuples are lists, as (a, b) is [a, b]", listBuiltin)
}

func builtinMap(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("map: takes no keyword argument %q", kwargs[0].Name)
	}
	if len(args) < 2 {
		return nil, fmt.Errorf("map: needs a function and at least one iterable, got %d arguments", len(args))
	}
	f := args[0]
	var lists [][]eval.Value
	defer func() {
		for _, l := range lists {
			eval.Release(th.RT, eval.NewList(l))
		}
	}()
	n := -1
	for _, it := range args[1:] {
		vals, err := collect(th, b.Name, it)
		if err != nil {
			return nil, err
		}
		lists = append(lists, vals)
		if n < 0 || len(vals) < n {
			n = len(vals)
		}
	}
	out := make([]eval.Value, 0, n)
	fargs := make([]eval.Value, len(lists))
	for i := range n {
		for j, l := range lists {
			fargs[j] = l[i]
		}
		v, err := th.Call(f, fargs, nil)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		out = append(out, v)
	}
	return eval.NewList(out), nil
}

func builtinFilter(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var f, it eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "function", &f, "iterable", &it); err != nil {
		return nil, err
	}
	vals, err := collect(th, b.Name, it)
	if err != nil {
		return nil, err
	}
	var out []eval.Value
	_, identity := f.(eval.NoneType)
	for i, v := range vals {
		test := v
		if !identity {
			if test, err = th.Call(f, []eval.Value{v}, nil); err != nil {
				eval.Release(th.RT, eval.NewList(append(out, vals[i:]...)))
				return nil, err
			}
		}
		keep, err := th.Truth(test)
		if !identity {
			eval.Release(th.RT, test)
		}
		if err != nil {
			eval.Release(th.RT, eval.NewList(append(out, vals[i:]...)))
			return nil, err
		}
		if keep {
			out = append(out, v)
		} else {
			eval.Release(th.RT, v)
		}
	}
	return eval.NewList(out), nil
}

func builtinIsinstance(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, types eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|obj", &x, "types|classinfo", &types); err != nil {
		return nil, err
	}
	check := []eval.Value{types}
	if l, ok := types.(*eval.List); ok {
		check = l.Elems
	}
	for _, t := range check {
		tb, ok := t.(*eval.Builtin)
		if !ok {
			return nil, fmt.Errorf("isinstance: types must be int, float, bool, str, list, tuple, dict or tensor (or a list of them), not %s", eval.Describe(t))
		}
		is, known := isOfType(x, tb.Name)
		if !known {
			return nil, fmt.Errorf("isinstance: %s is not a type; use int, float, bool, str, list, tuple, dict or tensor", tb.Name)
		}
		if is {
			return eval.Bool(true), nil
		}
	}
	return eval.Bool(false), nil
}

// isOfType reports whether x is of the type the builtin name stands for;
// known is false for a builtin that is not a type.
func isOfType(x eval.Value, name string) (is, known bool) {
	switch name {
	case "int":
		switch x.(type) {
		case eval.Int, eval.Bool:
			return true, true
		}
	case "float":
		switch x.(type) {
		case eval.Float32, eval.Float64:
			return true, true
		}
	case "bool":
		_, is = x.(eval.Bool)
	case "str":
		_, is = x.(eval.String)
	case "list", "tuple":
		_, is = x.(*eval.List)
	case "dict":
		_, is = x.(*eval.Record)
	case "tensor":
		_, is = x.(eval.Tensor)
	default:
		return false, false
	}
	return is, true
}
