package placement

import "github.com/tref-lang/tref/runtime/refs"

// none runs everything on the host: the baseline.
type none struct{}

func init() { RegisterStrategy("none", func() Strategy { return none{} }) }

func (none) Name() string                          { return "none" }
func (none) OnDevice(*View, *refs.Op) bool         { return false }
func (none) Victim(*View, int64, uint64) *RefState { return nil }
func (none) After(*View, *refs.Op) error           { return nil }

// Prefetch does nothing: none never prefetches.
func (none) Prefetch(*View) error { return nil }
