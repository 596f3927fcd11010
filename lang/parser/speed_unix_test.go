//go:build unix

package parser

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("no getrusage:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestParseSpeed guards the parser's speed: a 2000-line script took
// 200-300 ms of CPU with the participle parser alone and 35 ms with the
// fast parser. It measures CPU time, not wall time, because the machines
// running tests are shared; the bound is loose.
func TestParseSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	src := []byte(strings.Repeat(benchUnit, 2000/strings.Count(benchUnit, "\n")))
	best := time.Duration(1 << 62)
	for range 5 {
		start := cpuTime(t)
		if _, err := ParseFile("b.tr", src); err != nil {
			t.Fatal(err)
		}
		best = min(best, cpuTime(t)-start)
	}
	t.Logf("2000 lines: %v of CPU", best)
	if best > 100*time.Millisecond {
		t.Errorf("parsing 2000 lines took %v of CPU, want under 100ms", best)
	}
}
