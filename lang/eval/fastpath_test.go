package eval_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestConditionFastPath checks that a comparison written as the condition
// of an if or a while (decided without boxing when both sides are ints,
// with a literal right side skipped) judges as the same comparison
// evaluated into a variable first: the same branch, or the same error.
func TestConditionFastPath(t *testing.T) {
	values := []string{"0", "1", "-1", "2", "9223372036854775807", "1.5", "-0.0", "true", "tensor(2)", "tensor([1, 2])", `"s"`, "none", "[1]"}
	rights := []string{"2", "(2)", "-1", "1.5", "tensor(2)", "true", `"s"`}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	for _, a := range values {
		for _, op := range ops {
			for _, b := range rights {
				expr := fmt.Sprintf("(%s) %s %s", a, op, b)
				if b[0] != '(' {
					expr = fmt.Sprintf("(%s) %s (%s)", a, op, b)
				}
				want, wantErr := run(t, fmt.Sprintf("let c = %s\nif c { print(1) } else { print(0) }", expr))
				got, gotErr := run(t, fmt.Sprintf("if %s { print(1) } else { print(0) }", expr))
				if got != want || (gotErr != nil) != (wantErr != nil) {
					t.Errorf("if %s: printed %q (error %v), want %q (error %v)", expr, got, firstLine(gotErr), want, firstLine(wantErr))
				}
				got, gotErr = run(t, fmt.Sprintf("let n = 0\nwhile %s { n += 1\nif n > 2 { break } }\nprint(n)", expr))
				want, wantErr = run(t, fmt.Sprintf("let n = 0\nwhile true { let c = %s\nif not c { break }\nn += 1\nif n > 2 { break } }\nprint(n)", expr))
				if got != want || (gotErr != nil) != (wantErr != nil) {
					t.Errorf("while %s: printed %q (error %v), want %q (error %v)", expr, got, firstLine(gotErr), want, firstLine(wantErr))
				}
			}
		}
	}
}

// TestFastPathErrorsArePositioned checks the errors of the fast paths:
// a condition that is not a bool, a comparison that fails, an operator on
// a literal that fails, a call past the depth limit.
func TestFastPathErrorsArePositioned(t *testing.T) {
	cases := []struct{ src, want string }{
		{"let x = tensor([1, 2])\nif x < 2 { print(1) }", "t.tr:2:6: condition is a tensor of shape [2]; use any() or all()"},
		{"let s = \"a\"\nwhile s < 2 { print(1) }", "t.tr:2:9: unsupported operand types for <: string and an int64 number"},
		{"fn f(n) { return n // 0 }\nf(3)", "t.tr:1:20: integer division by zero\n  at f (t.tr:1:20)\n  at <module> (t.tr:2:2)"},
		{"fn f(n) { return f(n + 1) }\nf(0)", "t.tr:1:19: f: maximum call depth (4000) exceeded"},
		{"fn f(a, b) { return a }\nf(1, 2, 3)", "t.tr:2:2: f: got 3 positional arguments, want at most 2"},
	}
	for _, c := range cases {
		_, err := run(t, c.src)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if got := trimDir(err.Error()); len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("%q: got\n%s\nwant it to start with\n%s", c.src, got, c.want)
		}
	}
}

// TestSlotLiteralFastPath checks a variable of the frame against an int
// literal (n - 1, n < 2: read in place when the variable holds an int)
// against the same operation with the literal in a variable: the same
// value, or the same error, for values of every kind, at the variable's
// last use and before it.
func TestSlotLiteralFastPath(t *testing.T) {
	values := []string{"0", "5", "-3", "9223372036854775807", "1.5", "true", "tensor(2)", "tensor([1, 2])", `"s"`, "none"}
	ops := []string{"+", "-", "*", "/", "//", "%", "**", "<", ">=", "==", "!="}
	for _, v := range values {
		for _, op := range ops {
			for _, lit := range []string{"2", "0", "(1)"} {
				fast := fmt.Sprintf("fn f(x) { let a = x %s %s\nlet b = x\nreturn [a, b] }\nfn g(x) { return x %s %s }\nprint(f(%s), g(%s))", op, lit, op, lit, v, v)
				slow := fmt.Sprintf("fn f(x) { let k = %s\nlet a = x %s k\nlet b = x\nreturn [a, b] }\nfn g(x) { let k = %s\nreturn x %s k }\nprint(f(%s), g(%s))", lit, op, lit, op, v, v)
				got, gotErr := run(t, fast)
				want, wantErr := run(t, slow)
				if got != want || (gotErr != nil) != (wantErr != nil) {
					t.Errorf("x %s %s with x = %s: printed %q (error %v), want %q (error %v)", op, lit, v, got, firstLine(gotErr), want, firstLine(wantErr))
				}
				cond := fmt.Sprintf("fn f(x) { if x %s %s { return 1 }\nreturn 0 }\nfn g(x) { if x %s %s { return x }\nreturn 0 }\nprint(f(%s), g(%s))", op, lit, op, lit, v, v)
				condSlow := fmt.Sprintf("fn f(x) { let k = %s\nif x %s k { return 1 }\nreturn 0 }\nfn g(x) { let k = %s\nif x %s k { return x }\nreturn 0 }\nprint(f(%s), g(%s))", lit, op, lit, op, v, v)
				got, gotErr = run(t, cond)
				want, wantErr = run(t, condSlow)
				if got != want || (gotErr != nil) != (wantErr != nil) {
					t.Errorf("if x %s %s with x = %s: printed %q (error %v), want %q (error %v)", op, lit, v, got, firstLine(gotErr), want, firstLine(wantErr))
				}
			}
		}
	}
	// A deleted variable is still reported as one.
	if _, err := run(t, "fn f(x) { del x\nreturn x - 1 }\nf(1)"); err == nil || !strings.Contains(err.Error(), `"x" has no value here`) {
		t.Errorf("x - 1 after del x: %v", err)
	}
}

// TestValueStackChunks checks that frames keep their variables while
// calls deeper down start new chunks of the value stack, and that the
// chunks are reused by later calls: each frame checks its variables after
// the call below it returns.
func TestValueStackChunks(t *testing.T) {
	out, err := run(t, `fn d(n) {
  let a = n * 2
  let b = [n, tensor(n)]
  if n == 0 { return 0 }
  let r = d(n - 1)
  assert a == n * 2 and b[0] == n and b[1] == n, "frame " + str(n)
  return r + 1
}
print(d(2500))
print(d(1500))
fn wide(k) { let x0 = k
  let x1 = k + 1
  let x2 = k + 2
  if k > 0 { wide(k - 1) }
  assert x0 == k and x1 == k + 1 and x2 == k + 2
  return x0 }
for i in range(3) { print(d(900 + i) + wide(700)) }`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "2500\n1500\n1600\n1601\n1602\n"; out != want {
		t.Errorf("printed %q, want %q", out, want)
	}
}
