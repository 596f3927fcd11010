package parser

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// participle reports a mismatch as `unexpected token "X" (expected E)`,
// where E is the EBNF of what the production still needed; with no E it
// means a statement could not start at X.
var unexpectedRE = regexp.MustCompile(`^unexpected token "(?:[^"\\]|\\.)*"(?: \(expected (.*)\))?$`)

// productionNames says how an expected production begins, for "expected".
var productionNames = map[string]string{
	"Expr":   "expression",
	"Block":  "'{'",
	"Params": "'('",
	"IfStmt": "'if'",
}

// translate rewrites a participle error in the form "expected X, found Y",
// adding the construct when an open bracket tells it ("in call
// arguments"), the token just before when it is a keyword or operator
// ("after 'let'"), and reporting a token on a new line after a complete
// operand as "found newline" at the end of the line, as Go does.
func translate(perr participle.Error, toks []lexer.Token) *Error {
	pos := posOf(perr.Position())
	m := unexpectedRE.FindStringSubmatch(perr.Message())
	at := tokenAt(toks, pos)
	if m == nil || at >= len(toks) {
		return &Error{Pos: pos, Msg: perr.Message()}
	}
	found := toks[at]
	var prev *lexer.Token
	if at > 0 {
		prev = &toks[at-1]
	}
	ctx := bracketContext(toks, at)

	var want string
	if m[1] == "" {
		want = "statement"
	} else {
		want = firstExpected(m[1])
	}
	if !found.EOF() {
		want = ctx.alternatives(want, prev)
	}
	msg := "expected " + want
	if m[1] != "" && !ctx.block && prev != nil && (prev.Type == tokKeyword || isOperator(*prev)) &&
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
	if hint := ctx.hint(toks, at); hint != "" {
		msg += " " + hint
	}
	return &Error{Pos: pos, Msg: msg}
}

// firstExpected names the first item of an expected EBNF sequence:
// `"=" Expr` is "'='", `<ident> Params Block` is "name",
// `(IfStmt | Block)` is "'if' or '{'".
func firstExpected(ebnf string) string {
	if strings.HasPrefix(ebnf, "(") {
		// A group: name each alternative of its first item.
		end := matchingParen(ebnf)
		var alts []string
		for _, alt := range strings.Split(ebnf[1:end], " | ") {
			alts = append(alts, firstExpected(alt))
		}
		return strings.Join(alts, " or ")
	}
	item := ebnf
	if i := strings.IndexByte(ebnf, ' '); i >= 0 {
		item = ebnf[:i]
	}
	item = strings.TrimRight(item, "?*+")
	switch {
	case item == "<ident>":
		return "name"
	case item == "<string>":
		return "string"
	case strings.HasPrefix(item, `"`):
		return "'" + strings.Trim(item, `"`) + "'"
	}
	if name, ok := productionNames[item]; ok {
		return name
	}
	return item
}

// matchingParen is the index of the ')' closing s[0].
func matchingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			// Skip a quoted literal, which may hold a parenthesis.
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
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
		return t.Value == "true" || t.Value == "false" || t.Value == "none"
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
