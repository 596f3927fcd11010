//go:build unix

package eval_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used, all
// threads together; 0 where it cannot be read.
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
