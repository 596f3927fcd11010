package cuda

import (
	"errors"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TestPinOffThread: the copy that decides to pin a host block returns
// while HostRegister still runs, its bytes staged, and the block's bytes
// count against the bound from then; the next copy takes the pinned
// block, waiting for the pinning if need be. With PinEarly the first
// copy pins. A block the pool drops, and a plane closed, while a block
// is being pinned wait for the pinning and unpin it; a refused pinning
// is counted once and never tried again.
func TestPinOffThread(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32} // 1 KiB
	for _, early := range []bool{false, true} {
		f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinEarly: early}, 0)
		release := make(chan struct{})
		f.HoldHostRegister = func() { <-release }
		src := filled(t, host, m, 4)
		mem, _ := p.Alloc(m)
		pinning := 2 // the copy that starts the pinning
		if early {
			pinning = 1
		}
		for range pinning {
			if _, err := p.CopyIn(mem, src); err != nil {
				t.Fatal(err)
			}
		}
		// HostRegister is held: the copy returned all the same.
		if s := p.PinStats(); s.Staged != int64(pinning) || s.Direct != 0 || s.Pinned != 0 || s.Bytes != 1<<10 || len(p.pins.coming) != 1 {
			t.Fatalf("early %v: while pinning: %+v, %d coming", early, s, len(p.pins.coming))
		}
		go func() {
			time.Sleep(5 * time.Millisecond)
			close(release)
		}()
		// The next copy waits for the pinning and copies from the block.
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		if s := p.PinStats(); s.Direct != 1 || s.Pinned != 1 || s.PinWaitNs <= 0 || f.Registered() != 1<<10 || len(p.pins.coming) != 0 {
			t.Fatalf("early %v: after pinning: %+v, %d bytes registered", early, s, f.Registered())
		}
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil || back.F32()[0] != 4 {
			t.Fatalf("early %v: the device holds %v (%v)", early, back.F32()[0], err)
		}
		p.Free(mem)
		host.Free(src)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if f.Registered() != 0 {
			t.Fatalf("early %v: %d bytes registered after Close", early, f.Registered())
		}
	}

	// Dropped by the pool, or the plane closed, while pinning: the
	// block is unpinned once pinned, before the pool lets it go.
	for _, dropped := range []bool{true, false} {
		f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinEarly: true}, 0)
		host.Keep = 0 // the pool keeps nothing it frees
		release := make(chan struct{})
		f.HoldHostRegister = func() { <-release }
		src := filled(t, host, m, 5)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(5 * time.Millisecond)
			close(release)
		}()
		if dropped {
			host.Free(src)
			if s := p.PinStats(); f.Registered() != 0 || s.Pinned != 1 || s.Unpinned != 1 || s.Bytes != 0 || s.PinWaitNs <= 0 {
				t.Fatalf("dropped while pinning: %d bytes registered, %+v", f.Registered(), s)
			}
		}
		p.Free(mem)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if s := p.PinStats(); f.Registered() != 0 || s.Unpinned != 1 {
			t.Fatalf("dropped %v: %d bytes registered after Close, %+v", dropped, f.Registered(), s)
		}
		if !dropped {
			host.Free(src)
		}
	}

	// Refused off the thread: counted at the next copy, its bytes given
	// back, the block staged from then on.
	f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true, PinEarly: true}, 0)
	f.RegisterError = errors.New("fake cuda: out of pinnable memory")
	src := filled(t, host, m, 6)
	mem, _ := p.Alloc(m)
	for range 3 {
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
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
