package placement

import (
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
)

// RefState is the engine's bookkeeping for one ref, kept in Ref.Aux.
type RefState struct {
	// The fields that the victim search reads for every resident ref come
	// first, to share a cache line (64 bytes).

	// next links the resident refs, least recently used first.
	next *RefState
	// key and keyPred memoize NextKey, valid in epoch keyEpoch (never 0)
	// while the window ends before keyLimit (see keyCache).
	key, keyLimit, keyEpoch uint64
	ref                     *refs.Ref
	// bytes is the ref's size (Bytes), kept so as not to multiply out its
	// shape at every look.
	bytes int64
	// buf is the accelerator copy (always valid: tensors are immutable),
	// nil when the ref has none. A copy on its way (a prefetch) counts.
	buf *device.Buffer
	// pins counts the ops being executed that hold the ref on the device.
	pins int32
	// keep and offload are placement hints (hint_keep, hint_offload, or a
	// middleware's pin).
	keep, offload bool
	keyPred       bool
	// prefetched marks a copy that a prefetch brought and no op used yet.
	prefetched bool
	// copiedIn marks a host copy copied in before: a copy in again is a
	// refetch (device.Model.CopyIn).
	copiedIn bool
	// fromForecast marks that prefetch as made on a forecast (beyond the
	// window).
	fromForecast bool
	// Mark is the strategy's own: the engine never reads it, and clears
	// it only when the state is recycled for another ref.
	Mark bool
	// prev links the resident refs backwards.
	prev *RefState
	// lastUse is the sequence number of the last op that read the ref.
	lastUse uint64
	// hostReady is when the host copy became valid, in virtual time.
	hostReady int64
	// uses are the window's ops that read the ref, in program order; ops
	// already run or cancelled are pruned lazily.
	uses []*refs.Op
	// hist is the forecast's record of the ref's uses per op site.
	hist [histSites]siteUse
	// flops and estNs are the work and the cost model's duration of the op
	// that computes the ref (once costed), for the timing estimates.
	flops, estNs int64
	costed       bool
	// inplace has bit i set when input Def.Inplace[i] of the op that
	// computes the ref has the ref's meta (see inplaceInput), once costed.
	inplace uint8
	// cumNs is the sum of estNs over the ops from the first absorbed to
	// this one (a prefix sum, so that estimates over the window cost
	// O(1)); ws is the op's working set.
	cumNs, ws int64
	// site is the interned op site of the op that computes the ref (see
	// forecast.site), set when the op enters the window.
	site uint32
	// gen counts the refs this state has served (states are reused), and
	// id is the state's index in Engine.states.
	gen, id uint32
	// compacted marks the history's sites whose prediction the forecast's
	// queue compaction of number compactEpoch kept (see forecast.compact).
	compactEpoch uint32
	compacted    uint8
	// copy backs Ref.Copies, so that setting it allocates nothing.
	copy [1]refs.DeviceCopy
}

// setCopy records the accelerator copy in the ref's Copies.
func (s *RefState) setCopy(device string) {
	s.copy[0] = refs.DeviceCopy{Device: device, Buf: s.buf, Valid: true}
	s.ref.Copies = s.copy[:]
}

// Ref is the ref this state belongs to.
func (s *RefState) Ref() *refs.Ref { return s.ref }

// Bytes is the ref's size.
func (s *RefState) Bytes() int64 { return s.bytes }

// Resident reports whether the accelerator holds (or is receiving) a copy.
func (s *RefState) Resident() bool { return s.buf != nil }

// Dirty reports whether the accelerator holds the only valid copy, so
// that evicting it needs a write-back.
func (s *RefState) Dirty() bool { return s.buf != nil && s.ref.Host() == nil }

// Kept reports a keep hint or pin: the ref is never chosen for eviction.
func (s *RefState) Kept() bool { return s.keep }

// Offload reports an offload hint: evict it first.
func (s *RefState) Offload() bool { return s.offload }

// Pinned reports that the op being placed holds the ref on the
// accelerator: it is not a candidate for eviction.
func (s *RefState) Pinned() bool { return s.pins > 0 }

// Prefetched reports a copy that a prefetch brought and no op used yet.
func (s *RefState) Prefetched() bool { return s.prefetched }

// LastUse is the sequence number of the last op that read the ref.
func (s *RefState) LastUse() uint64 { return s.lastUse }

// Buffer is the accelerator copy in the model (nil when none): when it
// is ready, busy and released in virtual time.
func (s *RefState) Buffer() *device.Buffer { return s.buf }

// NextResident is the resident ref used next more recently than s (nil
// after the most recently used), for a walk from View.FirstResident.
func (s *RefState) NextResident() *RefState { return s.next }

// residentList is an intrusive list of resident refs, least recently used
// at the front.
type residentList struct {
	head, tail *RefState
	n          int
}

func (l *residentList) remove(s *RefState) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.prev, s.next = nil, nil
	l.n--
}

func (l *residentList) pushBack(s *RefState) {
	s.prev, s.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = s
	} else {
		l.head = s
	}
	l.tail = s
	l.n++
}

// touch moves a resident ref to the back (most recently used).
func (l *residentList) touch(s *RefState) {
	if l.tail == s {
		return
	}
	l.remove(s)
	l.pushBack(s)
}
