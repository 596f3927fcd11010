//go:build unix

package onnx

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used, all
// threads together: on a loaded machine it grows only while the process
// runs, where wall time also counts the waits for a core.
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
