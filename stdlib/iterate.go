package stdlib

import (
	"fmt"
	"unsafe"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's enumerate and zip over anything a for loop iterates (lists,
// ranges, strings, a tensor's first dimension), eagerly: lists of [i, x]
// and [a, b, ...] pairs for `for [i, x] in enumerate(xs)`.

func init() {
	register("enumerate", "enumerate(iterable, start=0): the list of [start + i, x] for the values x a for loop over iterable takes, as Python's enumerate", enumerateBuiltin)
	register("zip", "zip(*iterables): the list of [a, b, ...] taking one value from each iterable in turn, as long as the shortest, as Python's zip", zipBuiltin)
}

// collect lists the values a for loop over it takes, checking the list
// against the host limit as it grows.
func collect(th *eval.Thread, fname string, it eval.Value) ([]eval.Value, error) {
	var out []eval.Value
	var failed error
	err := eval.Each(th, it, th.Site().Pos, func(v eval.Value) bool {
		if len(out) == cap(out) {
			if err := th.RT.HostPool().CheckValue(int64(2*len(out)+8) * int64(unsafe.Sizeof(v))); err != nil {
				eval.Release(th.RT, v)
				failed = err
				return false
			}
		}
		out = append(out, v)
		return true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		eval.Release(th.RT, eval.NewList(out))
		return nil, fmt.Errorf("%s: %v", fname, err)
	}
	return out, nil
}

func enumerateBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var it eval.Value
	start := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	vals, err := collect(th, b.Name, it)
	if err != nil {
		return nil, err
	}
	out := make([]eval.Value, len(vals))
	for i, v := range vals {
		out[i] = eval.NewList([]eval.Value{eval.Int(int64(start) + int64(i)), v})
	}
	return eval.NewList(out), nil
}

func zipBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unknown keyword argument %q", b.Name, kwargs[0].Name)
	}
	cols := make([][]eval.Value, len(args))
	release := func() {
		for _, c := range cols {
			eval.Release(th.RT, eval.NewList(c))
		}
	}
	n := -1
	for i, a := range args {
		vals, err := collect(th, b.Name, a)
		if err != nil {
			release()
			return nil, err
		}
		cols[i] = vals
		if n < 0 || len(vals) < n {
			n = len(vals)
		}
	}
	n = max(n, 0)
	out := make([]eval.Value, n)
	for j := range out {
		row := make([]eval.Value, len(cols))
		for i, c := range cols {
			row[i] = c[j]
			c[j] = nil // handed to the row
		}
		out[j] = eval.NewList(row)
	}
	release() // the values beyond the shortest
	return eval.NewList(out), nil
}
