//go:build !unix

// Package cputime reads the CPU time the process has used, for
// benchmarks that report it beside wall time.
package cputime

import "time"

// Process is unavailable here: it reports 0.
func Process() time.Duration { return 0 }
