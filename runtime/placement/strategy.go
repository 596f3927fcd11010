package placement

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tref-lang/tref/runtime/refs"
)

// Strategy decides placement; the Engine carries its decisions out. A
// strategy sees the engine through a View (the window, next uses, the
// forecast, the resident refs, memory, clocks and costs) and answers
// with decisions: where each op runs, what to evict, what to prefetch.
// The engine does the mechanics: allocation, copies, residency, events
// and the middleware's say. A new strategy is one file that implements
// it and registers itself (RegisterStrategy); it may also implement
// Watcher and PredictionReader.
type Strategy interface {
	// Name is the --strategy name.
	Name() string
	// OnDevice says whether op runs on the accelerator: false runs it on
	// the host (it also runs there when it cannot fit, or when the
	// device cannot run it). On a device whose kernels differ from the
	// host's (!v.HostExact()), false makes the results depend on where
	// the op ran.
	OnDevice(v *View, op *refs.Op) bool
	// Victim picks which resident ref to evict so that need more bytes
	// fit, for a use at op sequence before (the current op for an
	// operand or result, a later op for a prefetch): one of
	// v.Candidates(), or a ref found walking from v.FirstResident that
	// is not Kept, not Pinned and not v.Vetoed. nil refuses: the
	// prefetch is skipped, an op falls back to the host. It is called
	// only when something must go.
	Victim(v *View, need int64, before uint64) *RefState
	// Prefetch runs before the current op's result is allocated, once its
	// operands are resident (and pinned): issue copies for the window's
	// ops and beyond with v.Prefetch.
	Prefetch(v *View) error
	// After runs once op has been issued: move its result, free copies.
	After(v *View, op *refs.Op) error
}

var strategies = map[string]func() Strategy{}

// RegisterStrategy makes a strategy available by name.
func RegisterStrategy(name string, make func() Strategy) {
	if _, dup := strategies[name]; dup {
		panic("placement: duplicate strategy " + name)
	}
	strategies[name] = make
}

// Strategies lists the registered strategy names, sorted.
func Strategies() []string {
	names := make([]string, 0, len(strategies))
	for n := range strategies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewStrategy makes a registered strategy.
func NewStrategy(name string) (Strategy, error) {
	make, ok := strategies[name]
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q: want one of %v", name, Strategies())
	}
	return make(), nil
}

// opInputs returns op's distinct inputs.
func opInputs(op *refs.Op, buf []*refs.Ref) []*refs.Ref {
	out := buf[:0]
	for _, in := range op.Inputs {
		if !slices.Contains(out, in) {
			out = append(out, in)
		}
	}
	return out
}
