package refs_test

import (
	"errors"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func TestLazyDoneAfterLoad(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	var events []refs.LoadEvent
	rt.SetLoadObserver(func(ev refs.LoadEvent) { events = append(events, ev) })
	m := tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Float32}
	loads, dones := 0, 0
	r := rt.LazyWithDone(refs.Site{}, m, func() (*tensor.Dense, error) {
		loads++
		return tensor.NewDense(m), nil
	}, func() { dones++ })
	if r.Device() != "disk" || !r.Lazy() {
		t.Fatalf("before the first read: device %q, lazy %v; want disk, true", r.Device(), r.Lazy())
	}
	for range 2 {
		if _, err := rt.Read(r); err != nil {
			t.Fatal(err)
		}
	}
	if loads != 1 || dones != 1 {
		t.Fatalf("after two reads: %d loads, %d done calls; want 1 and 1", loads, dones)
	}
	if len(events) != 1 || events[0].Ref != r || events[0].Bytes != 24 || events[0].Err != nil {
		t.Fatalf("load events %+v; want one of 24 bytes for ref#%d", events, r.ID())
	}
	rt.Release(r)
	if dones != 1 {
		t.Fatalf("release after load called done again (%d calls)", dones)
	}
	if rt.HostPool().Stats().LiveBytes != 0 || rt.LiveRefs() != 0 {
		t.Fatalf("leak: %+v, %d live refs", rt.HostPool().Stats(), rt.LiveRefs())
	}
}

func TestLazyDoneWhenFreedUnloaded(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	m := tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Int64}
	dones := 0
	r := rt.LazyWithDone(refs.Site{}, m, func() (*tensor.Dense, error) {
		t.Fatal("loader ran for a ref that was never read")
		return nil, nil
	}, func() { dones++ })
	rt.Release(r)
	if dones != 1 {
		t.Fatalf("freeing an unloaded lazy ref: %d done calls, want 1", dones)
	}
}

func TestLazyFailedLoadKeepsLoader(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	var events []refs.LoadEvent
	rt.SetLoadObserver(func(ev refs.LoadEvent) { events = append(events, ev) })
	m := tensor.Meta{Shape: tensor.Shape{1}, DType: tensor.Float32}
	boom := errors.New("disk on fire")
	dones := 0
	r := rt.LazyWithDone(refs.Site{}, m, func() (*tensor.Dense, error) { return nil, boom }, func() { dones++ })
	if _, err := rt.Read(r); !errors.Is(err, boom) {
		t.Fatalf("Read: got %v, want the loader's error", err)
	}
	if dones != 0 {
		t.Fatal("done ran after a failed load; the loader may be retried")
	}
	if len(events) != 1 || !errors.Is(events[0].Err, boom) {
		t.Fatalf("events %+v; want one carrying the failure", events)
	}
	rt.Release(r)
	if dones != 1 {
		t.Fatalf("release after a failed load: %d done calls, want 1", dones)
	}
}

func TestLazyWrongMetaIsAnError(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	m := tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Float32}
	r := rt.Lazy(refs.Site{}, m, func() (*tensor.Dense, error) {
		return tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32}), nil
	})
	if _, err := rt.Read(r); err == nil {
		t.Fatal("a loader returning the wrong shape was accepted")
	}
	rt.Release(r)
}
