package trace

import (
	"math"
	"slices"
)

// The op log is what the Belady reference replays: the ops in execution
// order with their operands, the host's reads, and deaths.
type opLog struct {
	entries []logEntry
	uses    []Use
	// costs holds each op entry's cost, in entry order of the ops.
	costs []OpCost
}

type entryKind uint8

const (
	entryOp entryKind = iota
	entryRead
	entryDeath
	// entryOperandRead is a read that a host op made of its own operand:
	// the Belady replay counts it as a read, the optimum as part of the op.
	entryOperandRead
)

type logEntry struct {
	kind entryKind
	// uses[first:first+n] are the inputs, then the output (ops); the ref
	// (reads, deaths).
	first, n int32
	inplace  int32
}

func (l *opLog) op(ins []Use, out Use, inplace int, cost OpCost) {
	first := int32(len(l.uses))
	l.uses = append(l.uses, ins...)
	l.uses = append(l.uses, out)
	l.entries = append(l.entries, logEntry{kind: entryOp, first: first, n: int32(len(ins)), inplace: int32(inplace)})
	l.costs = append(l.costs, cost)
}

func (l *opLog) read(u Use, operand bool) {
	kind := entryRead
	if operand {
		kind = entryOperandRead
	}
	l.entries = append(l.entries, logEntry{kind: kind, first: int32(len(l.uses)), inplace: -1})
	l.uses = append(l.uses, u)
}

func (l *opLog) death(ref uint64) {
	l.entries = append(l.entries, logEntry{kind: entryDeath, first: int32(len(l.uses)), inplace: -1})
	l.uses = append(l.uses, Use{Ref: ref})
}

// beladyRef is a ref's state in the replay.
type beladyRef struct {
	bytes    int64
	resident bool
	// hostValid says the host holds a valid copy (refs enter the log on
	// the host unless an op on the accelerator produced them).
	hostValid bool
	// next indexes the ref's upcoming uses in uses.
	uses []int32
	next int
}

// nextUse is the entry index of the ref's next use after entry i, or
// MaxInt32 when it has none.
func (b *beladyRef) nextUse(i int32) int32 {
	for b.next < len(b.uses) && b.uses[b.next] <= i {
		b.next++
	}
	if b.next < len(b.uses) {
		return b.uses[b.next]
	}
	return math.MaxInt32
}

// belady replays the log on an accelerator of budget bytes with the
// offline furthest-next-use policy (Belady's MIN, generalised to sizes by
// evicting furthest first, clean before dirty, larger before smaller on
// ties) and returns the bytes it moves both ways. An op whose operands and
// result cannot fit the budget runs on the host, as in the engine.
func (l *opLog) belady(budget int64) int64 {
	refs := map[uint64]*beladyRef{}
	get := func(u Use) *beladyRef {
		b := refs[u.Ref]
		if b == nil {
			b = &beladyRef{bytes: u.Bytes, hostValid: true}
			refs[u.Ref] = b
		}
		return b
	}
	// Every mention of a ref except its death is a use: an op needs it
	// resident, a read needs its data.
	for i, e := range l.entries {
		if e.kind == entryDeath {
			continue
		}
		n := e.n
		if e.kind == entryOp {
			n++ // the output's birth counts as a use for the eviction order
		} else {
			n = 1
		}
		for _, u := range l.uses[e.first : e.first+n] {
			b := get(u)
			b.uses = append(b.uses, int32(i))
		}
	}
	var moved, used int64
	var resident []*beladyRef
	drop := func(b *beladyRef) {
		b.resident = false
		used -= b.bytes
		for j, r := range resident {
			if r == b {
				resident = append(resident[:j], resident[j+1:]...)
				break
			}
		}
	}
	// room evicts until need more bytes fit, never touching the current
	// op's refs; it reports false when they cannot.
	room := func(i int32, need int64, busy []*beladyRef) bool {
		for used+need > budget {
			var victim *beladyRef
			var vNext int32
			for _, r := range resident {
				if slices.Contains(busy, r) {
					continue
				}
				if nx := r.nextUse(i); victim == nil || evictsBefore(nx, r, vNext, victim) {
					victim, vNext = r, nx
				}
			}
			if victim == nil {
				return false
			}
			if !victim.hostValid && vNext != math.MaxInt32 {
				moved += victim.bytes // write back: the data is needed again
				victim.hostValid = true
			}
			drop(victim)
		}
		return true
	}
	var busy []*beladyRef
	for i, e := range l.entries {
		i := int32(i)
		switch e.kind {
		case entryDeath:
			if b := refs[l.uses[e.first].Ref]; b != nil {
				if b.resident {
					drop(b)
				}
				delete(refs, l.uses[e.first].Ref)
			}
		case entryRead, entryOperandRead:
			b := get(l.uses[e.first])
			if !b.hostValid {
				moved += b.bytes
				b.hostValid = true
			}
		case entryOp:
			ins := l.uses[e.first : e.first+e.n]
			out := get(l.uses[e.first+e.n])
			busy = busy[:0]
			ws := out.bytes
			for _, u := range ins {
				b := get(u)
				busy = append(busy, b)
				ws += b.bytes
			}
			var reuse *beladyRef
			if e.inplace >= 0 {
				reuse = busy[e.inplace]
				ws -= out.bytes
			}
			if ws > budget {
				for _, b := range busy {
					if !b.hostValid {
						moved += b.bytes
						b.hostValid = true
					}
				}
				out.hostValid = true
				continue
			}
			busy = append(busy, out)
			ok := true
			for _, b := range busy[:len(busy)-1] {
				if b.resident {
					continue
				}
				if !room(i, b.bytes, busy) {
					ok = false
					break
				}
				moved += b.bytes
				b.resident = true
				used += b.bytes
				resident = append(resident, b)
			}
			if ok && reuse != nil && reuse.resident {
				drop(reuse) // its buffer now holds the output
			} else if ok && !room(i, out.bytes, busy) {
				ok = false
			}
			if !ok {
				// Unreachable with ws <= budget: everything else can go.
				out.hostValid = true
				continue
			}
			out.resident, out.hostValid = true, false
			used += out.bytes
			resident = append(resident, out)
		}
	}
	return moved
}

// evictsBefore orders eviction candidates: furthest next use first, then
// clean (a valid host copy, nothing to write back) before dirty, then
// larger before smaller.
func evictsBefore(nx int32, r *beladyRef, vNext int32, v *beladyRef) bool {
	if nx != vNext {
		return nx > vNext
	}
	if r.hostValid != v.hostValid {
		return r.hostValid
	}
	return r.bytes > v.bytes
}
