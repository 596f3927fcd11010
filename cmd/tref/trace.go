package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// The placement engine's part of the command: `tref trace`, the executor
// for every device but cpu, and the REPL's :trace.

// placementConfig maps the command line to the engine's configuration.
func placementConfig(cfg *Config, dev string) placement.Config {
	latency := cfg.Sim.Latency.Nanoseconds()
	if cfg.Sim.LatencySet && latency == 0 {
		latency = -1 // sim.Params: 0 is the default latency, a negative one none
	}
	return placement.Config{
		Device:    dev,
		Mem:       cfg.Mem,
		Pinned:    cfg.Pinned,
		Strategy:  cfg.Strategy,
		Lookahead: cfg.Lookahead,
		Cost: device.Cost{H2D: cfg.Sim.Bandwidth, D2H: cfg.Sim.Bandwidth, Flops: cfg.Sim.Flops,
			MemBandwidth: cfg.Sim.MemBandwidth, LatencyNs: latency, StagingBandwidth: cfg.Sim.StagingBandwidth,
			IssueNs: cfg.Sim.Issue.Nanoseconds()},
		NoExactFallback: cfg.asCUDA,
		BudgetName:      cfg.budgetName,
	}
}

// newPlacementExecutor makes the executor for cfg's device: the engine
// over sim, a registered backend (torch, cuda), or for auto the first GPU
// a backend finds and else the plain cpu device. --hooks adds the
// policy file's hooks to the middleware.
func newPlacementExecutor(cfg *Config) (refs.Executor, error) {
	return buildExecutor(cfg, nil, false)
}

// autoGPU is the device --device auto tries first.
const autoGPU = "cuda:0"

// openAutoGPU makes the executor over autoGPU (a variable: tests make it
// fail as a machine without a GPU, or with one that cannot be used, does).
var openAutoGPU = func(pc placement.Config) (refs.Executor, error) {
	pc.Device = autoGPU
	return placement.NewExecutor(pc)
}

// buildExecutor is newPlacementExecutor with a trace recorder; forTrace
// resolves auto to the simulated device when no GPU is found, and traces
// the cpu device through the engine rather than the plain executor.
func buildExecutor(cfg *Config, rec *trace.Recorder, forTrace bool) (refs.Executor, error) {
	pc := placementConfig(cfg, cfg.Device)
	pc.Trace = rec
	if cfg.Hooks != "" {
		h, err := loadHooks(cfg.Hooks, cfg.sandbox, cfg.hooksOut)
		if err != nil {
			return nil, err
		}
		pc.Middleware = append(pc.Middleware, placement.NewHooks(h))
	}
	if cfg.Device == "auto" {
		ex, err := openAutoGPU(pc)
		if err == nil {
			return ex, nil
		}
		if !errors.As(err, new(device.Absent)) && cfg.stderr != nil {
			// A GPU is here but cannot be used: say why, once, rather
			// than run on the host unnoticed.
			fmt.Fprintf(cfg.stderr, "tref: --device auto: %s is here but cannot be used, so the host runs the script: %v\n", autoGPU, err)
		}
		pc.Device = device.Host
		if forTrace {
			// Tracing the host alone shows no placement: trace the
			// simulated accelerator, and say so (cfg.Device tells trace).
			pc.Device = "sim:0"
			cfg.Device = pc.Device
		} else if cfg.Mem > 0 {
			return nil, fmt.Errorf("--mem sets an accelerator's budget, and --device auto found none (no usable GPU): name one with --device sim, torch:cpu or cuda")
		}
	}
	if pc.Device == device.Host && pc.Trace == nil && len(pc.Middleware) == 0 && pc.Mem == 0 {
		return &cpu.Device{}, nil
	}
	// Traced or hooked, cpu runs everything on the host under the engine
	// (which refuses --mem there).
	return placement.NewExecutor(pc)
}

// trace is `tref trace`: run a script on the engine and write every
// placement event, then the summary, in the format asked for. The script's
// own output goes to stderr when the trace goes to stdout.
func (c *cli) trace(cfg *Config, path string) int {
	stdout, stderr := c.stdout, c.stderr
	if err := cfg.confine(path); err != nil {
		return c.fail(err)
	}
	defer exitOnSignal(stderr)()
	// The trace files are written to temporary files and renamed over
	// their targets at the end, so an interrupted trace (or a signal)
	// leaves the trace that was there.
	out, scriptOut := stdout, stdout
	var outputs []*output
	defer func() {
		for _, o := range outputs {
			o.Abort()
		}
	}()
	if cfg.Trace.Out != "" {
		f, err := createOutput(cfg.Trace.Out)
		if err != nil {
			return c.fail(err)
		}
		outputs = append(outputs, f)
		out = f
	} else {
		scriptOut = stderr
	}
	var sinks []trace.Sink
	switch cfg.Trace.Format {
	case "jsonl":
		sinks = append(sinks, trace.NewJSONL(out))
	case "chrome":
		sinks = append(sinks, trace.NewChrome(out))
	default:
		sinks = append(sinks, trace.NewText(out, isTerminalWriter(out)))
	}
	if cfg.Trace.SVG != "" {
		f, err := createOutput(cfg.Trace.SVG)
		if err != nil {
			return c.fail(err)
		}
		outputs = append(outputs, f)
		sinks = append(sinks, trace.NewSVG(f))
	}
	rec := trace.NewRecorder(sinks...)
	auto := cfg.Device == "auto"
	cfg.hooksOut, cfg.stderr = scriptOut, stderr
	ex, err := buildExecutor(cfg, rec, true)
	if err != nil {
		return c.fail(err)
	}
	if auto && cfg.Device == "sim:0" {
		budget := "8GiB, sim's default"
		if cfg.Mem > 0 {
			budget = fmt.Sprintf("%d bytes, from --mem", cfg.Mem)
		}
		fmt.Fprintf(stderr, "tref trace: no GPU, so --device auto traces the simulated accelerator sim:0 (budget %s); name a device with --device\n", budget)
	}
	s := c.newSessionWith(cfg, ex, scriptOut)
	if eng, ok := ex.(*placement.Engine); ok {
		eng.Attach(s.rt) // disk->host reads before the first op show too
		if cfg.Trace.Optimal {
			optimizeTrace(rec, eng)
		}
	}
	code := s.runFile(path)
	if eng, ok := ex.(*placement.Engine); ok {
		if _, err := eng.Finish(); err != nil {
			fmt.Fprintf(stderr, "tref trace: writing the trace: %v\n", err)
			return 1
		}
	}
	if !s.closeDevice() {
		code = 1
	}
	for _, o := range outputs {
		if err := o.Commit(); err != nil {
			fmt.Fprintf(stderr, "tref trace: %v\n", err)
			code = 1
		}
	}
	outputs = nil
	return code
}

// isTerminalWriter reports whether w is a terminal that may show colour.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && colorAllowed(f)
}

// setREPLTracing is the REPL's :trace on|off: events print to w as ops
// run, in the text format.
func setREPLTracing(ex refs.Executor, on bool, w io.Writer) error {
	eng, ok := ex.(*placement.Engine)
	if !ok {
		return fmt.Errorf("tracing shows placement decisions, and the cpu device makes none: start the REPL with --device sim or torch:cpu (and --mem)")
	}
	if !on {
		eng.SetRecorder(nil)
		return nil
	}
	text := trace.NewText(w, isTerminalWriter(w))
	text.LineFlush = true
	eng.SetRecorder(trace.NewRecorder(text))
	return nil
}
