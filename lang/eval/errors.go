package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/refs"
)

// Error is a runtime error at a script position. Stack lists the calls
// that led there, innermost first; it is empty for an error at the top
// level of a file.
type Error struct {
	Pos   ast.Pos
	Msg   string
	Stack []pos.Frame
}

// Position, Message and Traceback give the parts of e to a printer
// (lang/diag).
func (e *Error) Position() pos.Pos      { return e.Pos }
func (e *Error) Message() string        { return e.Msg }
func (e *Error) Traceback() []pos.Frame { return e.Stack }

// Error prints "file:line:col: msg" and one "  at fn (file:line:col)" line
// per frame.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	for _, f := range e.Stack {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

// moduleFn names a file's top level in tracebacks.
const moduleFn = "<module>"

// stackAt is the traceback of an error at pos in frame fr; nil when fr is
// a file's top level. The root frame Thread.Call gives a function called
// from outside any script (a placement hook) has no module and no
// position: the traceback ends at the function's own frame.
func stackAt(fr *frame, at ast.Pos) []pos.Frame {
	if fr == nil || fr.parent == nil && fr.cl == nil {
		return nil
	}
	var st []pos.Frame
	for f := fr; f != nil; f = f.parent {
		if f.parent == nil && f.cl == nil && f.mod == nil {
			break
		}
		st = append(st, pos.Frame{Fn: f.name(), Pos: at})
		if f.site != nil {
			at = f.site.pos
		}
	}
	return collapse(st)
}

// maxRepeats is how many identical consecutive frames a traceback shows
// before summarising the rest of the run (deep recursion).
const maxRepeats = 3

// collapse shortens runs of identical frames to maxRepeats of them and one
// frame that says how many more there were.
func collapse(st []pos.Frame) []pos.Frame {
	out := st[:0:0]
	for i := 0; i < len(st); {
		j := i
		for j < len(st) && st[j] == st[i] {
			j++
		}
		n := j - i
		if n > maxRepeats+1 {
			out = append(out, st[i:i+maxRepeats]...)
			out = append(out, pos.Frame{Fn: fmt.Sprintf("%s, repeated %d more times", st[i].Fn, n-maxRepeats), Pos: st[i].Pos})
		} else {
			out = append(out, st[i:j]...)
		}
		i = j
	}
	return out
}

// errorf makes a runtime error at pos in frame fr.
func (fr *frame) errorf(pos ast.Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Stack: stackAt(fr, pos)}
}

// wrap positions an error returned by a builtin or the runtime: an
// *Error passes unchanged; a failed op (refs.OpError) is placed at the
// script position that submitted it, with that position's call path;
// anything else is placed at pos in frame fr.
func (fr *frame) wrap(pos ast.Pos, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var op *refs.OpError
	if errors.As(err, &op) {
		if p := op.Site.Pos; p.IsValid() {
			return &Error{Pos: p, Msg: err.Error(), Stack: fr.th.pathStack(op.Site.Path, p)}
		}
	}
	return &Error{Pos: pos, Msg: err.Error(), Stack: stackAt(fr, pos)}
}

// internalError reports a Go panic caught during evaluation.
func internalError(p any, pos ast.Pos) error {
	msg := fmt.Sprintf("internal error: %v", p)
	if pos.IsValid() {
		msg += fmt.Sprintf(" (at %s)", pos)
	}
	return &Error{Pos: pos, Msg: msg}
}
