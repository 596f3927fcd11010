package refs_test

import (
	"errors"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// interruptingExec is the cpu device, and interrupts the runtime while it
// runs its third op (as a signal arriving mid-op would).
type interruptingExec struct {
	cpu.Device
	ran int
}

func (e *interruptingExec) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	e.ran++
	if e.ran == 3 {
		rt.Interrupt()
	}
	return e.Device.Execute(rt, op, ahead)
}

// TestInterruptStopsAtTheNextOp: after Interrupt, the op running finishes
// and every queued op fails with ErrInterrupted instead of running; Flush
// returns at once with that error, the refs made before stay readable, and
// after ClearInterrupt ops run again.
func TestInterruptStopsAtTheNextOp(t *testing.T) {
	exec := &interruptingExec{}
	rt := refs.New(exec, refs.Options{Lookahead: 1000, TrackRefs: true})
	x := rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Float32}))
	rs := negs(t, rt, x, 10)
	err := rt.Flush()
	if !errors.Is(err, refs.ErrInterrupted) {
		t.Fatalf("Flush: %v, want interrupted", err)
	}
	if exec.ran != 3 {
		t.Errorf("%d ops ran, want 3 (the one running when interrupted finishes)", exec.ran)
	}
	for i, r := range rs {
		_, err := rt.Read(r)
		if i < 3 && err != nil {
			t.Errorf("op %d ran before the interrupt: %v", i, err)
		}
		if i >= 3 && !errors.Is(err, refs.ErrInterrupted) {
			t.Errorf("op %d: %v, want interrupted", i, err)
		}
	}
	rt.ClearInterrupt()
	r, err := rt.Submit(refs.Site{}, ops.Neg, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Read(r); err != nil {
		t.Fatalf("after ClearInterrupt: %v", err)
	}
	for _, r := range append(rs, r, x) {
		rt.Release(r)
	}
	if err := rt.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs live", n)
	}
}
