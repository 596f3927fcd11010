package device

import "testing"

func TestTimelinePlacesAllocationsAfterReleases(t *testing.T) {
	m := timeline{capacity: 100}
	a, err := m.alloc(60, 0)
	if err != nil || a != 0 {
		t.Fatalf("alloc at %d, %v", a, err)
	}
	m.free(60, 50) // released at t=50 (its last reader ends then)
	// 60 more bytes fit only once the first 60 are released.
	b, err := m.alloc(60, 10)
	if err != nil || b != 50 {
		t.Fatalf("second alloc at %d, %v; want 50", b, err)
	}
	// 40 bytes fit at once: usage is 60 then 60 again.
	c, err := m.alloc(40, 10)
	if err != nil || c != 10 {
		t.Fatalf("third alloc at %d, %v; want 10", c, err)
	}
	if m.peak != 100 {
		t.Fatalf("peak %d, want 100", m.peak)
	}
	// Nothing more fits in program order.
	if _, err := m.alloc(1, 0); err == nil {
		t.Fatal("alloc past capacity succeeded")
	}
	// advance folds the past; usage is unchanged.
	m.advance(60)
	if u := m.usageAt(60); u != 100 || len(m.ev) != 0 {
		t.Fatalf("usage %d with %d events after advance", u, len(m.ev))
	}
}

func TestTimelineNeverExceedsCapacity(t *testing.T) {
	// Random allocations and frees in the future: at no time does usage
	// pass the capacity.
	m := timeline{capacity: 1000}
	type live struct{ n, at int64 }
	var held []live
	seed := uint64(1)
	rnd := func(n int64) int64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64(seed>>33) % n
	}
	for range 2000 {
		if len(held) > 0 && (rnd(2) == 0 || m.live > 700) {
			i := rnd(int64(len(held)))
			h := held[i]
			held = append(held[:i], held[i+1:]...)
			m.free(h.n, h.at+rnd(100))
			continue
		}
		n := 1 + rnd(300)
		if m.live+n > m.capacity {
			continue
		}
		at, err := m.alloc(n, m.floor+rnd(50))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, live{n, at})
		for _, e := range m.ev {
			if u := m.usageAt(e.t); u > m.capacity {
				t.Fatalf("usage %d at %d over capacity", u, e.t)
			}
		}
		if rnd(5) == 0 {
			m.advance(m.floor + rnd(20))
		}
	}
	if m.peak > m.capacity {
		t.Fatalf("peak %d", m.peak)
	}
}

func TestModelStreams(t *testing.T) {
	c := Cost{H2D: 1e9, D2H: 1e9, Flops: 1e12, MemBandwidth: 1e12, LatencyNs: 10, HostFlops: 1e9, HostMemBandwidth: 1e9}
	d, err := NewModel(1<<20, c)
	if err != nil {
		t.Fatal(err)
	}
	// 1000 bytes: 1 µs over the link.
	a, _ := d.Alloc(1000, 0)
	b, _ := d.Alloc(1000, 0)
	sa := d.CopyIn(a, 0, false)
	sb := d.CopyIn(b, 0, false)
	// One copy engine: the second copy waits for the first.
	if sa != (Span{Start: 0, End: 1010}) || sb != (Span{Start: 1010, End: 2020}) {
		t.Fatalf("copies %v %v", sa, sb)
	}
	// The other direction has its own engine: a d2h of a starts when a
	// is ready, while b still arrives.
	so := d.CopyOut(a)
	if so.Start != 1010 {
		t.Fatalf("d2h at %v", so)
	}
	if d.Now() != so.End || d.Host() != 0 {
		t.Fatalf("now %d host %d", d.Now(), d.Host())
	}
	d.WaitHost(so.End)
	if d.Host() != so.End {
		t.Fatal("WaitHost did not advance the host")
	}
	// A kernel reading b waits for b's copy; its result is ready after it.
	c2, _ := d.Alloc(1000, 0)
	sr := d.Run(c2, []*Buffer{b}, 0)
	if sr.Start != max(sb.End, so.End) || c2.ReadyAt != sr.End || b.BusyUntil != sr.End {
		t.Fatalf("kernel at %v, b ready at %d", sr, sb.End)
	}
	d.Free(a)
	d.Free(b)
	d.Free(b)
	d.Free(c2)
	if d.Used() != 0 || d.Buffers() != 0 || d.Peak() != 3000 {
		t.Fatalf("used %d in %d buffers, peak %d", d.Used(), d.Buffers(), d.Peak())
	}
}

func TestCost(t *testing.T) {
	p := Cost{}.WithDefaults()
	if p != DefaultCost() {
		t.Fatalf("defaults %+v", p)
	}
	// 25 GB/s: 25 MB in 1 ms, plus 5 µs of latency.
	if ns := p.CopyNs(25e6, p.H2D); ns != 1_005_000 {
		t.Fatalf("copy of 25 MB takes %d ns", ns)
	}
	// 100 TFLOP/s: 1e11 flop in 1 ms; memory-bound when bytes dominate.
	if ns := p.OpNs(1e11, 0); ns != 1_005_000 {
		t.Fatalf("1e11 flop take %d ns", ns)
	}
	if ns := p.OpNs(0, 2e9); ns != 1_005_000 {
		t.Fatalf("2 GB of memory traffic takes %d ns", ns)
	}
	if err := (Cost{H2D: -1}).WithDefaults().Validate(); err == nil {
		t.Fatal("negative bandwidth accepted")
	}
	if _, err := NewModel(0, Cost{}); err == nil {
		t.Fatal("zero capacity accepted")
	}
}

// usageAt returns the bytes in use at time t (t >= floor).
func (m *timeline) usageAt(t int64) int64 {
	u := m.base
	for _, e := range m.ev {
		if e.t > t {
			break
		}
		u += e.delta
	}
	return u
}

// TestStagingBlocksHost: with a staging bandwidth the host thread copies
// a tensor into pinned memory before the copy in starts, and out of it
// after the copy out ends, so what it issues next starts no earlier;
// without one, copies leave the host free.
func TestStagingBlocksHost(t *testing.T) {
	for _, staging := range []float64{0, 0.5e9} {
		m, err := NewModel(1<<20, Cost{H2D: 1e9, D2H: 1e9, LatencyNs: -1, StagingBandwidth: staging})
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Alloc(1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		in := m.CopyIn(b, 0, false)
		stage := int64(0)
		if staging > 0 {
			stage = 2000 // 1000 bytes at 0.5 GB/s
		}
		// The worker stages; the host goes on.
		if in.Start != stage || in.End != stage+1000 || m.Host() != 0 {
			t.Fatalf("staging %v: copy in %+v, host at %d", staging, in, m.Host())
		}
		// A second copy in is staged after the first.
		b2, err := m.Alloc(1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		if in2 := m.CopyIn(b2, 0, false); in2.Start != max(2*stage, in.End) || m.Host() != 0 {
			t.Fatalf("staging %v: second copy in %+v, host at %d", staging, in2, m.Host())
		}
		m.Free(b2)
		out := m.CopyOut(b)
		if out.Start != stage+1000 || out.End != stage+2000 {
			t.Fatalf("staging %v: copy out %+v", staging, out)
		}
		want := int64(0)
		if staging > 0 {
			want = out.End + 2000
		}
		if m.Host() != want {
			t.Fatalf("staging %v: host at %d after the copy out, want %d", staging, m.Host(), want)
		}
		// A refetch copies straight from the pinned host copy: the host
		// is not held.
		again, err := m.Alloc(1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		h2dFree := m.H2DFree()
		re := m.CopyIn(again, 0, true)
		if m.Host() != want || re.Start != max(want, h2dFree) {
			t.Fatalf("staging %v: refetch %+v, host at %d, want %d", staging, re, m.Host(), want)
		}
	}
	if _, err := NewModel(1, Cost{StagingBandwidth: -1}); err == nil {
		t.Fatal("a negative staging bandwidth was accepted")
	}
}

// TestIssueTime: with an issue time the host issues one op per IssueNs,
// on the device or the host, so that ops shorter than that wait for it;
// without one, issuing is free.
func TestIssueTime(t *testing.T) {
	for _, issue := range []int64{0, 1000} {
		m, err := NewModel(1<<20, Cost{LatencyNs: 100, MemBandwidth: 1e12, Flops: 1e12, IssueNs: issue})
		if err != nil {
			t.Fatal(err)
		}
		var end int64
		for i := range 3 {
			b, err := m.Alloc(4, 0)
			if err != nil {
				t.Fatal(err)
			}
			s := m.Run(b, nil, 0)
			// Each op lasts 101 ns (latency, 4 bytes at 1 TB/s).
			want := int64(i+1) * 101
			if issue > 0 {
				want = int64(i+1)*issue + 101
			}
			if s.End != want || m.Host() != int64(i+1)*issue {
				t.Fatalf("issue %d: op %d ran %+v, host at %d", issue, i, s, m.Host())
			}
			end = s.End
			m.Free(b)
		}
		h := m.HostOp(0, 0, 0)
		if h.Start != 4*issue || h.End != 4*issue {
			t.Fatalf("issue %d: host op %+v after ops ending at %d", issue, h, end)
		}
	}
	if _, err := NewModel(1, Cost{IssueNs: -1}); err == nil {
		t.Fatal("a negative issue time was accepted")
	}
}
