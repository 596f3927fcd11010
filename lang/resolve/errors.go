package resolve

import (
	"sort"

	"github.com/tref-lang/tref/lang/ast"
)

// Error is a static error found by the resolver: an undefined name, a
// redeclaration, a misplaced break. It prints as file:line:col: msg.
type Error struct {
	Pos ast.Pos
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is every static error of a file, sorted by position.
type ErrorList []*Error

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

// suggest returns the candidate closest to name by edit distance, or ""
// when none is close enough to be a plausible typo. A name of one letter
// has none: any other one-letter name is as close as it gets.
func suggest(name string, candidates []string) string {
	limit := min(max(1, len(name)/3), 3, len(name)-1)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		if d := editDistance(name, c); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent letters each
// count one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Suggest is the "did you mean" helper shared with the evaluator (record
// fields, module members): the candidate closest to name, or "".
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }
