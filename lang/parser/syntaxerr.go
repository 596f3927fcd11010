package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/ebnf"
	"github.com/alecthomas/participle/v2/lexer"
)

// expected is the grammar a participle error says the parser needed at
// the unexpected token: participle's UnexpectedTokenError carries the
// token and the rest of the production it was in (printed as EBNF, the
// only form participle exposes it in), which expected reads back into
// participle's own EBNF tree. ok is false for an error that names no
// production: no statement could start at the token.
func expected(u *participle.UnexpectedTokenError) (want *ebnf.Expression, ok bool) {
	rest := strings.TrimPrefix(u.Message(), fmt.Sprintf("unexpected token %q", u.Unexpected))
	rest, ok = strings.CutPrefix(rest, " (expected ")
	if !ok {
		return nil, false
	}
	g, err := ebnf.ParseString("E = " + strings.TrimSuffix(rest, ")") + " .")
	if err != nil || len(g.Productions) != 1 {
		return nil, false
	}
	return g.Productions[0].Expression, true
}

// productionNames says how an expected production begins, for "expected".
var productionNames = map[string]string{
	"Expr":       "expression",
	"Block":      "'{'",
	"Params":     "'('",
	"IfStmt":     "'if'",
	"ElseBranch": "'if' or '{'",
	"ListLit":    "'['",
	"Bindings":   "name or '['",
}

// unexpected builds the message for participle's UnexpectedTokenError in
// the form "expected X, found Y", adding the construct when an open
// bracket tells it ("in call arguments"), the token just before when it
// is a keyword or operator ("after 'let'"), and reporting a token on a new
// line after a complete operand as "found newline" at the end of the
// line, as Go does.
func unexpected(u *participle.UnexpectedTokenError, toks []lexer.Token) *synError {
	pos := posOf(u.Unexpected.Pos)
	at := tokenAt(toks, pos)
	if at >= len(toks) {
		return &synError{Pos: pos, Msg: "unexpected " + describe(u.Unexpected)}
	}
	found := toks[at]
	var prev *lexer.Token
	if at > 0 {
		prev = &toks[at-1]
	}
	ctx := bracketContext(toks, at)

	want := "statement"
	grammar, inProduction := expected(u)
	if inProduction {
		want = firstItem(grammar)
	}
	if !found.EOF() {
		want = ctx.alternatives(want, prev)
	}
	msg := "expected " + want
	if inProduction && !ctx.block && prev != nil && (prev.Type == tokKeyword || isOperator(*prev)) &&
		!opens(*prev) && !closes(*prev) && (ctx.name == "" || want == "expression") {
		msg += fmt.Sprintf(" after '%s'", prev.Value)
	}
	if ctx.name != "" {
		msg += " in " + ctx.name
	}
	what := describe(found)
	if prev != nil && !found.EOF() && found.Pos.Line > prev.Pos.Line && endsOperand(*prev) &&
		!strings.Contains(want, "statement") {
		what = "newline"
		pos = posOf(prev.Pos)
		pos.Col += utf8.RuneCountInString(prev.Value)
	}
	msg += ", found " + what
	e := &synError{Pos: pos, Msg: msg}
	if h := ctx.hint(toks, at); h != "" {
		e.hint(" " + h)
	}
	return e
}

// firstItem names what can come first in an expected sequence: for
// `"=" Expr` "'='", for `<ident> Params Block` "name", for
// `(IfStmt | Block)` "'if' or '{'".
func firstItem(e *ebnf.Expression) string {
	var alts []string
	for _, seq := range e.Alternatives {
		if len(seq.Terms) > 0 {
			alts = append(alts, termName(seq.Terms[0]))
		}
	}
	return strings.Join(alts, " or ")
}

// termName names one EBNF term: a token, a literal or a production.
func termName(t *ebnf.Term) string {
	switch {
	case t.Group != nil:
		return firstItem(t.Group.Expr)
	case t.Token == "ident":
		return "name"
	case t.Token != "":
		return t.Token
	case t.Literal != "":
		return "'" + strings.Trim(t.Literal, `"`) + "'"
	}
	if name, ok := productionNames[t.Name]; ok {
		return name
	}
	return t.Name
}

// construct is the bracketed construct around an error.
type construct struct {
	name   string // "call arguments"; "" for a block or parentheses
	closer string // the closing bracket
	item   string // what a list item is: "argument"
	block  bool
}

// bracketContext classifies the innermost bracket open before token at.
func bracketContext(toks []lexer.Token, at int) construct {
	open := openBrackets(toks, at)
	if len(open) == 0 {
		return construct{}
	}
	i := open[len(open)-1]
	var before *lexer.Token
	if i > 0 {
		before = &toks[i-1]
	}
	switch toks[i].Value {
	case "(":
		switch {
		case before != nil && before.Value == "fn" && before.Type == tokKeyword,
			before != nil && before.Type == tokIdent && i > 1 && toks[i-2].Value == "fn" && toks[i-2].Type == tokKeyword:
			return construct{name: "parameter list", closer: ")", item: "parameter name"}
		case before != nil && endsOperand(*before):
			return construct{name: "call arguments", closer: ")", item: "argument"}
		}
		return construct{closer: ")"}
	case "[":
		if before != nil && endsOperand(*before) {
			return construct{name: "index", closer: "]", item: "index"}
		}
		return construct{name: "list", closer: "]", item: "element"}
	}
	if before == nil || !startsRecord(*before) {
		return construct{closer: "}", block: true}
	}
	return construct{name: "record", closer: "}", item: "field"}
}

// alternatives widens "expected ')'" at the end of a list to what else
// could have come there.
func (c construct) alternatives(want string, prev *lexer.Token) string {
	if c.closer == "" || want != "'"+c.closer+"'" {
		return want
	}
	switch {
	case c.block:
		return "statement or " + want
	case c.item == "":
		return want
	case prev != nil && (prev.Value == "," || opens(*prev)):
		return c.item + " or " + want
	}
	return "',' or " + want
}

// hint explains a likely cause: a record literal where a block starts.
func (c construct) hint(toks []lexer.Token, at int) string {
	if c.block && at >= 2 && toks[at].Value == ":" && toks[at-2].Value == "{" {
		return "(a '{' that starts a statement opens a block; write `let r = {...}` for a record)"
	}
	return ""
}

// startsRecord reports whether a '{' after t is a record literal: t leaves
// an operand to be parsed. After a name, ')' or ']' it is a block (if x {).
func startsRecord(t lexer.Token) bool {
	if t.Type == tokKeyword {
		switch t.Value {
		case "return", "and", "or", "not", "assert", "in":
			return true
		}
		return false
	}
	return isOperator(t) && !closes(t) && t.Value != "{" && t.Value != ";"
}

// endsOperand reports whether t can end an operand (where Go would
// insert a semicolon at a line break).
func endsOperand(t lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokNumber, tokString:
		return true
	case tokKeyword:
		return isTrue(t.Value) || isFalse(t.Value) || isNone(t.Value)
	}
	return closes(t)
}

// isOperator reports whether t is an operator or punctuation token.
func isOperator(t lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokNumber, tokString, tokKeyword, tokBad, tokBadString, lexer.EOF:
		return false
	}
	return true
}

func opens(t lexer.Token) bool {
	return isOperator(t) && (t.Value == "(" || t.Value == "[" || t.Value == "{")
}

func closes(t lexer.Token) bool {
	return isOperator(t) && (t.Value == ")" || t.Value == "]" || t.Value == "}")
}
