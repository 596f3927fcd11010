package diag

import "github.com/tref-lang/tref/lang/pos"

// positioned is an error at a script position: a pos.Error (syntax and
// static errors), the evaluator's runtime error, the runtime's failed op.
type positioned interface {
	error
	Position() pos.Pos
	Message() string
}

// traced is a runtime error with the calls that led to it.
type traced interface {
	Traceback() []pos.Frame
}

// Diagnostics turns an error from any phase into the diagnostics to print:
// one per static error of a list, one with its traceback for a runtime
// error. Wrapped errors are searched (errors.Unwrap, both forms). An error
// with no script position anywhere in it becomes one diagnostic with only
// its message.
func Diagnostics(err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var ds []Diagnostic
	collect(err, &ds)
	if len(ds) == 0 {
		return []Diagnostic{{Msg: err.Error()}}
	}
	return ds
}

// collect appends the diagnostics of the positioned errors in err's tree,
// stopping at the first positioned error on each branch.
func collect(err error, ds *[]Diagnostic) {
	if e, ok := err.(positioned); ok && e.Position().IsValid() {
		d := Diagnostic{Pos: e.Position(), Msg: e.Message()}
		if t, ok := err.(traced); ok {
			d.Stack = t.Traceback()
		}
		*ds = append(*ds, d)
		return
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			collect(inner, ds)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			collect(inner, ds)
		}
	}
}
