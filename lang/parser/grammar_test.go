package parser

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite spec/grammar.ebnf from the parser")

// grammarFile is the grammar's copy in the language reference.
var grammarFile = filepath.Join("..", "..", "spec", "grammar.ebnf")

// TestGrammarInSync fails when spec/grammar.ebnf differs from the grammar
// the parser is built from; -update rewrites the file.
func TestGrammarInSync(t *testing.T) {
	want := Grammar()
	if *update {
		if err := os.MkdirAll(filepath.Dir(grammarFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(grammarFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(grammarFile)
	if err != nil {
		t.Fatalf("%v (run go test ./lang/parser -run TestGrammarInSync -update)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date; run go test ./lang/parser -run TestGrammarInSync -update", grammarFile)
	}
}

// TestGrammarLevels checks that the printed expression grammar follows
// the precedence table.
func TestGrammarLevels(t *testing.T) {
	want := `Expr = ("*" | "**")? Conditional .
Conditional = Or ("if" Or "else" Conditional)? .
Or = And ("or" And)* .
And = Not ("and" Not)* .
Not = "not" Not | Comparison .
Comparison = Sum (("==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not" "in" | "is" "not" | "is") Sum)? .
Sum = Product (("+" | "-") Product)* .
Product = Unary (("*" | "/" | "//" | "%" | "@") Unary)* .
Unary = "-" Unary | Power .
Power = Operand ("**" Unary)? .
`
	if got := exprEBNF(); got != want {
		t.Errorf("exprEBNF:\n%s\nwant:\n%s", got, want)
	}
}
