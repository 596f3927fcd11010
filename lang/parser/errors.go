package parser

import (
	"errors"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// Error is a syntax error at a position. It prints as file:line:col: msg.
type Error struct {
	Pos ast.Pos
	Msg string
	// incomplete is set when the input ended inside an open bracket, so
	// more input could complete it (see Incomplete).
	incomplete bool
	// hints are advice appended to Msg when parsing ends (withHints), each
	// with its separator: " (the '[' at 1:9 is not closed)". guess marks
	// advice that a Python hint replaces ("; did you mean `let x = ...`?"
	// is not what "def f(x)" meant).
	hints []string
	guess bool
	// limit marks an error of a limit (nesting depth), which no Python
	// habit explains.
	limit bool
}

// hint adds advice to e.
func (e *Error) hint(h string) *Error {
	e.hints = append(e.hints, h)
	return e
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

// withHints appends each error's hints to its message, a Python hint
// (hints.go) where the error has no other advice or only a guess.
func (l ErrorList) withHints(toks []lexer.Token) {
	for _, e := range l {
		if h := pythonHint(toks, e); h != "" && !e.limit && (len(e.hints) == 0 || e.guess) {
			e.hints = []string{" " + h}
		}
		e.Msg += strings.Join(e.hints, "")
		e.hints = nil
	}
}

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
