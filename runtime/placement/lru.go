package placement

import "github.com/tref-lang/tref/runtime/refs"

// lru fetches operands on demand, keeps results on the accelerator and
// evicts the least recently used ref: what naive offloading and unified
// memory do.
type lru struct{}

func init() { RegisterStrategy("lru", func() Strategy { return lru{} }) }

func (lru) Name() string                  { return "lru" }
func (lru) OnDevice(*View, *refs.Op) bool { return true }

// Victim is the least recently used candidate (candidates come in that
// order), preferring refs with an offload hint.
func (lru) Victim(v *View, _ int64, _ uint64) *RefState {
	cands := v.Candidates()
	if len(cands) == 0 {
		return nil
	}
	for _, c := range cands {
		if c.offload {
			return c
		}
	}
	return cands[0]
}

func (lru) After(*View, *refs.Op) error { return nil }

// Prefetch does nothing: lru never prefetches.
func (lru) Prefetch(*View) error { return nil }
