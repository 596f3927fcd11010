package eval_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/internal/cputime"
)

// The benchmarks report, besides wall time, cpu-ns/op: the process's CPU
// time per run, steadier than wall time on a machine shared with other
// work (bench/scalar/run.sh compares the same programs with CPython).

// runScript runs src b.N times, each in a fresh interpreter, and reports
// the CPU time per run and, when calls > 0, the wall and CPU time per
// call.
func runScript(b *testing.B, name string, src []byte, calls int) {
	b.Helper()
	b.ReportAllocs()
	cpu0 := cputime.Process()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s := newSession(b, 64)
		if err := s.in.RunSource(name, src); err != nil {
			b.Fatal(err)
		}
		s.in.Close()
	}
	wall, cpu := time.Since(start), cputime.Process()-cpu0
	n := float64(b.N)
	if cpu0 > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/op")
	}
	if calls > 0 {
		b.ReportMetric(float64(wall.Nanoseconds())/n/float64(calls), "ns/call")
		if cpu0 > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/n/float64(calls), "cpu-ns/call")
		}
	}
}

func readBench(b *testing.B, name string) []byte {
	b.Helper()
	src, err := os.ReadFile("../../bench/scalar/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkLoop and BenchmarkFib time the scalar programs of bench/scalar:
// a loop of arithmetic and recursive fib(30) (2,692,537 calls).
func BenchmarkLoop(b *testing.B) {
	runScript(b, "loop.tr", readBench(b, "loop.tr"), 0)
}

func BenchmarkFib(b *testing.B) {
	runScript(b, "fib.tr", readBench(b, "fib.tr"), 2692537)
}

// BenchmarkCall times 200,000 calls of script functions by the kind of
// call: positional arguments, keywords and defaults, a closure reading a
// captured variable, a call through a record field, and a builtin.
func BenchmarkCall(b *testing.B) {
	const n = 200_000
	cases := []struct{ name, src string }{
		{"positional", "fn f(a, b) { return a }\nlet s = 0\nfor i in range(N) { s += f(i, 1) }\n"},
		{"keywords", "fn f(a, b = 2, c = 3) { return a }\nlet s = 0\nfor i in range(N) { s += f(i, c = 1) }\n"},
		{"closure", "let k = 3\nfn f(a) { return a + k }\nfn g() { let s = 0\nfor i in range(N) { s += f(i) }\nreturn s }\nprint(g())\n"},
		{"field", "fn f(a) { return a }\nlet r = {f: f}\nlet s = 0\nfor i in range(N) { s += r.f(i) }\n"},
		{"builtin", "let l = [1, 2]\nlet s = 0\nfor i in range(N) { s += len(l) }\n"},
	}
	for _, c := range cases {
		src := []byte(strings.ReplaceAll(c.src, "N", "200_000"))
		b.Run(c.name, func(b *testing.B) { runScript(b, c.name+".tr", src, n) })
	}
}
