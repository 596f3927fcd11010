package parser

import (
	"strings"
	"testing"
)

// TestBenchProgramTakesFastPath guards the parser's speed without timing
// it (BenchmarkParse measures it: a 2000-line script costs ~30 ms of CPU on
// the fast path and 200-300 ms through participle): a long, correct
// program must be parsed by the fast parser alone, never falling back.
func TestBenchProgramTakesFastPath(t *testing.T) {
	src := []byte(strings.Repeat(benchUnit, 2000/strings.Count(benchUnit, "\n")))
	if _, ok := fastOnly("b.tr", src, false); !ok {
		t.Fatal("the fast parser rejected the benchmark program: correct programs would fall back to participle")
	}
}
