package parser

import (
	"errors"
	"sort"

	"github.com/tref-lang/tref/lang/ast"
)

// Error is a syntax error at a position. It prints as file:line:col: msg.
type Error struct {
	Pos ast.Pos
	Msg string
	// incomplete is set when the input ended inside an open bracket, so
	// more input could complete it (see Incomplete).
	incomplete bool
}

func (e Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is a list of syntax errors sorted by position. ParseFile and
// ParseREPL return one whenever they fail.
type ErrorList []*Error

func (l *ErrorList) add(pos ast.Pos, msg string) {
	*l = append(*l, &Error{Pos: pos, Msg: msg})
}

// Len, Less and Swap sort the list by file, line and column.
func (l ErrorList) Len() int           { return len(l) }
func (l ErrorList) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool { return l[i].Pos.Before(l[j].Pos) }

// Error prints one error per line, at most ast.MaxPrintedErrors, then
// "and N more errors".
func (l ErrorList) Error() string { return ast.JoinErrors(l) }

// Unwrap gives the errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error { return ast.UnwrapErrors(l) }

// err sorts the list and returns it, or nil when it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	sort.Stable(l)
	return l
}

// Incomplete reports whether err says the input ended while a bracket,
// brace or parenthesis was still open: a REPL should then read another
// line and parse again. Strings cannot span lines, so an unterminated
// string is an error, not an incomplete input.
func Incomplete(err error) bool {
	var l ErrorList
	if errors.As(err, &l) {
		for _, e := range l {
			if e.incomplete {
				return true
			}
		}
		return false
	}
	var e *Error
	return errors.As(err, &e) && e.incomplete
}
