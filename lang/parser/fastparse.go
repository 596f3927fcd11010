package parser

import (
	"errors"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// fastParser builds the grammar structs of grammar.go by plain recursive
// descent, following their tags one for one. participle interprets the
// tags through reflection at several microseconds per token; this takes a
// fraction of that, so a 2000-line script parses in milliseconds.
//
// It only ever parses correct programs: at the first token that does not
// fit it gives up (failed), and parse runs the participle parser from the
// start, which reports the error exactly as before. So the grammar
// structs and their tags stay the definition of the language and of its
// error messages, and spec/grammar.ebnf is still printed from them.
// fastparse_test.go checks that both parsers build the same tree for
// every input the tests know, and FuzzFastParse for arbitrary ones.
type fastParser struct {
	lex    *lexer.PeekingLexer
	toks   []lexer.Token
	failed bool
}

// errNotFast stops an expression that the fast parser cannot take.
var errNotFast = errors.New("not parsed by the fast parser")

// useFastParser enables the fast parser; tests turn it off to compare.
var useFastParser = true

// fastParse parses a whole file, or reports failure.
func fastParse(lex *lexer.PeekingLexer, toks []lexer.Token) (*file, bool) {
	p := &fastParser{lex: lex, toks: toks}
	f := &file{Stmts: p.stmts()}
	if !p.failed && !p.peek().EOF() {
		p.failed = true
	}
	return f, !p.failed
}

func (p *fastParser) peek() *lexer.Token { return p.lex.Peek() }

// is reports whether the next token is the operator or keyword s.
func (p *fastParser) is(s string) bool {
	t := p.peek()
	return (t.Type == tokOp || t.Type == tokKeyword) && t.Value == s
}

// expect consumes the operator or keyword s.
func (p *fastParser) expect(s string) lexer.Token {
	if p.failed || !p.is(s) {
		p.failed = true
		return lexer.Token{}
	}
	return *p.lex.Next()
}

// expectType consumes a token of type typ.
func (p *fastParser) expectType(typ lexer.TokenType) lexer.Token {
	if p.failed || p.peek().Type != typ {
		p.failed = true
		return lexer.Token{}
	}
	return *p.lex.Next()
}

// stmts parses statements until a token that cannot start one.
func (p *fastParser) stmts() []stmt {
	var out []stmt
	for !p.failed {
		s := p.stmt()
		if s == nil {
			break
		}
		out = append(out, s)
	}
	return out
}

// stmt parses one statement; nil when the next token starts none.
func (p *fastParser) stmt() stmt {
	t := p.peek()
	pos := t.Pos
	if t.Type == tokKeyword {
		switch t.Value {
		case "let":
			s := &letStmt{Pos: pos}
			p.lex.Next()
			s.Name = p.expectType(tokIdent)
			p.expect("=")
			s.Value = p.expr()
			return s
		case "if":
			return p.ifStmt()
		case "return":
			p.lex.Next()
			return &returnStmt{Pos: pos, Value: p.optExpr()}
		case "for":
			s := &forStmt{Pos: pos}
			p.lex.Next()
			s.Var = p.expectType(tokIdent)
			p.expect("in")
			s.Iter = p.expr()
			s.Body = p.block()
			return s
		case "fn":
			s := &fnStmt{Pos: pos}
			p.lex.Next()
			s.Name = p.expectType(tokIdent)
			s.Params = p.params()
			s.Body = p.block()
			return s
		case "assert":
			s := &assertStmt{Pos: pos}
			p.lex.Next()
			s.Cond = p.expr()
			if p.is(",") {
				p.lex.Next()
				s.Msg = p.expr()
			}
			return s
		case "while":
			s := &whileStmt{Pos: pos}
			p.lex.Next()
			s.Cond = p.expr()
			s.Body = p.block()
			return s
		case "break":
			p.lex.Next()
			return &breakStmt{Pos: pos, Keyword: t.Value}
		case "continue":
			p.lex.Next()
			return &continueStmt{Pos: pos, Keyword: t.Value}
		case "test":
			s := &testStmt{Pos: pos}
			p.lex.Next()
			s.Name = p.expectType(tokString)
			s.Body = p.block()
			return s
		case "import":
			s := &importStmt{Pos: pos}
			p.lex.Next()
			s.Path = p.expectType(tokString)
			if p.is("as") {
				p.lex.Next()
				s.Alias = p.expectType(tokIdent)
			}
			return s
		case "del":
			s := &delStmt{Pos: pos}
			p.lex.Next()
			s.Name = p.expectType(tokIdent)
			return s
		}
	}
	switch {
	case p.is("{"):
		return p.block()
	case p.is(";"):
		p.lex.Next()
		return &emptyStmt{Semi: ";"}
	case !startsExpr(t):
		return nil
	}
	s := &simpleStmt{Pos: pos, X: p.expr()}
	if t := p.peek(); t.Type == tokOp {
		switch t.Value {
		case "=", "+=", "-=", "*=", "/=":
			s.Op = p.lex.Next().Value
			s.Value = p.expr()
		}
	}
	return s
}

func (p *fastParser) ifStmt() *ifStmt {
	s := &ifStmt{Pos: p.peek().Pos}
	p.expect("if")
	s.Cond = p.expr()
	s.Then = p.block()
	if !p.failed && p.is("else") {
		p.lex.Next()
		switch {
		case p.is("if"):
			s.ElseIf = p.ifStmt()
		case p.is("{"):
			s.Else = p.block()
		default:
			p.failed = true
		}
	}
	return s
}

func (p *fastParser) block() *block {
	b := &block{Pos: p.peek().Pos}
	p.expect("{")
	b.Stmts = p.stmts()
	b.End = p.expect("}")
	return b
}

func (p *fastParser) params() *params {
	ps := &params{Pos: p.peek().Pos}
	p.expect("(")
	if !p.failed && p.peek().Type == tokIdent {
		ps.First = p.param()
		for !p.failed && p.is(",") {
			t := &paramTail{Pos: p.lex.Next().Pos}
			if p.peek().Type == tokIdent {
				t.Param = p.param()
			}
			ps.Rest = append(ps.Rest, t)
		}
	}
	ps.End = p.expect(")")
	return ps
}

func (p *fastParser) param() *param {
	pr := &param{Pos: p.peek().Pos, Name: p.expectType(tokIdent)}
	if !p.failed && p.is("=") {
		p.lex.Next()
		pr.Default = p.expr()
	}
	return pr
}

// expr parses a required expression by precedence climbing, with this
// parser's operands.
func (p *fastParser) expr() ast.Expr {
	if p.failed || !startsExpr(p.peek()) {
		p.failed = true
		return nil
	}
	e := &exprParser{lex: p.lex, fast: p}
	x, err := e.parse(1)
	if err != nil {
		p.failed = true
		return nil
	}
	return x
}

// optExpr parses an expression if one starts here.
func (p *fastParser) optExpr() ast.Expr {
	if p.failed || !startsExpr(p.peek()) {
		return nil
	}
	return p.expr()
}

// operand parses a primary and its postfix operations.
func (p *fastParser) operand() *operand {
	o := &operand{Pos: p.peek().Pos, Primary: p.primary()}
	for !p.failed {
		t := p.peek()
		if t.Type != tokOp {
			break
		}
		switch t.Value {
		case "(":
			o.Postfix = append(o.Postfix, p.call())
		case "[":
			o.Postfix = append(o.Postfix, p.index())
		case ".":
			f := &fieldSuffix{Pos: p.lex.Next().Pos}
			f.Name = p.expectType(tokIdent)
			o.Postfix = append(o.Postfix, f)
		default:
			return o
		}
	}
	return o
}

func (p *fastParser) primary() primary {
	t := p.peek()
	switch t.Type {
	case tokIdent:
		return &identExpr{Tok: *p.lex.Next()}
	case tokNumber:
		return &numberLit{Tok: *p.lex.Next()}
	case tokString:
		return &stringLit{Tok: *p.lex.Next()}
	case tokKeyword:
		switch t.Value {
		case "true", "false":
			return &boolLit{Pos: t.Pos, Value: p.lex.Next().Value}
		case "none":
			return &noneLit{Pos: t.Pos, None: p.lex.Next().Value}
		case "fn":
			f := &fnLit{Pos: t.Pos}
			p.lex.Next()
			f.Params = p.params()
			switch {
			case p.failed:
			case p.is("=>"):
				p.lex.Next()
				f.Arrow = p.expr()
			case p.is("{"):
				f.Body = p.block()
			default:
				p.failed = true
			}
			return f
		}
	case tokOp:
		switch t.Value {
		case "(":
			x := &parenExpr{Pos: t.Pos}
			p.lex.Next()
			x.X = p.expr()
			x.End = p.expect(")")
			return x
		case "[":
			return p.list()
		case "{":
			return p.record()
		}
	}
	p.failed = true
	return nil
}

func (p *fastParser) list() *listLit {
	l := &listLit{Pos: p.lex.Next().Pos}
	if l.First = p.optExpr(); l.First != nil {
		for !p.failed && p.is(",") {
			t := &exprTail{Pos: p.lex.Next().Pos}
			t.X = p.optExpr()
			l.Rest = append(l.Rest, t)
		}
	}
	l.End = p.expect("]")
	return l
}

func (p *fastParser) record() *recordLit {
	r := &recordLit{Pos: p.lex.Next().Pos}
	if p.startsField() {
		r.First = p.field()
		for !p.failed && p.is(",") {
			t := &fieldTail{Pos: p.lex.Next().Pos}
			if p.startsField() {
				t.Field = p.field()
			}
			r.Rest = append(r.Rest, t)
		}
	}
	r.End = p.expect("}")
	return r
}

func (p *fastParser) startsField() bool {
	t := p.peek().Type
	return !p.failed && (t == tokIdent || t == tokString)
}

func (p *fastParser) field() *recordField {
	f := &recordField{Pos: p.peek().Pos}
	if t := p.lex.Next(); t.Type == tokIdent {
		f.Name = *t
	} else {
		f.Str = *t
	}
	p.expect(":")
	f.Value = p.expr()
	return f
}

func (p *fastParser) call() *callSuffix {
	c := &callSuffix{Pos: p.lex.Next().Pos}
	if startsExpr(p.peek()) {
		c.First = p.arg()
		for !p.failed && p.is(",") {
			t := &argTail{Pos: p.lex.Next().Pos}
			if startsExpr(p.peek()) {
				t.Arg = p.arg()
			}
			c.Rest = append(c.Rest, t)
		}
	}
	c.End = p.expect(")")
	return c
}

func (p *fastParser) arg() *arg {
	a := &arg{Pos: p.peek().Pos, X: p.expr()}
	if !p.failed && p.is("=") {
		p.lex.Next()
		a.Value = p.expr()
	}
	return a
}

// index parses x[...]. An empty first index is left to the participle
// parser, which reports it.
func (p *fastParser) index() *indexSuffix {
	s := &indexSuffix{Pos: p.lex.Next().Pos}
	if s.First = p.indexItem(); s.First == nil {
		p.failed = true
		return s
	}
	for !p.failed && p.is(",") {
		t := &indexTail{Pos: p.lex.Next().Pos}
		t.Index = p.indexItem()
		s.Rest = append(s.Rest, t)
	}
	s.End = p.expect("]")
	return s
}

// indexItem parses `expr`, `lo:hi:step` with optional parts, or nothing
// (nil).
func (p *fastParser) indexItem() *index {
	ix := &index{Pos: p.peek().Pos, Lo: p.optExpr()}
	if !p.failed && p.is(":") {
		st := &sliceTail{Pos: p.lex.Next().Pos}
		st.Hi = p.optExpr()
		if !p.failed && p.is(":") {
			st.StepColon = p.lex.Next().Value
			st.Step = p.optExpr()
		}
		ix.Slice = st
	}
	if ix.empty() {
		return nil
	}
	return ix
}
