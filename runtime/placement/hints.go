package placement

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/refs"
)

// The placement hints a script gives with hint_keep and hint_offload.
const (
	HintKeep    = "keep"
	HintOffload = "offload"
	HintAuto    = "auto"
)

// Hint applies a placement hint to r: "keep" never evicts it once on the
// accelerator, "offload" moves it to the host now and evicts it first
// from then on, "auto" clears both. It implements refs.Hinter.
func (e *Engine) Hint(rt *refs.Runtime, r *refs.Ref, hint string) error {
	e.rt = rt
	if r.State() == refs.Freed {
		return fmt.Errorf("hint %q on ref#%d, which was already freed", hint, r.ID())
	}
	s := e.state(r)
	switch hint {
	case HintKeep:
		s.keep, s.offload = true, false
	case HintOffload:
		s.keep, s.offload = false, true
		if s.buf != nil && s.pins == 0 {
			return e.evict(s, "hint_offload")
		}
	case HintAuto:
		s.keep, s.offload = false, false
	default:
		return fmt.Errorf("unknown placement hint %q: want %s, %s or %s", hint, HintKeep, HintOffload, HintAuto)
	}
	return nil
}
