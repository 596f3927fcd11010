package cuda

import (
	"errors"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// holdPins makes f's HostRegister wait until the returned func is called.
func holdPins(f *Fake) (release func()) {
	ch := make(chan struct{})
	f.HoldHostRegister = func() { <-ch }
	return func() { close(ch) }
}

// TestPinOffThread: the copy that starts pinning a host block (its
// second with PinAtSecondCopy, its first with PinAtFirstCopy) returns
// while HostRegister still runs, staged, and the block's bytes count
// against the bound from then; copies while the pinning runs are staged
// too, and once it landed they are straight from the block. With
// PinAtBirth the pinning starts when the host pool hands the block out,
// and the first copy after it landed is straight from it.
func TestPinOffThread(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32} // 1 KiB
	for _, at := range []PinAt{PinAtSecondCopy, PinAtFirstCopy, PinAtBirth} {
		f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinAt: at}, 0)
		release := holdPins(f)
		src := filled(t, host, m, 4)
		mem, _ := p.Alloc(m)
		starting := map[PinAt]int{PinAtSecondCopy: 2, PinAtFirstCopy: 1, PinAtBirth: 0}[at]
		for range starting {
			if _, err := p.CopyIn(mem, src); err != nil {
				t.Fatal(err)
			}
		}
		// HostRegister is held: the copies returned all the same.
		if s := p.PinStats(); s.Staged != int64(starting) || s.Direct != 0 || s.Pinned != 0 || s.Bytes != 1<<10 || len(p.pins.coming) != 1 {
			t.Fatalf("pin at %d: while pinning: %+v, %d coming", at, s, len(p.pins.coming))
		}
		// A copy while the pinning runs is staged.
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		if s := p.PinStats(); s.Staged != int64(starting)+1 || s.PinStaged != 1 || s.Direct != 0 {
			t.Fatalf("pin at %d: a copy while pinning: %+v", at, s)
		}
		release()
		p.pinsLanded()
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		if s := p.PinStats(); s.Direct != 1 || s.Pinned != 1 || f.Registered() != 1<<10 || len(p.pins.coming) != 0 {
			t.Fatalf("pin at %d: after pinning: %+v, %d bytes registered", at, s, f.Registered())
		}
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil || back.F32()[0] != 4 {
			t.Fatalf("pin at %d: the device holds %v (%v)", at, back.F32()[0], err)
		}
		p.Free(mem)
		host.Free(src)
		closeUnpinned(t, f, p)
	}
}

// TestPinAtBirth: with PinAtBirth the plane starts pinning each block the
// host pool hands out, fresh or cached, and each buffer it adopts, from
// PinMin up and within the bound; not a block pinned or being pinned
// already, and nothing with another PinAt.
func TestPinAtBirth(t *testing.T) {
	for _, at := range []PinAt{PinAtBirth, PinAtSecondCopy} {
		f, p, host := boundPlane(t, Config{PinMin: 2 << 10, Pinned: 12 << 10, StagingHostAlloc: true, PinAt: at}, 0)
		small := filled(t, host, tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}, 1) // 1 KiB: under PinMin
		big := filled(t, host, tensor.Meta{Shape: tensor.Shape{1024}, DType: tensor.Float32}, 1)  // 4 KiB
		own := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2048}, DType: tensor.Float32})     // 8 KiB from elsewhere
		host.Adopt(own)
		over := filled(t, host, tensor.Meta{Shape: tensor.Shape{1024}, DType: tensor.Float32}, 1) // past the 12 KiB bound
		p.pinsLanded()
		s := p.PinStats()
		if at != PinAtBirth {
			if s.Pinned != 0 || f.Registered() != 0 {
				t.Fatalf("pin at %d: pinned at birth: %+v", at, s)
			}
		} else if s.Pinned != 2 || s.Full != 1 || f.Registered() != 12<<10 || p.pins.blocks[base(big.Buf)] == nil || p.pins.blocks[base(own.Buf)] == nil {
			t.Fatalf("births: %+v, %d bytes registered", s, f.Registered())
		}
		// Handed out again from the cache, a pinned block stays as it is.
		host.Keep = 1 << 20
		host.Free(big)
		again := filled(t, host, tensor.Meta{Shape: tensor.Shape{1024}, DType: tensor.Float32}, 2)
		if at == PinAtBirth && (p.PinStats().Pinned != 2 || len(p.pins.coming) != 0 || p.pins.blocks[base(again.Buf)] == nil) {
			t.Fatalf("a cached pinned block born again: %+v", p.PinStats())
		}
		for _, d := range []*tensor.Dense{small, own, over, again} {
			host.Free(d)
		}
		closeUnpinned(t, f, p)
	}
}

// TestPinningDropped: a block the pool drops, and a plane closed, while
// a block is being pinned wait for the pinning and unpin the block
// before it goes; without the hook's wait (the mutation of removing it)
// the block would stay registered. A pinning HostRegister refuses is
// counted once, its bytes given back, and the block staged from then on.
func TestPinningDropped(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	for _, dropped := range []bool{true, false} {
		f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinAt: PinAtBirth}, 0)
		host.Keep = 0 // the pool keeps nothing it frees
		release := holdPins(f)
		src := filled(t, host, m, 5)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(5 * time.Millisecond)
			release()
		}()
		if dropped {
			host.Free(src)
			if s := p.PinStats(); f.Registered() != 0 || s.Pinned != 1 || s.Unpinned != 1 || s.Bytes != 0 || s.PinWaitNs <= 0 {
				t.Fatalf("dropped while pinning: %d bytes registered, %+v", f.Registered(), s)
			}
		}
		p.Free(mem)
		closeUnpinned(t, f, p)
		if s := p.PinStats(); s.Unpinned != 1 {
			t.Fatalf("dropped %v: %+v after Close", dropped, s)
		}
		if !dropped {
			host.Free(src)
		}
	}

	f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinAt: PinAtFirstCopy}, 0)
	f.RegisterError = errors.New("fake cuda: out of pinnable memory")
	src := filled(t, host, m, 6)
	mem, _ := p.Alloc(m)
	for range 3 {
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		p.pinsLanded()
	}
	if s := p.PinStats(); s.Staged != 3 || s.Refused != 1 || s.Pinned != 0 || s.Bytes != 0 || s.Refusal != "fake cuda: out of pinnable memory" {
		t.Fatalf("refused: %+v", s)
	}
	p.Free(mem)
	host.Free(src)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// closeUnpinned closes p, which must leave no host memory pinned.
func closeUnpinned(t *testing.T, f *Fake, p *Plane) {
	t.Helper()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if f.Registered() != 0 {
		t.Fatalf("%d bytes registered after Close (%+v)", f.Registered(), p.PinStats())
	}
}

var _ refs.BirthWatcher = (*Plane)(nil)
