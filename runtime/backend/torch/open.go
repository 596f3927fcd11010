package torch

import (
	"os"
	"strconv"
)

// Open loads the plugin (searching as SearchPath says, with explicit
// first) and opens device "torch:cpu" or "cuda:N" ("cuda" means cuda:0).
// $TREF_TORCH_THREADS, when set, fixes libtorch's intra-op threads (for
// side-by-side benchmarks with PyTorch).
func Open(device, explicit string) (*Device, error) {
	lib, err := Load(explicit)
	if err != nil {
		return nil, err
	}
	if n, err := strconv.Atoi(os.Getenv("TREF_TORCH_THREADS")); err == nil && n > 0 {
		lib.SetThreads(n)
	}
	if device == "cuda" {
		device = "cuda:0"
	}
	return NewDevice(lib, device)
}

// GPUPresent reports whether the machine has an NVIDIA GPU driver, so that
// probing for CUDA need not load libtorch on a machine without one.
func GPUPresent() bool {
	_, err := os.Stat("/dev/nvidiactl")
	return err == nil
}
