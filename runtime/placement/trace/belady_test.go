package trace

import "testing"

// logOps builds an op log: each op reads ins (ids of size bytes each,
// except id 100+ which are 1-byte results) and makes a fresh 1-byte
// result that dies at once.
type logBuilder struct {
	l    opLog
	next uint64
}

func (b *logBuilder) op(bytes int64, ins ...uint64) uint64 {
	var us []Use
	for _, id := range ins {
		us = append(us, Use{id, bytes})
	}
	b.next++
	out := 1000 + b.next
	b.l.op(us, Use{out, 1}, -1, OpCost{})
	b.l.death(out)
	return out
}

func TestBeladyEqualSizes(t *testing.T) {
	// Cache of two 100-byte items (plus a 1-byte result): a b c a b c.
	// MIN loads a, b, c (evicting b, used furthest), hits a, loads b
	// (evicting a, never used again), hits c: 4 loads.
	var b logBuilder
	for _, id := range []uint64{1, 2, 3, 1, 2, 3} {
		b.op(100, id)
	}
	if got := b.l.belady(201); got != 400 {
		t.Fatalf("moved %d bytes, want 400", got)
	}
	// With room for all three, each loads once.
	if got := b.l.belady(301); got != 300 {
		t.Fatalf("moved %d bytes, want 300", got)
	}
}

func TestBeladyWritesBackOnlyWhatIsReadAgain(t *testing.T) {
	var l opLog
	// r = op(x); then two ops on y and z need the room; then r is read
	// by an op again: r must be written back once and loaded again.
	l.op([]Use{{1, 100}}, Use{2, 100}, -1, OpCost{}) // x -> r
	l.op([]Use{{3, 100}}, Use{4, 100}, -1, OpCost{}) // y -> s
	l.death(4)
	l.op([]Use{{2, 100}}, Use{5, 100}, -1, OpCost{}) // r -> t
	l.death(5)
	// budget 300: x, r, y, s cannot all stay; furthest next use among
	// x (never), r (op 3): x goes, clean. No write-back needed.
	if got := l.belady(300); got != 200 {
		t.Fatalf("moved %d, want 200 (x and y, nothing else)", got)
	}
	// budget 200: at op 2, r (dirty, read at op 3) must go: written back
	// and loaded again.
	if got := l.belady(200); got != 100+100+100+100 {
		t.Fatalf("moved %d, want 400 (x, y, r's write-back and reload)", got)
	}
	// A dirty result that dies unread is never written back.
	var d opLog
	d.op([]Use{{1, 100}}, Use{2, 100}, -1, OpCost{})
	d.op([]Use{{3, 100}}, Use{4, 100}, -1, OpCost{})
	d.death(2)
	if got := d.belady(200); got != 200 {
		t.Fatalf("moved %d, want 200", got)
	}
}

func TestBeladyReadsAndFallbacks(t *testing.T) {
	var l opLog
	l.op([]Use{{1, 100}}, Use{2, 100}, -1, OpCost{})
	l.read(Use{2, 100}, false) // the host reads r: one d2h
	l.read(Use{2, 100}, false) // again: the host copy is valid now
	// An op whose working set exceeds the budget runs on the host: its
	// dirty operand goes back first.
	l.op([]Use{{1, 100}}, Use{3, 100}, -1, OpCost{})
	l.op([]Use{{3, 100}, {4, 500}}, Use{5, 100}, -1, OpCost{})
	if got := l.belady(300); got != 100+100+100 {
		t.Fatalf("moved %d, want 300 (x in, r out, result 3 out for the host op)", got)
	}
}

func TestBeladyInplace(t *testing.T) {
	var l opLog
	// The relu's result takes over its dying operand's buffer: the budget
	// of 200 fits x and h, then x and relu(h) in h's place.
	l.op([]Use{{1, 100}}, Use{2, 100}, -1, OpCost{})
	l.op([]Use{{2, 100}}, Use{3, 100}, 0, OpCost{})
	l.death(2)
	l.op([]Use{{1, 100}}, Use{4, 100}, -1, OpCost{})
	if got := l.belady(200); got != 100 {
		t.Fatalf("moved %d, want 100 (x once)", got)
	}
}
