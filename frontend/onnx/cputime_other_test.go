//go:build !unix

package onnx

import "time"

// processCPU is unavailable here; the benchmark then reports 0.
func processCPU() time.Duration { return 0 }
