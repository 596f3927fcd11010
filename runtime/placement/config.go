package placement

import (
	"cmp"
	"fmt"
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// Config says which device to run on and how to place refs there.
type Config struct {
	// Device is a --device value other than auto: "cpu", or an
	// accelerator registered with device.Register ("sim:0", "torch:cpu").
	Device string
	// Mem is the accelerator's budget in bytes; 0 means the device's
	// (device.Caps.Memory).
	Mem int64
	// Strategy is flow (default), lru, genoa or none.
	Strategy string
	// Lookahead is the runtime's window in ops (refs.Options.Lookahead);
	// the engine sees the window itself and only reports this.
	Lookahead int
	// Cost is the cost model the engine plans with, and the simulated
	// device's clock; zero fields take the defaults of device.DefaultCost.
	Cost device.Cost
	// NoInPlace turns off results taking over dying operands' memory on
	// the accelerator (device.Options.NoInPlace).
	NoInPlace bool
	// NoExactFallback makes the accelerator decide as one whose kernels
	// differ from the host's (device.Options.NoExactFallback).
	NoExactFallback bool
	// Pinned bounds the host memory the accelerator pins in place
	// (device.Options.Pinned: 0 its default, negative none).
	Pinned int64
	// BudgetName names the accelerator in the error of an op too large
	// for its budget: tref plan's card, which sim stands in for. Empty:
	// the device's name.
	BudgetName string
	// Middleware is the chain, in order, after the built-in tracer.
	Middleware []Middleware
	// Trace receives every event and the op log; nil means no tracing.
	Trace *trace.Recorder
}

// NewExecutor makes the executor cfg asks for: the plain cpu device, or
// the placement engine over the accelerator cfg.Device names.
func NewExecutor(cfg Config) (refs.Executor, error) {
	spec, err := device.Parse(cfg.Device)
	if err != nil {
		return nil, err
	}
	switch spec.Kind {
	case "auto":
		return nil, fmt.Errorf("placement: device auto must be resolved by the caller")
	case device.Host:
		if cfg.Mem > 0 {
			return nil, fmt.Errorf("--mem sets an accelerator's budget, and --device cpu has none: use --device sim, torch:cpu or cuda")
		}
		if cfg.Trace == nil && len(cfg.Middleware) == 0 {
			return &cpu.Device{}, nil
		}
		return newEngine(cfg, nil)
	}
	if cfg.Mem < 0 {
		return nil, fmt.Errorf("invalid memory budget %d bytes: want a positive size", cfg.Mem)
	}
	dev, err := device.Open(spec, device.Options{Cost: cfg.Cost, NoInPlace: cfg.NoInPlace,
		NoExactFallback: cfg.NoExactFallback, Mem: cfg.Mem, Pinned: cfg.Pinned})
	if err != nil {
		return nil, err
	}
	e, err := newEngine(cfg, dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return e, nil
}

// newEngine makes the engine over dev (nil: the host only, timed by the
// wall clock).
func newEngine(cfg Config, dev device.Device) (*Engine, error) {
	name := cfg.Strategy
	if name == "" {
		name = "flow"
	}
	if dev == nil {
		name = "none"
	}
	st, err := NewStrategy(name)
	if err != nil {
		return nil, err
	}
	e := &Engine{strategy: st, rec: cfg.Trace, devName: HostDevice, wallStart: time.Now()}
	e.watcher, _ = st.(Watcher)
	if dev != nil {
		caps := dev.Caps()
		mem := cfg.Mem
		if mem == 0 {
			mem = caps.Memory
		}
		if e.model, err = device.NewModel(mem, cfg.Cost); err != nil {
			return nil, err
		}
		e.dev, e.caps, e.wall, e.devName = dev, caps, caps.Clock == device.Wall, dev.Name()
		e.budgetName = cmp.Or(cfg.BudgetName, e.devName)
	}
	if cfg.Trace != nil {
		e.chain = append(e.chain, &Tracer{Rec: cfg.Trace})
	}
	e.chain = append(e.chain, cfg.Middleware...)
	e.tracing = len(e.chain) > 0
	if err := e.measure(); err != nil {
		return nil, err
	}
	return e, nil
}

// SetRecorder starts tracing into rec, or stops with nil (the REPL's
// :trace on|off). The op log for the Belady reference restarts with rec.
func (e *Engine) SetRecorder(rec *trace.Recorder) {
	chain := e.chain[:0:0]
	for _, m := range e.chain {
		if _, ok := m.(*Tracer); !ok {
			chain = append(chain, m)
		}
	}
	if rec != nil {
		chain = append([]Middleware{&Tracer{Rec: rec}}, chain...)
	}
	e.chain, e.rec, e.tracing = chain, rec, len(chain) > 0
	// A device that cannot measure shows the host's issue times: its
	// error is the device's sticky error, reported at its next call.
	_ = e.measure()
}

// Close gives the accelerator back at the end of a run, after Finish:
// each ref still resident (one the script leaked) is written back to the
// host if only the device holds its value, and released, and then the
// device closes, which waits for its work and frees its streams and its
// staging and pinned host memory. Middleware and the trace see none of
// this. The engine runs no ops afterwards. Close without an accelerator,
// or a second time, does nothing.
func (e *Engine) Close() error {
	if e.dev == nil || e.closed {
		return nil
	}
	e.chain, e.tracing = nil, false
	for s := e.resident.head; s != nil; s = e.resident.head {
		if err := e.evict(s, "device closed"); err != nil {
			return err
		}
	}
	e.closed = true
	return e.dev.Close()
}

// Finish closes the trace with the run's totals (see trace.Recorder.Finish).
func (e *Engine) Finish() (*trace.Totals, error) {
	if e.rec == nil {
		return nil, fmt.Errorf("placement: Finish without a trace recorder")
	}
	e.resolveMeasured()
	return e.rec.Finish(e.final())
}

// Totals computes the run's totals so far without closing the trace.
func (e *Engine) Totals() *trace.Totals {
	if e.rec == nil {
		return nil
	}
	return e.rec.Totals(e.final())
}

func (e *Engine) final() trace.Final {
	f := trace.Final{Device: e.devName, Strategy: e.strategy.Name(), PeakBytes: map[string]int64{},
		WastedPrefetches: e.wasted, WastedBytes: e.wastedBytes}
	if e.rt != nil {
		f.PeakBytes[HostDevice] = e.rt.HostPool().Stats().PeakBytes
	}
	f.Clock = device.Wall.String()
	switch {
	case e.wall:
		f.TimeNs = e.dev.Now()
	case e.model != nil:
		f.TimeNs = e.model.Now()
		f.Clock = device.Virtual.String()
	default:
		f.TimeNs = int64(time.Since(e.wallStart))
	}
	if e.model != nil {
		f.Budget = e.model.Capacity()
		f.Bandwidth = e.model.Cost().H2D
		f.PeakBytes[e.devName] = e.peak()
	}
	return f
}

// peak is the accelerator's peak bytes: at any virtual time of the model
// on a virtual clock, or as the device measured them on a wall clock.
func (e *Engine) peak() int64 {
	if e.wall {
		return e.dev.Stats().PeakBytes
	}
	return e.model.Peak()
}
