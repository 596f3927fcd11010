package parser

import (
	"sync"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// Participle parses by recursion: every production open at a token is a
// few Go frames on the stack. Nesting is bounded in two ways:
//
//   - while parsing, each parse counts the productions open (expressions,
//     statements, primaries, postfixes, operators applied by recursion)
//     and stops at maxOpen, so no input exhausts the stack;
//   - the tree built is at most ast.MaxDepth deep (checkDepth). Chains
//     read in a loop (a + b + c ..., x.a.b..., f()()...) add depth to the
//     tree without recursion; they are counted as they are read
//     (exprParser.parse, parseState.chain), so that a chain a million
//     long stops at its MaxDepth-th operator instead of being built.
//
// An open production makes at most two levels of the tree or less (an
// expression in parentheses is a ParenExpr: an expression and a primary
// production), so maxOpen never stops a program whose tree fits.
const maxOpen = 2*ast.MaxDepth + 8

// parseState is what one parse keeps across the sub-parses participle
// makes (each with a copy of the lexer): the productions open.
type parseState struct {
	open int
	// chain counts the postfixes of the operand being parsed.
	chain int
	// noElse holds the offsets of the `if` tokens found not to start a
	// conditional expression (no else after the condition): the
	// construct that owns that if reads the condition again, and an if
	// inside it must not be tried again, or nested conditions would be
	// read in time exponential in their depth.
	noElse map[int]bool
}

// states maps the first token of a parse's token slice, which every copy
// of its lexer shares, to the parse's state.
var states sync.Map

// begin registers the state of the parse that reads lex; the caller
// ends it.
func begin(lex *lexer.PeekingLexer) (end func()) {
	key := &lex.Range(0, 1)[0]
	states.Store(key, &parseState{})
	return func() { states.Delete(key) }
}

// stateOf is the state of the parse lex belongs to. A lexer not made by
// parse (a test driving a sub-parser) gets a state of its own.
func stateOf(lex *lexer.PeekingLexer) *parseState {
	if toks := lex.Range(0, 1); len(toks) > 0 {
		if st, ok := states.Load(&toks[0]); ok {
			return st.(*parseState)
		}
	}
	return &parseState{}
}

// enter counts one more production open at t; the caller calls leave
// when the production ends. Past maxOpen it ends the parse with a depth
// error: returned to participle, an error would only fail the branch it
// is in, and participle would try the others.
func (st *parseState) enter(t *lexer.Token, what string) {
	st.open++
	if st.open > maxOpen {
		panic(bailout{tooDeep(t.Pos, what)})
	}
}

// bailout carries an error that ends the parse at once; parse recovers it.
type bailout struct{ err *synError }

func (st *parseState) leave() { st.open-- }

// tooDeep is the error of a construct past the nesting limit: what is
// "expression" or "statement".
func tooDeep(pos lexer.Position, what string) *synError {
	e := errorAt(pos, "%s nested too deeply (limit %d)", what, ast.MaxDepth)
	e.limit = true
	return e
}

// checkDepth reports the first node of f deeper than ast.MaxDepth.
func checkDepth(f *ast.File) *synError {
	for _, s := range f.Stmts {
		if n := ast.TooDeep(s, ast.MaxDepth); n != nil {
			return &synError{Pos: n.Span(), Msg: ast.DepthError(n), limit: true}
		}
	}
	return nil
}
