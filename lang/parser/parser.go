// Package parser reads tref source into the syntax tree of lang/ast.
//
// The grammar is a set of participle structs (grammar.go) with expressions
// parsed by precedence climbing (expr.go); convert.go turns the grammar
// structs into ast nodes. lexer.go scans by hand, token for token as the
// lexDef rules say. Syntax errors are built from participle's typed
// errors: the unexpected token and the production it expected
// (syntaxerr.go). The language reference is spec/syntax.md and the
// grammar, printed from the structs, is spec/grammar.ebnf.
//
// The trees it builds follow these conventions:
//
//   - Statements and primaries are positioned at their first token;
//     operators at the operator: a BinaryExpr or UnaryExpr at its operator,
//     a CallExpr at its '(', an IndexExpr at its '[', a FieldExpr at its
//     '.'. An Arg is at its first token (the name of a keyword argument), a
//     SliceExpr at its first token (the low bound or the first ':').
//   - `else if` is an IfStmt whose Else is another *ast.IfStmt; a final
//     `else` is a *ast.Block; Else is nil without one.
//   - `fn f(...) {...}` is a FnStmt whose Fn is named "f"; a lambda is a
//     FnExpr named "lambda". `fn(x) => e` has Arrow set and a Body block
//     holding one ReturnStmt of e, both at e's position.
//   - A method call x.m(a) is a CallExpr whose Fn is the FieldExpr x.m.
//   - An index is an expression or a *ast.SliceExpr (parts nil when
//     omitted); a negative index is a UnaryExpr.
//   - An ImportStmt's Name is the alias, or the path's file stem: the last
//     element ('/' or '\' separated) without its extension, positioned at
//     the path string.
//   - NumberLit keeps Raw as written; IsInt says which of Int and Float is
//     set. Float is the float64 value; the evaluator rounds it to float32.
//   - Lists of elements, fields, arguments and parameters are never nil.
//   - Parentheses are kept as ParenExpr. Semicolons leave no node.
//
// The parser rejects what the resolver would otherwise have to: `test` or
// `import` below the top level, assignment to anything but a name, an
// expression statement that is not a call (outside the REPL), positional
// arguments after keyword ones, repeated keyword arguments, parameters or
// record keys. It does not check `break`, `continue` or `return`
// placement, or names.
package parser

import (
	"errors"
	"fmt"
	"sort"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// ReplFile is the file name of positions in REPL input.
const ReplFile = "<repl>"

// ParseFile parses a script. On failure it returns a nil file and a
// pos.ErrorList: every lexical error, or the first syntax error, or every
// error found while building the tree.
func ParseFile(path string, src []byte) (*ast.File, error) {
	return parse(path, src, false, 1)
}

// ParseREPL parses one REPL input. It differs from ParseFile in accepting a
// bare expression as a statement (the REPL prints its value); positions
// name the file "<repl>".
func ParseREPL(src []byte) (*ast.File, error) {
	return ParseREPLAt(src, 1)
}

// ParseREPLAt is ParseREPL for an input whose first line is line first of
// the session: a REPL numbers its inputs' lines on from one input to the
// next, so that every position in the session names one line.
func ParseREPLAt(src []byte, first int) (*ast.File, error) {
	return parse(ReplFile, src, true, max(first, 1))
}

func parse(path string, src []byte, repl bool, first int) (f *ast.File, err error) {
	toks, errs := scan(path, src, first)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	defer func() {
		// participle panics on a grammar that accepts an empty match, and
		// convert.go on a grammar struct it does not know; neither should
		// happen, but no input may crash the interpreter. FuzzParse fails
		// on this message.
		if r := recover(); r != nil {
			f = nil
			if b, ok := r.(bailout); ok {
				err = errorList{b.err}.err()
				return
			}
			err = errorList{{Pos: ast.Pos{File: path, Line: 1, Col: 1}, Msg: fmt.Sprintf("internal parser error: %v", r)}}.err()
		}
	}()
	peek, err := lexer.Upgrade(&tokenLexer{toks: toks})
	if err != nil {
		return nil, errorList{{Pos: ast.Pos{File: path, Line: 1, Col: 1}, Msg: err.Error()}}.err()
	}
	// The lexer holds a copy of the tokens: use it, and let the scanner's
	// go (a token is 64 bytes, a large share of the memory of a parse).
	toks = peek.Range(0, lexer.RawCursor(len(toks)))
	defer begin(peek)()
	g, err := fileParser.ParseFromLexer(peek)
	if err != nil {
		return nil, errorList{syntaxError(err, toks)}.withHints(toks).err()
	}
	c := &converter{repl: repl, toks: toks}
	f = &ast.File{Path: path, Stmts: c.stmts(g.Stmts)}
	if len(c.errs) > 0 {
		return nil, c.errs.withHints(toks).err()
	}
	if e := checkDepth(f); e != nil {
		return nil, errorList{e}.err()
	}
	if e := checkStars(f); e != nil {
		return nil, errorList{e}.err()
	}
	return f, nil
}

// tokenLexer replays scanned tokens to participle.
type tokenLexer struct {
	toks []lexer.Token
	i    int
}

func (l *tokenLexer) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}

// syntaxError converts an error of the participle parser into a synError in
// the form "expected X, found Y", naming the construct being parsed when
// an open bracket tells it. Errors made by this package pass unchanged.
func syntaxError(err error, toks []lexer.Token) *synError {
	var e *synError
	var u *participle.UnexpectedTokenError
	var perr participle.Error
	switch {
	case errors.As(err, &e):
	case errors.As(err, &u):
		e = unexpected(u, toks)
	case errors.As(err, &perr):
		e = &synError{Pos: posOf(perr.Position()), Msg: perr.Message()}
	default:
		e = &synError{Pos: posOf(toks[len(toks)-1].Pos), Msg: err.Error()}
	}
	if at := tokenAt(toks, e.Pos); at < len(toks) && toks[at].EOF() {
		if open := openBrackets(toks, at); len(open) > 0 {
			e.incomplete = true
			// In a long file the bracket left open may be far above the
			// end where the error is found: name it.
			if o := toks[open[len(open)-1]]; o.Pos.Line < e.Pos.Line {
				e.hint(fmt.Sprintf(" (the '%s' at %d:%d is not closed)", o.Value, o.Pos.Line, o.Pos.Column))
			}
		}
	}
	return e
}

// tokenAt is the index of the first token at or after pos.
func tokenAt(toks []lexer.Token, pos ast.Pos) int {
	return sort.Search(len(toks), func(i int) bool {
		p := toks[i].Pos
		return p.Line > pos.Line || (p.Line == pos.Line && p.Column >= pos.Col)
	})
}

// openBrackets returns the indexes of the brackets still open before
// token i, outermost first.
func openBrackets(toks []lexer.Token, i int) []int {
	var stack []int
	for j := 0; j < i && j < len(toks); j++ {
		t := toks[j]
		if t.Type == tokString {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			stack = append(stack, j)
		case ")", "]", "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack
}

// describe names a token for "found ..." in a message.
func describe(t lexer.Token) string {
	switch t.Type {
	case lexer.EOF:
		return "end of file"
	case tokString:
		return "string " + t.Value
	}
	return fmt.Sprintf("%q", t.Value)
}
