package trace

import (
	"fmt"
	"strings"
	"testing"
)

// log is a sink writing one line per event and counter.
type log struct{ b strings.Builder }

func (l *log) Event(e *Event) error {
	fmt.Fprintf(&l.b, "%d %s t=%d dur=%d\n", e.Seq, e.Kind, e.T, e.Dur)
	return nil
}
func (l *log) Counter(d string, t, n int64) error {
	fmt.Fprintf(&l.b, "counter %s t=%d %d\n", d, t, n)
	return nil
}
func (l *log) Close(*Totals) error { return nil }

// TestMeasuredTimes: with a Measure, events naming device work and all
// that follows them wait for the work's measured times; Resolve sends on
// what is measured, in order, and stops at work still running; an op's
// start and end share one measure; counters after held work are not
// shown before it; Finish sends the rest with their issue times; the
// totals count measured durations.
func TestMeasuredTimes(t *testing.T) {
	measured := map[uint64][2]int64{}
	asked := map[uint64]int{}
	l := &log{}
	r := NewRecorder(l)
	r.SetMeasure(func(w uint64) (int64, int64, bool) {
		asked[w]++
		m, ok := measured[w]
		return m[0], m[1], ok
	})
	r.Emit(Event{T: 1, Kind: Prefetch})               // 1: no work: sent at once
	r.Emit(Event{T: 2, Dur: 1, Kind: H2D, Work: 7})   // 2: held
	r.Emit(Event{T: 3, Kind: Alloc})                  // 3: held behind 2
	r.Counter("cpu", 3, 100)                          // held behind 2
	r.Emit(Event{T: 4, Kind: OpStart, Work: 8})       // 4
	r.Emit(Event{T: 4, Dur: 1, Kind: OpEnd, Work: 8}) // 5
	r.Emit(Event{T: 9, Dur: 1, Kind: D2H, Work: 9})   // 6
	if got := l.b.String(); got != "1 prefetch t=1 dur=0\n" {
		t.Fatalf("sent before any measure:\n%s", got)
	}
	measured[7] = [2]int64{50, 20}
	measured[8] = [2]int64{80, 30}
	r.Resolve()
	want := "1 prefetch t=1 dur=0\n2 h2d t=50 dur=20\n3 alloc t=3 dur=0\ncounter cpu t=70 100\n4 op_start t=80 dur=0\n5 op_end t=80 dur=30\n"
	if got := l.b.String(); got != want {
		t.Fatalf("after resolving 7 and 8:\n%s\nwant\n%s", got, want)
	}
	if asked[8] != 1 {
		t.Fatalf("work 8 measured %d times, want once for its start and end", asked[8])
	}
	tot, err := r.Finish(Final{Device: "sim:0"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(l.b.String(), "6 d2h t=9 dur=1\n") {
		t.Fatalf("finish did not send the unmeasured work with its issue time:\n%s", l.b.String())
	}
	if tot.ComputeNs != 30 {
		t.Fatalf("compute %d ns, want the measured 30", tot.ComputeNs)
	}
}

// TestHeldBounded: a long run between syncs resolves as it goes.
func TestHeldBounded(t *testing.T) {
	l := &log{}
	r := NewRecorder(l)
	r.SetMeasure(func(w uint64) (int64, int64, bool) { return int64(w), 1, true })
	for i := range uint64(maxHeld) {
		r.Emit(Event{T: 1, Dur: 1, Kind: H2D, Work: i + 1})
	}
	if len(r.held) != 0 || strings.Count(l.b.String(), "\n") != maxHeld {
		t.Fatalf("%d events still held after %d", len(r.held), maxHeld)
	}
}
