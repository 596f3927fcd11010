package eval

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/resolve"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// tensorFields are the fields every tensor (and number) has.
var tensorFields = []string{"shape", "dtype", "ndim", "device", "T", "mT", "mH", "nbytes", "itemsize", "is_cuda", "is_cpu"}

func (c *compiler) field(e *ast.FieldExpr) exprFn {
	x := c.expr(e.X)
	name := e.Name
	site := newSite(e.At)
	mc := c.method(name)
	return func(fr *frame) (Value, error) {
		v, err := x(fr)
		if err != nil {
			return nil, err
		}
		f, found, err := fr.getField(v, name, site)
		if err == nil && !found {
			if m := mc.boundTo(v); m != nil {
				return bindMethod(name, m, v), nil // takes over v
			}
			err = fr.noField(v, name, site.pos)
		}
		Release(fr.th.RT, v)
		return f, err
	}
}

// strMethods are Python's string methods that are builtins here taking
// the string first: str.upper reads as the builtin upper.
var strMethods = map[string]bool{
	"upper": true, "lower": true, "strip": true, "lstrip": true, "rstrip": true, "split": true, "join": true,
	"replace": true, "startswith": true, "endswith": true, "find": true, "encode": true,
	"removeprefix": true, "removesuffix": true,
}

// dictMethods are the builtins a record reads as bound methods, Python's
// dict methods that leave it as it is (key=scores.get).
var dictMethods = map[string]bool{"get": true, "keys": true, "values": true, "items": true}

// boundTo is the function x.name stands for when x has no field name, as
// Python's bound methods: a method of x's type, or a builtin taking x
// first (on a tensor, a number or a string; on a record, the dict
// methods); nil when there is none.
func (m methodRef) boundTo(x Value) *Builtin {
	switch x.(type) {
	case String:
		if m.str != nil {
			return m.str
		}
		return m.builtin
	case *List:
		return m.list
	case *Record:
		if dictMethods[m.name] {
			return m.builtin
		}
	case Tensor, Int, Float32, Float64, Bool:
		return m.builtin
	}
	return nil
}

// bindMethod makes the function x.name, which calls m with x, taken
// over, first.
func bindMethod(name string, m *Builtin, x Value) *Bound {
	return NewBound(x.Type()+"."+name, func(th *Thread, held, args []Value, kw []Kwarg) (Value, error) {
		return th.Call(m, append([]Value{held[0]}, args...), kw)
	}, []Value{x})
}

// getField returns an owned reference to field name of v, or found=false
// when v has no such field.
func (fr *frame) getField(v Value, name string, site *callSite) (Value, bool, error) {
	switch x := v.(type) {
	case *Record:
		f, ok := x.Get(name)
		if ok {
			Retain(fr.th.RT, f)
		}
		return f, ok, nil
	case *Module:
		f, ok := x.Member(name)
		if ok {
			Retain(fr.th.RT, f)
		}
		return f, ok, nil
	case *Builtin:
		if m, ok := x.Methods[name]; ok {
			return m, true, nil
		}
		if f, ok := x.Members[name]; ok {
			Retain(fr.th.RT, f)
			return f, true, nil
		}
		// Python's unbound string methods (map(str.upper, xs)): the
		// builtin of that name, which takes the string first.
		if x.Name == "str" && strMethods[name] {
			if b := fr.th.builtin(name); b != nil {
				return b, true, nil
			}
		}
		return nil, false, nil
	case Object:
		return x.Field(fr.th, name)
	case Tensor, Bool, Int, Float32, Float64:
		var shape tensor.Shape
		var dt tensor.DType
		if t, ok := x.(Tensor); ok {
			shape, dt = t.Ref.Shape(), t.Ref.DType()
		} else {
			dt = ScalarDType(x)
		}
		switch name {
		case "shape":
			elems := make([]Value, len(shape))
			for i, d := range shape {
				elems[i] = Int(d)
			}
			return NewList(elems), true, nil
		case "dtype":
			return String(dt.String()), true, nil
		case "ndim":
			return Int(len(shape)), true, nil
		case "device", "is_cuda", "is_cpu":
			dev := "cpu"
			if t, ok := x.(Tensor); ok {
				// Where the data is now: a tensor still being computed
				// is computed first (it has no place before).
				if err := fr.th.RT.Force(t.Ref); err != nil {
					return nil, true, fr.wrap(site.pos, err)
				}
				dev = t.Ref.Device()
			}
			switch name {
			case "is_cuda":
				return Bool(strings.HasPrefix(dev, "cuda")), true, nil
			case "is_cpu":
				// the host's tiers: memory, torch's cpu, the disk
				return Bool(dev == "cpu" || dev == "torch:cpu" || dev == "disk"), true, nil
			}
			return String(dev), true, nil
		case "nbytes":
			return Int(int64(shape.Numel()) * int64(dt.Size())), true, nil
		case "itemsize":
			return Int(dt.Size()), true, nil
		case "T":
			v, err := fr.transpose(v, shape, site)
			return v, true, err
		case "mT", "mH":
			if len(shape) < 2 {
				return nil, true, fr.errorf(site.pos, "x.%s needs matrices (2 or more dimensions), not a %d-d tensor", name, len(shape))
			}
			v, err := fr.permuted(v, shape, len(shape)-2, len(shape)-1, site)
			return v, true, err
		}
	}
	return nil, false, nil
}

// transpose is x.T: the dimensions reversed (a no-op below 2 dimensions).
func (fr *frame) transpose(v Value, shape tensor.Shape, site *callSite) (Value, error) {
	if len(shape) < 2 {
		Retain(fr.th.RT, v)
		return v, nil
	}
	dims := make([]int, len(shape))
	for i := range shape {
		dims[i] = len(shape) - 1 - i
	}
	return fr.permute(v, dims, site)
}

// permuted is x with dimensions i and j swapped (x.mT: the last two).
func (fr *frame) permuted(v Value, shape tensor.Shape, i, j int, site *callSite) (Value, error) {
	dims := make([]int, len(shape))
	for k := range dims {
		dims[k] = k
	}
	dims[i], dims[j] = j, i
	return fr.permute(v, dims, site)
}

// permute calls the permute builtin on v (retained for the call).
func (fr *frame) permute(v Value, dims []int, site *callSite) (Value, error) {
	perm := fr.th.builtin("permute")
	if perm == nil {
		return nil, fr.errorf(site.pos, "x.T needs the permute builtin")
	}
	list := make([]Value, len(dims))
	for i, d := range dims {
		list[i] = Int(d)
	}
	Retain(fr.th.RT, v)
	return fr.th.callBuiltin(fr, perm, []Value{v, NewList(list)}, nil, site)
}

// builtin finds a builtin of the thread's interpreter by name.
func (th *Thread) builtin(name string) *Builtin {
	if th.interp == nil {
		return nil
	}
	return th.interp.cfg.Universe[name]
}

// noField explains a missing field, suggesting a close name.
func (fr *frame) noField(v Value, name string, pos ast.Pos) error {
	var names []string
	switch x := v.(type) {
	case *Record:
		for i, k := range x.Keys {
			if !x.IsIntKey(i) {
				names = append(names, k)
			}
		}
	case *Module:
		names = x.Members()
	case *Builtin:
		names = slices.Sorted(maps.Keys(x.Members))
	case Tensor, Bool, Int, Float32, Float64:
		names = tensorFields
	case Object:
		names = x.FieldNames()
	}
	cands := append([]string(nil), names...)
	if fr.th.interp != nil {
		for n := range fr.th.interp.cfg.Universe {
			cands = append(cands, n)
		}
	}
	sort.Strings(cands)
	hint := ""
	switch v.(type) {
	case Tensor, Bool, Int, Float32, Float64:
		hint = resolve.TorchHint(name, func(n string) bool { return slices.Contains(cands, n) })
	}
	if s := resolve.Suggest(name, cands); hint == "" && s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	switch x := v.(type) {
	case *Record:
		return fr.errorf(pos, "record has no field %q%s", name, hint)
	case *Module:
		return fr.errorf(pos, "module %s has no member %q%s", x.Name, name, hint)
	case *Builtin:
		if x.Members != nil {
			return fr.errorf(pos, "module %s has no member %q%s", x.Name, name, hint)
		}
	}
	return fr.errorf(pos, "%s has no field or method %q%s", Describe(v), name, hint)
}

// noMethod explains a method call x.name(...) that finds neither a field
// nor a builtin. When the script declares name at its top level (usually
// a function), the likely intent was to call it on x, which uniform call
// syntax does not do.
func (fr *frame) noMethod(v Value, name string, pos ast.Pos) error {
	_, isList := v.(*List)
	if _, isMutator := listMutators[name]; isList && isMutator {
		return fr.errorf(pos, "xs.%s(...) changes a list, so it is a statement of its own on a name, not a value (let v = xs.pop() also works)", name)
	}
	err := fr.noField(v, name, pos)
	e, ok := err.(*Error)
	if !ok || fr.mod == nil {
		return err
	}
	for _, n := range fr.mod.names {
		if n == name {
			e.Msg += fmt.Sprintf(" (a method call reaches only builtins and fields; write %s(x, ...) to call the script's %s)", name, name)
			break
		}
	}
	return err
}

// indexItem is one compiled part of x[...]: a value, or a slice.
type indexItem struct {
	at             exprFn
	lo, hi, step   exprFn
	slice          bool
	ellipsis       bool // `...`: no values
	loPos, stepPos ast.Pos
}

func (c *compiler) index(e *ast.IndexExpr) exprFn {
	x := c.expr(e.X)
	items := c.indexItems(e)
	site := newSite(e.At)
	return func(fr *frame) (Value, error) {
		v, err := x(fr)
		if err != nil {
			return nil, err
		}
		vals, err := fr.indexVals(items)
		if err != nil {
			Release(fr.th.RT, v)
			return nil, err
		}
		r, err := fr.indexValue(v, items, vals, site)
		releaseAll(fr.th.RT, vals)
		Release(fr.th.RT, v)
		return r, err
	}
}

// indexItems compiles the indices of x[...].
func (c *compiler) indexItems(e *ast.IndexExpr) []indexItem {
	items := make([]indexItem, len(e.Indices))
	for i, ix := range e.Indices {
		if s, ok := ix.(*ast.SliceExpr); ok && s.Ellipsis {
			items[i] = indexItem{ellipsis: true, loPos: s.At}
		} else if ok {
			it := indexItem{slice: true, loPos: s.At, stepPos: s.At}
			if s.Lo != nil {
				it.lo = c.expr(s.Lo)
			}
			if s.Hi != nil {
				it.hi = c.expr(s.Hi)
			}
			if s.Step != nil {
				it.step = c.expr(s.Step)
				it.stepPos = s.Step.Span()
			}
			items[i] = it
		} else {
			items[i] = indexItem{at: c.expr(ix)}
		}
	}
	return items
}

// indexVals evaluates every index value in order: one per index, three
// per slice (nil where a bound is not written), none for `...`.
func (fr *frame) indexVals(items []indexItem) ([]Value, error) {
	vals := make([]Value, 0, 3*len(items))
	for _, it := range items {
		fns := [3]exprFn{it.at}
		n := 1
		if it.slice {
			fns, n = [3]exprFn{it.lo, it.hi, it.step}, 3
		} else if it.ellipsis {
			n = 0
		}
		for _, f := range fns[:n] {
			if f == nil {
				vals = append(vals, nil)
				continue
			}
			iv, err := f(fr)
			if err != nil {
				releaseAll(fr.th.RT, vals)
				return nil, err
			}
			vals = append(vals, iv)
		}
	}
	return vals, nil
}

// intIndex reads an index value as an int.
func (fr *frame) intIndex(v Value, pos ast.Pos, what string) (int, error) {
	switch v.(type) {
	case Int, Bool:
		n, _ := toInt(v)
		return n, nil
	case Tensor:
		if n, ok := fr.th.AsInt(v); ok {
			return n, nil
		}
	}
	return 0, fr.errorf(pos, "%s must be an int, not %s", what, Describe(v))
}

// indexItems turns the evaluated parts of x[...] into ops.IndexItems.
func (fr *frame) indexItems(items []indexItem, vals []Value, site *callSite) ([]ops.IndexItem, error) {
	out := make([]ops.IndexItem, len(items))
	k := 0
	for i, it := range items {
		switch {
		case it.ellipsis:
			return nil, fr.errorf(it.loPos, "'...' indexes only tensors")
		case !it.slice:
			n, err := fr.intIndex(vals[k], site.pos, "an index")
			if err != nil {
				return nil, err
			}
			out[i] = ops.IndexItem{Kind: ops.IndexAt, At: n}
			k++
			continue
		}
		item, err := fr.sliceItem(it, vals[k], vals[k+1], vals[k+2])
		if err != nil {
			return nil, err
		}
		k += 3
		out[i] = item
	}
	return out, nil
}

// sliceItem converts the evaluated bounds of a slice (nil or none when
// not written).
func (fr *frame) sliceItem(it indexItem, lo, hi, step Value) (ops.IndexItem, error) {
	item := ops.FullSlice
	var err error
	if lo != nil && lo != None {
		item.HasStart = true
		if item.Start, err = fr.intIndex(lo, it.loPos, "a slice bound"); err != nil {
			return item, err
		}
	}
	if hi != nil && hi != None {
		item.HasStop = true
		if item.Stop, err = fr.intIndex(hi, it.loPos, "a slice bound"); err != nil {
			return item, err
		}
	}
	if step != nil && step != None {
		if item.Step, err = fr.intIndex(step, it.stepPos, "a slice step"); err != nil {
			return item, err
		}
		if item.Step == 0 {
			return item, fr.errorf(it.stepPos, "slice step cannot be zero")
		}
	}
	return item, nil
}

// indexValue is v[items] for every indexable kind of value.
func (fr *frame) indexValue(v Value, items []indexItem, vals []Value, site *callSite) (Value, error) {
	pos := site.pos
	if r, ok := v.(*Record); ok {
		if len(items) != 1 || items[0].slice || items[0].ellipsis {
			return nil, fr.errorf(pos, "a record is indexed by one key (a string or an int)")
		}
		_, isString := vals[0].(String)
		if !isString && r.Positional {
			return fr.fieldAt(r, vals[0], pos)
		}
		i, err := fr.findKey(r, vals[0], pos)
		if err != nil {
			return nil, err
		}
		Retain(fr.th.RT, r.Values[i])
		return r.Values[i], nil
	}
	switch v.(type) {
	case Bool, Int, Float32, Float64:
		if specialIndex(items, vals) { // x[none], x[...]
			fr.th.sitePos = pos
			r := fr.th.RT.FromHost(fr.th.Site(), ScalarDense(v))
			defer fr.th.RT.Release(r)
			return fr.indexTensor(r, items, vals, site)
		}
		return nil, fr.errorf(pos, "cannot index a 0-d tensor (%s)", Describe(v))
	case *List, String, Range, Tensor:
	default:
		return nil, fr.errorf(pos, "cannot index %s", Describe(v))
	}
	if t, ok := v.(Tensor); ok {
		if err := fr.listIndices(items, vals, site); err != nil {
			return nil, err
		}
		if specialIndex(items, vals) {
			return fr.indexTensor(t.Ref, items, vals, site)
		}
	}
	ix, err := fr.indexItems(items, vals, site)
	if err != nil {
		return nil, err
	}
	if t, ok := v.(Tensor); ok {
		return fr.submit(site, ops.Index, &ops.IndexAttrs{Items: ix}, t.Ref)
	}
	if len(ix) != 1 {
		return nil, fr.errorf(pos, "%s takes one index, got %d", Describe(v), len(ix))
	}
	var n int
	switch x := v.(type) {
	case *List:
		n = len(x.Elems)
	case String:
		n = utf8.RuneCountInString(string(x))
	case Range:
		n = int(x.Len())
	}
	rs, err := ops.ResolveIndex(tensor.Shape{n}, ix)
	if err != nil {
		return nil, fr.errorf(pos, "%s", seqIndexError(v, ix[0], n))
	}
	r := rs[0]
	switch x := v.(type) {
	case *List:
		if !r.Keep {
			e := x.Elems[r.Start]
			Retain(fr.th.RT, e)
			return e, nil
		}
		out := make([]Value, r.Len)
		for i := range out {
			e := x.Elems[r.Start+i*r.Step]
			Retain(fr.th.RT, e)
			out[i] = e
		}
		return NewList(out), nil
	case String:
		runes := []rune(string(x))
		if !r.Keep {
			return String(runes[r.Start]), nil
		}
		out := make([]rune, r.Len)
		for i := range out {
			out[i] = runes[r.Start+i*r.Step]
		}
		return String(out), nil
	case Range:
		if !r.Keep {
			return Int(x.Start + int64(r.Start)*x.Step), nil
		}
		out, ok := sliceOfRange(x, r)
		if !ok {
			return nil, fr.errorf(pos, "the slice of %s cannot be a range of int64 values (its step or bounds overflow)", Format(x))
		}
		return out, nil
	}
	return nil, fr.errorf(pos, "cannot index %s", Describe(v))
}

// findKey is the index of the field key of r, or a positioned error: a
// key r lacks (with a suggestion), or a value that is no key.
func (fr *frame) findKey(r *Record, key Value, pos ast.Pos) (int, error) {
	if i := r.Find(key); i >= 0 {
		return i, nil
	}
	switch k := key.(type) {
	case String:
		return -1, fr.noField(r, string(k), pos)
	case Int:
		return -1, fr.errorf(pos, "record has no key %d", k)
	}
	return -1, fr.errorf(pos, "record keys are strings or ints, not %s%s", Describe(key), keyHint(key))
}

// keyHint suggests how to make a key of v.
func keyHint(v Value) string {
	switch v.(type) {
	case Tensor:
		return " (for a one-element tensor write t.item())"
	case Bool, Float32, Float64:
		return " (write int(k) or str(k))"
	}
	return " (write str(k) or f\"{k}\")"
}

// fieldAt is r[i] for a positional record: its i-th field (negative i
// counts from the end).
func (fr *frame) fieldAt(r *Record, iv Value, pos ast.Pos) (Value, error) {
	i, err := fr.intIndex(iv, pos, "an index of a values/indices result")
	if err != nil {
		return nil, err
	}
	n := len(r.Values)
	if i < -n || i >= n {
		return nil, fr.errorf(pos, "index %d is out of range for a result of %d fields (%s)", i, n, strings.Join(r.Keys, ", "))
	}
	if i < 0 {
		i += n
	}
	f := r.Values[i]
	Retain(fr.th.RT, f)
	return f, nil
}

// sliceOfRange is the range of the elements of x that r selects, or false
// when its step or stop does not fit in an int64 (only near the ends of
// the int64 values).
func sliceOfRange(x Range, r ops.IndexRange) (Range, bool) {
	start := x.Start + int64(r.Start)*x.Step // an element of x
	step := int64(1)
	if (x.Step < 0) != (r.Step < 0) {
		step = -1
	}
	if r.Len >= 2 {
		// Two selected elements differ by step, which may still not fit.
		hi, lo := bits.Mul64(uint64(abs64(x.Step)), uint64(abs64(int64(r.Step))))
		if hi != 0 || lo > math.MaxInt64 {
			return Range{}, false
		}
		step *= int64(lo)
	}
	if r.Len == 0 {
		return Range{Start: start, Stop: start, Step: step}, true
	}
	last := start + int64(r.Len-1)*step
	stop := last + 1
	if step < 0 {
		stop = last - 1
	}
	if (step > 0) != (stop > last) {
		return Range{}, false
	}
	return Range{Start: start, Stop: stop, Step: step}, true
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v // math.MinInt64 stays negative; uint64 of it is right
	}
	return v
}

func seqIndexError(v Value, it ops.IndexItem, n int) string {
	return fmt.Sprintf("index %d is out of range for %s of length %d", it.At, Describe(v), n)
}

// submit queues op at site and wraps its failure at the site's position.
func (fr *frame) submit(site *callSite, op ops.Op, attrs any, ins ...*refs.Ref) (Value, error) {
	th := fr.th
	th.sitePos = site.pos
	r, err := th.RT.Submit(th.Site(), op, attrs, ins...)
	if err != nil {
		return nil, fr.wrap(site.pos, err)
	}
	return Tensor{Ref: r}, nil
}
