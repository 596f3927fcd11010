package torch

import "os"

// Open loads the plugin (searching as SearchPath says, with explicit
// first) and opens device "torch:cpu" or "cuda:N" ("cuda" means cuda:0).
func Open(device, explicit string) (*Device, error) {
	lib, err := Load(explicit)
	if err != nil {
		return nil, err
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
