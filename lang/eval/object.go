package eval

import "github.com/tref-lang/tref/runtime/refs"

// Object is a value implemented in Go outside the evaluator, such as the
// model load_onnx returns: a script can call it and read its fields, and
// it is reference counted like lists and records, so that the resources
// it holds (tensor refs, a mapped file) are freed with its last reference.
// An Object holds no script values that could form a cycle.
type Object interface {
	Value
	// String is how printing and messages show it ("<onnx model m.onnx>").
	String() string
	// Call runs it with borrowed arguments and returns an owned result.
	Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error)
	// Field returns field name, owned, or found=false.
	Field(th *Thread, name string) (v Value, found bool, err error)
	// FieldNames lists the fields, for messages and completion.
	FieldNames() []string
	// IncRef adds a reference; DecRef drops one and frees what the object
	// holds when none is left.
	IncRef()
	DecRef(rt *refs.Runtime)
}

// callObject calls o as callBuiltin calls a builtin: arguments consumed,
// errors positioned at the call.
func (th *Thread) callObject(caller *frame, o Object, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	b := &Builtin{Name: o.String(), Fn: func(th *Thread, _ *Builtin, args []Value, kw []Kwarg) (Value, error) {
		return o.Call(th, args, kw)
	}}
	return th.callBuiltin(caller, b, args, kw, site)
}
