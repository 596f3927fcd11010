package main

import (
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// newExecutor makes the executor cfg asks for: the plain host device for
// cpu, else whatever the placement engine makes of the device
// (newPlacementExecutor).
func newExecutor(cfg *Config) (refs.Executor, error) {
	if cfg.Device == "cpu" && cfg.Mem == 0 {
		return &cpu.Device{}, nil
	}
	return newPlacementExecutor(cfg)
}
