//go:build unix

// Package cputime reads the CPU time the process has used, for
// benchmarks that report it beside wall time: on a shared machine it
// grows only while the process runs, where wall time also counts the
// waits for a core.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user + system) the process has used, all
// threads together; 0 where it cannot be read.
func Process() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
