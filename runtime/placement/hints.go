package placement

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/placement/trace"
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
// from then on, "auto" clears both. Each hint is a hint event in the
// trace, at site (the hint_keep or hint_offload call). It implements
// refs.Hinter.
func (e *Engine) Hint(rt *refs.Runtime, r *refs.Ref, hint string, site refs.Site) error {
	e.rt = rt
	if r.State() == refs.Freed {
		return fmt.Errorf("hint %q on ref#%d, which was already freed", hint, r.ID())
	}
	s := e.state(r)
	var reason string
	switch hint {
	case HintKeep:
		s.keep, s.offload = true, false
		reason = "keep: never evicted while on " + e.devName
	case HintOffload:
		s.keep, s.offload = false, true
		reason = "offload: evicted first from now on"
		if s.buf != nil && s.pins == 0 {
			reason = "offload: evicted now, and first from now on"
		}
	case HintAuto:
		s.keep, s.offload = false, false
		reason = "auto: hints cleared"
	default:
		return fmt.Errorf("unknown placement hint %q: want %s, %s or %s", hint, HintKeep, HintOffload, HintAuto)
	}
	e.emit(trace.Event{T: e.now(), Kind: trace.Hint, Device: e.devName, Ref: r.ID(), Bytes: r.Meta().Bytes(),
		Op: "hint_" + hint, Pos: site.Pos.String(), Reason: reason})
	if hint == HintOffload && s.buf != nil && s.pins == 0 {
		return e.evict(s, "hint_offload")
	}
	return nil
}
