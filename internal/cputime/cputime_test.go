package cputime

import (
	"runtime"
	"testing"
)

// TestProcessGrowsWithWork checks that spinning the CPU moves the clock.
func TestProcessGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no rusage here")
	}
	t0 := Process()
	x := 0.0
	for Process()-t0 < 5e6 { // 5 ms of CPU
		for i := range 100000 {
			x += float64(i)
		}
	}
	if x == 0 || Process() <= t0 {
		t.Fatalf("CPU time did not grow: %v -> %v", t0, Process())
	}
}
