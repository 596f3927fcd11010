package main

import (
	"errors"
	"strings"

	"github.com/tref-lang/tref/runtime/backend/torch"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
)

// The torch backend serves devices "torch:cpu" and "cuda:N". Its plugin is
// found by torch.SearchPath: $TREF_TORCH_LIB, next to the tref binary, then
// the user cache dir where scripts/build-torch.sh installs it. libtorch is
// loaded only when one of these devices is asked for, or when --device
// auto probes cuda:0 and the plugin file exists (a missing plugin or a
// CPU-only libtorch then falls back to cpu).
func init() {
	placement.RegisterBackend("torch", openTorch)
	placement.RegisterBackend("cuda", openTorch)
}

func openTorch(cfg placement.Config) (refs.Executor, error) {
	if strings.HasPrefix(cfg.Device, "cuda") && !torch.GPUPresent() {
		// Checked before loading libtorch, so that --device auto on a
		// machine without a GPU costs nothing.
		return nil, errors.New("no NVIDIA GPU on this machine (no /dev/nvidiactl)")
	}
	if cfg.Mem > 0 && cfg.Device != "torch:cpu" {
		// Refused before loading libtorch, which would be wasted.
		return nil, errors.New("--mem on a CUDA device needs the placement engine's CUDA path, which is not built yet; run without --mem (all tensors resident) or on sim")
	}
	dev, err := torch.Open(cfg.Device, "")
	if err != nil {
		return nil, err // not a nil *Device in a non-nil interface
	}
	return dev, nil
}
