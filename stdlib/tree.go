package stdlib

import (
	"fmt"
	"strconv"

	"github.com/tref-lang/tref/lang/eval"
)

// Trees: nested lists and records whose other values are leaves (weights
// live in records of tensors). zipTrees walks several trees of one
// structure together; grad, tree_map and the optimizers build on it.

// zipTrees rebuilds the structure of trees[0], calling leaf with the
// borrowed leaves found at each position of every tree (and the path
// there, "w.b[2]", for messages); leaf returns an owned value. Trees
// whose structure differs are an error naming the path.
func zipTrees(th *eval.Thread, trees []eval.Value, path string, leaf func(path string, xs []eval.Value) (eval.Value, error)) (eval.Value, error) {
	switch t := trees[0].(type) {
	case *eval.List:
		lists := make([]*eval.List, len(trees))
		for i, x := range trees {
			l, ok := x.(*eval.List)
			if !ok || len(l.Elems) != len(t.Elems) {
				return nil, treeMismatch(path, t, x, i)
			}
			lists[i] = l
		}
		out := make([]eval.Value, 0, len(t.Elems))
		xs := make([]eval.Value, len(trees))
		for k := range t.Elems {
			for i, l := range lists {
				xs[i] = l.Elems[k]
			}
			v, err := zipTrees(th, xs, path+"["+strconv.Itoa(k)+"]", leaf)
			if err != nil {
				eval.Release(th.RT, eval.NewList(out))
				return nil, err
			}
			out = append(out, v)
		}
		return eval.NewList(out), nil
	case *eval.Record:
		recs := make([]*eval.Record, len(trees))
		for i, x := range trees {
			r, ok := x.(*eval.Record)
			if !ok || len(r.Keys) != len(t.Keys) {
				return nil, treeMismatch(path, t, x, i)
			}
			recs[i] = r
		}
		out := make([]eval.Value, 0, len(t.Keys))
		xs := make([]eval.Value, len(trees))
		partial := func() { eval.Release(th.RT, eval.NewList(out)) }
		for k, key := range t.Keys {
			sub := key
			switch {
			case t.IsIntKey(k):
				sub = path + "[" + key + "]"
			case path != "":
				sub = path + "." + key
			}
			for i, r := range recs {
				j := r.Find(t.Key(k))
				if j < 0 {
					partial()
					name := strconv.Quote(key)
					if t.IsIntKey(k) {
						name = "key " + key
					}
					return nil, fmt.Errorf("the trees differ at %s: tree %d has no field %s", orRoot(path), i+1, name)
				}
				xs[i] = r.Values[j]
			}
			v, err := zipTrees(th, xs, sub, leaf)
			if err != nil {
				partial()
				return nil, err
			}
			out = append(out, v)
		}
		return t.WithValues(out), nil
	}
	for i, x := range trees[1:] {
		switch x.(type) {
		case *eval.List, *eval.Record:
			return nil, treeMismatch(path, trees[0], x, i+1)
		}
	}
	return leaf(path, trees)
}

func orRoot(path string) string {
	if path == "" {
		return "the root"
	}
	return path
}

func treeMismatch(path string, want, got eval.Value, i int) error {
	return fmt.Errorf("the trees differ at %s: tree 1 has %s, tree %d has %s", orRoot(path), shapeOfTree(want), i+1, shapeOfTree(got))
}

// shapeOfTree names a tree node's kind for mismatch messages.
func shapeOfTree(v eval.Value) string {
	switch v := v.(type) {
	case *eval.List:
		return fmt.Sprintf("a list of %d", len(v.Elems))
	case *eval.Record:
		return fmt.Sprintf("a record of %d fields", len(v.Keys))
	}
	return eval.Describe(v)
}
