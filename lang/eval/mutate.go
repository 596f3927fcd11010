package eval

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/tref-lang/tref/lang/ast"
)

// Python's in-place list and dict methods as statements: `xs.append(v)`
// is `xs = ` xs with v appended (ast.MutateExpr). The list or record is
// changed in place when the statement holds its only reference (the
// variable's value moved out at its last read), else copied, so that
// whoever else held the old value keeps it, as for x[i] = v.

// mutator is one in-place method: change computes the new value of x,
// consumed, from the call's arguments, borrowed. mutate checks first that
// the call passes between least and most positional arguments and no
// keywords, unless checksOwn: the method takes keywords and checks its
// arguments itself.
type mutator struct {
	change      func(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error)
	least, most int
	checksOwn   bool
}

var listMutators = map[string]mutator{
	"append": {listAppend, 1, 1, false}, "extend": {listExtend, 1, 1, false},
	"insert": {listInsert, 2, 2, false}, "remove": {listRemove, 1, 1, false},
	"pop": {listPop, 0, 1, false}, "clear": {listClear, 0, 0, false},
	"sort": {listSort, 0, 0, true}, "reverse": {listReverse, 0, 0, false},
}

var recordMutators = map[string]mutator{
	"update": {recordUpdate, 0, 1, true}, "pop": {recordPop, 1, 2, false},
	"setdefault": {recordSetdefault, 1, 2, false}, "clear": {recordClear, 0, 0, false},
}

// mutate compiles `x.m(args)` as a statement: x's new value.
func (c *compiler) mutate(e *ast.MutateExpr) exprFn {
	site := newSite(e.Call.At)
	recv := c.expr(e.Recv())
	evalArgs, _, _ := c.callArgs(e.Call)
	name := e.Method()
	mc := c.method(name)
	listM, hasListM := listMutators[name]
	recordM, hasRecordM := recordMutators[name]
	last, ok := c.replLast.(*ast.AssignStmt)
	repl := ok && last.Value == e // the REPL shows a plain call's result
	return func(fr *frame) (Value, error) {
		x, err := recv(fr)
		if err != nil {
			return nil, err
		}
		var m mutator
		typ, ok := "list", false
		switch x := x.(type) {
		case *List:
			m, ok = listM, hasListM
		case *Record:
			// A field of that name is a method of the record's own.
			_, isField := x.Get(name)
			m, ok, typ = recordM, hasRecordM && !isField, "record"
		}
		th := fr.th
		if !ok {
			// Not a list or record change: the call, for its effect; x
			// keeps its value.
			Retain(th.RT, x)
			v, err := fr.callMethod(x, mc, site, evalArgs)
			if err != nil {
				Release(th.RT, x)
				return nil, err
			}
			if repl {
				th.setREPLValue(v)
			} else {
				Release(th.RT, v)
			}
			return x, nil
		}
		base := len(th.args)
		kw, err := evalArgs(fr, base)
		if err != nil {
			Release(th.RT, x)
			return nil, err
		}
		args := th.args[base:]
		if !m.checksOwn {
			err = mutArgs(fr, typ, name, args, kw, m.least, m.most, site)
		}
		var v Value
		if err == nil {
			v, err = m.change(fr, x, args, kw, site)
		} else {
			Release(th.RT, x)
		}
		th.popArgs(base)
		releaseKw(th, kw)
		return v, err
	}
}

// mutArgs checks a mutator's arguments: between least and most
// positional ones, and no keywords.
func mutArgs(fr *frame, typ, name string, args []Value, kw []Kwarg, least, most int, site *callSite) error {
	if len(kw) > 0 {
		return fr.errorf(site.pos, "%s.%s takes no keyword argument %q", typ, name, kw[0].Name)
	}
	if len(args) < least || len(args) > most {
		want := fmt.Sprintf("%d to %d arguments", least, most)
		switch {
		case most == least && least == 1:
			want = "1 argument"
		case most == least:
			want = fmt.Sprintf("%d arguments", least)
		}
		return fr.errorf(site.pos, "%s.%s takes %s, got %d", typ, name, want, len(args))
	}
	return nil
}

// ownList is l (consumed) ready to change: itself when the statement holds
// its only reference, else a copy, its room checked for n more elements.
func (fr *frame) ownList(l *List, n int, site *callSite) (*List, error) {
	if need := len(l.Elems) + n; need > cap(l.Elems) || l.rc != 1 {
		if err := fr.th.RT.HostPool().CheckValue(int64(need) * int64(unsafe.Sizeof(Value(nil)))); err != nil {
			Release(fr.th.RT, l)
			return nil, fr.errorf(site.pos, "cannot grow the list: %v", err)
		}
	}
	if l.rc == 1 {
		return l, nil
	}
	out := fr.copyList(l)
	Release(fr.th.RT, l)
	return out, nil
}

// appendOwned appends vs (borrowed) to l, which the caller owns alone.
func (fr *frame) appendOwned(l *List, vs ...Value) {
	for _, v := range vs {
		Retain(fr.th.RT, v)
	}
	l.Elems = append(l.Elems, vs...)
	if l.gc.col == nil {
		l.gc.col = cyclicIn(vs)
	}
}

func listAppend(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	l, err := fr.ownList(x.(*List), 1, site)
	if err != nil {
		return nil, err
	}
	fr.appendOwned(l, args[0])
	return l, nil
}

func listExtend(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	more, err := Collect(fr.th, args[0], site.pos)
	if err != nil {
		Release(fr.th.RT, x)
		return nil, fr.wrap(site.pos, fmt.Errorf("list.extend: %v", err))
	}
	defer releaseAll(fr.th.RT, more)
	l, err := fr.ownList(x.(*List), len(more), site)
	if err != nil {
		return nil, err
	}
	fr.appendOwned(l, more...)
	return l, nil
}

func listInsert(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	i, err := fr.intIndex(args[0], site.pos, "the index of list.insert")
	if err != nil {
		Release(fr.th.RT, x)
		return nil, err
	}
	l, err := fr.ownList(x.(*List), 1, site)
	if err != nil {
		return nil, err
	}
	n := len(l.Elems)
	if i < 0 { // Python clamps: insert(-1, v) goes before the last
		i = max(i+n, 0)
	}
	i = min(i, n)
	Retain(fr.th.RT, args[1])
	l.Elems = slices.Insert(l.Elems, i, args[1])
	if l.gc.col == nil {
		l.gc.col = cyclicIn(args[1:2])
	}
	return l, nil
}

func listRemove(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	l := x.(*List)
	for i, e := range l.Elems {
		eq, err := fr.equal(args[0], e, site.pos)
		if err != nil {
			Release(fr.th.RT, x)
			return nil, err
		}
		if eq {
			return fr.removeAt(l, i, site)
		}
	}
	Release(fr.th.RT, x)
	return nil, fr.errorf(site.pos, "list.remove(x): %s is not in the list", reprNow(args[0]))
}

// removeAt is l (consumed) without its element i.
func (fr *frame) removeAt(l *List, i int, site *callSite) (Value, error) {
	l, err := fr.ownList(l, 0, site)
	if err != nil {
		return nil, err
	}
	Release(fr.th.RT, l.Elems[i])
	l.Elems = slices.Delete(l.Elems, i, i+1)
	return l, nil
}

func listPop(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	l := x.(*List)
	i := -1
	if len(args) == 1 {
		var err error
		if i, err = fr.intIndex(args[0], site.pos, "the index of list.pop"); err != nil {
			Release(fr.th.RT, x)
			return nil, err
		}
	}
	n := len(l.Elems)
	if i < -n || i >= n {
		Release(fr.th.RT, x)
		if n == 0 {
			return nil, fr.errorf(site.pos, "list.pop: the list is empty")
		}
		return nil, fr.errorf(site.pos, "list.pop: index %d is out of range for a list of %d elements", i, n)
	}
	if i < 0 {
		i += n
	}
	return fr.removeAt(l, i, site)
}

func listClear(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	Release(fr.th.RT, x)
	return NewList(nil), nil
}

func listReverse(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	l, err := fr.ownList(x.(*List), 0, site)
	if err != nil {
		return nil, err
	}
	slices.Reverse(l.Elems)
	return l, nil
}

// listSort is the sorted builtin's list (key=, reverse= as Python's).
func listSort(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	defer Release(fr.th.RT, x)
	if len(args) > 0 {
		return nil, fr.errorf(site.pos, "list.sort takes keyword arguments only (key=, reverse=), got %d positional", len(args))
	}
	sorted := fr.th.builtin("sorted")
	if sorted == nil {
		return nil, fr.errorf(site.pos, "list.sort needs the sorted builtin")
	}
	Retain(fr.th.RT, x)
	for _, k := range kw {
		Retain(fr.th.RT, k.Value)
	}
	return fr.th.callBuiltin(fr, sorted, []Value{x}, slices.Clone(kw), site)
}

// ownRecord is r (consumed) ready to change, as ownList.
func (fr *frame) ownRecord(r *Record, site *callSite) (*Record, error) {
	if r.owned && r.rc == 1 {
		return r, nil
	}
	if err := fr.th.RT.HostPool().CheckValue(int64(len(r.Keys)+1) * RecordFieldBytes); err != nil {
		Release(fr.th.RT, r)
		return nil, fr.errorf(site.pos, "cannot change the record: %v", err)
	}
	out := fr.copyRecord(r)
	Release(fr.th.RT, r)
	return out, nil
}

// recordUpdate is Python's d.update(other, **kw): the fields of other (a
// record, or a list of [key, value] pairs), then the keywords.
func recordUpdate(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	th := fr.th
	if len(args) > 1 {
		Release(th.RT, x)
		return nil, fr.errorf(site.pos, "update takes at most 1 positional argument (a record or [key, value] pairs), got %d", len(args))
	}
	r, err := fr.ownRecord(x.(*Record), site)
	if err != nil {
		return nil, err
	}
	put := func(k, v Value) error {
		if _, _, ok := RecordKey(k); !ok {
			return fr.errorf(site.pos, "update: record keys are strings or ints, not %s", Describe(k))
		}
		if err := th.RT.HostPool().CheckValue(int64(len(r.Keys)+1) * RecordFieldBytes); err != nil {
			return fr.errorf(site.pos, "update: %v", err)
		}
		Retain(th.RT, v)
		r.PutKey(th.RT, k, v)
		return nil
	}
	if len(args) == 1 {
		var err error
		switch src := args[0].(type) {
		case *Record:
			for i := range src.Keys {
				if err = put(src.Key(i), src.Values[i]); err != nil {
					break
				}
			}
		case *List:
			for i, p := range src.Elems {
				pair, ok := p.(*List)
				if !ok || len(pair.Elems) != 2 {
					err = fr.errorf(site.pos, "update: element %d is %s, not a [key, value] pair", i, Describe(p))
					break
				}
				if err = put(pair.Elems[0], pair.Elems[1]); err != nil {
					break
				}
			}
		default:
			err = fr.errorf(site.pos, "update: the argument must be a record or a list of [key, value] pairs, not %s", Describe(src))
		}
		if err != nil {
			Release(th.RT, r)
			return nil, err
		}
	}
	for _, k := range kw {
		if err := put(String(k.Name), k.Value); err != nil {
			Release(th.RT, r)
			return nil, err
		}
	}
	return r, nil
}

// recordPop drops the field key (a default makes a missing key fine).
func recordPop(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	r := x.(*Record)
	i := r.Find(args[0])
	if i < 0 {
		if len(args) == 2 {
			return r, nil
		}
		Release(fr.th.RT, x)
		if _, _, ok := RecordKey(args[0]); !ok {
			return nil, fr.errorf(site.pos, "pop: the record has no key %s", Describe(args[0]))
		}
		return nil, fr.errorf(site.pos, "pop: the record has no key %s (pass a default, r.pop(k, none), to allow that)", reprNow(args[0]))
	}
	r, err := fr.ownRecord(r, site)
	if err != nil {
		return nil, err
	}
	Release(fr.th.RT, r.Values[i])
	r.Keys = slices.Delete(r.Keys, i, i+1)
	r.Values = slices.Delete(r.Values, i, i+1)
	if r.IntKey != nil {
		r.IntKey = slices.Delete(r.IntKey, i, i+1)
	}
	return r, nil
}

// recordSetdefault adds the field key with default (none) unless the
// record has it.
func recordSetdefault(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	r := x.(*Record)
	if _, _, ok := RecordKey(args[0]); !ok {
		Release(fr.th.RT, x)
		return nil, fr.errorf(site.pos, "setdefault: record keys are strings or ints, not %s", Describe(args[0]))
	}
	if r.Find(args[0]) >= 0 {
		return r, nil
	}
	r, err := fr.ownRecord(r, site)
	if err != nil {
		return nil, err
	}
	var v Value = None
	if len(args) == 2 {
		v = args[1]
		Retain(fr.th.RT, v)
	}
	r.PutKey(fr.th.RT, args[0], v)
	return r, nil
}

func recordClear(fr *frame, x Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	Release(fr.th.RT, x)
	return NewRecord(nil, nil), nil
}
