//go:build !unix

package cpu

import "time"

// processCPU is unavailable here; benchmarks then report no CPU figures.
func processCPU() time.Duration { return 0 }
