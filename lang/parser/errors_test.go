package parser

import (
	"errors"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
)

// errorTests maps an input to the exact error ParseFile reports for it
// (file t.tr). They double as seeds for FuzzParse.
var errorTests = []struct{ src, want string }{
	// Lexical errors.
	{`let s = "abc\q"`, `t.tr:1:13: unknown escape sequence \q in string literal (use \n \t \" \' or \\)`},
	{`let s = "abc`, `t.tr:1:9: string literal not terminated`},
	{"let s = \"abc\nx\"", "t.tr:1:9: string literal not terminated\nt.tr:2:2: string literal not terminated"},
	{`let s = "a\"`, `t.tr:1:9: string literal not terminated`},
	{"let s = \"\xff\"", `t.tr:1:10: invalid UTF-8 encoding in string literal`},
	{"let n = 1__0", `t.tr:1:9: invalid number literal "1__0": '_' must separate digits`},
	{"let n = 1_", `t.tr:1:9: invalid number literal "1_": '_' must separate digits`},
	{"let n = 1_.5", `t.tr:1:9: invalid number literal "1_.5": '_' must separate digits`},
	{"let n = 1e", `t.tr:1:9: invalid number literal "1e": exponent has no digits`},
	{"let n = 1e+", `t.tr:1:9: invalid number literal "1e+": exponent has no digits`},
	{"let n = 3abc", `t.tr:1:9: invalid number literal "3abc": unexpected "abc" after the number`},
	{"let n = 2.sum()", `t.tr:1:9: invalid number literal "2.sum": unexpected "sum" after the number (write (2).sum for a field or method)`},
	{"let n = 0x1F", `t.tr:1:9: invalid number literal "0x1F": unexpected "x1F" after the number`},
	{"let n = 9223372036854775808", `t.tr:1:9: integer literal 9223372036854775808 overflows int64 (max 9223372036854775807); write 9223372036854775808.0 for a float`},
	{"let n = 1e400", `t.tr:1:9: float literal 1e400 is out of range`},
	{"let x = 'a", "t.tr:1:9: string literal not terminated"},
	{"let x = 1 ! 2", `t.tr:1:11: unexpected character '!' (use 'not' for negation)`},
	{"let x = a && b", `t.tr:1:11: unexpected character '&' (use 'and' / 'or')` + "\n" + `t.tr:1:12: unexpected character '&' (use 'and' / 'or')`},
	{"let x = 1 $ 2", `t.tr:1:11: unexpected character '$'`},
	{"let x = 1\x00", `t.tr:1:10: unexpected control character U+0000`},
	{"\xfe", `t.tr:1:1: invalid UTF-8 encoding`},

	// Statements.
	{"let = 3", `t.tr:1:5: expected name or '[' after 'let', found "="`},
	{"let x 3", `t.tr:1:7: expected '=', found "3"`},
	{"let x =", `t.tr:1:8: expected expression after '=', found end of file`},
	{"let if = 1", `t.tr:1:5: expected name or '[' after 'let', found "if"`},
	{"let [a, 1] = l", `t.tr:1:9: cannot unpack into a literal; only plain names can be unpacked into`},
	{"let [] = l", `t.tr:1:5: nothing to unpack into: write at least one name between [ and ]`},
	{"let [a, b, a] = l", `t.tr:1:12: a appears twice in the names to unpack into`},
	{"[a, b] += l", `t.tr:1:1: += cannot unpack; only = assigns to a list of names`},
	{"f()\n[a, b] = l", `t.tr:2:1: a line starting with [ continues the expression above; to unpack into names, put ; before the [`},
	{"f()\n(a, b) = l", `t.tr:2:1: a line starting with ( continues the expression above as a call; to unpack into names, write a, b = ... or put ; before the (`},
	{"f()\n(a, b) += l", `t.tr:1:1: cannot assign to a call; only a plain name or name[...] can be assigned`},
	{"fn", `t.tr:1:3: expected name after 'fn', found end of file`},
	{"fn (x) {}", `t.tr:1:4: expected name after 'fn', found "("`},
	{"fn f(a b) {}", `t.tr:1:8: expected ',' or ')' in parameter list, found "b"`},
	{"fn f(", `t.tr:1:6: expected ')' in parameter list, found end of file`},
	{"fn f(,) {}", `t.tr:1:6: expected parameter name or ')' in parameter list, found ","`},
	{"fn f(a,,b) {}", `t.tr:1:8: expected parameter name, found ","`},
	{"fn f(a, a) {}", `t.tr:1:9: duplicate parameter a`},
	{"fn f(a=1, b) {}", `t.tr:1:11: parameter b without a default follows parameter a with one`},
	{"fn f() return 1", `t.tr:1:8: expected '{', found "return"`},
	{"for x y {}", `t.tr:1:7: expected 'in', found "y"`},
	{"for in y {}", `t.tr:1:5: expected name or '[' after 'for', found "in"`},
	{"for x in y", `t.tr:1:11: expected '{', found end of file`},
	{"while {}", `t.tr:1:9: expected '{', found end of file`},
	{"if x {", `t.tr:1:7: expected '}', found end of file`},
	{"if x { let y = 1 ) }", `t.tr:1:18: expected statement or '}', found ")"`},
	{"if x {} else", `t.tr:1:13: expected 'if' or '{' after 'else', found end of file`},
	{"if x {} else x", `t.tr:1:14: expected 'if' or '{' after 'else', found "x"`},
	{"else {}", `t.tr:1:1: expected statement, found "else"`},
	{"test foo {}", `t.tr:1:6: expected string after 'test', found "foo"`},
	{`fn f() { test "x" {} }`, `t.tr:1:10: test blocks are allowed only at the top level of a file`},
	{"assert", `t.tr:1:7: expected expression after 'assert', found end of file`},
	{"assert x,", `t.tr:1:10: expected expression after ',', found end of file`},
	{"import foo", `t.tr:1:8: expected string after 'import', found "foo" (tref imports a file by its path: import "foo.tr")`},
	{`import "a/b-c.tr"`, "t.tr:1:8: import \"a/b-c.tr\": file stem \"b-c\" is not a valid name; add `as name`"},
	{`import "a/let.tr"`, "t.tr:1:8: import \"a/let.tr\": file stem \"let\" is not a valid name; add `as name`"},
	{`import "x.y.tr"`, "t.tr:1:8: import \"x.y.tr\": file stem \"x.y\" is not a valid name; add `as name`"},
	{`import ""`, `t.tr:1:8: import path is empty`},
	{`import "m.tr" as`, `t.tr:1:17: expected name after 'as', found end of file`},
	{`if x { import "a.tr" }`, `t.tr:1:8: import is allowed only at the top level of a file`},
	{"del 3", `t.tr:1:5: expected name after 'del', found "3"`},
	{"return )", `t.tr:1:8: expected statement, found ")"`},
	{")", `t.tr:1:1: expected statement, found ")"`},
	{"let x = [1, 2]\n]", `t.tr:2:1: expected statement, found "]"`},
	{"{a: 1}", "t.tr:1:3: expected statement or '}', found \":\" (a '{' that starts a statement opens a block; write `let r = {...}` for a record)"},

	// Assignments and expression statements.
	{"x", "t.tr:1:1: expression statement must be a call; did you mean `let x = ...`?"},
	{"x == 1", "t.tr:1:1: expression statement must be a call; did you mean `x = ...`?"},
	{"x.y", "t.tr:1:1: expression statement must be a call; did you mean `let x = ...`?"},
	{"let y = 1 2", `t.tr:1:11: unexpected "2" at end of statement`},
	{"f(1) x", `t.tr:1:6: unexpected "x" at end of statement`},
	{"f().y = 3", `t.tr:1:1: cannot assign into an index of a call; only name[...] can be assigned (it rebinds the name: bind the part to a name first)`},
	{"x.y[0] = 3", `t.tr:1:1: cannot assign into an index of a field; only name[...] can be assigned (it rebinds the name: bind the part to a name first)`},
	{"x[0][1] = 3", `t.tr:1:1: cannot assign into an index of an index expression; only name[...] can be assigned (it rebinds the name: bind the part to a name first)`},
	{"f(x) = 3", `t.tr:1:1: cannot assign to a call; only a plain name or name[...] can be assigned`},
	{"1 = x", `t.tr:1:1: cannot assign to a literal; only a plain name or name[...] can be assigned`},
	{"x = = 2", `t.tr:1:5: expected expression after '=', found "="`},
	{"x += ", `t.tr:1:6: expected expression after '+=', found end of file`},
	{"x ** = 2", `t.tr:1:6: expected expression after '**', found "="`},
	{"x =+ 2", `t.tr:1:4: expected expression after '=', found "+"`},
	{"x == = 2", `t.tr:1:6: expected expression after '==', found "="`},

	// Expressions.
	{"let x = 1 +", `t.tr:1:12: expected expression after '+', found end of file`},
	{"let x = 1 +\nlet y = 2", `t.tr:2:1: expected expression after '+', found "let"`},
	{"let x = a < b < c", `t.tr:1:15: comparison operators cannot be chained; write a < b and b < c`},
	{"let x = a == b != c", `t.tr:1:16: comparison operators cannot be chained; write a == b and b != c`},
	{"let x = a in b not in c", `t.tr:1:16: comparison operators cannot be chained; write a in b and b not in c`},
	{"let x = a not b", `t.tr:1:11: unexpected "not" at end of statement`},

	// f-strings: errors point into the string.
	{`let s = f"a {1 +} b"`, `t.tr:1:17: expected expression after '+', found the field's closing '}'`},
	{`let s = f"a {1 2}"`, `t.tr:1:16: expected '}' or ':' after the f-string field's expression, found "2"`},
	{`let s = f"a { }"`, `t.tr:1:13: empty expression in an f-string field`},
	{`let s = f"a {1"`, `t.tr:1:13: f-string field '{' is not closed (write '{{' for a brace)`},
	{`let s = f"a {1:>5"`, `t.tr:1:13: f-string field '{' is not closed (write '{{' for a brace)`},
	{`let s = f"a } b"`, `t.tr:1:13: single '}' in an f-string (write '}}' for a brace)`},
	{`let s = f"{x!q}"`, `t.tr:1:13: an f-string conversion is !r, !s or !a, before ':' or '}'`},
	{`let s = f"{x['a}"`, `t.tr:1:14: string literal not terminated in an f-string field`},
	{`let s = f"{x:{w:3}}"`, `t.tr:1:16: a field in an f-string format spec is an expression alone (no ':')`},
	{`let s = f"{x:{w!r}}"`, `t.tr:1:16: a field in an f-string format spec is an expression alone (no '!')`},
	{`let s = f"{x:{w"`, `t.tr:1:14: f-string field '{' in a format spec is not closed`},
	{`let s = f"{x:{ }}"`, `t.tr:1:14: empty expression in an f-string field`},
	{`let s = f"{x \n}"`, `t.tr:1:14: an f-string field's expression cannot contain a backslash`},
	{`let s = f"\q{x}"`, `t.tr:1:11: unknown escape sequence \q in string literal (use \n \t \" \' or \\)`},
	{`let s = f"{1x}"`, `t.tr:1:12: invalid number literal "1x": unexpected "x" after the number`},
	{`import f"m.tr"`, `t.tr:1:8: an f-string cannot stand here; write a plain string`},
	{"let y = 1 if c", `t.tr:1:15: expected '{', found end of file (a conditional expression needs its else: a if c else b)`},
	{"let y = 1 if c\nlet z = 2", `t.tr:1:15: expected '{', found newline (a conditional expression needs its else: a if c else b)`},
	{"let y = 1\nif c", `t.tr:2:5: expected '{', found end of file`},
	{"let x = *a", `t.tr:1:9: *x spreads an iterable's values: it stands only among a list's elements, [*x, y], or a call's arguments, f(*x)`},
	{"let x = [**a]", `t.tr:1:10: **r spreads a record's fields: it stands only among a call's arguments, f(**r), or a record's fields, {**r, k: v}`},
	{"let x = f(k=*a)", `t.tr:1:13: *x spreads an iterable's values: it stands only among a list's elements, [*x, y], or a call's arguments, f(*x)`},
	{"let x = {k: v for k in **a}", `t.tr:1:24: **r spreads a record's fields: it stands only among a call's arguments, f(**r), or a record's fields, {**r, k: v}`},
	{"let x = {**r for k in a}", `t.tr:1:10: a record comprehension takes key: value, not a ** spread`},
	{"a, [b] = v", "t.tr:1:4: a nested [...] unpacks only in let and for; write let, or unpack the item in a second statement"},
	{"import math", `t.tr:1:8: expected string after 'import', found "math" (Python's math module is predeclared: use math.sqrt(x) without importing it)`},
	{"import utils", `t.tr:1:8: expected string after 'import', found "utils" (tref imports a file by its path: import "utils.tr")`},
	{"let x = a == not b", `t.tr:1:14: expected expression after '==', found "not" (write the 'not' expression in parentheses)`},
	{"let x = a + not b", `t.tr:1:13: expected expression after '+', found "not" (write the 'not' expression in parentheses)`},
	{"let x = a and or b", `t.tr:1:15: expected expression after 'and', found "or"`},
	{"let x = * 2", `t.tr:1:9: *x spreads an iterable's values: it stands only among a list's elements, [*x, y], or a call's arguments, f(*x)`},
	{"let x = (", `t.tr:1:10: expected ')', found end of file`},
	{"let x = (1 + 2\nlet y = 3", `t.tr:1:15: expected ')', found newline`},
	{"let x = (1 2)", `t.tr:1:12: expected ')', found "2"`},
	{"let x = (1,,)", `t.tr:1:12: expected list element, found ","`},
	{"let x = fn(x) => ", `t.tr:1:18: expected expression after '=>', found end of file`},
	{"let x = fn x => x", `t.tr:1:12: expected '(' after 'fn', found "x"`},
	{"let x = fn(x) x", `t.tr:1:15: expected '=>' or '{', found "x"`},
	{"let x = a.", `t.tr:1:11: expected name after '.', found end of file`},
	{"let y = x. + 1", `t.tr:1:12: expected name after '.', found "+"`},
	{"let x = a.1", `t.tr:1:11: expected name after '.', found "1"`},
	{"let x = a.if", `t.tr:1:11: expected name after '.', found "if"`},

	// Calls.
	{"f(a b)", `t.tr:1:5: expected ',' or ')' in call arguments, found "b"`},
	{"f(a\n b)", `t.tr:1:4: expected ',' or ')' in call arguments, found newline`},
	{"f(a,", `t.tr:1:5: expected ')' in call arguments, found end of file`},
	{"f(a,,b)", `t.tr:1:5: expected argument, found ","`},
	{"f(,a)", `t.tr:1:3: expected argument or ')' in call arguments, found ","`},
	{"f(a=1, 2)", `t.tr:1:8: positional argument after keyword argument a=`},
	{"f(a=1, a=2)", `t.tr:1:8: keyword argument a repeated`},
	{"f(a.b=1)", `t.tr:1:3: keyword argument name must be a plain name (write name=value)`},
	{"f(a=)", `t.tr:1:5: expected expression after '=' in call arguments, found ")"`},
	{"x.sum(dim=1", `t.tr:1:12: expected ')' in call arguments, found end of file`},

	// Lists, records, indexing.
	{"let x = [1, 2", `t.tr:1:14: expected ']' in list, found end of file`},
	// At the end of a later line, the error names the bracket left open.
	{"let x = [1, 2\n", `t.tr:2:1: expected ']' in list, found end of file (the '[' at 1:9 is not closed)`},
	{"fn f() {\n  if x {\n    g(1)\n\nh()\n", `t.tr:6:1: expected '}', found end of file (the '{' at 2:8 is not closed)`},
	{"let x = (\n", `t.tr:2:1: expected ')', found end of file (the '(' at 1:9 is not closed)`},
	{"let x = [1 2]", `t.tr:1:12: expected ',' or ']' in list, found "2"`},
	{"let x = [1,,2]", `t.tr:1:12: expected list element, found ","`},
	{"let x = [,]", `t.tr:1:10: expected element or ']' in list, found ","`},
	{"let r = {a 1}", `t.tr:1:12: expected ':' in record, found "1"`},
	{"let r = {a: 1 b: 2}", `t.tr:1:15: expected ',' or '}' in record, found "b"`},
	{"let r = {a: 1,, b: 2}", `t.tr:1:15: expected record field, found ","`},
	{"let r = {1.5: 2}", `t.tr:1:10: record keys are names, strings or ints, not the float 1.5`},
	{"let r = {a: }", `t.tr:1:13: expected expression after ':' in record, found "}"`},
	{"let r = {1: 2, 1: 3}", `t.tr:1:16: duplicate record key 1`},
	{"let r = {a: 1, a: 2}", `t.tr:1:16: duplicate record key "a"`},
	{`let r = {a: 1, "a": 2}`, `t.tr:1:16: duplicate record key "a"`},
	{"let y = x[]", `t.tr:1:11: expected index, found "]"`},
	{"let y = x[,1]", `t.tr:1:11: expected index, found ","`},
	{"let y = x[1,,2]", `t.tr:1:13: expected index, found ","`},
	{"let y = x[1:2:3:4]", `t.tr:1:16: expected ',' or ']' in index, found ":"`},
	{"let y = x[1", `t.tr:1:12: expected ']' in index, found end of file`},
	{"let y = x[... 1]", `t.tr:1:15: expected ',' or ']' after '...'`},
	{"let y = x[...:1]", `t.tr:1:14: expected ',' or ']' after '...', found ":"`},

	// Limits.
	{"let x = " + strings.Repeat("(", 1001) + "1" + strings.Repeat(")", 1001), `t.tr:1:1008: expression nested too deeply (limit 1000)`},
	{"let x = " + strings.Repeat("-", 1001) + "1", `t.tr:1:1008: expression nested too deeply (limit 1000)`},
	{"let x = " + strings.Repeat("not ", 1001) + "1", `t.tr:1:4005: expression nested too deeply (limit 1000)`},
}

func TestErrors(t *testing.T) {
	for _, tt := range errorTests {
		f, err := ParseFile("t.tr", []byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error, want %s", tt.src, tt.want)
			continue
		}
		if f != nil {
			t.Errorf("%q: got a file with the error", tt.src)
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
		var list pos.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%q: error %T is not a non-empty ErrorList", tt.src, err)
		}
		var e *pos.Error
		if !errors.As(err, &e) || !e.Pos.IsValid() {
			t.Errorf("%q: errors.As(*Error) = %v", tt.src, e)
		}
	}
}

// TestErrorsOnREPL checks the REPL file name in positions.
func TestErrorsOnREPL(t *testing.T) {
	_, err := ParseREPL([]byte("let = 1"))
	if want := `<repl>:1:5: expected name or '[' after 'let', found "="`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestMultipleErrors(t *testing.T) {
	// Errors of statements are all reported, in source order.
	src := "x\nlet a = 1\ny.z.w = 2\nf()\n1"
	_, err := ParseFile("m.tr", []byte(src))
	want := "m.tr:1:1: expression statement must be a call; did you mean `let x = ...`?\n" +
		"m.tr:3:1: cannot assign into an index of a field; only name[...] can be assigned (it rebinds the name: bind the part to a name first)\n" +
		"m.tr:5:1: expression statement must be a call; did you mean `let x = ...`?"
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

func TestErrorListLimit(t *testing.T) {
	_, err := ParseFile("l.tr", []byte(strings.Repeat("$", 13)))
	var list pos.ErrorList
	if !errors.As(err, &list) || len(list) != 13 {
		t.Fatalf("got %v, want 13 errors", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 11 || lines[10] != "and 3 more errors" || lines[9] != "l.tr:1:10: unexpected character '$'" {
		t.Errorf("ErrorList.Error():\n%s", err)
	}
}

func TestIncomplete(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"if x {", true},
		{"if x {\n  let y = 1\n", true},
		{"fn f(a,", true},
		{"f(1, 2", true},
		{"let x = [1, 2,", true},
		{"let r = {a: 1,", true},
		{"let x = (1 +", true},
		{"f(g(1)", true},
		{"x.sum(dim=1", true},
		{"fn f() { if x { return 1 }", true},
		// Complete or wrong input: the REPL reports it.
		{"let x = 1", false},
		{"let x =", false},
		{"f(1 2", false},
		{"if x { ) ", false},
		{`print("abc`, false},
		{"f(1))", false},
		{"let x = 1 +", false},
		{"x y", false},
	}
	for _, tt := range tests {
		_, err := ParseREPL([]byte(tt.src))
		if got := Incomplete(err); got != tt.want {
			t.Errorf("Incomplete(%q) = %v, want %v (err %v)", tt.src, got, tt.want, err)
		}
	}
	if Incomplete(nil) || Incomplete(errors.New("other")) {
		t.Error("Incomplete of a non-parser error")
	}
}

// TestPythonHints checks the advice added to syntax errors that come from
// Python habits.
func TestPythonHints(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"def f(x):\n  return x", `t.tr:1:9: expected statement, found ":" (define a function with fn name(params) { ... })`},
		{"def f(x) { }", "t.tr:1:1: expression statement must be a call (define a function with fn name(params) { ... })"},
		{"let f = lambda x: x", `t.tr:1:17: expected statement, found ":" (write a lambda as fn(x) => x * 2)`},
		{"if x > 1:\n  f(x)", `t.tr:1:9: expected '{', found ":" (tref writes blocks in braces: if x > 1 { ... }, not with ':')`},
		{"for i in range(3):\n  f(i)", `t.tr:1:18: expected '{', found ":" (tref writes blocks in braces: if x > 1 { ... }, not with ':')`},
		{"if a { } elif b { }", "t.tr:1:10: unexpected \"elif\" at end of statement (tref writes else if)\nt.tr:1:15: unexpected \"b\" at end of statement"},
		{"// note\nf()", `t.tr:1:1: expected statement, found "//" (comments start with #)`},
		{"while i < 3 { i++ }", `t.tr:1:17: expected expression after '+', found "+" (tref has no ++; write x += 1)`},
		{"let r = {a: 1}\nf(a:1)", `t.tr:2:4: expected ',' or ')' in call arguments, found ":"`},
	} {
		_, err := ParseFile("t.tr", []byte(tt.src))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

func TestParseREPLAtNumbersLinesOn(t *testing.T) {
	_, err := ParseREPLAt([]byte("let x = 1\nlet = 2\n"), 7)
	if want := `<repl>:8:5: expected name or '[' after 'let', found "="`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	f, err := ParseREPLAt([]byte("\n  y\n"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Stmts[0].Span(); got.Line != 4 || got.Col != 3 {
		t.Errorf("statement at %v, want line 4 column 3", got)
	}
}
