package parser

import (
	"errors"
	"fmt"
	"sort"
	"strings"

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

// maxPrinted is how many errors ErrorList.Error shows before summarising
// the rest, as go/scanner does.
const maxPrinted = 10

// ErrorList is a list of syntax errors sorted by position. ParseFile and
// ParseREPL return one whenever they fail.
type ErrorList []*Error

func (l *ErrorList) add(pos ast.Pos, msg string) {
	*l = append(*l, &Error{Pos: pos, Msg: msg})
}

// Len, Less and Swap sort the list by file, line and column.
func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// Error prints one error per line, at most 10, then "and N more errors".
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == maxPrinted {
			fmt.Fprintf(&b, "\nand %d more errors", len(l)-maxPrinted)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives the errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
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
