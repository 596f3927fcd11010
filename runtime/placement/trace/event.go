// Package trace records the placement engine's decisions as events and
// writes them as aligned text, JSON lines (a public, documented schema:
// docs/trace.md), Chrome trace-event JSON for Perfetto, or an SVG memory
// timeline. Its Summary closes every trace with the run's totals and the
// reference bounds of the offline Belady policy replayed over the same
// op stream and budget.
package trace

import "fmt"

// Kind is what an event records.
type Kind uint8

// The event kinds of RUNTIME.md's Trace section, plus Fallback, DiskRead
// (a lazy ref's data read from disk into host memory: the disk->host move
// of the disk tier), Hint and the closing Summary.
const (
	OpStart Kind = iota + 1
	OpEnd
	Alloc
	Free
	H2D
	D2H
	Prefetch
	Evict
	Writeback
	Stall
	Hit
	Miss
	Fallback
	DiskRead
	// Hint is a placement hint the script gave (hint_keep, hint_offload).
	Hint
	Summary
)

var kindNames = [...]string{
	OpStart: "op_start", OpEnd: "op_end", Alloc: "alloc", Free: "free",
	H2D: "h2d", D2H: "d2h", Prefetch: "prefetch", Evict: "evict",
	Writeback: "writeback", Stall: "stall", Hit: "hit", Miss: "miss",
	Fallback: "fallback", DiskRead: "disk_read", Hint: "hint", Summary: "summary",
}

// String is the kind's name in every output format ("op_start").
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Kinds lists every kind, in declaration order.
func Kinds() []Kind {
	ks := make([]Kind, 0, len(kindNames)-1)
	for k := OpStart; k <= Summary; k++ {
		ks = append(ks, k)
	}
	return ks
}

// ParseKind finds a kind by name.
func ParseKind(s string) (Kind, bool) {
	for k := OpStart; k <= Summary; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// Streams name the engines an event ran on.
const (
	StreamCompute = "compute"
	StreamH2D     = "h2d"
	StreamD2H     = "d2h"
	StreamHost    = "host"
	// StreamDisk is the host thread reading a lazy ref's file.
	StreamDisk = "disk"
)

// Event is one decision or one piece of work.
type Event struct {
	// Seq numbers events from 1 in the order they were decided.
	Seq int64
	// T is when it happened, in nanoseconds of virtual time on sim (wall
	// time since the run began on real devices); Dur is how long it took,
	// for ops, copies and stalls.
	T, Dur int64
	Kind   Kind
	// Device is where: "sim:0", "cpu", "cuda:0".
	Device string
	// Stream is the engine that did the work: compute, h2d, d2h, host,
	// disk;
	// empty for decisions.
	Stream string
	// Ref is the ref's id, 0 when none.
	Ref   uint64
	Bytes int64
	// Op is the op's name and Pos its script position ("model.tr:12:9"),
	// either may be empty.
	Op, Pos string
	// Reason says why, in words ("prefetch: next use in 3 ops").
	Reason string
	// Work names the device work (an op or a copy on a device whose
	// streams run behind the host) whose measured times replace T and
	// Dur once the device reports them (Recorder.Resolve); 0 for work
	// whose times are known when it is decided. It is not written out.
	Work uint64
}

// End is T + Dur.
func (e *Event) End() int64 { return e.T + e.Dur }
