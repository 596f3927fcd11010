package parser

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Most people who write tref know Python. pythonHint recognises the Python
// habits behind a syntax error and says what tref writes instead: blocks
// in braces rather than after ':', fn for def and lambda, else if for
// elif, # for comments, x += 1 for x++.
func pythonHint(toks []lexer.Token, e *synError) string {
	at := tokenAt(toks, e.Pos)
	if at >= len(toks) {
		return ""
	}
	t := toks[at]
	var prev *lexer.Token
	if at > 0 {
		prev = &toks[at-1]
	}
	switch {
	case t.Type == tokIdent && t.Value == "elif":
		return "(tref writes else if)"
	case strings.HasPrefix(e.Msg, "expected '{'") && ifAfterOperand(toks, at):
		return "(a conditional expression needs its else: a if c else b)"
	case t.Type == tokIdent && prev != nil && prev.Type == tokKeyword && prev.Value == "import":
		switch t.Value {
		case "math":
			return "(Python's math module is predeclared: use math.sqrt(x) without importing it)"
		case "time":
			return "(Python's time module is predeclared: use time.time() without importing it)"
		}
		return "(tref imports a file by its path: import \"" + t.Value + ".tr\")"
	case t.Type == tokOp && t.Value == "//" && (prev == nil || prev.Pos.Line < t.Pos.Line):
		return "(comments start with #)"
	case t.Type == tokOp && (t.Value == "+" || t.Value == "-") && prev != nil && prev.Value == t.Value &&
		prev.Pos.Offset+1 == t.Pos.Offset:
		return "(tref has no " + t.Value + t.Value + "; write x " + t.Value + "= 1)"
	case t.Type == tokOp && t.Value == ":":
		// Look back along the line for the keyword that opened the block.
		for i := at - 1; i >= 0 && toks[i].Pos.Line == t.Pos.Line; i-- {
			switch toks[i].Value {
			case "def":
				return "(define a function with fn name(params) { ... })"
			case "lambda":
				return "(write a lambda as fn(x) => x * 2)"
			case "if", "else", "elif", "for", "while", "test":
				if toks[i].Type == tokKeyword || toks[i].Value == "elif" {
					return "(tref writes blocks in braces: if x > 1 { ... }, not with ':')"
				}
			}
		}
	case t.Type == tokIdent && (t.Value == "def" || t.Value == "lambda") && at+1 < len(toks) &&
		(toks[at+1].Type == tokIdent || toks[at+1].Value == ":"):
		if t.Value == "def" {
			return "(define a function with fn name(params) { ... })"
		}
		return "(write a lambda as fn(x) => x * 2)"
	}
	return ""
}

// ifAfterOperand reports whether the if statement whose block is missing
// at token at began right after an operand on its line (let y = a if c):
// a conditional expression without its else.
func ifAfterOperand(toks []lexer.Token, at int) bool {
	for i := min(at, len(toks)-1) - 1; i > 0; i-- {
		t := toks[i]
		if t.Type == tokKeyword && t.Value == "if" {
			prev := toks[i-1]
			return prev.Pos.Line == t.Pos.Line && endsOperand(prev)
		}
		if t.Type == tokOp && (t.Value == "{" || t.Value == "}" || t.Value == ";") {
			return false
		}
	}
	return false
}
