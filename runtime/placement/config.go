package placement

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/placement/sim"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// Config says which device to run on and how to place refs there.
type Config struct {
	// Device is "cpu", "sim" or "sim:N"; other kinds ("torch:cpu",
	// "cuda:N") come from a backend registered with RegisterBackend.
	Device string
	// Mem is the accelerator's budget in bytes; 0 means DefaultSimMem on
	// sim.
	Mem int64
	// Strategy is flow (default), lru, genoa or none.
	Strategy string
	// Lookahead is the runtime's window in ops (refs.Options.Lookahead);
	// the engine sees the window itself and only reports this.
	Lookahead int
	// Sim is the simulated device's cost model; zero fields take the
	// defaults of sim.DefaultParams.
	Sim sim.Params
	// Middleware is the chain, in order, after the built-in tracer.
	Middleware []Middleware
	// Trace receives every event and the op log; nil means no tracing.
	Trace *trace.Recorder
}

// DefaultSimMem is the sim device's memory when Config.Mem is 0: a
// modest 8 GiB card.
const DefaultSimMem = 8 << 30

// Backend makes the executor for a device kind the engine does not
// simulate (a torch backend registers "torch" and "cuda").
type Backend func(cfg Config) (refs.Executor, error)

var backends = map[string]Backend{}

// RegisterBackend adds a device kind ("cuda" for "cuda:N").
func RegisterBackend(kind string, b Backend) {
	if _, dup := backends[kind]; dup || kind == "cpu" || kind == "sim" {
		panic("placement: duplicate backend " + kind)
	}
	backends[kind] = b
}

// NewExecutor makes the executor cfg asks for: the plain cpu device, or
// the placement engine over a simulated (or registered) accelerator.
func NewExecutor(cfg Config) (refs.Executor, error) {
	kind, idx, hasIdx := strings.Cut(cfg.Device, ":")
	switch kind {
	case "", "cpu":
		if hasIdx {
			return nil, fmt.Errorf("invalid device %q: cpu takes no index", cfg.Device)
		}
		if cfg.Trace == nil && len(cfg.Middleware) == 0 {
			return &cpu.Device{}, nil
		}
		return newEngine(cfg, nil)
	case "sim":
		n := 0
		if hasIdx {
			var err error
			if n, err = strconv.Atoi(idx); err != nil || n < 0 {
				return nil, fmt.Errorf("invalid device %q: want sim or sim:N with N >= 0", cfg.Device)
			}
		}
		mem := cfg.Mem
		if mem == 0 {
			mem = DefaultSimMem
		}
		if mem < 0 {
			return nil, fmt.Errorf("invalid memory budget %d bytes: want a positive size", mem)
		}
		dev, err := sim.New(fmt.Sprintf("sim:%d", n), mem, cfg.Sim)
		if err != nil {
			return nil, err
		}
		return newEngine(cfg, dev)
	}
	if b, ok := backends[kind]; ok {
		return b(cfg)
	}
	return nil, fmt.Errorf("unknown device %q: want cpu, sim[:N]%s", cfg.Device, registeredKinds())
}

func registeredKinds() string {
	s := ""
	for k := range backends {
		s += ", " + k
	}
	return s
}

// NewEngine makes the placement engine over dev (nil: the host only,
// timed by the wall clock). Most callers want NewExecutor.
func NewEngine(cfg Config, dev *sim.Device) (*Engine, error) { return newEngine(cfg, dev) }

func newEngine(cfg Config, dev *sim.Device) (*Engine, error) {
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
	e := &Engine{dev: dev, devName: HostDevice, strategy: st, rec: cfg.Trace, wallStart: time.Now()}
	if dev != nil {
		e.devName = dev.Name()
	}
	if cfg.Trace != nil {
		e.chain = append(e.chain, &Tracer{Rec: cfg.Trace})
	}
	e.chain = append(e.chain, cfg.Middleware...)
	e.tracing = len(e.chain) > 0
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
}

// Finish closes the trace with the run's totals (see trace.Recorder.Finish).
func (e *Engine) Finish() (*trace.Totals, error) {
	if e.rec == nil {
		return nil, fmt.Errorf("placement: Finish without a trace recorder")
	}
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
	if e.dev != nil {
		f.Budget = e.dev.Capacity()
		f.Bandwidth = e.dev.Params().H2D
		f.TimeNs = e.dev.Now()
		f.PeakBytes[e.devName] = e.dev.Peak()
	} else {
		f.TimeNs = int64(time.Since(e.wallStart))
	}
	return f
}
