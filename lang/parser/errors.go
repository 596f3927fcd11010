package parser

import (
	"errors"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/pos"
)

// synError is a syntax error while parsing: what becomes a pos.Error,
// and what the parser still needs to finish its message. ParseFile and
// ParseREPL return a pos.ErrorList.
type synError struct {
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
func (e *synError) hint(h string) *synError {
	e.hints = append(e.hints, h)
	return e
}

// Error makes synError an error, so that it can pass through participle
// (parseExpr returns it) and be recognised in what participle returns.
func (e *synError) Error() string {
	return (&pos.Error{Pos: e.Pos, Msg: e.Msg}).Error()
}

// errorList collects the syntax errors of a parse.
type errorList []*synError

func (l *errorList) add(p ast.Pos, msg string) {
	*l = append(*l, &synError{Pos: p, Msg: msg})
}

// withHints appends each error's hints to its message, a Python hint
// (hints.go) where the error has no other advice or only a guess.
func (l errorList) withHints(toks []lexer.Token) errorList {
	for _, e := range l {
		if h := pythonHint(toks, e); h != "" && !e.limit && (len(e.hints) == 0 || e.guess) {
			e.hints = []string{" " + h}
		}
		e.Msg += strings.Join(e.hints, "")
		e.hints = nil
	}
	return l
}

// err returns the list as the parser's result, a pos.ErrorList sorted by
// position (wrapped to say so when the input is incomplete), or nil when
// it is empty.
func (l errorList) err() error {
	if len(l) == 0 {
		return nil
	}
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.Before(l[j].Pos) })
	out := make(pos.ErrorList, len(l))
	incomplete := false
	for i, e := range l {
		out[i] = &pos.Error{Pos: e.Pos, Msg: e.Msg}
		incomplete = incomplete || e.incomplete
	}
	if incomplete {
		return &incompleteError{out}
	}
	return out
}

// incompleteError is the parser's error list for input that ended while
// a bracket was open.
type incompleteError struct{ list pos.ErrorList }

func (e *incompleteError) Error() string { return e.list.Error() }
func (e *incompleteError) Unwrap() error { return e.list }

// Incomplete reports whether err says the input ended while a bracket,
// brace or parenthesis was still open: a REPL should then read another
// line and parse again. Strings cannot span lines, so an unterminated
// string is an error, not an incomplete input.
func Incomplete(err error) bool {
	var e *incompleteError
	return errors.As(err, &e)
}
