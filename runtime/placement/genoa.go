package placement

import "github.com/tref-lang/tref/runtime/refs"

// genoa is torch.TensorRef's Genoa strategy: operands move to the
// accelerator just before the op, the result moves straight back, and
// every device copy is freed at once. It uses as little accelerator
// memory as possible and moves the most.
type genoa struct{}

func init() { RegisterStrategy("genoa", func() Strategy { return genoa{} }) }

func (genoa) Name() string                  { return "genoa" }
func (genoa) OnDevice(*View, *refs.Op) bool { return true }

// Victim takes the least recently used: only an earlier op's copies that
// a middleware kept can be resident.
func (genoa) Victim(v *View, _ int64, _ uint64) *RefState {
	if cands := v.Candidates(); len(cands) > 0 {
		return cands[0]
	}
	return nil
}

// After copies the result back and frees the op's device copies.
func (genoa) After(v *View, op *refs.Op) error {
	out := v.State(op.Out)
	if out == nil || !out.Resident() {
		return nil // it ran on the host
	}
	if err := v.WriteBack(out, "genoa: result goes straight back"); err != nil {
		return err
	}
	if err := v.Evict(out, "genoa: free device copies at once"); err != nil {
		return err
	}
	var buf [4]*refs.Ref
	for _, in := range opInputs(op, buf[:]) {
		if s := v.State(in); s != nil && !s.Kept() {
			if err := v.Evict(s, "genoa: free device copies at once"); err != nil {
				return err
			}
		}
	}
	return nil
}

// Prefetch does nothing: genoa never prefetches.
func (genoa) Prefetch(*View) error { return nil }
