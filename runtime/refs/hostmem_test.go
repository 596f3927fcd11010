package refs_test

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// bytesMeta is a uint8 vector of n elements: n bytes of storage.
func bytesMeta(n int) tensor.Meta {
	return tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Uint8}
}

func alloc(t *testing.T, p *refs.HostPool, n int) *tensor.Dense {
	t.Helper()
	d, err := p.Alloc(bytesMeta(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Buf) != n {
		t.Fatalf("Alloc(%d) gave %d bytes", n, len(d.Buf))
	}
	return d
}

func newPool() *refs.HostPool {
	p := refs.NewHostPool()
	p.Limit = 0
	return p
}

// Blocks are rounded up to size classes: 64 bytes at least, then four
// steps per power of two, so the rounding never wastes a quarter.
func TestHostPoolSizeClasses(t *testing.T) {
	p := newPool()
	for _, c := range []struct{ n, class int }{
		{1, 64}, {64, 64}, {65, 80}, {100, 112}, {128, 128}, {129, 160},
		{1000, 1024}, {1025, 1280}, {1100, 1280}, {4096, 4096}, {5000, 5120}, {6000, 6144},
	} {
		if got := cap(alloc(t, p, c.n).Buf); got != c.class {
			t.Errorf("a block of %d bytes has class %d, want %d", c.n, got, c.class)
		}
	}
	for n := 65; n < 1<<16; n += 7 {
		class := cap(alloc(t, p, n).Buf)
		if class < n || 4*(class-n) >= class {
			t.Fatalf("a block of %d bytes in class %d: slack of a quarter or more", n, class)
		}
	}
}

// A freed block is handed out again to any request of its class: the same
// memory, counted as a hit; another class is a miss.
func TestHostPoolReuse(t *testing.T) {
	p := newPool()
	a := alloc(t, p, 1000)
	addr := unsafe.SliceData(a.Buf)
	p.Free(a)
	if s := p.Stats(); s.Misses != 1 || s.Hits != 0 || s.CachedBytes != 1024 || s.LiveBytes != 0 || s.LiveRefs != 0 {
		t.Fatalf("after one alloc and free: %+v", s)
	}
	b := alloc(t, p, 1010)
	if unsafe.SliceData(b.Buf) != addr {
		t.Error("a 1010-byte request did not reuse the freed 1000-byte block of the same class")
	}
	c := alloc(t, p, 1100)
	s := p.Stats()
	if s.Hits != 1 || s.Misses != 2 || s.CachedBytes != 0 || s.LiveBytes != 2110 || s.PeakBytes != 2110 || s.LiveRefs != 2 {
		t.Errorf("after reuse and a new class: %+v", s)
	}
	if s.HitRate() != 1.0/3 {
		t.Errorf("hit rate %v, want 1/3", s.HitRate())
	}
	p.Free(b)
	p.Free(c)
	if s := p.Stats(); s.CachedBytes != 1024+1280 || s.PeakBytes != 2110 {
		t.Errorf("after freeing both: %+v; want 2304 cached, the peak kept", s)
	}
}

// Fragmentation is the size-class rounding of live blocks.
func TestHostPoolFragmentation(t *testing.T) {
	p := newPool()
	a := alloc(t, p, 1000) // class 1024: 24 bytes of slack
	b := alloc(t, p, 1025) // class 1280: 255
	s := p.Stats()
	if s.SlackBytes != 279 || s.LiveBytes != 2025 {
		t.Fatalf("slack %d, live %d; want 279 and 2025", s.SlackBytes, s.LiveBytes)
	}
	if got, want := s.Fragmentation(), 279.0/2304; got != want {
		t.Errorf("fragmentation %v, want %v", got, want)
	}
	if s.PeakSlackBytes != 279 || s.PeakBytes != 2025 {
		t.Errorf("at the peak: %d bytes with %d of slack, want 2025 and 279", s.PeakBytes, s.PeakSlackBytes)
	}
	p.Free(a)
	if s := p.Stats(); s.SlackBytes != 255 {
		t.Errorf("after freeing the first block the slack is %d, want 255", s.SlackBytes)
	}
	p.Free(b)
	if s := p.Stats(); s.SlackBytes != 0 || s.Fragmentation() != 0 || s.PeakSlackBytes != 279 {
		t.Errorf("nothing live: slack %d (want 0), slack at the peak %d (want 279)", s.SlackBytes, s.PeakSlackBytes)
	}
}

// Past Keep cached bytes, blocks go back to the system, largest first:
// the pool no longer references them, so the garbage collector can take
// them.
func TestHostPoolReturnsPastKeep(t *testing.T) {
	p := newPool()
	p.Keep = 5000
	a := alloc(t, p, 4096)
	b := alloc(t, p, 1024)
	c := alloc(t, p, 8192)
	wa, wc := weak.Make(&a.Buf[0]), weak.Make(&c.Buf[0])
	p.Free(a) // cached: a
	p.Free(b) // over Keep: a, the largest, is dropped; b is cached
	if s := p.Stats(); s.CachedBytes != 1024 || s.ReleasedBytes != 4096 {
		t.Fatalf("cached %d, released %d; want 1024 and 4096", s.CachedBytes, s.ReleasedBytes)
	}
	p.Free(c) // too big to keep: b is dropped, then c
	if s := p.Stats(); s.CachedBytes != 0 || s.ReleasedBytes != 4096+1024+8192 {
		t.Fatalf("cached %d, released %d; want 0 and 13312", s.CachedBytes, s.ReleasedBytes)
	}
	e := alloc(t, p, 1024)
	we := weak.Make(&e.Buf[0])
	p.Free(e)
	a, b, c, e = nil, nil, nil, nil
	runtime.GC()
	runtime.GC()
	if wa.Value() != nil || wc.Value() != nil {
		t.Error("a block returned to the system is still referenced")
	}
	kept := we.Value()
	if kept == nil {
		t.Fatal("the cached block was collected")
	}
	if d := alloc(t, p, 1024); &d.Buf[0] != kept {
		t.Error("the cached block was not reused")
	}
}

// A limit bounds live bytes: an allocation past it fails before
// allocating, with the sizes in the message. Before a new block pushes
// live plus cached bytes past the limit, the cache is given back.
func TestHostPoolLimit(t *testing.T) {
	p := newPool()
	p.Limit = 8192
	a := alloc(t, p, 4096)
	p.Free(a)
	b := alloc(t, p, 6000) // class 6144: 4096 cached + 6144 > 8192
	s := p.Stats()
	if s.CachedBytes != 0 || s.ReleasedBytes != 4096 || s.Misses != 2 {
		t.Errorf("after a big miss near the limit: %+v; want the cache released", s)
	}
	_, err := p.Alloc(bytesMeta(4000))
	if err == nil || !strings.Contains(err.Error(), "would exceed the host memory limit") ||
		!strings.Contains(err.Error(), "5.9 KiB live of 8.0 KiB") {
		t.Errorf("allocating past the limit: %v", err)
	}
	if s := p.Stats(); s.LiveBytes != 6000 || s.Misses != 2 {
		t.Errorf("a refused allocation changed the counters: %+v", s)
	}
	p.Free(b)
}

// Adopted buffers (made outside the pool) are counted live while held;
// on free, a buffer of a class size joins the cache, others go back to
// the system.
func TestHostPoolAdopt(t *testing.T) {
	p := newPool()
	odd := tensor.NewDense(bytesMeta(100)) // capacity 100: not a class
	even := tensor.NewDense(bytesMeta(256))
	p.Adopt(odd)
	p.Adopt(even)
	if s := p.Stats(); s.Adopted != 2 || s.LiveBytes != 356 || s.LiveRefs != 2 || s.Misses != 0 {
		t.Fatalf("after adopting two buffers: %+v", s)
	}
	p.Free(odd)
	p.Free(even)
	if s := p.Stats(); s.CachedBytes != 256 || s.LiveBytes != 0 || s.LiveRefs != 0 {
		t.Errorf("after freeing them: %+v; want only the 256-byte block cached", s)
	}
	if d := alloc(t, p, 250); cap(d.Buf) != 256 || p.Stats().Hits != 1 {
		t.Error("the adopted 256-byte block was not reused")
	}
}

// Take hands out zeroed blocks from the cache for data the program makes
// (creation builtins): adopted through FromHost they are live, counted
// as hits or misses, not as buffers from outside the pool.
func TestHostPoolTake(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	p := rt.HostPool()
	m := tensor.Meta{Shape: tensor.Shape{300}, DType: tensor.Float32} // 1200 bytes, class 1280
	d, err := p.Take(m)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.LiveBytes != 0 || s.Misses != 1 {
		t.Fatalf("a taken block is not live before it is adopted: %+v", s)
	}
	for i := range d.Buf {
		d.Buf[i] = 0xff
	}
	addr := unsafe.SliceData(d.Buf)
	r := rt.FromHost(refs.Site{}, d)
	if s := p.Stats(); s.LiveBytes != 1200 || s.LiveRefs != 1 || s.SlackBytes != 80 || s.Adopted != 0 || s.PeakBytes != 1200 {
		t.Fatalf("after FromHost: %+v; want 1200 live bytes from the pool", s)
	}
	rt.Release(r)
	d2, err := p.Take(m)
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.SliceData(d2.Buf) != addr {
		t.Error("Take did not reuse the freed block")
	}
	for i, b := range d2.Buf {
		if b != 0 {
			t.Fatalf("byte %d of a reused block is %#x, want 0", i, b)
		}
	}
	// A buffer from elsewhere is still counted as adopted.
	other := tensor.NewDense(m)
	rt.Release(rt.FromHost(refs.Site{}, other))
	if s := p.Stats(); s.Adopted != 1 || s.Hits != 1 || s.Misses != 1 {
		t.Errorf("counters %+v; want 1 adopted, 1 hit, 1 miss", s)
	}
	p.Limit = 1 << 20
	if _, err := p.Take(tensor.Meta{Shape: tensor.Shape{1 << 20}, DType: tensor.Float32}); err == nil {
		t.Error("taking 4 MiB under a 1 MiB limit succeeded")
	}
}

// keptBlocks is a refs.Kept of blocks of memory under ids, least
// recently added first, recording what it was told.
type keptBlocks struct {
	ids     []uint64
	sizes   []int64
	forgot  []uint64
	shrunks []int64
}

func (k *keptBlocks) add(id uint64, n int64) { k.ids, k.sizes = append(k.ids, id), append(k.sizes, n) }

func (k *keptBlocks) Bytes() int64 {
	var n int64
	for _, s := range k.sizes {
		n += s
	}
	return n
}

func (k *keptBlocks) Shrink(keep int64) {
	k.shrunks = append(k.shrunks, keep)
	for len(k.sizes) > 0 && k.Bytes() > keep {
		k.ids, k.sizes = k.ids[1:], k.sizes[1:]
	}
}

func (k *keptBlocks) Forget(id uint64) {
	k.forgot = append(k.forgot, id)
	for i := 0; i < len(k.ids); i++ {
		if k.ids[i] == id {
			k.ids, k.sizes = append(k.ids[:i], k.ids[i+1:]...), append(k.sizes[:i], k.sizes[i+1:]...)
			i--
		}
	}
}

// Kept memory (a backend's packed weights) counts against the limit
// beside live and reserved bytes, takes only the room they and the
// cached blocks leave, gives up what an allocation needs (oldest first)
// before the allocation fails, and is told when a constant ref dies.
func TestHostPoolKept(t *testing.T) {
	p := newPool()
	if p.KeptRoom() != -1 {
		t.Errorf("KeptRoom without a limit = %d, want -1", p.KeptRoom())
	}
	p.Limit = 10000
	k := &keptBlocks{}
	p.SetKept(k)
	k.add(1, 3000)
	k.add(2, 3000)
	a := alloc(t, p, 2048)
	p.Free(a) // 2048 cached
	if got, want := p.KeptRoom(), int64(10000-6000-2048); got != want {
		t.Errorf("KeptRoom = %d, want %d", got, want)
	}
	if s := p.Stats(); s.KeptBytes != 6000 {
		t.Errorf("Stats.KeptBytes = %d, want 6000", s.KeptBytes)
	}
	b := alloc(t, p, 3000) // 6000 kept + 3000 live fits: nothing given up
	if len(k.ids) != 2 {
		t.Fatalf("an allocation that fit gave kept memory up: %v", k.ids)
	}
	c := alloc(t, p, 2000) // 11000 > 10000: the oldest block goes
	if len(k.ids) != 1 || k.ids[0] != 2 {
		t.Fatalf("after an allocation past the limit, kept %v; want [2]", k.ids)
	}
	if s := p.Stats(); s.LiveBytes+s.KeptBytes > p.Limit {
		t.Errorf("live %d + kept %d over the limit %d", s.LiveBytes, s.KeptBytes, p.Limit)
	}
	// Too big even with nothing kept: an error, and the kept memory is
	// gone (it could not have helped anyway).
	if _, err := p.Alloc(bytesMeta(6000)); err == nil || !strings.Contains(err.Error(), "would exceed the host memory limit") {
		t.Errorf("allocating past the limit with kept memory: %v", err)
	}
	p.Free(b)
	p.Free(c)

	// A dying constant ref is forgotten; an op's result is not.
	rt := refs.New(&cpu.Device{}, refs.Options{})
	k2 := &keptBlocks{}
	rt.HostPool().SetKept(k2)
	w := rt.FromHost(refs.Site{}, tensor.NewDense(bytesMeta(16)))
	k2.add(w.ConstID(), 100)
	rt.Release(w)
	if len(k2.forgot) != 1 || k2.forgot[0] != w.ConstID() || k2.Bytes() != 0 {
		t.Errorf("releasing constant %d: forgot %v, %d bytes kept", w.ConstID(), k2.forgot, k2.Bytes())
	}
}

// A buffer made outside the pool and adopted is memory beside the
// cache: cached blocks that no longer fit under the limit with it are
// given back.
func TestHostPoolAdoptTrims(t *testing.T) {
	p := newPool()
	p.Limit = 8192
	a := alloc(t, p, 4096)
	p.Free(a)
	p.Adopt(tensor.NewDense(bytesMeta(2048))) // 2048 + 4096 cached fits
	if s := p.Stats(); s.CachedBytes != 4096 {
		t.Fatalf("after adopting what fits: %+v", s)
	}
	p.Adopt(tensor.NewDense(bytesMeta(4000))) // 6048 live + 4096 cached does not
	if s := p.Stats(); s.CachedBytes != 0 || s.LiveBytes != 6048 {
		t.Errorf("after adopting past the limit: %+v; want the cache given back", s)
	}
}

// watchLog records what the pool tells its watcher, by block address.
type watchLog struct{ overwritten, released []*byte }

func (w *watchLog) Overwriting(b []byte) { w.overwritten = append(w.overwritten, &b[0]) }
func (w *watchLog) Releasing(b []byte)   { w.released = append(w.released, &b[0]) }

// TestHostPoolWatchers: the pool tells its watchers before a cached block
// is handed out again (Alloc and Take) and before it drops a block (past
// Keep, trimmed, or a buffer from elsewhere freed); an in-place op's
// steal tells them too; an unwatched pool tells no one.
func TestHostPoolWatchers(t *testing.T) {
	p := newPool()
	p.Keep = 4096
	w := &watchLog{}
	p.Watch(w)
	a := alloc(t, p, 1024)
	at := &a.Buf[0]
	p.Free(a)
	if len(w.overwritten)+len(w.released) != 0 {
		t.Fatalf("told of a fresh block or a cached one: %+v", w)
	}
	b := alloc(t, p, 1000) // the same class: a's block again
	if len(w.overwritten) != 1 || w.overwritten[0] != at || &b.Buf[0] != at {
		t.Fatalf("reuse: %+v", w)
	}
	p.Free(b)
	c, err := p.Take(bytesMeta(1024))
	if err != nil || len(w.overwritten) != 2 || &c.Buf[0] != at {
		t.Fatalf("take: %+v, %v", w, err)
	}
	p.Adopt(c)
	big := alloc(t, p, 8192)
	bigAt := &big.Buf[0]
	p.Free(big) // past Keep: dropped
	if len(w.released) != 1 || w.released[0] != bigAt {
		t.Fatalf("past keep: %+v", w)
	}
	p.Free(c)
	p.Trim(0)
	if len(w.released) != 2 || w.released[1] != at {
		t.Fatalf("trim: %+v", w)
	}
	own := tensor.NewDense(bytesMeta(1000)) // not a size class
	p.Adopt(own)
	ownAt := &own.Buf[0]
	p.Free(own)
	if len(w.released) != 3 || w.released[2] != ownAt {
		t.Fatalf("adopted buffer: %+v", w)
	}
	p.Unwatch(w)
	d := alloc(t, p, 64)
	p.Free(d)
	alloc(t, p, 64)
	if len(w.overwritten) != 2 {
		t.Fatalf("an unwatched pool told its old watcher: %+v", w)
	}
}

// birthLog is a watchLog that is told of births too.
type birthLog struct {
	watchLog
	born []*byte
	lens []int
}

func (w *birthLog) Born(b []byte) { w.born, w.lens = append(w.born, &b[0]), append(w.lens, len(b)) }

// TestHostPoolBirths: a BirthWatcher is told of every block the pool
// hands out for a new value, fresh (Alloc) or cached (Take), whole, and
// of a buffer adopted from elsewhere, but not of a Take's block again when
// it is adopted; a plain watcher is not asked.
func TestHostPoolBirths(t *testing.T) {
	p := newPool()
	p.Keep = 1 << 20
	w := &birthLog{}
	p.Watch(w)
	p.Watch(&watchLog{}) // no Born: left out
	a := alloc(t, p, 1000)
	at := &a.Buf[0]
	p.Free(a)
	c, err := p.Take(bytesMeta(1000))
	if err != nil || &c.Buf[0] != at {
		t.Fatalf("take: %v", err)
	}
	p.Adopt(c)
	own := tensor.NewDense(bytesMeta(1000))
	p.Adopt(own)
	if len(w.born) != 3 || w.born[0] != at || w.born[1] != at || w.born[2] != &own.Buf[0] ||
		w.lens[0] != cap(c.Buf) || w.lens[1] != cap(c.Buf) || w.lens[2] != 1000 {
		t.Fatalf("births %v of %v bytes; want the block twice, whole, then the adopted buffer", w.born, w.lens)
	}
	p.Free(c)
	p.Free(own)
}

// TestStealTellsWatchers: an op that takes a dying operand's host block
// in place tells the pool's watchers before it writes.
func TestStealTellsWatchers(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	w := &watchLog{}
	rt.HostPool().Watch(w)
	x := hostVec(rt, 256, 3)
	xbuf := bufAddr(t, rt, x)
	y, err := rt.Submit(refs.Site{}, ops.Neg, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(x)
	if got := bufAddr(t, rt, y); got != xbuf {
		t.Fatal("neg of a dying operand did not write into its buffer")
	}
	if len(w.overwritten) != 1 || w.overwritten[0] != xbuf {
		t.Fatalf("the steal told %+v", w)
	}
	rt.Release(y)
}
