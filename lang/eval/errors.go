package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/refs"
)

// Frame is one line of a runtime error's traceback: the function and the
// position in it that was executing ("<module>" for a file's top level).
type Frame struct {
	Fn  string
	Pos ast.Pos
}

// Error is a runtime error at a script position. Stack lists the calls
// that led there, innermost first; it is empty for an error at the top
// level of a file.
type Error struct {
	Pos   ast.Pos
	Msg   string
	Stack []Frame
}

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
		fmt.Fprintf(&b, "\n  at %s (%s)", f.Fn, f.Pos)
	}
	return b.String()
}

// moduleFn names a file's top level in tracebacks.
const moduleFn = "<module>"

// stackAt is the traceback of an error at pos in frame fr; nil when fr is
// a file's top level.
func stackAt(fr *frame, pos ast.Pos) []Frame {
	if fr == nil || fr.parent == nil && fr.cl == nil {
		return nil
	}
	var st []Frame
	for f := fr; f != nil; f = f.parent {
		st = append(st, Frame{Fn: f.name(), Pos: pos})
		if f.site != nil {
			pos = f.site.pos
		}
	}
	return collapse(st)
}

// maxRepeats is how many identical consecutive frames a traceback shows
// before summarising the rest of the run (deep recursion).
const maxRepeats = 3

// collapse shortens runs of identical frames to maxRepeats of them and one
// frame that says how many more there were.
func collapse(st []Frame) []Frame {
	out := st[:0:0]
	for i := 0; i < len(st); {
		j := i
		for j < len(st) && st[j] == st[i] {
			j++
		}
		n := j - i
		if n > maxRepeats+1 {
			out = append(out, st[i:i+maxRepeats]...)
			out = append(out, Frame{Fn: fmt.Sprintf("%s, repeated %d more times", st[i].Fn, n-maxRepeats), Pos: st[i].Pos})
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
		if p, ok := parsePos(op.Site.Pos); ok {
			return &Error{Pos: p, Msg: err.Error(), Stack: fr.th.pathStack(op.Site.Path, p)}
		}
	}
	return &Error{Pos: pos, Msg: err.Error(), Stack: stackAt(fr, pos)}
}

// parsePos reads "file:line:col" (the form refs.Site keeps); the file part
// may itself contain colons.
func parsePos(s string) (ast.Pos, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return ast.Pos{}, false
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j < 0 {
		return ast.Pos{}, false
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return ast.Pos{}, false
	}
	return ast.Pos{File: s[:j], Line: line, Col: col}, true
}

// internalError reports a Go panic caught during evaluation.
func internalError(p any, pos ast.Pos) error {
	msg := fmt.Sprintf("internal error: %v", p)
	if pos.IsValid() {
		msg += fmt.Sprintf(" (at %s)", pos)
	}
	return &Error{Pos: pos, Msg: msg}
}
