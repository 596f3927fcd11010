package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// session is an interpreter over a fresh cpu runtime whose universe adds
// test builtins: live() is the number of refs alive (pending ones
// included), flush() runs every pending op, boom() panics.
type session struct {
	rt  *refs.Runtime
	in  *eval.Interpreter
	out bytes.Buffer
}

func newSession(t testing.TB, lookahead int) *session {
	t.Helper()
	s := &session{rt: refs.New(&cpu.Device{}, refs.Options{Lookahead: lookahead, TrackRefs: true})}
	s.in = eval.NewInterpreter(eval.Config{RT: s.rt, Universe: testUniverse(), Stdout: &s.out})
	return s
}

// testUniverse is stdlib's universe plus live(), flush() and boom().
func testUniverse() map[string]*eval.Builtin {
	u := map[string]*eval.Builtin{}
	for k, v := range stdlib.Universe() {
		u[k] = v
	}
	u["live"] = &eval.Builtin{Name: "live", Fn: func(th *eval.Thread, _ *eval.Builtin, _ []eval.Value, _ []eval.Kwarg) (eval.Value, error) {
		return eval.Int(th.RT.LiveRefs()), nil
	}}
	u["flush"] = &eval.Builtin{Name: "flush", Fn: func(th *eval.Thread, _ *eval.Builtin, _ []eval.Value, _ []eval.Kwarg) (eval.Value, error) {
		return eval.None, th.RT.Flush()
	}}
	u["boom"] = &eval.Builtin{Name: "boom", Fn: func(*eval.Thread, *eval.Builtin, []eval.Value, []eval.Kwarg) (eval.Value, error) {
		var m map[string]int
		m["x"] = 1 // a nil map write: a Go panic inside a builtin
		return eval.None, nil
	}}
	return u
}

// file writes src to a file in a temporary directory and returns its path.
func file(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// run executes src as a file and returns its output and error; it fails
// the test when refs are left alive.
func run(t *testing.T, src string) (string, error) {
	t.Helper()
	s := newSession(t, 8)
	err := s.in.RunFile(file(t, "t.tr", src))
	s.in.Close()
	if n := s.rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the run", n)
	}
	return s.out.String(), err
}
