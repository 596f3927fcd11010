package eval

import (
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
	// "record", "function", "module", "none".
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

// List is a mutable-by-runtime, immutable-by-script sequence of values,
// reference counted so that its tensors die with it.
type List struct {
	Elems []Value
	rc    int32
}

// Record is an ordered string-keyed collection.
type Record struct {
	Keys   []string
	Values []Value
	rc     int32
}

// Kwarg is one keyword argument of a call.
type Kwarg struct {
	Name  string
	Value Value
}

// BuiltinFunc implements a builtin. args and kwargs are borrowed.
type BuiltinFunc func(th *Thread, b *Builtin, args []Value, kwargs []Kwarg) (Value, error)

// Builtin is a function implemented in Go.
type Builtin struct {
	Name string
	// Doc is one line for the REPL's :help and completion.
	Doc string
	Fn  BuiltinFunc
}

func (Bool) Type() string     { return "tensor" }
func (Int) Type() string      { return "tensor" }
func (Float32) Type() string  { return "tensor" }
func (Float64) Type() string  { return "tensor" }
func (Tensor) Type() string   { return "tensor" }
func (String) Type() string   { return "string" }
func (NoneType) Type() string { return "none" }
func (*List) Type() string    { return "list" }
func (*Record) Type() string  { return "record" }
func (*Builtin) Type() string { return "function" }

// NewList makes an owned list that takes over the references in elems.
func NewList(elems []Value) *List { return &List{Elems: elems, rc: 1} }

// NewRecord makes an owned record that takes over the references in values.
func NewRecord(keys []string, values []Value) *Record {
	return &Record{Keys: keys, Values: values, rc: 1}
}

// Get returns the field named key.
func (r *Record) Get(key string) (Value, bool) {
	for i, k := range r.Keys {
		if k == key {
			return r.Values[i], true
		}
	}
	return nil, false
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
	switch v := v.(type) {
	case Tensor:
		rt.Retain(v.Ref)
	case *List:
		v.rc++
	case *Record:
		v.rc++
	case refCounted:
		v.retain()
	}
}

// Release drops one reference; containers release their contents at zero.
func Release(rt *refs.Runtime, v Value) {
	switch v := v.(type) {
	case Tensor:
		rt.Release(v.Ref)
	case *List:
		if v.rc--; v.rc == 0 {
			for _, e := range v.Elems {
				Release(rt, e)
			}
			v.Elems = nil
		}
	case *Record:
		if v.rc--; v.rc == 0 {
			for _, e := range v.Values {
				Release(rt, e)
			}
			v.Values = nil
		}
	case refCounted:
		v.release(rt)
	}
}

// refCounted is implemented by evaluator-owned values that hold others
// (closures, modules).
type refCounted interface {
	retain()
	release(rt *refs.Runtime)
}
