package gemm

// microKernel is the fastest kernel this CPU supports; architecture files
// replace the portable default in their init.
var microKernel kernelFunc = kernelGo

// kernelName describes microKernel, for benchmarks and diagnostics.
var kernelName = "go 6x16"

// Kernel names the micro-kernel Sgemm uses on this machine ("avx2-fma
// 6x16" or "go 6x16").
func Kernel() string { return kernelName }
