package ast

import (
	"fmt"
	"strings"
)

// Before orders positions by file, then line, then column: the order in
// which error lists are sorted and printed.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// MaxPrintedErrors is how many errors an error list prints before
// summarising the rest, as go/scanner does.
const MaxPrintedErrors = 10

// JoinErrors prints the errors of a list one per line, at most
// MaxPrintedErrors, then "and N more errors". The parser's and the
// resolver's error lists print through it.
func JoinErrors[E error](errs []E) string {
	var b strings.Builder
	for i, e := range errs {
		if i == MaxPrintedErrors {
			fmt.Fprintf(&b, "\nand %d more errors", len(errs)-MaxPrintedErrors)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// UnwrapErrors gives a list's errors to errors.Is and errors.As.
func UnwrapErrors[E error](errs []E) []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}
