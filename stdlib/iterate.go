package stdlib

import (
	"fmt"
	"sort"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's enumerate and zip over anything a for loop iterates (lists,
// ranges, strings, a tensor's first dimension), eagerly: lists of [i, x]
// and [a, b, ...] pairs for `for [i, x] in enumerate(xs)`.

func init() {
	register("enumerate", "enumerate(iterable, start=0): the list of [start + i, x] for the values x a for loop over iterable takes, as Python's enumerate", enumerateBuiltin)
	register("zip", "zip(*iterables): the list of [a, b, ...] taking one value from each iterable in turn, as long as the shortest, as Python's zip", zipBuiltin)
	register("list", "list(iterable=[]): the list of the values a for loop over iterable takes (a list is copied, a range, string or tensor's first dimension listed), as Python's list", listBuiltin)
	register("reversed", "reversed(iterable): the list of iterable's values in reverse order, as Python's reversed (a list, not an iterator)", reversedBuiltin)
	register("sorted", "sorted(iterable, key=none, reverse=false): the list of iterable's values in ascending order by <, or of key(v); stable, and reverse keeps equal values in their order, as Python's sorted", sortedBuiltin)
}

// collect lists the values a for loop over it takes (eval.Collect),
// naming the builtin in an error.
func collect(th *eval.Thread, fname string, it eval.Value) ([]eval.Value, error) {
	out, err := eval.Collect(th, it, th.Site().Pos)
	if err != nil {
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

// optionalIterable lists the values of the one argument iterable=[] of
// list and set.
func optionalIterable(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) ([]eval.Value, error) {
	var it eval.Value = eval.NewList(nil)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "iterable?", &it); err != nil {
		return nil, err
	}
	return collect(th, b.Name, it)
}

func listBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	vals, err := optionalIterable(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return eval.NewList(vals), nil
}

func reversedBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var it eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "iterable|seq", &it); err != nil {
		return nil, err
	}
	vals, err := collect(th, b.Name, it)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(vals)-1; i < j; i, j = i+1, j-1 {
		vals[i], vals[j] = vals[j], vals[i]
	}
	return eval.NewList(vals), nil
}

func sortedBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var it eval.Value
	key := eval.None
	reverse := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "iterable", &it, "key?", &key, "reverse?", &reverse); err != nil {
		return nil, err
	}
	vals, err := collect(th, b.Name, it)
	if err != nil {
		return nil, err
	}
	keys := vals
	if _, none := key.(eval.NoneType); !none {
		keys = make([]eval.Value, 0, len(vals))
		defer func() { eval.Release(th.RT, eval.NewList(keys)) }()
		for _, v := range vals {
			k, err := th.Call(key, []eval.Value{v}, nil)
			if err != nil {
				eval.Release(th.RT, eval.NewList(vals))
				return nil, err
			}
			keys = append(keys, k)
		}
	}
	// Sort positions by their keys, so that keys and values move together;
	// the first failed comparison stops the sort's effect and is reported.
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	var failed error
	less := func(i, j int) bool {
		if failed != nil {
			return false
		}
		t, err := compareValues(th, b.Name, "<", keys[i], keys[j])
		failed = err
		return t
	}
	sort.SliceStable(order, func(a, b int) bool {
		if reverse {
			return less(order[b], order[a])
		}
		return less(order[a], order[b])
	})
	if failed != nil {
		eval.Release(th.RT, eval.NewList(vals))
		return nil, failed
	}
	out := make([]eval.Value, len(vals))
	for i, k := range order {
		out[i] = vals[k]
	}
	return eval.NewList(out), nil
}
