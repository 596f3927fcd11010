package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's list methods that leave the list as it is; those that change
// it (append, extend, insert, remove, pop, sort, reverse, clear) are
// statements (eval's mutators).
func init() {
	method("list", "index", "xs.index(x): the index of the first element of xs equal to x (an error when there is none), as Python's list.index", listIndex)
	method("list", "count", "xs.count(x): how many elements of xs equal x, as Python's list.count", listCount)
	method("list", "copy", "xs.copy(): a new list of xs's elements, as Python's list.copy", listCopy)
}

// listAndValue reads the list receiver and the one value a method compares
// with its elements.
func listAndValue(th *eval.Thread, name string, args []eval.Value, kwargs []eval.Kwarg) ([]eval.Value, eval.Value, error) {
	var elems []eval.Value
	var x eval.Value
	if err := eval.UnpackArgs(th, name, args, kwargs, "self", &elems, "x", &x); err != nil {
		return nil, nil, err
	}
	return elems, x, nil
}

// equals reports a == b as an if reads it.
func equals(th *eval.Thread, a, b eval.Value) (bool, error) {
	v, err := th.Binary("==", a, b)
	if err != nil {
		return false, err
	}
	defer eval.Release(th.RT, v)
	return th.Truth(v)
}

func listIndex(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	elems, x, err := listAndValue(th, "list.index", args, kwargs)
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		eq, err := equals(th, e, x)
		if err != nil {
			return nil, err
		}
		if eq {
			return eval.Int(i), nil
		}
	}
	shown, err := th.Repr(x)
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("list.index(x): %s is not in the list", shown)
}

func listCount(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	elems, x, err := listAndValue(th, "list.count", args, kwargs)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, e := range elems {
		eq, err := equals(th, e, x)
		if err != nil {
			return nil, err
		}
		if eq {
			n++
		}
	}
	return eval.Int(n), nil
}

func listCopy(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var elems []eval.Value
	if err := eval.UnpackArgs(th, "list.copy", args, kwargs, "self", &elems); err != nil {
		return nil, err
	}
	out := make([]eval.Value, len(elems))
	for i, e := range elems {
		eval.Retain(th.RT, e)
		out[i] = e
	}
	return eval.NewList(out), nil
}
