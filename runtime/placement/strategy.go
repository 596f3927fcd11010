package placement

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tref-lang/tref/runtime/refs"
)

// Strategy decides placement; the Engine carries its decisions out. A new
// strategy is one file that implements it and registers itself.
type Strategy interface {
	// Name is the --strategy name.
	Name() string
	// OnDevice says whether op should run on the accelerator (it still
	// runs on the host when it cannot fit).
	OnDevice(e *Engine, op *refs.Op) bool
	// Victim picks which of cands (resident, evictable, least recently
	// used first) to evict so that need more bytes fit, for a use at op
	// sequence before (the current op for an operand or result, a later
	// op for a prefetch). nil refuses: the prefetch is skipped, an op
	// falls back to the host.
	Victim(e *Engine, cands []*RefState, need int64, before uint64) *RefState
	// Prefetch runs before the current op's result is allocated, once its
	// operands are resident (and pinned): issue copies for the window's
	// ops (Engine.Window) and beyond.
	Prefetch(e *Engine) error
	// After runs once op has been issued: move its result, free copies.
	After(e *Engine, op *refs.Op) error
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
