package eval

import (
	"slices"
	"strconv"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Value is any script value. Numbers are 0-d tensors; small scalars are
// kept unboxed (Bool, Int, Float32, Float64) as a fast path, and become a
// TensorRef (Tensor) the moment they meet a real tensor. Scripts cannot tell
// the two apart: type(), .shape, .dtype and printing agree.
//
// Ownership: a variable, list slot, record field, closure cell or pending op
// holds one reference to what it stores. Builtins borrow their arguments
// and return an owned result (Retain an argument before returning it).
type Value interface {
	// Type is the script-visible type name: "tensor", "string", "list",
	// "record", "function", "module", "range", "none".
	Type() string
}

// Bool is a 0-d bool tensor, unboxed.
type Bool bool

// Int is a 0-d int64 tensor, unboxed.
type Int int64

// Float32 is a 0-d float32 tensor, unboxed. Arithmetic on it is float32
// arithmetic, bit-identical to the tensor kernels.
type Float32 float32

// Float64 is a 0-d float64 tensor, unboxed.
type Float64 float64

// Tensor is a held TensorRef.
type Tensor struct{ Ref *refs.Ref }

// String is a script string.
type String string

// NoneType is the type of None.
type NoneType struct{}

// None is the none value.
var None Value = NoneType{}

// Range is the lazy sequence range(start, stop, step): a for loop walks it
// without making a list.
type Range struct{ Start, Stop, Step int64 }

// Len is the number of values in the range.
//
// It computes in uint64 so that no range overflows; a count above
// math.MaxInt64 comes out negative, and range() rejects such ranges.
func (r Range) Len() int64 {
	switch {
	case r.Step > 0 && r.Start < r.Stop:
		return int64((uint64(r.Stop)-uint64(r.Start)-1)/uint64(r.Step) + 1)
	case r.Step < 0 && r.Start > r.Stop:
		return int64((uint64(r.Start)-uint64(r.Stop)-1)/-uint64(r.Step) + 1)
	}
	return 0
}

// rangeEqual compares ranges as sequences, as Python does:
// range(0, 3) == range(0, 3, 1) and range(0, 4, 2) == range(0, 3, 2).
func rangeEqual(x, y Range) bool {
	n := x.Len()
	switch {
	case n != y.Len():
		return false
	case n == 0:
		return true
	case n == 1:
		return x.Start == y.Start
	}
	return x.Start == y.Start && x.Step == y.Step
}

// List is a mutable-by-runtime, immutable-by-script sequence of values,
// reference counted so that its tensors die with it.
type List struct {
	Elems []Value
	rc    int32
	gc    gcHeader
}

// Record is an ordered collection keyed by strings and ints (Python's
// dict: {name: v}, {i: ch for i, ch in enumerate(chars)}).
type Record struct {
	// Keys are the keys' texts: a string key itself, an int key in
	// decimal; IntKey tells them apart, so that 1 and "1" are two keys.
	Keys []string
	// IntKey marks the int keys; nil while every key is a string.
	IntKey []bool
	Values []Value
	// Positional marks the result of an op with several outputs (max and
	// min over a dim, topk, sort): as torch's return types, its fields are
	// also read by position, r[0] being the first (r.values).
	Positional bool
	rc         int32
	gc         gcHeader
	// owned is set on a record that field assignment made: its slices
	// are its own, so a later assignment may change it in place when
	// nothing else holds it.
	owned bool
}

// Kwarg is one keyword argument of a call.
type Kwarg struct {
	Name  string
	Value Value
}

// BuiltinFunc implements a builtin. args and kwargs are borrowed.
type BuiltinFunc func(th *Thread, b *Builtin, args []Value, kwargs []Kwarg) (Value, error)

// Builtin is a function implemented in Go, or a namespace of them.
type Builtin struct {
	Name string
	// Doc is one line for the REPL's :help and completion.
	Doc string
	Fn  BuiltinFunc
	// Members, when set, make the builtin a namespace like Python's math
	// module: a script reads them as fields (math.pi, math.sqrt(2)),
	// type() says "module", and Fn is not called.
	Members map[string]Value
	// Methods, on the str builtin, are the methods of strings that are
	// not also builtins of their own (s.format(...)): s.m(args) calls
	// Methods[m](s, args) before a builtin named m, and a script reads
	// them as fields (str.format).
	Methods map[string]*Builtin
}

// Closure is a function written in tref: its compiled code, the cells of
// the variables it captured (by reference) and its default values,
// evaluated when it was defined.
type Closure struct {
	code     *funcCode
	cells    []*cell
	defaults []Value
	rc       int32
	// fast is code.fast+1 (0, the zero value: not fast), kept here
	// beside rc, which a call touches anyway.
	fast int32
	gc   gcHeader
}

// Name is the function's name ("lambda" for anonymous functions).
func (c *Closure) Name() string { return c.code.name }

// Pos is where the function was defined.
func (c *Closure) Pos() ast.Pos { return c.code.pos }

// Module is an imported file: its top-level bindings, readable as fields.
// Modules live until the interpreter ends; they are not reference counted.
type Module struct {
	// Name is the module's file stem.
	Name string
	// Path is the file as positions name it.
	Path    string
	globals []Value
	names   []string
	code    *moduleCode
	state   uint8
}

// Member returns the top-level binding called name, borrowed.
func (m *Module) Member(name string) (Value, bool) {
	for i, n := range m.names {
		if n == name && i < len(m.globals) && m.globals[i] != nil {
			return m.globals[i], true
		}
	}
	return nil, false
}

// Members lists the module's bound names in declaration order.
func (m *Module) Members() []string {
	var out []string
	for i, n := range m.names {
		if i < len(m.globals) && m.globals[i] != nil {
			out = append(out, n)
		}
	}
	return out
}

// cell is a variable captured by a closure, shared by reference between the
// frame that declared it and every closure that captured it. It is stored
// in frame slots, never seen by scripts.
type cell struct {
	v  Value
	rc int32
	gc gcHeader
}

func (Bool) Type() string     { return "tensor" }
func (Int) Type() string      { return "tensor" }
func (Float32) Type() string  { return "tensor" }
func (Float64) Type() string  { return "tensor" }
func (Tensor) Type() string   { return "tensor" }
func (String) Type() string   { return "string" }
func (NoneType) Type() string { return "none" }
func (Range) Type() string    { return "range" }
func (*List) Type() string    { return "list" }
func (*Record) Type() string  { return "record" }
func (b *Builtin) Type() string {
	if b.Members != nil {
		return "module"
	}
	return "function"
}
func (*Closure) Type() string { return "function" }
func (*Module) Type() string  { return "module" }
func (*cell) Type() string    { return "cell" }

// NewList makes an owned list that takes over the references in elems.
func NewList(elems []Value) *List {
	l := &List{Elems: elems, rc: 1}
	l.gc.col = cyclicIn(elems)
	return l
}

// NewRecord makes an owned record that takes over the references in values.
func NewRecord(keys []string, values []Value) *Record {
	r := &Record{Keys: keys, Values: values, rc: 1}
	r.gc.col = cyclicIn(values)
	return r
}

// NewResult makes an owned positional record (see Record.Positional), the
// result of an op with several outputs; it takes over the references in
// values.
func NewResult(keys []string, values []Value) *Record {
	r := NewRecord(keys, values)
	r.Positional = true
	return r
}

// Put sets the string-keyed field key of a record that nothing else
// holds yet (one being built) to v, which it takes over: the field's
// value is replaced (and released), or the field is added at the end.
func (r *Record) Put(rt *refs.Runtime, key string, v Value) {
	r.put(rt, key, false, v)
}

// PutKey is Put for a key that is a String or an Int (see RecordKey).
func (r *Record) PutKey(rt *refs.Runtime, key Value, v Value) {
	text, isInt, _ := RecordKey(key)
	r.put(rt, text, isInt, v)
}

func (r *Record) put(rt *refs.Runtime, text string, isInt bool, v Value) {
	if i := r.find(text, isInt); i >= 0 {
		Release(rt, r.Values[i])
		r.Values[i] = v
	} else {
		if isInt && r.IntKey == nil {
			r.IntKey = make([]bool, len(r.Keys), cap(r.Keys))
		}
		r.Keys = append(r.Keys, text)
		if r.IntKey != nil {
			r.IntKey = append(r.IntKey, isInt)
		}
		r.Values = append(r.Values, v)
	}
	if r.gc.col == nil {
		r.gc.col = cyclicIn([]Value{v})
	}
}

// Get returns the field with the string key key.
func (r *Record) Get(key string) (Value, bool) {
	if i := r.find(key, false); i >= 0 {
		return r.Values[i], true
	}
	return nil, false
}

// Find is the index of key, a String or an Int, among r's keys, or -1
// (also for a value that is no key).
func (r *Record) Find(key Value) int {
	text, isInt, ok := RecordKey(key)
	if !ok {
		return -1
	}
	return r.find(text, isInt)
}

func (r *Record) find(text string, isInt bool) int {
	for i, k := range r.Keys {
		if k == text && r.IsIntKey(i) == isInt {
			return i
		}
	}
	return -1
}

// IsIntKey reports whether r's i-th key is an int.
func (r *Record) IsIntKey(i int) bool { return r.IntKey != nil && r.IntKey[i] }

// Key is r's i-th key as a value: a String or an Int.
func (r *Record) Key(i int) Value {
	if r.IsIntKey(i) {
		n, _ := strconv.ParseInt(r.Keys[i], 10, 64)
		return Int(n)
	}
	return String(r.Keys[i])
}

// HasIntKeys reports whether some key of r is an int.
func (r *Record) HasIntKeys() bool { return slices.Contains(r.IntKey, true) }

// SameKeys reports whether r and o have the same keys in the same order.
func (r *Record) SameKeys(o *Record) bool {
	if len(r.Keys) != len(o.Keys) {
		return false
	}
	for i, k := range r.Keys {
		if o.Keys[i] != k || o.IsIntKey(i) != r.IsIntKey(i) {
			return false
		}
	}
	return true
}

// WithValues makes an owned record with r's keys (copied) and values,
// whose references it takes over.
func (r *Record) WithValues(values []Value) *Record {
	out := NewRecord(slices.Clone(r.Keys), values)
	if r.HasIntKeys() {
		out.IntKey = slices.Clone(r.IntKey)
	}
	return out
}

// RecordKey is the text of v as a record key and whether it is an int
// key; ok is false for a value that cannot be a key (only strings and
// ints can).
func RecordKey(v Value) (text string, isInt, ok bool) {
	switch k := v.(type) {
	case String:
		return string(k), false, true
	case Int:
		return strconv.FormatInt(int64(k), 10), true, true
	}
	return "", false, false
}

// ScalarDType is the dtype of an unboxed scalar, or Invalid for other values.
func ScalarDType(v Value) tensor.DType {
	switch v.(type) {
	case Bool:
		return tensor.Bool
	case Int:
		return tensor.Int64
	case Float32:
		return tensor.Float32
	case Float64:
		return tensor.Float64
	}
	return tensor.Invalid
}

// Retain adds one reference to everything v holds.
func Retain(rt *refs.Runtime, v Value) {
	// Unboxed scalars hold nothing: decided here, inlined at the caller,
	// before the switch below reaches its interface case (Object), which
	// is a run-time lookup.
	switch v.(type) {
	case Int, Bool, Float32, Float64:
		return
	}
	retain(rt, v)
}

func retain(rt *refs.Runtime, v Value) {
	switch v := v.(type) {
	case Tensor:
		rt.Retain(v.Ref)
	case *List:
		v.rc++
		v.gc.color = black
	case *Record:
		v.rc++
		v.gc.color = black
	case *Closure:
		v.incref()
	case *Bound:
		v.rc++
		v.gc.color = black
	case *cell:
		v.incref()
	case Object:
		v.IncRef()
	}
}

// Release drops one reference; containers release their contents at zero.
func Release(rt *refs.Runtime, v Value) {
	switch v.(type) {
	case Int, Bool, Float32, Float64:
		return
	}
	release(rt, v)
}

func release(rt *refs.Runtime, v Value) {
	// Values that die are freed from a work list rather than by
	// recursion, so that no nesting depth (a list built by l = [l] a
	// million times) can overflow the Go stack.
	var dead []Value
	release1(rt, v, &dead)
	for len(dead) > 0 {
		d := dead[len(dead)-1]
		dead = dead[:len(dead)-1]
		switch d := d.(type) {
		case *List:
			elems := d.Elems
			d.Elems = nil
			releaseInto(rt, elems, &dead)
		case *Record:
			vals := d.Values
			d.Values = nil
			releaseInto(rt, vals, &dead)
		case *Closure:
			cells, defs := d.cells, d.defaults
			d.cells, d.defaults = nil, nil
			for _, x := range cells {
				release1(rt, x, &dead)
			}
			releaseInto(rt, defs, &dead)
		case *Bound:
			held := d.held
			d.held = nil
			releaseInto(rt, held, &dead)
		case *cell:
			x := d.v
			d.v = nil
			if x != nil {
				release1(rt, x, &dead)
			}
		}
	}
}

// release1 drops one reference to v; a container or cell whose count
// reaches zero goes to dead for its contents to be released.
func release1(rt *refs.Runtime, v Value, dead *[]Value) {
	switch v := v.(type) {
	case Tensor:
		rt.Release(v.Ref)
	case *List:
		if v.rc--; v.rc == 0 {
			*dead = append(*dead, v)
		} else if v.gc.col != nil {
			v.gc.col.possibleRoot(v)
		}
	case *Record:
		if v.rc--; v.rc == 0 {
			*dead = append(*dead, v)
		} else if v.gc.col != nil {
			v.gc.col.possibleRoot(v)
		}
	case *Closure:
		if v.rc--; v.rc == 0 {
			*dead = append(*dead, v)
		} else if v.gc.col != nil {
			v.gc.col.possibleRoot(v)
		}
	case *Bound:
		if v.rc--; v.rc == 0 {
			*dead = append(*dead, v)
		} else if v.gc.col != nil {
			v.gc.col.possibleRoot(v)
		}
	case *cell:
		if v.rc--; v.rc == 0 {
			*dead = append(*dead, v)
		} else {
			v.gc.col.possibleRoot(v)
		}
	case Object:
		v.DecRef(rt)
	}
}

func releaseInto(rt *refs.Runtime, vs []Value, dead *[]Value) {
	for _, v := range vs {
		if v != nil {
			release1(rt, v, dead)
		}
	}
}

// releaseAll releases every value of vs.
func releaseAll(rt *refs.Runtime, vs []Value) {
	for _, v := range vs {
		if v != nil {
			Release(rt, v)
		}
	}
}

func (cl *Closure) incref() {
	cl.rc++
	cl.gc.color = black
}

// decref is Release of a closure, with no type switch while other
// references remain.
func (cl *Closure) decref(rt *refs.Runtime) {
	if cl.rc > 1 && cl.gc.col == nil {
		cl.rc--
		return
	}
	Release(rt, cl)
}

func newCell(v Value, col *collector) *cell { return &cell{v: v, rc: 1, gc: gcHeader{col: col}} }

func (c *cell) incref() {
	c.rc++
	c.gc.color = black
}

// set stores an owned value in the cell, releasing the previous one.
func (c *cell) set(rt *refs.Runtime, v Value) {
	old := c.v
	c.v = v
	if old != nil {
		Release(rt, old)
	}
}
