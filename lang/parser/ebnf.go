package parser

import (
	"fmt"
	"strings"
)

// Grammar returns the grammar in EBNF: the statement and operand
// productions as participle prints them from the grammar structs, and the
// expression levels printed from the precedence table. spec/grammar.ebnf
// holds a copy that a test keeps in sync.
func Grammar() string {
	var b strings.Builder
	b.WriteString("(* The tref grammar, printed by parser.Grammar from lang/parser;\n")
	b.WriteString("   regenerate with: go test ./lang/parser -run TestGrammarInSync -update.\n")
	b.WriteString("   Tokens (<ident>, <number>, <string>) are defined in spec/syntax.md.\n")
	b.WriteString("   The productions accept slightly more than the language; the parser then\n")
	b.WriteString("   rejects, with a message: an empty item between commas, an empty index,\n")
	b.WriteString("   an assignment target that is not a plain name or name[...], a keyword\n")
	b.WriteString("   argument name that is not a plain name, a spread (*x, **r) anywhere but\n")
	b.WriteString("   among a list's elements, a call's arguments or (**r) a record's fields,\n")
	b.WriteString("   and an expression statement that is not a call (outside the REPL). *)\n\n")
	seen := map[string]bool{}
	emit := func(ebnf string) {
		for _, line := range strings.Split(ebnf, "\n") {
			name, _, _ := strings.Cut(line, " = ")
			if line == "" || seen[name] {
				continue
			}
			seen[name] = true
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	emit(fileParser.String())
	emit(stmts.grammar())
	emit(elses.grammar())
	b.WriteString("\n(* Expressions: one production per precedence level, lowest first. *)\n")
	emit(exprEBNF())
	b.WriteString("\n(* Operands: a primary followed by calls, indexing and fields. *)\n")
	emit(operandParser.String())
	emit(primaries.grammar())
	emit(exprTailsEBNF)
	emit(postfixes.grammar())
	return b.String()
}

// exprEBNF prints the precedence table as EBNF productions.
func exprEBNF() string {
	var b strings.Builder
	b.WriteString("Expr = (\"*\" | \"**\")? Conditional .\n")
	fmt.Fprintf(&b, "Conditional = %s (\"if\" %s \"else\" Conditional)? .\n", levels[1].name, levels[1].name)
	for lv := 1; lv < operandLevel; lv++ {
		l := levels[lv]
		next := "Operand"
		if lv+1 < operandLevel {
			next = levels[lv+1].name
		}
		quoted := make([]string, len(l.ops))
		for i, op := range l.ops {
			words := strings.Fields(op)
			for j, w := range words {
				words[j] = fmt.Sprintf("%q", w)
			}
			quoted[i] = strings.Join(words, " ")
		}
		ops := strings.Join(quoted, " | ")
		if len(l.ops) > 1 {
			ops = "(" + ops + ")"
		}
		switch l.assoc {
		case left:
			fmt.Fprintf(&b, "%s = %s (%s %s)* .\n", l.name, next, ops, next)
		case nonAssoc:
			fmt.Fprintf(&b, "%s = %s (%s %s)? .\n", l.name, next, ops, next)
		case right:
			fmt.Fprintf(&b, "%s = %s (%s %s)? .\n", l.name, next, ops, levels[unaryLevel].name)
		case prefix:
			fmt.Fprintf(&b, "%s = %s %s | %s .\n", l.name, ops, l.name, next)
		}
	}
	return b.String()
}
