package refs

import (
	"fmt"
	"math/bits"
	"runtime"
	"runtime/metrics"
	"slices"
	"unsafe"

	"github.com/tref-lang/tref/runtime/tensor"
)

// HostPool is a device's caching allocator (the host's, and each
// simulated device's): freed buffers are kept in size classes (powers of
// two split into four steps, so at most 25% slack) and handed out again, so
// a steady-state loop allocates no tensor storage from the system. Cached
// bytes beyond Keep are returned to the system (dropped to the Go heap,
// whose scavenger gives them back to the OS), largest blocks first, and so
// is the cache when a new block would otherwise pass Limit.
type HostPool struct {
	free  map[int][][]byte
	stats PoolStats
	// taken is the block Take gave out last, not yet adopted: Adopt knows
	// it as the pool's own and does not count it in Adopted.
	taken *byte
	// Keep bounds the bytes held in the cache.
	Keep int64
	// Limit bounds live bytes; an allocation that would pass it fails
	// before allocating. Zero means no limit.
	Limit int64
	// AddressSpace, when not zero, bounds what the Go runtime maps beyond
	// mappedBase (RLIMIT_AS): memory it frees stays mapped, so a new
	// block may need fresh address space even where Limit has room.
	AddressSpace int64
	mappedBase   int64
	// reserved is host memory held outside the pool that counts against
	// Limit: a device's pinned staging buffers (Reserve).
	reserved int64
	// kept is host memory a backend keeps only to save work, counted
	// against Limit and shrunk before an allocation fails (SetKept).
	kept Kept
	// watchers are told before a block's bytes change or the pool lets
	// it go (Watch).
	watchers []HostWatcher
}

// HostWatcher is told about the pool's blocks before their bytes may
// change and before the pool gives them back to the system: a device
// that copies straight from host blocks (pinned in place, without a
// staging copy) waits there for its copies still reading them, and
// unpins a block before the Go heap may reuse it. A block's bytes change
// only after Overwriting: a ref's valid host copy is never written again.
type HostWatcher interface {
	// Overwriting: block's bytes are about to change (the cache hands
	// it out again, or an in-place op takes it over).
	Overwriting(block []byte)
	// Releasing: the pool drops block (to the Go heap).
	Releasing(block []byte)
}

// BirthWatcher is a HostWatcher told, too, of each block the pool hands
// out for a new value (fresh or from its cache) and of each buffer it
// adopts from elsewhere, before the value's bytes are written: a device
// may start pinning it in place then, so that its first copy need not be
// staged.
type BirthWatcher interface {
	HostWatcher
	Born(block []byte)
}

// Watch adds w to the pool's watchers; Unwatch removes it.
func (p *HostPool) Watch(w HostWatcher) { p.watchers = append(p.watchers, w) }

// Unwatch removes w from the pool's watchers.
func (p *HostPool) Unwatch(w HostWatcher) {
	p.watchers = slices.DeleteFunc(p.watchers, func(x HostWatcher) bool { return x == w })
}

// Block is the whole pool block that buf begins: buf up to its capacity
// when that is one of the pool's size classes, else buf itself (a
// buffer from elsewhere, which may be a slice of a larger one).
func Block(buf []byte) []byte {
	if c := cap(buf); isClass(c) {
		return buf[:c]
	}
	return buf
}

// isClass reports whether a buffer of capacity c is one of the pool's
// blocks (its capacity a size class) rather than one from elsewhere.
func isClass(c int) bool { return c > 0 && c == sizeClass(c) }

// overwriting tells the watchers that block's bytes are about to change.
func (p *HostPool) overwriting(block []byte) {
	for _, w := range p.watchers {
		w.Overwriting(block)
	}
}

// born tells the watchers that block holds a new value from now on.
func (p *HostPool) born(block []byte) {
	for _, w := range p.watchers {
		if b, ok := w.(BirthWatcher); ok {
			b.Born(block)
		}
	}
}

// releasing tells the watchers that the pool drops block.
func (p *HostPool) releasing(block []byte) {
	for _, w := range p.watchers {
		w.Releasing(block)
	}
}

// Kept is host memory a backend keeps only to save work (the cpu
// backend's packed constant weights). The pool counts it against Limit
// beside the live and reserved bytes, has it give memory up before an
// allocation would fail, and tells it when a constant ref dies.
type Kept interface {
	// Bytes is the memory held.
	Bytes() int64
	// Shrink gives memory up, least recently used first, until at most
	// keep bytes are held.
	Shrink(keep int64)
	// Forget drops what was derived from the constant ref whose ConstID
	// is id: the ref died.
	Forget(id uint64)
}

// PoolStats are a device allocator's counters, in bytes of tensor storage.
type PoolStats struct {
	LiveRefs    int64
	LiveBytes   int64
	PeakBytes   int64
	CachedBytes int64
	// SlackBytes is the rounding waste of live blocks (fragmentation).
	SlackBytes int64
	// PeakSlackBytes is SlackBytes when PeakBytes was reached: the
	// memory the size classes cost at the peak.
	PeakSlackBytes int64
	// Hits and Misses count allocations served from the cache and from
	// the system.
	Hits   int64
	Misses int64
	// Adopted counts buffers made outside the pool and handed to it
	// (scalar operands, creation builtins, loaded files): storage the
	// pool did not allocate.
	Adopted int64
	// ReleasedBytes counts cached bytes returned to the system.
	ReleasedBytes int64
	// ReservedBytes is host memory held outside the pool's blocks and
	// counted against its limit: a device's pinned staging buffers.
	ReservedBytes int64
	// KeptBytes is host memory a backend keeps to save work (packed
	// constant weights), counted against the limit and given up before
	// an allocation fails (Kept).
	KeptBytes int64
}

// HitRate is the fraction of allocations served from the cache.
func (s PoolStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// Fragmentation is the fraction of held live memory lost to size-class rounding.
func (s PoolStats) Fragmentation() float64 {
	if s.LiveBytes+s.SlackBytes == 0 {
		return 0
	}
	return float64(s.SlackBytes) / float64(s.LiveBytes+s.SlackBytes)
}

// NewHostPool makes a pool whose live-byte limit is the memory this
// process may still take (SystemLimit; TREF_HOST_LIMIT, in bytes,
// overrides it).
func NewHostPool() *HostPool {
	room, base := addressSpace()
	return &HostPool{free: map[int][][]byte{}, Keep: 256 << 20, Limit: hostLimit(), AddressSpace: room, mappedBase: base}
}

// arenaSlop is what the Go runtime may map beyond a block's size to hold
// it (it maps the heap in 64 MiB arenas).
const arenaSlop = 64 << 20

// checkAddressSpace reports whether n more bytes of heap fit in what
// RLIMIT_AS leaves the process.
func (p *HostPool) checkAddressSpace(n int64) error {
	if p.AddressSpace <= 0 || n < valueCheckMin {
		return nil
	}
	if used := goMapped() - p.mappedBase; used+n+arenaSlop > p.AddressSpace {
		return fmt.Errorf("allocating %s would exceed the address space RLIMIT_AS leaves (%s mapped of %s)",
			FormatBytes(n), FormatBytes(used), FormatBytes(p.AddressSpace))
	}
	return nil
}

// sizeClass rounds n up to the pool's class size.
func sizeClass(n int) int {
	if n <= 64 {
		return 64
	}
	top := bits.Len(uint(n - 1)) // 2^top >= n
	step := 1 << (top - 3)       // quarter of the power of two below 2^top
	return (n + step - 1) / step * step
}

// Check reports whether n more live bytes fit under the limit, with the
// reserved (Reserve) and kept (SetKept) bytes counted as live; kept
// memory is given up first to make room.
func (p *HostPool) Check(n int64) error {
	if p.Limit > 0 && p.kept != nil {
		if over := p.held() + n - p.Limit; over > 0 {
			p.kept.Shrink(max(p.kept.Bytes()-over, 0))
		}
	}
	if used := p.held(); p.Limit > 0 && used+n > p.Limit {
		if p.reserved > 0 {
			return fmt.Errorf("allocating %s would exceed the host memory limit (%s live, %s pinned for device copies, of %s)",
				FormatBytes(n), FormatBytes(p.stats.LiveBytes), FormatBytes(p.reserved), FormatBytes(p.Limit))
		}
		return fmt.Errorf("allocating %s would exceed the host memory limit (%s live of %s)",
			FormatBytes(n), FormatBytes(p.stats.LiveBytes), FormatBytes(p.Limit))
	}
	return p.checkAddressSpace(n)
}

// held is the memory counted against Limit besides the cached blocks:
// live, reserved and kept bytes.
func (p *HostPool) held() int64 {
	n := p.stats.LiveBytes + p.reserved
	if p.kept != nil {
		n += p.kept.Bytes()
	}
	return n
}

// SetKept hands the pool the memory a backend keeps to save work, to
// count against Limit (one per pool; nil removes it).
func (p *HostPool) SetKept(k Kept) { p.kept = k }

// Kept returns what SetKept gave, or nil.
func (p *HostPool) Kept() Kept { return p.kept }

// KeptRoom is how many more bytes the kept memory may take now: what
// Limit leaves beside the held and cached bytes, or -1 without a limit.
func (p *HostPool) KeptRoom() int64 {
	if p.Limit <= 0 {
		return -1
	}
	return max(p.Limit-p.held()-p.stats.CachedBytes, 0)
}

// forget tells the kept memory that the constant ref id died.
func (p *HostPool) forget(id uint64) {
	if p.kept != nil && id != 0 {
		p.kept.Forget(id)
	}
}

// Reserve counts n bytes that a device allocates outside the pool (pinned
// staging memory) against the limit, failing before the device allocates
// when they do not fit; the cache is trimmed first to make room, as for a
// block of the pool's own. Unreserve gives them back.
func (p *HostPool) Reserve(n int64) error {
	if p.Limit > 0 && p.held()+p.stats.CachedBytes+n > p.Limit {
		p.trim(p.Limit - p.held() - n)
	}
	if err := p.Check(n); err != nil {
		return err
	}
	p.reserved += n
	p.stats.ReservedBytes = p.reserved
	return nil
}

// Unreserve returns n bytes taken by Reserve.
func (p *HostPool) Unreserve(n int64) {
	p.reserved -= n
	p.stats.ReservedBytes = p.reserved
}

// HostBinder is implemented by executors and devices that allocate host
// memory outside the pool (pinned staging buffers) and count it against
// the pool's limit: New hands its executor the runtime's host pool.
type HostBinder interface {
	BindHost(p *HostPool)
}

// valueCheckMin is the size from which CheckValue reads the heap: only
// values growing large can exhaust memory, and reading the heap for each
// small one would cost more than making it.
const valueCheckMin = 1 << 20

// CheckValue reports whether a value of n bytes that the pool does not
// allocate (a string, a list's slots) fits under Limit: strings and lists
// count against the same limit as tensors. It counts everything the Go
// heap holds (tensors, strings, lists, and garbage not collected yet);
// over the limit it collects the garbage and counts again before it
// fails. Under RLIMIT_AS it also checks the address space left
// (checkAddressSpace), as Check does for tensors. Values under a megabyte
// pass unchecked.
func (p *HostPool) CheckValue(n int64) error {
	if n < valueCheckMin {
		return nil
	}
	if err := p.checkAddressSpace(n); err != nil {
		return err
	}
	if p.Limit <= 0 {
		return nil
	}
	if n > p.Limit {
		return fmt.Errorf("a value of %s would exceed the host memory limit of %s", FormatBytes(n), FormatBytes(p.Limit))
	}
	used := heapBytes()
	if used+n > p.Limit {
		runtime.GC()
		if used = heapBytes(); used+n > p.Limit {
			return fmt.Errorf("a value of %s would exceed the host memory limit (%s in use of %s)", FormatBytes(n), FormatBytes(used), FormatBytes(p.Limit))
		}
	}
	return nil
}

// heapBytes is the memory the Go heap's objects occupy.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// Alloc returns an uninitialised host tensor of meta m.
func (p *HostPool) Alloc(m tensor.Meta) (*tensor.Dense, error) {
	d, err := p.block(m)
	if err != nil {
		return nil, err
	}
	n := len(d.Buf)
	p.stats.LiveRefs++
	p.stats.LiveBytes += int64(n)
	p.stats.SlackBytes += int64(cap(d.Buf) - n)
	p.notePeak()
	return d, nil
}

// notePeak records a new high-water mark of live bytes.
func (p *HostPool) notePeak() {
	if p.stats.LiveBytes > p.stats.PeakBytes {
		p.stats.PeakBytes = p.stats.LiveBytes
		p.stats.PeakSlackBytes = p.stats.SlackBytes
	}
}

// Take returns a zeroed host tensor of meta m for a builtin to fill and
// hand to Runtime.FromHost, which makes it live. It comes from the cache
// like Alloc's blocks (a hit or a miss), so that creation builtins in a
// loop reuse freed storage instead of taking new memory each time; until
// it is adopted it is not counted live.
func (p *HostPool) Take(m tensor.Meta) (*tensor.Dense, error) {
	d, err := p.block(m)
	if err != nil {
		return nil, err
	}
	clear(d.Buf)
	p.taken = unsafe.SliceData(d.Buf[:cap(d.Buf)])
	return d, nil
}

// block takes a block for m from the cache or the system, without
// counting it live.
func (p *HostPool) block(m tensor.Meta) (*tensor.Dense, error) {
	n := int(m.Bytes())
	if err := p.Check(int64(n)); err != nil {
		return nil, err
	}
	class := sizeClass(n)
	var buf []byte
	if l := p.free[class]; len(l) > 0 {
		buf = l[len(l)-1]
		l[len(l)-1] = nil // the list's array must not keep blocks it gave away
		p.free[class] = l[:len(l)-1]
		p.stats.CachedBytes -= int64(class)
		p.stats.Hits++
		p.overwriting(buf)
	} else {
		if p.Limit > 0 && p.held()+p.stats.CachedBytes+int64(class) > p.Limit {
			// Cached blocks of other sizes count against the machine's
			// memory too: give them back before taking more.
			p.trim(p.Limit - p.held() - int64(class))
		}
		buf = tensor.AlignedBytes(class)
		p.stats.Misses++
	}
	p.born(buf)
	return newDense(m, buf[:n:class]), nil
}

// denseBlock is a Dense with room for its shape: a block's Dense and shape
// are one allocation, not two (every op's result takes one).
type denseBlock struct {
	d    tensor.Dense
	dims [4]int
}

// newDense is a Dense of meta m over buf, with a copy of m's shape.
func newDense(m tensor.Meta, buf []byte) *tensor.Dense {
	if len(m.Shape) > len(denseBlock{}.dims) {
		return &tensor.Dense{Meta: tensor.Meta{Shape: m.Shape.Clone(), DType: m.DType}, Buf: buf}
	}
	b := &denseBlock{}
	n := copy(b.dims[:], m.Shape)
	var shape tensor.Shape
	if n > 0 {
		shape = b.dims[:n:n]
	}
	b.d = tensor.Dense{Meta: tensor.Meta{Shape: shape, DType: m.DType}, Buf: buf}
	return &b.d
}

// Adopt accounts for a buffer allocated elsewhere (a loaded file, a literal)
// or by Take as live storage of this pool; it is recycled like any other
// on Free. A buffer from elsewhere is memory taken beside the cache:
// cached blocks that no longer fit under Limit with it are given back.
func (p *HostPool) Adopt(d *tensor.Dense) {
	n := len(d.Buf)
	if p.taken != nil && cap(d.Buf) > 0 && unsafe.SliceData(d.Buf[:cap(d.Buf)]) == p.taken {
		p.taken = nil
	} else {
		p.stats.Adopted++
		if p.Limit > 0 && p.stats.CachedBytes > 0 && p.held()+int64(n)+p.stats.CachedBytes > p.Limit {
			p.trim(p.Limit - p.held() - int64(n))
		}
		if n > 0 {
			p.born(Block(d.Buf))
		}
	}
	p.stats.LiveRefs++
	p.stats.LiveBytes += int64(n)
	p.stats.SlackBytes += int64(cap(d.Buf) - n)
	p.notePeak()
}

// Free returns d's buffer to the cache. d must not be used afterwards.
func (p *HostPool) Free(d *tensor.Dense) {
	buf := d.Buf
	d.Buf = nil
	n, class := len(buf), cap(buf)
	p.stats.LiveRefs--
	p.stats.LiveBytes -= int64(n)
	p.stats.SlackBytes -= int64(class - n)
	if !isClass(class) {
		// Not a pool block (an adopted buffer): let the system have it.
		if class > 0 {
			p.releasing(buf[:class])
		}
		return
	}
	if p.stats.CachedBytes+int64(class) > p.Keep {
		p.trim(p.Keep - int64(class))
		if p.stats.CachedBytes+int64(class) > p.Keep {
			p.stats.ReleasedBytes += int64(class)
			p.releasing(buf[:class])
			return
		}
	}
	p.free[class] = append(p.free[class], buf[:class])
	p.stats.CachedBytes += int64(class)
}

// Trim returns cached blocks to the system, largest first, until at most
// keep bytes stay cached: a pool behind a device of bounded memory (sim)
// keeps its live and cached bytes within that memory.
func (p *HostPool) Trim(keep int64) { p.trim(max(keep, 0)) }

// trim drops cached blocks, largest first, until at most keep bytes remain.
func (p *HostPool) trim(keep int64) {
	for p.stats.CachedBytes > keep && len(p.free) > 0 {
		big := 0
		for c, l := range p.free {
			if len(l) > 0 && c > big {
				big = c
			}
		}
		if big == 0 {
			return
		}
		l := p.free[big]
		p.releasing(l[len(l)-1])
		l[len(l)-1] = nil
		p.free[big] = l[:len(l)-1]
		p.stats.CachedBytes -= int64(big)
		p.stats.ReleasedBytes += int64(big)
	}
}

// Stats returns the counters.
func (p *HostPool) Stats() PoolStats {
	s := p.stats
	if p.kept != nil {
		s.KeptBytes = p.kept.Bytes()
	}
	return s
}

// FormatBytes prints a byte count with a binary unit ("1.5 GiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
