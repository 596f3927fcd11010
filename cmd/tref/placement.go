package main

import (
	"fmt"
	"io"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// Hooks the placement engine's files (cmd/tref/trace*.go) set in their
// init functions, so that adding the engine to the command is adding files.
var (
	// traceCommand is the body of `tref trace`; it parses its arguments
	// with parseCommand(commands["trace"], ...) and returns the exit status.
	traceCommand func(args []string, stdout, stderr io.Writer) int
	// placementExecutor makes the executor for every device but cpu (and
	// for auto, which it resolves).
	placementExecutor func(cfg *Config) (refs.Executor, error)
	// setTracing turns the REPL's :trace on or off, writing events to w.
	setTracing func(ex refs.Executor, on bool, w io.Writer) error
)

// newExecutor makes the executor cfg asks for: the plain host device for
// cpu, else whatever the placement engine makes of the device.
func newExecutor(cfg *Config) (refs.Executor, error) {
	if cfg.Device == "cpu" && cfg.Mem == 0 {
		return &cpu.Device{}, nil
	}
	if placementExecutor == nil {
		return nil, fmt.Errorf("device %s needs the placement engine, which this build lacks", cfg.Device)
	}
	return placementExecutor(cfg)
}
