package cuda

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// stageTest is pinTest's plane with a worker that takes 20 ms per memcpy
// and stages every chunk, pinning nothing; its staging buffers are 1 KiB
// (256 float32s), allocated ahead.
func stageTest(t *testing.T, keep int64, skip string) (*Fake, *Plane, *refs.HostPool) {
	t.Helper()
	f, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Chunk: 1 << 10}, 20*time.Millisecond)
	f.Lazy = true
	p.skip = skip
	host.Keep = keep
	return f, p, host
}

// TestStagedCopies: a bound plane hands the memcpy to the worker and
// returns before it ran; the copy is issued when something needs the
// tensor, and then holds the bytes. An unbound plane, a chunk under
// StageAsync and a negative StageAsync memcpy on the caller's thread.
func TestStagedCopies(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	_, p, host := stageTest(t, 1<<20, "")
	src := filled(t, host, m, 7)
	mem, _ := p.Alloc(m)
	if _, err := p.CopyIn(mem, src); err != nil {
		t.Fatal(err)
	}
	b := mem.(*buffer)
	if b.staging == nil || len(p.stage.queue) != 1 {
		t.Fatalf("the copy was not handed to the worker: %+v", p.PinStats())
	}
	back := tensor.NewDense(m)
	if _, err := p.CopyOut(back, mem); err != nil {
		t.Fatal(err)
	}
	if back.F32()[0] != 7 || back.F32()[255] != 7 {
		t.Fatalf("the device holds %v ... %v", back.F32()[0], back.F32()[255])
	}
	if s := p.PinStats(); s.Async != 1 || s.StageWaits != 1 || s.StageWaitNs <= 0 || b.staging != nil || len(p.stage.queue) != 0 {
		t.Fatalf("after the copy out: %+v, staging %v, queue %d", s, b.staging, len(p.stage.queue))
	}
	p.Free(mem)
	host.Free(src)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	for name, cfg := range map[string]Config{
		"unbound":     {Name: "cuda:0", StageAsync: 1},
		"small chunk": {Name: "cuda:0", StageAsync: 2 << 10},
		"no worker":   {Name: "cuda:0", StageAsync: -1},
	} {
		f := NewFake(1 << 20)
		p, err := NewPlane(f, FakeKernels{F: f}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		host := refs.NewHostPool()
		if name != "unbound" {
			p.BindHost(host)
		}
		src := filled(t, host, m, 1)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		if s := p.PinStats(); s.Async != 0 || len(p.stage.queue) != 0 {
			t.Errorf("%s: the worker staged: %+v", name, s)
		}
		p.Free(mem)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStagedBlockOverwritten: before the pool hands a block out again,
// the plane waits for the worker still copying it into staging; without
// that wait (the mutation) the device gets the new bytes.
func TestStagedBlockOverwritten(t *testing.T) {
	run := func(skip string) (float32, PinStats, error) {
		_, p, host := stageTest(t, 1<<20, skip)
		return overwritten(t, p, host, 1)
	}
	overwriteMutation(t, run, "host-overwrite-before-stage", true, func(s PinStats) bool { return s.Waits == 1 && s.Async == 1 })
}

// TestStagedBlockReleased: before the pool drops a block (whose memory
// its owner may then unmap), the worker has finished reading it; without
// that wait (the mutation) it has not.
func TestStagedBlockReleased(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	run := func(skip string) (done bool, s PinStats, err error) {
		_, p, host := stageTest(t, 0, skip) // the pool keeps nothing
		src := filled(t, host, m, 1)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			return false, s, err
		}
		j := p.stage.queue[0]
		host.Free(src) // dropped
		select {
		case <-j.done:
			done = true
		default:
		}
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil {
			return done, s, err
		}
		if back.F32()[0] != 1 {
			t.Fatalf("the device holds %v", back.F32()[0])
		}
		s = p.PinStats()
		p.Free(mem)
		return done, s, p.Close()
	}
	done, s, err := run("")
	if err != nil || !done || s.Waits != 1 {
		t.Fatalf("with the wait: worker done %v (%v), %+v", done, err, s)
	}
	if done, _, _ := run("host-release-before-stage"); done {
		t.Fatal("without the wait host-release-before-stage the worker had still finished")
	}
}

// TestStagingPoolWaitsForWorker: a staging pool full of buffers the
// worker still fills issues their copies (waiting for the worker) before
// it waits for the oldest one's copy and reuses it.
func TestStagingPoolWaitsForWorker(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	_, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 2 << 10, Prealloc: -1}, 5*time.Millisecond)
	var srcs []*tensor.Dense
	var mems []*buffer
	for i := range 5 { // 1 KiB each through 2 KiB of staging
		src := filled(t, host, m, float32(i))
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		settlePool(t, p)
		srcs, mems = append(srcs, src), append(mems, mem.(*buffer))
	}
	if len(p.staging.all) != 2 {
		t.Fatalf("%d staging buffers, want 2", len(p.staging.all))
	}
	for i, mem := range mems {
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil {
			t.Fatal(err)
		}
		if back.F32()[0] != float32(i) {
			t.Fatalf("tensor %d holds %v", i, back.F32()[0])
		}
		p.Free(mem)
		host.Free(srcs[i])
	}
	if s := p.PinStats(); s.Async != 5 || s.StageWaits == 0 {
		t.Fatalf("%+v", s)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFullPoolFreesTheBufferItWaitedFor: with the staging pool full, a
// chunk of another size frees the oldest buffer, after waiting for it.
// The wait issues the worker's copy from that buffer, which moves it to
// the end of the pool's order; the pool must free that buffer and not
// the one now first, whose chunk the worker still holds (the H200 showed
// it in session 15: the weights' bytes were corrupted once the pool was
// 64 MiB, four 16 MiB chunks, and a tensor's last chunk was smaller).
func TestFullPoolFreesTheBufferItWaitedFor(t *testing.T) {
	_, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 800, Chunk: 400}, 0)
	roundTrip(t, p, host, 200, 1) // two 400-byte buffers fill the pool
	roundTrip(t, p, host, 250, 2) // 400, 400 (both reused, held by the worker), 200
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// settlePool waits for the staging buffers being allocated off the
// engine's thread and hands the chunks waiting for them to the worker:
// what the plane's next call does once they arrived.
func settlePool(t *testing.T, p *Plane) {
	t.Helper()
	if err := p.staging.arrive(nil, true); err != nil {
		t.Fatal(err)
	}
	if err := p.progress(); err != nil {
		t.Fatal(err)
	}
}

// roundTrip copies n floats of v in from the host pool and out again,
// checking every one, and frees both sides.
func roundTrip(t *testing.T, p *Plane, host *refs.HostPool, n int, v float32) {
	t.Helper()
	m := tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32}
	src := filled(t, host, m, v)
	mem, _ := p.Alloc(m)
	if _, err := p.CopyIn(mem, src); err != nil {
		t.Fatal(err)
	}
	back := tensor.NewDense(m)
	if _, err := p.CopyOut(back, mem); err != nil {
		t.Fatal(err)
	}
	for i, x := range back.F32() {
		if x != v {
			t.Fatalf("%d floats: element %d is %v, want %v", n, i, x, v)
		}
	}
	p.Free(mem)
	host.Free(src)
}

// TestStagingRegistered: by default the staging buffers are Go memory
// that HostRegister pinned, unregistered when the pool frees them; a
// buffer HostRegister refuses comes from HostAlloc instead, as every
// buffer does with StagingHostAlloc.
func TestStagingRegistered(t *testing.T) {
	for _, c := range []struct {
		name              string
		hostAlloc, refuse bool
	}{{"default", false, false}, {"refused", false, true}, {"StagingHostAlloc", true, false}} {
		f, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: -1, StagingHostAlloc: c.hostAlloc, Prealloc: -1}, 0)
		if c.refuse {
			f.RegisterError = errors.New("refused")
		}
		roundTrip(t, p, host, 256, 3)
		if len(p.staging.all) == 0 {
			t.Fatal("no staging buffer")
		}
		want := !c.hostAlloc && !c.refuse
		for _, s := range p.staging.all {
			if s.registered != want || f.pinned[&s.buf[0]].registered != want {
				t.Fatalf("%s: a staging buffer registered %v, want %v (the fake: %+v)", c.name, s.registered, want, f.pinned[&s.buf[0]])
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if len(f.pinned) != 0 {
			t.Fatalf("%s: %d ranges still pinned after Close", c.name, len(f.pinned))
		}
	}
}

// TestPendingChunks: with the staging pool full, a copy in returns at
// once, its chunk waiting for a buffer; the plane hands it to the worker
// when something needs the tensor. Before the pool hands the chunk's host
// block out again, the plane stages the chunk; without that (the
// mutation) the device gets the block's new bytes.
func TestPendingChunks(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32} // 1 KiB
	run := func(skip string) (float32, PinStats, error) {
		_, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 1 << 10}, 20*time.Millisecond)
		p.skip = skip
		host.Keep = 1 << 20
		a := filled(t, host, m, 5)
		memA, _ := p.Alloc(m)
		if _, err := p.CopyIn(memA, a); err != nil {
			t.Fatal(err)
		}
		// B's chunk waits: A holds the one buffer.
		src := filled(t, host, m, 1)
		block := &src.Buf[0]
		memB, _ := p.Alloc(m)
		if _, err := p.CopyIn(memB, src); err != nil {
			t.Fatal(err)
		}
		if len(p.stage.pending) != 1 {
			t.Fatalf("%d chunks wait for a staging buffer, want 1", len(p.stage.pending))
		}
		host.Free(src)
		again := filled(t, host, m, 2)
		if &again.Buf[0] != block {
			t.Fatal("the pool did not hand the block out again")
		}
		backB, backA := tensor.NewDense(m), tensor.NewDense(m)
		if _, err := p.CopyOut(backB, memB); err != nil {
			return 0, PinStats{}, err
		}
		if _, err := p.CopyOut(backA, memA); err != nil {
			return 0, PinStats{}, err
		}
		if backA.F32()[0] != 5 {
			t.Fatalf("A holds %v", backA.F32()[0])
		}
		s := p.PinStats()
		p.Free(memA)
		p.Free(memB)
		host.Free(a)
		host.Free(again)
		return backB.F32()[0], s, p.Close()
	}
	overwriteMutation(t, run, "host-overwrite-before-stage", true, func(s PinStats) bool { return s.Deferred == 1 && s.Async == 2 })
}

// TestPendingBlockDroppedByReserve: the staging pool's own reservation
// of host memory can make the host pool drop a cached block that a
// pending chunk reads; the plane, inside the staging pool then, gives the
// chunk a copy of its bytes rather than staging it (which would use the
// pool again), and the device gets the block's bytes.
func TestPendingBlockDroppedByReserve(t *testing.T) {
	_, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 2 << 10, Prealloc: -1}, 10*time.Millisecond)
	host.Limit, host.Keep = 0, 1<<20
	kib := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	half := tensor.Meta{Shape: tensor.Shape{128}, DType: tensor.Float32}
	var srcs []*tensor.Dense
	var mems []device.Memory
	for i, m := range []tensor.Meta{kib, kib, half} { // A and B fill the pool: X's chunk waits
		src := filled(t, host, m, float32(i+1))
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		settlePool(t, p)
		srcs, mems = append(srcs, src), append(mems, mem)
	}
	if len(p.stage.pending) != 1 {
		t.Fatalf("%d chunks wait, want X's", len(p.stage.pending))
	}
	host.Free(srcs[2]) // X's block is cached, its bytes unchanged
	back := tensor.NewDense(kib)
	if _, err := p.CopyOut(back, mems[0]); err != nil || back.F32()[0] != 1 {
		t.Fatalf("A: %v (%v)", back.F32()[0], err)
	}
	// Room for X's 512-byte buffer only once the cached block is dropped.
	st := host.Stats()
	host.Limit = st.LiveBytes + st.ReservedBytes - 1
	if _, err := p.CopyOut(back, mems[1]); err != nil || back.F32()[0] != 2 {
		t.Fatalf("B: %v (%v)", back.F32()[0], err)
	}
	if p.stage.detached != 1 || host.Stats().ReleasedBytes == 0 {
		t.Fatalf("detached %d chunks, the host pool released %d bytes", p.stage.detached, host.Stats().ReleasedBytes)
	}
	host.Limit = 0
	x := tensor.NewDense(half)
	if _, err := p.CopyOut(x, mems[2]); err != nil || x.F32()[0] != 3 || x.F32()[127] != 3 {
		t.Fatalf("X: %v ... %v (%v)", x.F32()[0], x.F32()[127], err)
	}
	for _, mem := range mems {
		p.Free(mem)
	}
	host.Free(srcs[0])
	host.Free(srcs[1])
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPrealloc: a bound plane allocates Config.Prealloc chunk-sized
// staging buffers off the engine's thread, counted against the host
// limit from the start; a tensor of that many chunks goes to the worker
// at once, allocating nothing more. It asks for none that would take
// more than a quarter of the room the host limit leaves; a failed
// preallocation is no error.
func TestPrealloc(t *testing.T) {
	if k := DefaultPrealloc(DefaultStaging, DefaultChunk); k != 4 {
		t.Fatalf("default: %d buffers ahead, want 4", k)
	}
	if k := DefaultPrealloc(4<<10, 4<<10); k != 1 {
		t.Fatalf("a pool of one chunk: %d buffers ahead, want 1", k)
	}
	if k := DefaultPrealloc(1<<30, 1<<10); k != 8 {
		t.Fatalf("a pool of a million chunks: %d buffers ahead, want 8", k)
	}
	f, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 4 << 10, Chunk: 1 << 10, Prealloc: 3, StagingHostAlloc: true}, 0)
	if len(p.staging.all) != 3 || f.HostAllocs != 3 || host.Stats().ReservedBytes != 3<<10 {
		t.Fatalf("%d buffers ahead, %d HostAllocs, %d bytes reserved; want 3, 3, 3072",
			len(p.staging.all), f.HostAllocs, host.Stats().ReservedBytes)
	}
	m := tensor.Meta{Shape: tensor.Shape{768}, DType: tensor.Float32} // three chunks
	src := filled(t, host, m, 4)
	mem, _ := p.Alloc(m)
	if _, err := p.CopyIn(mem, src); err != nil {
		t.Fatal(err)
	}
	if s := p.PinStats(); s.Async != 3 || s.Deferred != 0 || f.HostAllocs != 3 {
		t.Fatalf("the chunks did not all go to the worker at once: %+v, %d HostAllocs", s, f.HostAllocs)
	}
	back := tensor.NewDense(m)
	if _, err := p.CopyOut(back, mem); err != nil || back.F32()[0] != 4 || back.F32()[767] != 4 {
		t.Fatalf("the device holds %v ... %v (%v)", back.F32()[0], back.F32()[767], err)
	}
	p.Free(mem)
	host.Free(src)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.pinned) != 0 || host.Stats().ReservedBytes != 0 {
		t.Fatalf("%d ranges pinned after Close, %d bytes reserved", len(f.pinned), host.Stats().ReservedBytes)
	}

	for _, c := range []struct {
		name  string
		limit int64
		fail  error
		want  int
	}{
		{"a quarter of the host limit's room holds one", 8<<10 - 1, nil, 1},
		{"pinning fails", 0, errors.New("out of pinned memory"), 0},
	} {
		f := NewFake(1 << 20)
		f.HostAllocError, f.RegisterError = c.fail, c.fail
		p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", Pinned: -1, StageAsync: -1, Staging: 4 << 10, Chunk: 1 << 10, Prealloc: 3})
		if err != nil {
			t.Fatal(err)
		}
		host := refs.NewHostPool()
		host.Limit = c.limit
		p.BindHost(host)
		if err := p.staging.arrive(nil, true); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := int64(c.want) << 10; len(p.staging.all) != c.want || p.staging.bytes != n || host.Stats().ReservedBytes != n {
			t.Fatalf("%s: %d buffers, %d bytes, %d reserved; want %d", c.name, len(p.staging.all), p.staging.bytes, host.Stats().ReservedBytes, c.want)
		}
		f.HostAllocError, f.RegisterError = nil, nil
		roundTrip(t, p, host, 64, 5)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStagingGrowsOffThread: a copy in that finds no staging buffer of
// its size asks for one off the engine's thread and waits in line for
// it, rather than allocating on the engine's; a failed allocation asked
// for is the next call's error.
func TestStagingGrowsOffThread(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	for _, fail := range []bool{false, true} {
		f, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, Staging: 4 << 10, Prealloc: -1, StagingHostAlloc: true}, 0)
		release := make(chan struct{})
		f.HoldHostAlloc = func() { <-release }
		if fail {
			f.HostAllocError = errors.New("out of pinned memory")
		}
		src := filled(t, host, m, 6)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		// The allocation is held up until the copy in returned.
		if s := p.PinStats(); s.Deferred != 1 || len(p.staging.coming) != 1 || host.Stats().ReservedBytes != 1<<10 {
			t.Fatalf("fail %v: the copy did not wait for a buffer coming: %+v, %d coming, %d reserved",
				fail, s, len(p.staging.coming), host.Stats().ReservedBytes)
		}
		close(release)
		back := tensor.NewDense(m)
		_, err := p.CopyOut(back, mem)
		if fail {
			if err == nil || !strings.Contains(err.Error(), "out of pinned memory") {
				t.Fatalf("a failed allocation: %v", err)
			}
			if host.Stats().ReservedBytes != 0 {
				t.Fatalf("a failed allocation kept %d bytes reserved", host.Stats().ReservedBytes)
			}
			continue
		}
		if err != nil || back.F32()[0] != 6 || back.F32()[255] != 6 {
			t.Fatalf("the device holds %v ... %v (%v)", back.F32()[0], back.F32()[255], err)
		}
		if s := p.PinStats(); s.Async != 1 || p.staging.grown != 1 {
			t.Fatalf("%+v, %d grown", s, p.staging.grown)
		}
		p.Free(mem)
		host.Free(src)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDMAInMeasured: measuring, the plane times the copy engine's
// transfer of each staged chunk copied in (the worker's or the engine's
// thread's), apart from the copy's span; not measuring, it times none.
// Either way it times the worker's memcpys and how long after each its
// chunk's copy was issued.
func TestDMAInMeasured(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{768}, DType: tensor.Float32} // three 1 KiB chunks
	for _, async := range []int64{1, -1} {
		for _, measuring := range []bool{true, false} {
			_, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: async, Staging: 4 << 10, Chunk: 1 << 10}, 0)
			if err := p.Measure(measuring); err != nil {
				t.Fatal(err)
			}
			src := filled(t, host, m, 2)
			mem, _ := p.Alloc(m)
			if _, err := p.CopyIn(mem, src); err != nil {
				t.Fatal(err)
			}
			if err := p.Sync(); err != nil {
				t.Fatal(err)
			}
			s := p.PinStats()
			want := Transfers{}
			if measuring {
				want = Transfers{Count: 3, Bytes: 3 << 10, Ns: s.DMAIn.Ns}
			}
			if s.DMAIn != want || measuring && s.DMAIn.Ns <= 0 || s.DMAInLarge != (Transfers{}) {
				t.Errorf("worker from %d, measuring %v: %+v, large %+v; want %+v", async, measuring, s.DMAIn, s.DMAInLarge, want)
			}
			// The worker's memcpys are timed, measuring or not.
			wantMemcpy := Transfers{}
			if async > 0 {
				wantMemcpy = Transfers{Count: 3, Bytes: 3 << 10, Ns: s.Memcpy.Ns}
			}
			if s.Memcpy != wantMemcpy || async > 0 && (s.Memcpy.Ns <= 0 || s.IssueLagNs <= 0) || async < 0 && s.IssueLagNs != 0 {
				t.Errorf("worker from %d, measuring %v: memcpys %+v, issued %d ns after them; want %+v", async, measuring, s.Memcpy, s.IssueLagNs, wantMemcpy)
			}
			p.Free(mem)
			host.Free(src)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var s PinStats
	s.countDMAIn(LargeChunk, 100_000)
	s.countDMAIn(1<<20, 50_000)
	if s.DMAIn.Count != 2 || s.DMAInLarge != (Transfers{Count: 1, Bytes: LargeChunk, Ns: 100_000}) || s.DMAInLarge.GBps() != float64(LargeChunk)/100_000 {
		t.Fatalf("%+v", s)
	}
}
