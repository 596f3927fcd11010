package pos

import (
	"fmt"
	"sort"
	"strings"
)

// Error is an error at a position. It prints as "file:line:col: msg".
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Position and Message give the parts of e to a printer (lang/diag):
// every error that happens at a script position has these two methods.
func (e *Error) Position() Pos   { return e.Pos }
func (e *Error) Message() string { return e.Msg }

// MaxPrinted is how many errors of a list are printed before the rest
// are summarised as "and N more errors", as go/scanner does.
const MaxPrinted = 10

// ErrorList is a list of errors, sorted by position (Sort) when complete.
// The parser and the resolver return one whenever they fail.
type ErrorList []*Error

// Add appends an error at p.
func (l *ErrorList) Add(p Pos, msg string) { *l = append(*l, &Error{Pos: p, Msg: msg}) }

// Len, Less and Swap sort the list by file, line and column.
func (l ErrorList) Len() int           { return len(l) }
func (l ErrorList) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool { return l[i].Pos.Before(l[j].Pos) }

// Sort sorts the list by position, keeping the order of errors at the
// same position.
func (l ErrorList) Sort() { sort.Stable(l) }

// Err sorts the list and returns it, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Error prints one error per line, at most MaxPrinted, then "and N more
// errors".
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxPrinted {
			fmt.Fprintf(&b, "\nand %d more errors", len(l)-MaxPrinted)
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
