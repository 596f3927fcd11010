package cuda

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/placetest"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// mutation names the wait the next fakecuda plane leaves out ("" none).
var mutation string

// fakeMode is how the next fakecuda plane's streams run: 0 kernels at
// once and copies when waited for, 1 the other way round (CopiesFirst),
// 2 everything when waited for (Lazy).
var fakeMode int

// fakeHostOnly are ops the next fakecuda plane's kernels leave to the
// host.
var fakeHostOnly []ops.Op

// fakePinned is the next fakecuda plane's bound on host blocks pinned in
// place (Config.Pinned; negative: none). Every block is large enough to
// pin.
var fakePinned int64 = 1 << 20

// fakeStaging is the pinned staging bound of the next fakecuda plane:
// small, so that the pool fills and waits for its oldest copies;
// fakeStagingHostAlloc makes its buffers HostAlloc's rather than Go
// memory pinned in place (Config.StagingHostAlloc).
var (
	fakeStaging          int64 = 4 << 10
	fakeStagingHostAlloc bool
)

// fakeChunk is the staging chunk of the next fakecuda plane (0: the
// default, which the staging bound caps: every tensor of the programs
// in one piece under 4 KiB).
var fakeChunk int64

// fakeStageAsync is the next fakecuda plane's smallest chunk staged by the
// worker (Config.StageAsync; negative: none); fakeStageHold, when set,
// runs in its worker before each memcpy (a slow worker: the plane waits
// for it).
var (
	fakeStageAsync int64 = 1
	fakeStageHold  func()
	// fakeStageWait issues the worker's chunks behind waits for their
	// memcpy (Config.StageWait).
	fakeStageWait bool
)

// fakePinAt is when the next fakecuda plane pins host blocks
// (Config.PinAt); fakePinHold, when set, runs before each of its fake's
// HostRegisters (a slow pinning: copies are staged while it runs off the
// engine's thread).
var (
	fakePinAt   PinAt
	fakePinHold func()
)

// fakePrealloc is the next fakecuda plane's staging buffers allocated
// ahead (Config.Prealloc); fakeAllocHold, when set, runs before each of
// its fake's HostAllocs (a slow allocation: copies wait for buffers
// being allocated off the engine's thread).
var (
	fakePrealloc  int
	fakeAllocHold func()
)

func init() {
	device.Register(device.Kind{Name: "fakecuda", Indexed: true, Open: func(spec device.Spec, _ device.Options) (device.Device, error) {
		f := NewFake(1 << 30)
		f.CopiesFirst, f.Lazy = fakeMode == 1, fakeMode == 2
		f.HoldHostAlloc, f.HoldHostRegister = fakeAllocHold, fakePinHold
		p, err := NewPlane(f, FakeKernels{F: f, HostOnly: fakeHostOnly}, Config{Name: spec.Name, Staging: fakeStaging, StagingHostAlloc: fakeStagingHostAlloc, Chunk: fakeChunk,
			Pinned: fakePinned, PinMin: 1, PinAt: fakePinAt, StageAsync: fakeStageAsync, StageWait: fakeStageWait, Prealloc: fakePrealloc})
		if err != nil {
			return nil, err
		}
		p.skip = mutation
		p.stage.hold = fakeStageHold
		return p, nil
	}})
}

// wsProbe records the largest working set of the ops on the device.
type wsProbe struct {
	placement.Base
	max int64
}

func (w *wsProbe) BeforeOp(_ *placement.Engine, ev *placement.OpEvent) error {
	w.max = max(w.max, ev.WorkingSet)
	return nil
}

var unaryOps = []ops.Op{ops.Relu, ops.Tanh, ops.Sigmoid, ops.Neg, ops.Exp}
var binaryOps = []ops.Op{ops.Add, ops.Sub, ops.Mul, ops.Maximum, ops.Matmul}

// program runs a random op DAG over [n, n] float32 values (inputs, steps
// repeated in loops, forced reads between) on exec and returns every
// value read.
func program(t *testing.T, seed uint64, exec refs.Executor) ([][]byte, error) {
	rng := rand.New(rand.NewPCG(seed, 11))
	n, inputs, steps, loops := 4+int(seed%9), 2+int(seed%4), 4+int(seed%7), 1+int(seed%3)
	rt := refs.New(exec, refs.Options{Lookahead: []int{0, 1, 8, 64}[seed%4]})
	site := func(i int) refs.Site { return refs.Site{Pos: pos.Pos{File: "p.tr", Line: i + 1, Col: 1}} }
	var live []*refs.Ref
	for i := range inputs {
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n, n}, DType: tensor.Float32})
		for j := range d.F32() {
			d.F32()[j] = float32(rng.NormFloat64() * 0.5)
		}
		live = append(live, rt.FromHost(site(i), d))
	}
	var got [][]byte
	read := func(r *refs.Ref) error {
		d, err := rt.Read(r)
		if err == nil {
			got = append(got, append([]byte(nil), d.Buf...))
		}
		return err
	}
	for range loops {
		for s := range steps {
			a, b := live[rng.IntN(len(live))], live[rng.IntN(len(live))]
			var out *refs.Ref
			var err error
			switch k := rng.IntN(10); {
			case k < 4:
				out, err = rt.Submit(site(100+s), unaryOps[rng.IntN(len(unaryOps))], nil, a)
			case k < 8:
				out, err = rt.Submit(site(100+s), binaryOps[rng.IntN(len(binaryOps))], nil, a, b)
			case k < 9:
				// a[r] = b[0] (index_assign: in place where a dies at it).
				r := rng.IntN(n)
				row := ops.IndexAttrs{Items: []ops.IndexItem{{Kind: ops.IndexAt, At: 0}}}
				var v *refs.Ref
				if v, err = rt.Submit(site(300+s), ops.Index, row, b); err != nil {
					return nil, err
				}
				at := ops.IndexAttrs{Items: []ops.IndexItem{{Kind: ops.IndexAt, At: r}}}
				out, err = rt.Submit(site(100+s), ops.IndexAssign, at, a, v)
				rt.Release(v)
			default:
				if err := read(a); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			bounded, err := rt.Submit(site(200+s), ops.Tanh, nil, out)
			rt.Release(out)
			if err != nil {
				return nil, err
			}
			i := rng.IntN(len(live))
			rt.Release(live[i])
			live[i] = bounded
		}
	}
	for _, r := range live {
		if err := read(r); err != nil {
			return nil, err
		}
		rt.Release(r)
	}
	if err := rt.Flush(); err != nil {
		return nil, err
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Fatalf("%d refs alive at the end", n)
	}
	return got, nil
}

// onFake runs program seed on fakecuda:0 under mem bytes (0: resident).
func onFake(t *testing.T, seed uint64, strategy string, mem int64) (got [][]byte, tot *trace.Totals, maxWS int64, err error) {
	t.Helper()
	got, tot, maxWS, _, err = onFakePins(t, seed, strategy, mem)
	return got, tot, maxWS, err
}

// onFakePins is onFake that also reports the plane's pinning counters.
func onFakePins(t *testing.T, seed uint64, strategy string, mem int64) (got [][]byte, tot *trace.Totals, maxWS int64, pins PinStats, err error) {
	t.Helper()
	probe := &wsProbe{}
	ex, err := placement.NewExecutor(placement.Config{Device: "fakecuda:0", Mem: mem, Strategy: strategy,
		Trace: trace.NewRecorder(), Middleware: []placement.Middleware{probe, &placement.BudgetGuard{}}})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	got, err = program(t, seed, eng)
	if err != nil {
		return nil, nil, 0, pins, err
	}
	tot, err = eng.Finish()
	plane := eng.Accelerator().(*Plane)
	if err == nil {
		err = eng.Close()
	}
	return got, tot, probe.max, plane.PinStats(), err
}

// differential runs count programs on cpu and on the fake under every
// strategy and budgets from the largest working set to resident; it
// returns the first difference or error, "" when every result is
// bit-identical.
func differential(t *testing.T, count int) string {
	var seen trace.Totals
	var pins PinStats
	defer func() {
		fakeMode, fakeChunk, fakePinned, fakeHostOnly, fakeStaging, fakeStagingHostAlloc = 0, 0, 1<<20, nil, 4<<10, false
		fakeStageAsync, fakeStageHold, fakeStageWait = 1, nil, false
		fakePrealloc, fakeAllocHold = 0, nil
		fakePinAt, fakePinHold = PinAtSecondCopy, nil
	}()
	for seed := range uint64(count) {
		fakeMode = int(seed % 3)
		// Tensors of 64 to 576 bytes: whole, or copied in chunks of
		// 100 or 256 bytes (the last one shorter).
		fakeChunk = []int64{0, 100, 256}[seed/3%3]
		// Staging of 4 KiB, or 300 bytes: full most of the time, a
		// buffer of another size freed for each shorter last chunk
		// while the worker holds the others (with the pool freeing
		// the wrong one, as before session 15, program 12 fails).
		fakeStaging = []int64{4 << 10, 300}[seed/9%2]
		// Staging buffers from HostAlloc, or Go memory pinned in place.
		fakeStagingHostAlloc = seed/5%2 == 1
		// Host blocks pinned in place as they are copied again, a few
		// (the bound fills: the rest staged), or none.
		fakePinned = []int64{1 << 20, 1 << 20, 256, -1, 1 << 20}[seed%5]
		// Every other program runs its tanh on the host: host results
		// fill blocks that copies may still be reading.
		fakeHostOnly = nil
		if seed%2 == 1 {
			fakeHostOnly = []ops.Op{ops.Tanh}
		}
		// Staging memcpys by the worker, for every chunk, for chunks of
		// 200 bytes or more, or none; the worker slow in every other
		// program.
		fakeStageAsync = []int64{1, 200, -1}[seed/2%3]
		// The worker's chunks issued behind waits for their memcpy in
		// every third program.
		fakeStageWait = seed/7%3 == 1
		fakeStageHold = nil
		if seed%4 < 2 {
			fakeStageHold = func() { time.Sleep(20 * time.Microsecond) }
		}
		// Staging buffers allocated ahead: the default, none, or three;
		// every third program's allocations slow (the copies wait in
		// line for buffers still coming).
		fakePrealloc = []int{0, -1, 3}[seed/4%3]
		fakeAllocHold = nil
		if seed%3 == 2 {
			fakeAllocHold = func() { time.Sleep(50 * time.Microsecond) }
		}
		// Host blocks pinned at their second copy in, their first, or
		// when the host pool hands them out; the pinning slow in every
		// fifth program (copies staged, and the pool's hooks waiting,
		// while it runs).
		fakePinAt = PinAt(seed / 6 % 3)
		fakePinHold = nil
		if seed%5 == 1 {
			fakePinHold = func() { time.Sleep(100 * time.Microsecond) }
		}
		want, err := program(t, seed, &cpu.Device{})
		if err != nil {
			t.Fatal(err)
		}
		_, res, maxWS, err := onFake(t, seed, "flow", 0)
		if err != nil {
			return fmt.Sprintf("program %d resident: %v", seed, err)
		}
		peak := res.PeakBytes["fakecuda:0"]
		for _, st := range []string{"none", "flow", "lru", "genoa"} {
			for _, mem := range []int64{0, maxWS, max(maxWS, peak/2), max(maxWS, peak/4)} {
				got, tot, _, p, err := onFakePins(t, seed, st, mem)
				name := fmt.Sprintf("program %d, %s under %d bytes (streams %d, staging %d (HostAlloc %v, %d ahead), chunk %d, pinned %d (at %d), worker from %d (waited on %v))",
					seed, st, mem, fakeMode, fakeStaging, fakeStagingHostAlloc, fakePrealloc, fakeChunk, fakePinned, fakePinAt, fakeStageAsync, fakeStageWait)
				if err != nil {
					return fmt.Sprintf("%s: %v", name, err)
				}
				pins.Direct += p.Direct
				pins.Staged += p.Staged
				pins.Full += p.Full
				pins.Waits += p.Waits
				pins.Async += p.Async
				pins.StageWaits += p.StageWaits
				pins.Deferred += p.Deferred
				pins.Grown += p.Grown
				pins.Pinned += p.Pinned
				pins.PinStaged += p.PinStaged
				if msg := same(got, want); msg != "" {
					return name + ": " + msg
				}
				seen.Evictions += tot.Evictions
				seen.BytesD2H += tot.BytesD2H
				seen.Fallbacks += tot.Fallbacks
			}
		}
	}
	if seen.Evictions == 0 || seen.BytesD2H == 0 || seen.Fallbacks == 0 {
		t.Fatalf("the programs did not evict, write back or run ops on the host: %+v", seen)
	}
	if pins.Direct == 0 || pins.Staged == 0 || pins.Full == 0 || pins.Waits == 0 {
		t.Fatalf("the programs did not copy both ways, fill the pinned bound and wait for a pinned block: %+v", pins)
	}
	if count >= 12 && (pins.Async == 0 || pins.StageWaits == 0 || pins.Deferred == 0 || pins.Grown == 0) {
		t.Fatalf("the programs did not stage on the worker, wait for it, wait for staging buffers and allocate them off the engine's thread: %+v", pins)
	}
	if count >= 12 && (pins.Pinned == 0 || pins.PinStaged == 0) {
		t.Fatalf("the programs did not pin blocks off the engine's thread and stage a copy while one was being pinned: %+v", pins)
	}
	return ""
}

func same(got, want [][]byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values read, cpu read %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			g, _ := tensor.Wrap(tensor.Meta{Shape: tensor.Shape{len(got[i]) / 4}, DType: tensor.Float32}, got[i])
			w, _ := tensor.Wrap(tensor.Meta{Shape: tensor.Shape{len(want[i]) / 4}, DType: tensor.Float32}, want[i])
			for j := range w.F32() {
				if math.Float32bits(g.F32()[j]) != math.Float32bits(w.F32()[j]) {
					return fmt.Sprintf("value %d differs at %d: %v, cpu %v", i, j, g.F32()[j], w.F32()[j])
				}
			}
			return fmt.Sprintf("value %d differs", i)
		}
	}
	return ""
}

// TestDifferentialFake: random programs on the plane over the fake CUDA
// runtime (copies late, fresh memory NaN) under every strategy and
// budget are bit-identical with cpu.
func TestDifferentialFake(t *testing.T) {
	count := 40
	if testing.Short() {
		count = 12
	}
	if msg := differential(t, count); msg != "" {
		t.Fatal(msg)
	}
}

// TestMutations: leaving out any one of the plane's waits makes the
// differential test fail (a wrong value, or the fake's use-after-free).
func TestMutations(t *testing.T) {
	for _, m := range []string{"kernel-after-copy-in", "copy-out-after-kernel", "host-after-copy-out", "kernel-after-stage"} {
		t.Run(m, func(t *testing.T) {
			mutation = m
			defer func() { mutation = "" }()
			msg := differential(t, 12)
			if msg == "" {
				t.Fatalf("without the wait %s the differential test still passes", m)
			}
			t.Logf("caught: %s", msg)
		})
	}
}

// TestBudget: the budget is the free memory less the margin, --mem caps
// it, and a --mem above it or a margin above the free memory is one line.
func TestBudget(t *testing.T) {
	f := NewFake(1 << 20)
	p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", Margin: 1 << 18})
	if err != nil || p.Caps().Memory != 3<<18 {
		t.Fatalf("budget %v, %v", p, err)
	}
	if p, err = NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", Margin: 1 << 18, Mem: 1 << 10}); err != nil || p.Caps().Memory != 1<<10 {
		t.Fatalf("--mem 1KiB: %v", err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "cuda:0", Margin: 1 << 18, Mem: 1 << 20}, "cuda:0: --mem 1.0 MiB is more than the device has free (1.0 MiB free, 0.2 MiB kept for libtorch's workspace)"},
		{Config{Name: "cuda:0", Margin: 2 << 20}, "cuda:0: only 1.0 MiB free, less than the 2.0 MiB kept for libtorch's workspace"},
		{Config{Name: "cuda:1", Index: 1}, "cuda:1: fake cuda: no device 1"},
	} {
		if _, err := NewPlane(f, FakeKernels{F: f}, c.cfg); err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v, want %s", c.cfg, err, c.want)
		}
	}
}

// TestSetDevice: on cuda:N with N > 0 every call makes N current first
// (the engine's goroutine may run on another thread, whose device is 0).
func TestSetDevice(t *testing.T) {
	f := NewFake(1 << 20)
	f.Devices = 2
	p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:1", Index: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Float32}
	mem, _ := p.Alloc(m)
	f.Current = 0
	if _, err := p.CopyIn(mem, tensor.NewDense(m)); err != nil || f.Current != 1 {
		t.Fatalf("copy in: %v, device %d current", err, f.Current)
	}
	f.Current = 0
	if _, err := p.CopyOut(tensor.NewDense(m), mem); err != nil || f.Current != 1 {
		t.Fatalf("copy out: %v, device %d current", err, f.Current)
	}
	p.Free(mem)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTensorAboveBudget: an op whose tensors do not fit the budget is an
// error naming the op and the sizes (no exact fallback: the host's
// kernels are not the device's), in one line.
func TestTensorAboveBudget(t *testing.T) {
	ex, err := placement.NewExecutor(placement.Config{Device: "fakecuda:0", Mem: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	rt := refs.New(ex, refs.Options{Lookahead: 4})
	m := tensor.Meta{Shape: tensor.Shape{64, 64}, DType: tensor.Float32}
	a := rt.FromHost(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 1, Col: 1}}, tensor.NewDense(m))
	r, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 2, Col: 5}}, ops.Relu, nil, a)
	if err == nil {
		_, err = rt.Read(r)
	}
	want := "relu: working set 32.0KiB exceeds the fakecuda:0 budget of 1.0KiB; raise --mem"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// capture is a trace sink keeping every event.
type capture struct{ evs []trace.Event }

func (c *capture) Event(e *trace.Event) error         { c.evs = append(c.evs, *e); return nil }
func (c *capture) Counter(string, int64, int64) error { return nil }
func (c *capture) Close(*trace.Totals) error          { return nil }

// TestMeasuredTrace: traced, the plane measures its copies and kernels
// with events, and the trace shows those times: on the fake, whose clock
// runs a microsecond a task, every copy and kernel lasts exactly 1 µs
// (the host's issue times never do), the work of one stream never
// overlaps, and the results are unchanged by the events recorded.
func TestMeasuredTrace(t *testing.T) {
	want, err := program(t, 5, &cpu.Device{})
	if err != nil {
		t.Fatal(err)
	}
	_, res, maxWS, err := onFake(t, 5, "flow", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &capture{}
	ex, err := placement.NewExecutor(placement.Config{Device: "fakecuda:0", Mem: max(maxWS, res.PeakBytes["fakecuda:0"]/3),
		Trace: trace.NewRecorder(c)})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	got, err := program(t, 5, eng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if msg := same(got, want); msg != "" {
		t.Fatal(msg)
	}
	count := map[string]int{}
	// The copies, by start: a copy staged by the worker is issued on the
	// stream after copies the engine asked for later.
	var copies []trace.Event
	var seq int64
	for _, ev := range c.evs {
		if ev.Seq <= seq {
			t.Fatalf("event %d after %d: out of order", ev.Seq, seq)
		}
		seq = ev.Seq
		if ev.Device != "fakecuda:0" || (ev.Kind != trace.OpEnd && ev.Kind != trace.H2D && ev.Kind != trace.D2H) {
			continue
		}
		if ev.Dur != 1000 {
			t.Fatalf("%s of ref %d on %s lasts %d ns: not the measured 1 µs", ev.Kind, ev.Ref, ev.Stream, ev.Dur)
		}
		if ev.Stream != trace.StreamCompute {
			copies = append(copies, ev) // one copy stream for both directions
		}
		count[ev.Kind.String()]++
	}
	slices.SortFunc(copies, func(a, b trace.Event) int { return cmp.Compare(a.T, b.T) })
	for i := 1; i < len(copies); i++ {
		if prev, ev := copies[i-1], copies[i]; ev.T < prev.End() {
			t.Fatalf("%s of ref %d at %d overlaps the copy stream's %s of ref %d (until %d)", ev.Kind, ev.Ref, ev.T, prev.Kind, prev.Ref, prev.End())
		}
	}
	if count["h2d"] == 0 || count["d2h"] == 0 || count["op_end"] == 0 {
		t.Fatalf("measured %v", count)
	}
}

// TestPinnedCountsAgainstHostLimit: the staging buffers count against the
// runtime's host limit (HostPool.Reserve): held while the plane keeps
// them, refused before allocation when they do not fit, given back when
// the plane closes, and host tensors cannot take the memory they hold.
func TestPinnedCountsAgainstHostLimit(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32} // 1 KiB
	open := func(limit int64) (*Plane, *refs.HostPool) {
		f := NewFake(1 << 20)
		p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", Staging: 4 << 10})
		if err != nil {
			t.Fatal(err)
		}
		host := &refs.HostPool{Keep: 1 << 20, Limit: limit}
		p.BindHost(host)
		return p, host
	}

	p, host := open(8 << 10)
	mem, _ := p.Alloc(m)
	if _, err := p.CopyIn(mem, tensor.NewDense(m)); err != nil {
		t.Fatal(err)
	}
	if got := host.Stats().ReservedBytes; got != 1<<10 {
		t.Fatalf("reserved %d bytes after one copy, want 1024", got)
	}
	big := tensor.Meta{Shape: tensor.Shape{7*256 + 1}, DType: tensor.Float32} // 7 KiB + 4 B
	if _, err := host.Alloc(big); err == nil || !strings.Contains(err.Error(), "1.0 KiB pinned for device copies") {
		t.Fatalf("host alloc over the pinned memory: %v", err)
	}
	p.Free(mem)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if got := host.Stats().ReservedBytes; got != 0 {
		t.Fatalf("reserved %d bytes after close, want 0", got)
	}

	// A limit below one buffer: the copy fails before allocating.
	p, host = open(512)
	mem, _ = p.Alloc(m)
	_, err := p.CopyIn(mem, tensor.NewDense(m))
	if err == nil || !strings.Contains(err.Error(), "pinned staging memory of 1.0 KiB: allocating 1.0 KiB would exceed the host memory limit") {
		t.Fatalf("copy over the host limit: %v", err)
	}
	if got := host.Stats().ReservedBytes; got != 0 {
		t.Fatalf("reserved %d bytes after a refused copy, want 0", got)
	}
	p.Free(mem)
	p.Close()

	// Live host tensors leave room for two buffers: a third copy of a
	// new size frees an idle one instead of failing.
	p, host = open(3 << 10)
	if _, err := host.Alloc(m); err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{256, 128, 64} {
		mm := tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32}
		mem, _ := p.Alloc(mm)
		if _, err := p.CopyIn(mem, tensor.NewDense(mm)); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
		p.Free(mem)
	}
	if got := host.Stats().ReservedBytes; got > 2<<10 {
		t.Fatalf("reserved %d bytes with 1 KiB of 3 KiB live", got)
	}
	p.Close()
}

// TestRuntimeBindsHost: refs.New hands the runtime's host pool to the
// engine, which hands it to the plane.
func TestRuntimeBindsHost(t *testing.T) {
	ex, err := placement.NewExecutor(placement.Config{Device: "fakecuda:0", Mem: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	rt := refs.New(ex, refs.Options{Lookahead: 4})
	m := tensor.Meta{Shape: tensor.Shape{64, 64}, DType: tensor.Float32}
	a := rt.FromHost(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 1, Col: 1}}, tensor.NewDense(m))
	r, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 2, Col: 5}}, ops.Relu, nil, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Read(r); err != nil {
		t.Fatal(err)
	}
	if got := rt.HostPool().Stats().ReservedBytes; got == 0 {
		t.Fatal("the plane's staging buffers are not counted in the runtime's host pool")
	}
}

// TestFreeWaitsForCopy: memory freed after a copy in that no kernel read
// (a prefetch the engine dropped unused) is released only after the copy
// landed. The random programs never drop a prefetch unused, so the
// mutation of this wait is caught here, on the plane's calls: without it
// the fake's free runs on the compute stream before the late copy, which
// then writes freed memory.
func TestFreeWaitsForCopy(t *testing.T) {
	run := func(skip string) error {
		f := NewFake(1 << 20)
		p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0"})
		if err != nil {
			t.Fatal(err)
		}
		p.skip = skip
		m := tensor.Meta{Shape: tensor.Shape{64}, DType: tensor.Float32}
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, tensor.NewDense(m)); err != nil {
			return err
		}
		p.Free(mem)
		if err := p.Sync(); err != nil {
			return err
		}
		return p.Close()
	}
	if err := run(""); err != nil {
		t.Fatalf("with every wait: %v", err)
	}
	if err := run("free-after-copy"); err == nil {
		t.Fatal("without the wait free-after-copy the freed memory's copy still lands")
	} else {
		t.Logf("caught: %v", err)
	}
}

// TestHostPlacementSameAsSim runs the stream workload on the fake CUDA
// plane and sim at 8 MiB, where flow on sim runs the scalings of
// host-made weights on the host (moving them would cost more): a CUDA
// device's kernels are not the host's, so on the plane, and on sim told
// so, flow runs every op on the device, both alike, and the output is the
// cpu device's.
func TestHostPlacementSameAsSim(t *testing.T) {
	if n := placetest.SameAsSim(t, "fakecuda:0", placetest.Stream, 8<<20, device.Cost{Flops: 4e12}); n != 0 {
		t.Fatalf("flow ran %d ops on the host by choice, where the results would differ", n)
	}
}

// TestLargeCopyBoundedStaging: a tensor 16 times the staging bound goes
// in and out in chunks through at most the bound of pinned memory, every
// byte in its place (the fake's copies run late, its fresh memory is
// NaN).
func TestLargeCopyBoundedStaging(t *testing.T) {
	f := NewFake(1 << 20)
	p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", Staging: 4 << 10, Chunk: 1000})
	if err != nil {
		t.Fatal(err)
	}
	m := tensor.Meta{Shape: tensor.Shape{16 << 10}, DType: tensor.Float32} // 64 KiB
	src := tensor.NewDense(m)
	for i := range src.F32() {
		src.F32()[i] = float32(i)
	}
	mem, err := p.Alloc(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.CopyIn(mem, src); err != nil {
		t.Fatal(err)
	}
	back := tensor.NewDense(m)
	if _, err := p.CopyOut(back, mem); err != nil {
		t.Fatal(err)
	}
	for i, v := range back.F32() {
		if v != float32(i) {
			t.Fatalf("element %d came back as %v", i, v)
		}
	}
	if peak := p.StagingPeak(); peak > 4<<10 {
		t.Fatalf("staged through %d bytes of pinned memory, bound 4096", peak)
	}
	p.Free(mem)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEventsRecycled: a plane that copies and measures over and over
// creates a handful of CUDA events, not a few for every copy, and leaves
// none behind at Close.
func TestEventsRecycled(t *testing.T) {
	f := NewFake(1 << 20)
	p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Measure(true); err != nil {
		t.Fatal(err)
	}
	m := tensor.Meta{Shape: tensor.Shape{64}, DType: tensor.Float32}
	mem, _ := p.Alloc(m)
	out := tensor.NewDense(m)
	for i := range 100 {
		if _, err := p.CopyIn(mem, tensor.NewDense(m)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.CopyOut(out, mem); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if err := p.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each round trip records 10 events (each way: the staging buffer's,
	// the buffer's last use, a measured span's two; in, the staged
	// chunk's transfer's two), the measured ones held until the Sync
	// every ten rounds; fresh ones would be 1000.
	if created := int(f.nextEv); created > 100 {
		t.Fatalf("created %d events for 100 copies in and out", created)
	}
	p.Free(mem)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 0 {
		t.Fatalf("%d events left after Close", len(f.events))
	}
}

// TestCalibrateStaging: calibrating the plane (copies staged by the host,
// Caps.StagedCopies) measures the host's staging rate into the cost
// model; the simulated device, whose copies cost the host nothing, has
// none.
func TestCalibrateStaging(t *testing.T) {
	f := NewFake(1 << 30)
	p, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0"})
	if err != nil {
		t.Fatal(err)
	}
	sizes := device.CalibrationSizes{Copy: 1 << 20, Matmul: 32, Add: 1 << 12, Reps: 2}
	cal, err := device.Calibrate(p, sizes)
	if err != nil {
		t.Fatal(err)
	}
	if !(cal.Staging > 0) || cal.Cost.StagingBandwidth != cal.Staging {
		t.Fatalf("staging %v, cost's %v", cal.Staging, cal.Cost.StagingBandwidth)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := device.Open(device.Spec{Kind: "sim", Name: "sim:0"}, device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cal, err := device.Calibrate(s, sizes); err != nil || cal.Cost.StagingBandwidth != 0 {
		t.Fatalf("sim: staging %v, %v", cal.Cost.StagingBandwidth, err)
	}
}

// pinTest is a plane over the fake bound to a host pool that keeps keep
// bytes cached, pinning every block from its second copy in, and a
// device buffer of m.
func pinTest(t *testing.T, keep int64, skip string) (*Fake, *Plane, *refs.HostPool) {
	t.Helper()
	// The staging buffers from HostAlloc: the fake's registered bytes
	// are then the pinned blocks'.
	f, p, host := boundPlane(t, Config{PinMin: 1, StagingHostAlloc: true}, 0)
	f.Lazy = true
	p.skip = skip
	host.Keep = keep
	return f, p, host
}

// boundPlane is a plane named cuda:0 with cfg over a fresh fake of 1 MiB,
// bound to a fresh host pool, its worker sleeping hold before each
// memcpy (0: not at all), its preallocated staging buffers in the pool.
func boundPlane(t *testing.T, cfg Config, hold time.Duration) (*Fake, *Plane, *refs.HostPool) {
	t.Helper()
	f := NewFake(1 << 20)
	cfg.Name = "cuda:0"
	p, err := NewPlane(f, FakeKernels{F: f}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if hold > 0 {
		p.stage.hold = func() { time.Sleep(hold) }
	}
	host := refs.NewHostPool()
	p.BindHost(host)
	if err := p.staging.arrive(nil, true); err != nil {
		t.Fatal(err)
	}
	return f, p, host
}

// filled is a block of host of meta m holding v in every element.
func filled(t *testing.T, host *refs.HostPool, m tensor.Meta, v float32) *tensor.Dense {
	t.Helper()
	d, err := host.Alloc(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.F32() {
		d.F32()[i] = v
	}
	return d
}

// TestPinnedCopies: a host block is staged at its first copy in and at
// its second, which starts pinning it in place, and copied straight from
// after; copies out into
// a pinned block land in it directly; a block under PinMin, above the
// bound or refused by HostRegister, and any block of a plane not bound to
// a host pool, is staged; Close unpins everything.
func TestPinnedCopies(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32} // 1 KiB
	f, p, host := pinTest(t, 1<<20, "")
	src := filled(t, host, m, 3)
	mem, _ := p.Alloc(m)
	for i := range 4 {
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		p.pinsLanded()
		// The block's bytes count from the second copy, which starts
		// pinning it; once that landed, the third takes it pinned.
		want := PinStats{Direct: int64(max(i-1, 0)), Staged: int64(min(i+1, 2)), Pinned: int64(min(i, 1)),
			Bytes: int64(min(i, 1) << 10), Peak: int64(min(i, 1) << 10), Grown: int64(DefaultPrealloc(DefaultStaging, DefaultChunk))}
		got := p.PinStats()
		if got.PinNs, got.PinWaitNs = 0, 0; got != want { // the times pinning: not asserted
			t.Fatalf("after copy %d: %+v, want %+v", i+1, got, want)
		}
	}
	if f.Registered() != 1<<10 {
		t.Fatalf("%d bytes registered, want 1024", f.Registered())
	}
	// The copy out lands straight in the pinned block.
	if _, err := p.CopyOut(src, mem); err != nil {
		t.Fatal(err)
	}
	if s := p.PinStats(); s.Direct != 3 || s.Staged != 2 {
		t.Fatalf("copy out: %+v", s)
	}
	for i, v := range src.F32() {
		if v != 3 {
			t.Fatalf("element %d came back as %v", i, v)
		}
	}
	p.Free(mem)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if s := p.PinStats(); f.Registered() != 0 || s.Unpinned != 1 || s.Bytes != 0 {
		t.Fatalf("after close: %d bytes registered, %+v", f.Registered(), s)
	}

	// Under PinMin, above the bound, refused: staged every time.
	for _, c := range []struct {
		name   string
		cfg    Config
		refuse bool
		want   func(PinStats) bool
	}{
		{"small", Config{Name: "cuda:0", PinMin: 2 << 10}, false, func(s PinStats) bool { return s.Pinned == 0 && s.Full == 0 }},
		{"full", Config{Name: "cuda:0", PinMin: 1, Pinned: 512}, false, func(s PinStats) bool { return s.Pinned == 0 && s.Full == 3 }},
		{"off", Config{Name: "cuda:0", PinMin: 1, Pinned: -1}, false, func(s PinStats) bool { return s.Pinned == 0 && s.Full == 0 }},
		{"refused", Config{Name: "cuda:0", PinMin: 1}, true, func(s PinStats) bool {
			return s.Pinned == 0 && s.Refused == 1 && s.Refusal == "fake cuda: out of pinnable memory"
		}},
		{"unbound", Config{Name: "cuda:0", PinMin: 1}, false, func(s PinStats) bool { return s.Pinned == 0 && s.Full == 0 }},
	} {
		f := NewFake(1 << 20)
		if c.refuse {
			f.RegisterError = fmt.Errorf("fake cuda: out of pinnable memory")
		}
		p, err := NewPlane(f, FakeKernels{F: f}, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		host := refs.NewHostPool()
		if c.name != "unbound" {
			p.BindHost(host)
		}
		src := filled(t, host, m, 5)
		mem, _ := p.Alloc(m)
		for range 4 {
			if _, err := p.CopyIn(mem, src); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			p.pinsLanded()
		}
		if s := p.PinStats(); !c.want(s) || s.Staged != 4 || s.Direct != 0 {
			t.Fatalf("%s: %+v", c.name, s)
		}
		p.Free(mem)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPinnedBlockOverwritten: a pinned block freed while a copy from it
// is still to run, and handed out again and overwritten, waits for the
// copy first: the device holds the old bytes. Without that wait (the
// mutation) the late copy reads the new bytes.
func TestPinnedBlockOverwritten(t *testing.T) {
	run := func(skip string) (float32, PinStats, error) {
		_, p, host := pinTest(t, 1<<20, skip)
		return overwritten(t, p, host, 3) // the second copy pins the block, the third is from it and stays pending
	}
	overwriteMutation(t, run, "host-overwrite-after-copy", false, func(s PinStats) bool { return s.Waits == 1 && s.Direct == 1 })
}

// overwriteMutation checks a wait before a host block is overwritten:
// run with every wait must leave the device holding the block's old
// bytes (1) and counters that want accepts; run without the wait
// mutation must not hold them. A mutation that is a data race (racy)
// is left out under the race detector, which would report it.
func overwriteMutation(t *testing.T, run func(skip string) (float32, PinStats, error), mutation string, racy bool, want func(PinStats) bool) {
	t.Helper()
	v, s, err := run("")
	if err != nil || v != 1 || !want(s) {
		t.Fatalf("with the wait: the device holds %v (%v), %+v", v, err, s)
	}
	if racy && raceEnabled {
		t.Skip("the mutation is a data race, which the race detector reports")
	}
	if v, _, err := run(mutation); err == nil && v == 1 {
		t.Fatalf("without the wait %s the device still holds the old bytes", mutation)
	} else {
		t.Logf("caught: the device holds %v (%v)", v, err)
	}
}

// overwritten copies a host block of 1s in copies times, lets the pool
// hand the block out again filled with 2s, and returns what the device
// then holds, the plane's counters and Close's error.
func overwritten(t *testing.T, p *Plane, host *refs.HostPool, copies int) (float32, PinStats, error) {
	t.Helper()
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	src := filled(t, host, m, 1)
	block := &src.Buf[0]
	mem, _ := p.Alloc(m)
	for range copies {
		if _, err := p.CopyIn(mem, src); err != nil {
			return 0, PinStats{}, err
		}
		p.pinsLanded()
	}
	host.Free(src)
	again := filled(t, host, m, 2)
	if &again.Buf[0] != block {
		t.Fatal("the pool did not hand the block out again")
	}
	back := tensor.NewDense(m)
	if _, err := p.CopyOut(back, mem); err != nil {
		return 0, PinStats{}, err
	}
	s := p.PinStats()
	p.Free(mem)
	host.Free(again)
	return back.F32()[0], s, p.Close()
}

// TestPinnedBlockReleased: a pinned block the pool drops is unpinned
// only after the copy still reading it ran; without that wait (the
// mutation) the fake's late copy reads unpinned memory.
func TestPinnedBlockReleased(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{256}, DType: tensor.Float32}
	run := func(skip string) (PinStats, error) {
		f, p, host := pinTest(t, 0, skip) // the pool keeps nothing
		src := filled(t, host, m, 1)
		mem, _ := p.Alloc(m)
		for range 3 { // the third copy is from the pinned block
			if _, err := p.CopyIn(mem, src); err != nil {
				return PinStats{}, err
			}
			p.pinsLanded()
		}
		host.Free(src) // dropped: unpinned
		if f.Registered() != 0 {
			t.Fatalf("%d bytes still registered after the pool dropped the block", f.Registered())
		}
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil {
			return PinStats{}, err
		}
		if back.F32()[0] != 1 {
			t.Fatalf("the device holds %v", back.F32()[0])
		}
		s := p.PinStats()
		p.Free(mem)
		return s, p.Close()
	}
	if s, err := run(""); err != nil || s.Unpinned != 1 || s.Waits != 1 {
		t.Fatalf("with the wait: %v, %+v", err, s)
	}
	if _, err := run("host-release-after-copy"); err == nil {
		t.Fatal("without the wait host-release-after-copy the late copy still reads pinned memory")
	} else {
		t.Logf("caught: %v", err)
	}

	// A failure to unpin in the pool's hook, which cannot return it, is
	// Close's error.
	f, p, host := pinTest(t, 0, "")
	src := filled(t, host, m, 1)
	mem, _ := p.Alloc(m)
	for range 2 {
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
	}
	f.UnregisterError = fmt.Errorf("fake cuda: unregister failed")
	host.Free(src)
	p.Free(mem)
	if err := p.Close(); err == nil || !strings.Contains(err.Error(), "cuda:0: unpinning host memory the pool dropped: fake cuda: unregister failed") {
		t.Fatalf("close after a failed unpin: %v", err)
	}
}
