package parser

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// assoc says how a level's operators group.
type assoc uint8

const (
	left     assoc = iota // a - b - c is (a - b) - c
	right                 // a ** b ** c is a ** (b ** c)
	nonAssoc              // a < b < c is an error
	prefix                // a unary operator before its operand
)

// level is one row of the precedence table; name is its production in
// spec/grammar.ebnf.
type level struct {
	name  string
	ops   []string
	assoc assoc
}

// levels is the precedence table, lowest first; levels[0] is unused so the
// index is the level number of the language reference. Operands (level 9:
// calls, indexing, fields) come from the operand production.
var levels = [...]level{
	1: {"Or", []string{"or"}, left},
	2: {"And", []string{"and"}, left},
	3: {"Not", []string{"not"}, prefix},
	4: {"Comparison", []string{"==", "!=", "<", "<=", ">", ">=", "in", "not in", "is not", "is"}, nonAssoc},
	5: {"Sum", []string{"+", "-"}, left},
	6: {"Product", []string{"*", "/", "//", "%", "@"}, left},
	7: {"Unary", []string{"-"}, prefix},
	8: {"Power", []string{"**"}, right},
}

// operandLevel is the level of operands, one above the table.
const operandLevel = len(levels)

// unaryLevel is where a right operand of ** starts, so that 2 ** -1 parses
// while -2 ** 2 is -(2 ** 2).
const unaryLevel = 7

// exprParser parses one expression by precedence climbing over levels.
type exprParser struct {
	lex *lexer.PeekingLexer
	st  *parseState
}

// parseExpr is the participle parser for ast.Expr. It answers NextMatch
// when the next token cannot start an expression, so optional expressions
// (`return`, an empty index) work; once it has consumed a token any error
// is final.
func parseExpr(lex *lexer.PeekingLexer) (ast.Expr, error) {
	if !startsExpr(lex.Peek()) {
		return nil, participle.NextMatch
	}
	p := &exprParser{lex: lex, st: stateOf(lex)}
	p.st.enter(lex.Peek(), "expression")
	defer p.st.leave()
	if t := lex.Peek(); t.Type == tokOp && (t.Value == "*" || t.Value == "**") {
		// *xs or **r: a spread, valid only where checkStars allows it.
		lex.Next()
		x, err := p.conditional()
		if err != nil {
			return nil, err
		}
		return &ast.StarExpr{At: posOf(t.Pos), X: x, Double: t.Value == "**"}, nil
	}
	return p.conditional()
}

// conditional parses `then if cond else other`, below every operator
// level: `a or b if c else d` is `(a or b) if c else d`, and the else
// operand is another conditional (`a if c else b if d else e`). An `if`
// that no `else` follows is not this expression's: the comprehension's
// filter (`[x for x in xs if x > 0]`) or the next statement (an if after a
// line ending in an expression). Its condition is then read again by
// whoever owns it.
func (p *exprParser) conditional() (ast.Expr, error) {
	x, err := p.parse(1)
	if err != nil {
		return nil, err
	}
	t := p.lex.Peek()
	if t.Type != tokKeyword || t.Value != "if" || p.st.noElse[t.Pos.Offset] {
		return x, nil
	}
	cp := p.lex.MakeCheckpoint()
	at := p.lex.Next()
	cond, err := p.parse(1)
	if next := p.lex.Peek(); err != nil || next.Type != tokKeyword || next.Value != "else" {
		p.lex.LoadCheckpoint(cp)
		if p.st.noElse == nil {
			p.st.noElse = map[int]bool{}
		}
		p.st.noElse[at.Pos.Offset] = true
		return x, nil
	}
	p.lex.Next()
	p.st.enter(at, "expression")
	other, err := p.conditional()
	p.st.leave()
	if err != nil {
		return nil, err
	}
	return &ast.CondExpr{At: posOf(at.Pos), Cond: cond, Then: x, Else: other}, nil
}

// parse parses an expression whose operators bind at least as tightly as
// level lv.
func (p *exprParser) parse(lv int) (ast.Expr, error) {
	if lv == operandLevel {
		return p.operand()
	}
	l := levels[lv]
	if l.assoc == prefix {
		if !p.at(l.ops) {
			return p.parse(lv + 1)
		}
		op := p.lex.Next()
		p.st.enter(op, "expression")
		x, err := p.parse(lv)
		p.st.leave()
		if err != nil {
			return nil, err
		}
		return &ast.UnaryExpr{At: posOf(op.Pos), Op: op.Value, X: x}, nil
	}
	x, err := p.parse(lv + 1)
	if err != nil {
		return nil, err
	}
	for n := 1; p.at(l.ops); n++ {
		op := p.next()
		if n >= ast.MaxDepth {
			// A left-associative chain is read in a loop, but each
			// operator is one level more of the tree.
			panic(bailout{tooDeep(op.Pos, "expression")})
		}
		var y ast.Expr
		if l.assoc == right {
			p.st.enter(op, "expression")
			y, err = p.parse(unaryLevel)
			p.st.leave()
		} else {
			y, err = p.parse(lv + 1)
		}
		if err != nil {
			return nil, err
		}
		x = &ast.BinaryExpr{At: posOf(op.Pos), Op: op.Value, X: x, Y: y}
		if l.assoc == nonAssoc && p.at(l.ops) {
			next := p.next()
			return nil, errorAt(next.Pos, "comparison operators cannot be chained; write a %s b and b %s c",
				op.Value, next.Value)
		}
	}
	return x, nil
}

// at reports whether the next tokens are one of the operators ops. Only
// operator and keyword tokens qualify: a string "or" is not an operator.
// An operator of two words ("not in") is two keyword tokens.
func (p *exprParser) at(ops []string) bool {
	t := p.lex.Peek()
	if t.Type == tokString || t.Type == tokIdent || t.Type == tokNumber {
		return false
	}
	for _, op := range ops {
		if t.Value == op {
			return true
		}
		if first, second, two := strings.Cut(op, " "); two && t.Type == tokKeyword && t.Value == first {
			cp := p.lex.MakeCheckpoint()
			p.lex.Next()
			u := p.lex.Peek()
			p.lex.LoadCheckpoint(cp)
			if u.Type == tokKeyword && u.Value == second {
				return true
			}
		}
	}
	return false
}

// next consumes the operator at reported: one token, or the two of "not
// in" and "is not", returned as one token spelling both words at the
// first one's position.
func (p *exprParser) next() *lexer.Token {
	op := p.lex.Next()
	if op.Type != tokKeyword || op.Value != "not" && op.Value != "is" {
		return op
	}
	if second := p.lex.Peek(); op.Value == "not" || second.Type == tokKeyword && second.Value == "not" {
		p.lex.Next()
		joined := *op
		joined.Value = op.Value + " " + second.Value
		return &joined
	}
	return op
}

// operand parses a primary expression with its postfix operations.
func (p *exprParser) operand() (ast.Expr, error) {
	t := p.lex.Peek()
	if !startsOperand(t) {
		prev := p.lex.Range(0, p.lex.RawCursor())
		msg := "expected expression"
		if n := len(prev); n > 0 {
			msg += fmt.Sprintf(" after '%s'", prev[n-1].Value)
		}
		if t.Value == "not" && t.Type == tokKeyword {
			return nil, errorAt(t.Pos, "%s, found \"not\"", msg).hint(" (write the 'not' expression in parentheses)")
		}
		if n := len(prev); n > 0 && t.Value == "=" && t.Type == tokOp && prev[n-1].Pos.Offset+len(prev[n-1].Value) == t.Pos.Offset {
			return nil, errorAt(t.Pos, "%s, found \"=\"", msg).hint(" (the compound assignments are += -= *= /= //= %= **= @=)")
		}
		return nil, errorAt(t.Pos, "%s, found %s", msg, describe(*t))
	}
	// Most operands are one token with no call, index or field after it
	// (a name, a number). Their production is that token: build its
	// grammar struct here, converted by the same code, rather than
	// through a sub-parse of participle, which allocates a parse context,
	// the struct twice and a deferred capture for it.
	if pr := tokenPrimary(t); pr != nil {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		if next := p.lex.Peek(); next.Type != tokOp || (next.Value != "(" && next.Value != "[" && next.Value != ".") {
			return convertPrimary(pr, nil)
		}
		p.lex.LoadCheckpoint(cp)
	}
	outer := p.st.chain
	p.st.chain = 0
	o, err := operandParser.ParseFromLexer(p.lex, participle.AllowTrailing(true))
	p.st.chain = outer
	if err != nil {
		return nil, err
	}
	return convertOperand(o, p.lex.Range(0, p.lex.RawCursor()))
}

// tokenPrimary is the primary production that the one token t makes (a
// name, a number, a string, true, false, none), or nil.
func tokenPrimary(t *lexer.Token) primary {
	switch {
	case t.Type == tokIdent:
		return &identExpr{Tok: *t}
	case t.Type == tokNumber:
		return &numberLit{Tok: *t}
	case t.Type == tokString:
		return &stringLit{Tok: *t}
	case t.Type == tokKeyword && (isTrue(t.Value) || isFalse(t.Value)):
		return &boolLit{Pos: t.Pos, Value: t.Value}
	case t.Type == tokKeyword && isNone(t.Value):
		return &noneLit{Pos: t.Pos, None: t.Value}
	}
	return nil
}

// startsExpr reports whether t can begin an expression.
func startsExpr(t *lexer.Token) bool {
	if startsOperand(t) {
		return true
	}
	return (t.Type == tokKeyword && t.Value == "not") ||
		(t.Type == tokOp && (t.Value == "-" || t.Value == "*" || t.Value == "**"))
}

// startsOperand reports whether t can begin an operand.
func startsOperand(t *lexer.Token) bool {
	switch t.Type {
	case tokNumber, tokString, tokIdent:
		return true
	case tokKeyword:
		switch t.Value {
		case "true", "false", "none", "fn", "True", "False", "None":
			return true
		}
		return false
	case lexer.EOF:
		return false
	}
	switch t.Value {
	case "(", "[", "{":
		return true
	}
	return false
}

// errorAt makes an Error at a lexer position.
func errorAt(pos lexer.Position, format string, args ...any) *synError {
	return &synError{Pos: posOf(pos), Msg: fmt.Sprintf(format, args...)}
}
