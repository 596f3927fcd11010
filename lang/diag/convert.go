package diag

import (
	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/lang/resolve"
	"github.com/tref-lang/tref/runtime/refs"
)

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
	switch e := err.(type) {
	case *eval.Error:
		d := Diagnostic{Pos: e.Pos, Msg: e.Msg}
		for _, f := range e.Stack {
			d.Stack = append(d.Stack, Frame{Fn: f.Fn, Pos: f.Pos})
		}
		*ds = append(*ds, d)
		return
	case *parser.Error:
		*ds = append(*ds, Diagnostic{Pos: e.Pos, Msg: e.Msg})
		return
	case parser.Error:
		*ds = append(*ds, Diagnostic{Pos: e.Pos, Msg: e.Msg})
		return
	case *resolve.Error:
		*ds = append(*ds, Diagnostic{Pos: e.Pos, Msg: e.Msg})
		return
	case *refs.OpError:
		if pos, ok := ast.ParsePos(e.Site.Pos); ok {
			*ds = append(*ds, Diagnostic{Pos: pos, Msg: e.Error()})
			return
		}
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
