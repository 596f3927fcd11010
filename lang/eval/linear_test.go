package eval_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
)

// `l = l + [v]` in a loop grows the list in place when nothing else holds
// it, so the loop copies each element a constant number of times on
// average: 20000 appends allocate a few MB, where copying the list each
// time would allocate 20000²/2 × 16 bytes, about 3 GB.
func TestListAppendLoopIsLinear(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := run(t, `
let l = []
for i in range(20000) {
    l = l + [i]
}
print(len(l), l[0], l[19999])
`)
	runtime.ReadMemStats(&after)
	if err != nil || out != "20000 0 19999\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the loop allocated %d MB: the list is copied at each append", alloc>>20)
	}
}

// Growing a list in place is invisible: a list another name, a record, a
// closure or a loop still holds is copied, never changed.
func TestListConcatNeverChangesASharedList(t *testing.T) {
	out, err := run(t, `
let l = [1, 2]
for e in l {
    l = l + [e]
}
print(l)
let a = [1]
a = a + a
print(a)
fn f(x) { return x + [9] }
let b = [1]
print(f(b), b)
let m = b
b = b + [2]
print(m, b)
let r = {k: [1]}
print(r.k + [2], r)
let z = [1]
let zz = [z]
z = z + [7]
print(zz, z)
`)
	want := "[1, 2, 1, 2]\n[1, 1]\n[1, 9] [1]\n[1] [1, 2]\n[1, 2] {k: [1]}\n[[1]] [1, 7]\n"
	if err != nil || out != want {
		t.Fatalf("got %q, %v\nwant %q", out, err, want)
	}
}

// A REPL session keeps its inputs' text (for quoting errors in functions
// an earlier input defined) without copying it for each new input: 20000
// inputs allocate a few MB, where copying would allocate gigabytes.
func TestREPLTranscriptIsLinear(t *testing.T) {
	s := newSession(t, 8)
	defer s.in.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 20000 {
		v, err := s.in.EvalREPL(fmt.Sprintf("let v%d = %d", i%10, i))
		if err != nil {
			t.Fatal(err)
		}
		eval.Release(s.rt, v)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("20000 inputs allocated %d MB: the transcript is copied for each", alloc>>20)
	}
	if src := s.in.Source("<repl>"); !strings.HasSuffix(string(src), "let v9 = 19999\n") {
		t.Errorf("the transcript ends %q", src[max(0, len(src)-40):])
	}
}

// A REPL input whose lines end in a lone \r (pasted from an old Mac file)
// counts them, so the next input's positions name the right line.
func TestREPLCountsCRLines(t *testing.T) {
	s := newSession(t, 8)
	defer s.in.Close()
	if _, err := s.in.EvalREPL("let a = 1\rlet b = 2\r"); err != nil {
		t.Fatal(err)
	}
	_, err := s.in.EvalREPL("print(zz)")
	if err == nil || !strings.HasPrefix(err.Error(), "<repl>:3:7: ") {
		t.Errorf("got %v, want an error at <repl>:3:7", err)
	}
}
