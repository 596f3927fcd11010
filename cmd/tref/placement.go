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
	// for auto, which it resolves). Without it those devices run on cpu.
	placementExecutor func(cfg *Config) (refs.Executor, error)
	// setTracing turns the REPL's :trace on or off, writing events to w.
	setTracing func(ex refs.Executor, on bool, w io.Writer) error
)

// newExecutor makes the executor cfg asks for. warn receives a line when
// the request cannot be honoured as given and a fallback is used.
func newExecutor(cfg *Config, warn io.Writer) (refs.Executor, error) {
	if cfg.Device == "cpu" {
		return &cpu.Device{}, nil
	}
	if placementExecutor != nil {
		return placementExecutor(cfg)
	}
	if cfg.Device != "auto" {
		fmt.Fprintf(warn, "tref: warning: device %s needs the placement engine, which this build lacks; running on cpu\n", cfg.Device)
	}
	return &cpu.Device{}, nil
}
