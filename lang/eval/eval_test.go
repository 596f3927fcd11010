package eval_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/pos"
)

func TestTraceback(t *testing.T) {
	_, err := run(t, `fn inner(x) {
  return x // 0
}
fn outer(x) { return inner(x) + 1 }
outer(1)`)
	var e *eval.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *eval.Error", err, err)
	}
	want := "t.tr:2:12: integer division by zero\n  at inner (t.tr:2:12)\n  at outer (t.tr:4:27)\n  at <module> (t.tr:5:6)"
	if got := trimDir(err.Error()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// trimDir drops the temporary directory from positions.
func trimDir(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "t.tr"); i >= 0 {
			j := strings.LastIndex(l[:i], "/")
			if j >= 0 {
				k := strings.LastIndexAny(l[:j], " (")
				l = l[:k+1] + l[j+1:]
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func TestOpFailureIsPositionedAtItsSubmission(t *testing.T) {
	_, err := run(t, `let x = tensor([4, 2])
let y = x // 0
print("before")
print(y)`)
	var e *eval.Error
	if !errors.As(err, &e) || e.Pos.Line != 2 || !strings.Contains(e.Msg, "integer division by zero") {
		t.Fatalf("got %v, want an error at line 2", err)
	}
}

func TestStaticErrorsBeforeRunning(t *testing.T) {
	out, err := run(t, "print(1)\nprint(nope)")
	var l pos.ErrorList
	if !errors.As(err, &l) || out != "" {
		t.Fatalf("got %v and output %q, want a resolve error and no output", err, out)
	}
}

func TestPanicIsAnInternalError(t *testing.T) {
	_, err := run(t, "let x = 1\nboom()")
	if err == nil || !strings.Contains(err.Error(), "internal error: assignment to entry in nil map") ||
		!strings.HasSuffix(err.Error(), "t.tr:2:5)") {
		t.Fatalf("got %v", err)
	}
}

func TestRunTests(t *testing.T) {
	s := newSession(t, 8)
	path := file(t, "t_test.tr", `let w = ones([3])
fn double(x) { return x * 2 }
test "passes" { assert item(double(w).sum()) == 6 }
test "fails" { assert 1 == 2, "one is not two" }
test "own scope" { let w = 5
  assert w == 5 }
test "runtime error" { let z = [1][3] }`)
	var got []string
	err := s.in.RunTests(path, func(name string, err error) {
		if err != nil {
			var e *eval.Error
			errors.As(err, &e)
			got = append(got, name+": "+e.Msg)
		} else {
			got = append(got, name+": ok")
		}
	})
	s.in.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"passes: ok", "fails: assertion failed: one is not two", "own scope: ok",
		"runtime error: index 3 is out of range for list of length 1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := s.rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive", n)
	}
}

func TestREPL(t *testing.T) {
	s := newSession(t, 8)
	eval1 := func(src string) string {
		t.Helper()
		v, err := s.in.EvalREPL(src)
		if err != nil {
			return "error: " + err.Error()
		}
		defer eval.Release(s.rt, v)
		return eval.Format(v)
	}
	steps := []struct{ in, want string }{
		{"let x = ones([2])", "none"},
		{"x + 1", "tensor([2., 2.])"},
		{"fn f(a) { return a * y }", "none"},
		{"let y = 10", "none"},
		{"f(2)", "20"},
		{"let y = 3", "none"}, // re-declaring at the prompt rebinds
		{"f(2)", "6"},
		{"undefined_thing", `error: <repl>:8:1: undefined name "undefined_thing"`}, // inputs number their lines on
		{"[1][9]", "error: <repl>:9:4: index 9 is out of range for list of length 1"},
		{"x.sum()", "2.0"}, // the session survives errors
		{"live()", "1"},
		{"del x", "none"},
		{"live()", "0"},
	}
	for _, st := range steps {
		if got := eval1(st.in); got != st.want {
			t.Errorf("%s: got %q, want %q", st.in, got, st.want)
		}
	}
	if g := strings.Join(s.in.Globals(), ","); g != "f,y" {
		t.Errorf("globals %q", g)
	}
	s.in.Close()
	if n := s.rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after Close", n)
	}
}

func TestInterrupt(t *testing.T) {
	s := newSession(t, 8)
	done := make(chan error)
	go func() {
		_, err := s.in.EvalREPL("let n = 0\nwhile true { n += 1 }")
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	s.in.Interrupt()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("got %v, want interrupted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not stop the loop")
	}
	// The session goes on.
	if v, err := s.in.EvalREPL("n > 0"); err != nil || eval.Format(v) != "true" {
		t.Errorf("after the interrupt: %v %v", v, err)
	}
	s.in.Close()
}

func TestThreadCall(t *testing.T) {
	s := newSession(t, 8)
	v, err := s.in.EvalREPL("fn add(a, b = 2) { return a + b }\nadd")
	if err != nil {
		t.Fatal(err)
	}
	th := s.in.Thread()
	r, err := th.Call(v, []eval.Value{eval.Int(40)}, nil)
	if err != nil || eval.Format(r) != "42" {
		t.Errorf("Call: %v %v", r, err)
	}
	r, err = th.Call(v, nil, []eval.Kwarg{{Name: "a", Value: eval.Int(1)}, {Name: "b", Value: eval.Int(1)}})
	if err != nil || eval.Format(r) != "2" {
		t.Errorf("Call with keywords: %v %v", r, err)
	}
	_, err = th.Call(v, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `missing argument "a"`) {
		t.Errorf("Call without a: %v", err)
	}
	eval.Release(s.rt, v)
	s.in.Close()
}

func TestLoadModuleAndCall(t *testing.T) {
	s := newSession(t, 8)
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper.tr")
	policy := filepath.Join(dir, "policy.tr")
	os.WriteFile(helper, []byte("fn twice(x) { return 2 * x }"), 0o644)
	os.WriteFile(policy, []byte("import \"helper.tr\" as h\nlet scale = ones([2]) * 3\nprint(\"loaded\")\nfn f(x) { return h.twice(x) + scale }"), 0o644)
	m, err := s.in.LoadModule(policy)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.in.LoadModule(policy); err != nil || again != m {
		t.Errorf("loading again gave %v, %v; want the same module", again, err)
	}
	if s.out.String() != "loaded\n" {
		t.Errorf("the top level printed %q, want it run once", s.out.String())
	}
	f, ok := m.Member("f")
	if !ok || f.Type() != "function" {
		t.Fatalf("member f = %v, %v", f, ok)
	}
	r, err := s.in.Call(f, eval.Int(5))
	if err != nil || eval.Format(r) != "tensor([13., 13.])" {
		t.Errorf("Call(f, 5) = %v, %v", eval.Format(r), err)
	}
	eval.Release(s.rt, r)
	if _, err := s.in.Call(f); err == nil || !strings.Contains(err.Error(), `missing argument "x"`) {
		t.Errorf("Call(f) without x: %v", err)
	}
	bad := file(t, "bad.tr", "let a = 1\nprint(b)")
	if _, err := s.in.LoadModule(bad); err == nil || !strings.Contains(err.Error(), `bad.tr:2:7: undefined name "b"`) {
		t.Errorf("LoadModule(bad): %v", err)
	}
	failing := file(t, "failing.tr", "let a = ones([2]) @ ones([3])")
	if _, err := s.in.LoadModule(failing); err == nil || !strings.Contains(err.Error(), "failing.tr:1:19") {
		t.Errorf("LoadModule(failing): %v", err)
	}
	if _, err := s.in.LoadModule(failing); err == nil || !strings.Contains(err.Error(), "failed when it was first loaded") {
		t.Errorf("LoadModule(failing) again: %v", err)
	}
	s.in.Close()
	if n := s.rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after Close", n)
	}
}

func TestCheckFile(t *testing.T) {
	s := newSession(t, 8)
	good := file(t, "good.tr", "fn f() { return g() }\nfn g() { return 1 }")
	if err := s.in.CheckFile(good); err != nil {
		t.Errorf("CheckFile(good): %v", err)
	}
	bad := file(t, "bad.tr", "let a = 1\nprint(b)")
	if err := s.in.CheckFile(bad); err == nil || !strings.Contains(err.Error(), `bad.tr:2:7: undefined name "b"`) {
		t.Errorf("CheckFile(bad): %v", err)
	}
	if s.out.Len() != 0 {
		t.Errorf("CheckFile ran code: %q", s.out.String())
	}
}

func TestFormatFloat(t *testing.T) {
	cases := []struct {
		x    float64
		bits int
		want string
	}{
		{float64(float32(0.1)), 32, "0.1"}, {0.1, 64, "0.1"}, {7, 32, "7.0"}, {1e-5, 64, "1e-05"},
		{1e16, 64, "1e+16"}, {123456789, 32, "123456790.0"}, {math.Copysign(0, -1), 32, "-0.0"},
	}
	for _, c := range cases {
		if got := eval.FormatFloat(c.x, c.bits); got != c.want {
			t.Errorf("FormatFloat(%v, %d) = %q, want %q", c.x, c.bits, got, c.want)
		}
	}
}

func TestDeepRecursion(t *testing.T) {
	out, err := run(t, "fn d(n) { if n == 0 { return 0 } return d(n - 1) + 1 }\nprint(d(3000))\nd(10000)")
	if out != "3000\n" {
		t.Errorf("output %q", out)
	}
	var e *eval.Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "maximum call depth") {
		t.Fatalf("got %v", err)
	}
	if len(e.Stack) != 5 || !strings.Contains(e.Stack[3].Fn, "repeated") {
		t.Errorf("traceback of %d frames, want 5 with repeats summarised: %v", len(e.Stack), e.Stack)
	}
}

// TestPanicOutsideBuiltinsIsPositioned checks that a Go panic in the
// evaluator itself (here a tensor value without a ref, which no builtin
// returns) is reported at the statement that ran, not at the latest
// builtin call (print, here) or without a position.
func TestPanicOutsideBuiltinsIsPositioned(t *testing.T) {
	s := newSession(t, 8)
	u := testUniverse()
	u["nilref"] = &eval.Builtin{Name: "nilref", Fn: func(*eval.Thread, *eval.Builtin, []eval.Value, []eval.Kwarg) (eval.Value, error) {
		return eval.Tensor{}, nil
	}}
	in := eval.NewInterpreter(eval.Config{RT: s.rt, Universe: u})
	err := in.RunFile(file(t, "t.tr", "let a = 1\nfn f() {\n  let n = nilref()\n  print(a)\n  return n.shape\n}\nprint(f())"))
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.HasSuffix(err.Error(), "t.tr:5:3)") {
		t.Fatalf("got %v, want an internal error at t.tr:5:3", err)
	}
}
