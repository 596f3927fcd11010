package placement_test

import (
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/placetest"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// nextOp is a strategy written outside the package, through the public
// seam only: it runs scalings (mul) on the host, evicts the candidate
// used furthest in the future (Belady's choice, from View.NextKey) and
// prefetches the operands of the window's first op.
type nextOp struct{}

func init() {
	placement.RegisterStrategy("test-nextop", func() placement.Strategy { return nextOp{} })
}

func (nextOp) Name() string { return "test-nextop" }

func (nextOp) OnDevice(_ *placement.View, op *refs.Op) bool { return op.Op.Name() != "mul" }

func (nextOp) Victim(v *placement.View, _ int64, before uint64) *placement.RefState {
	var best *placement.RefState
	var bestKey uint64
	for s := v.FirstResident(); s != nil; s = s.NextResident() {
		if s.Kept() || s.Pinned() || v.Vetoed(s) {
			continue
		}
		if key, _ := v.NextKey(s); key > before && (best == nil || key > bestKey) {
			best, bestKey = s, key
		}
	}
	return best
}

func (nextOp) Prefetch(v *placement.View) error {
	win := v.Window()
	if len(win) == 0 || win[0].Cancelled() {
		return nil
	}
	o := win[0]
	for _, in := range o.Inputs {
		if in.State() != refs.Ready {
			continue // computed by an op of the window
		}
		if s := v.Ref(in); !s.Resident() {
			if ok, err := v.Prefetch(s, o.Seq, o.Out.Bytes(), false); err != nil || !ok {
				return err
			}
		}
	}
	return nil
}

func (nextOp) After(*placement.View, *refs.Op) error { return nil }

// TestStrategyThroughSeam runs the stream workload under nextOp and lru
// on sim at 3 MiB: the output is the cpu device's, the scalings ran on
// the host, nextOp prefetched, and its evictions (Belady's) moved no
// more bytes to the accelerator than lru's.
func TestStrategyThroughSeam(t *testing.T) {
	const path = "testdata/offload/stream.tr"
	want := placetest.Run(t, &cpu.Device{}, path)
	run := func(st string) (*eventCount, *trace.Totals) {
		count := &eventCount{host: map[string]int{}}
		ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", Mem: 3 << 20, Strategy: st, Lookahead: refs.DefaultLookahead,
			Cost: device.Cost{Flops: 4e12}, Trace: trace.NewRecorder(count)})
		if err != nil {
			t.Fatal(err)
		}
		if got := placetest.Run(t, ex, path); got != want {
			t.Fatalf("%s: output %q, want the cpu device's %q", st, got, want)
		}
		tot, err := ex.(*placement.Engine).Finish()
		if err != nil {
			t.Fatal(err)
		}
		if tot.Strategy != st {
			t.Fatalf("the trace names strategy %q, want %q", tot.Strategy, st)
		}
		return count, tot
	}
	count, tot := run("test-nextop")
	_, lru := run("lru")
	if count.host["mul"] != 12 || count.device["mul"] != 0 {
		t.Errorf("nextOp ran %d muls on the host and %d on the accelerator, want all 12 on the host", count.host["mul"], count.device["mul"])
	}
	if count.prefetches == 0 {
		t.Error("nextOp issued no prefetch")
	}
	if tot.BytesH2D > lru.BytesH2D {
		t.Errorf("nextOp moved %d bytes to the accelerator, lru %d: Belady's evictions should move no more", tot.BytesH2D, lru.BytesH2D)
	}
	if !slices.Contains(placement.Strategies(), "test-nextop") {
		t.Error("the registered strategy is not listed")
	}
}

// eventCount counts the ops run on each side, by name, and the prefetches.
type eventCount struct {
	host, device map[string]int
	prefetches   int
}

func (c *eventCount) Event(e *trace.Event) error {
	switch {
	case e.Kind == trace.Prefetch:
		c.prefetches++
	case e.Kind == trace.OpStart && e.Device == placement.HostDevice:
		c.host[e.Op]++
	case e.Kind == trace.OpStart:
		if c.device == nil {
			c.device = map[string]int{}
		}
		c.device[e.Op]++
	}
	return nil
}

func (c *eventCount) Counter(string, int64, int64) error { return nil }
func (c *eventCount) Close(*trace.Totals) error          { return nil }

// TestFlowPlacesOpsByCost runs the stream workload under flow: at 3 MiB
// the weights do not stay on the accelerator, so each scaling of a
// host-made weight runs on the host (on the accelerator it would copy
// the weight's source in and the scaled weight back out), and so do the
// matmuls whose weight would be evicted before its next read (its copy
// in, 47 µs, serves that matmul alone; the host takes 33.5 µs) and the
// relus between them: all but the layers of the weights that stay; at
// 16 MiB every weight stays, and everything runs on the accelerator.
// Only activations come back (128 KiB where a host matmul reads what the
// accelerator computed), and the printed mean. The output is the cpu
// device's.
func TestFlowPlacesOpsByCost(t *testing.T) {
	const path = "testdata/offload/stream.tr"
	want := placetest.Run(t, &cpu.Device{}, path)
	for _, c := range []struct {
		mem                           int64
		hostMul, hostMatmul, hostRelu int
	}{{3 << 20, 12, 30, 24}, {16 << 20, 0, 0, 0}} {
		count := &eventCount{host: map[string]int{}}
		rec := trace.NewRecorder(count)
		ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", Mem: c.mem, Strategy: "flow",
			Lookahead: refs.DefaultLookahead, Cost: device.Cost{Flops: 4e12}, Trace: rec})
		if err != nil {
			t.Fatal(err)
		}
		if got := placetest.Run(t, ex, path); got != want {
			t.Fatalf("at %d bytes: output %q, want the cpu device's %q", c.mem, got, want)
		}
		tot, err := ex.(*placement.Engine).Finish()
		if err != nil {
			t.Fatal(err)
		}
		if count.host["mul"] != c.hostMul || count.host["matmul"] != c.hostMatmul || count.host["relu"] != c.hostRelu || tot.Fallbacks != 0 {
			t.Errorf("at %d bytes: %d scalings, %d matmuls and %d relus ran on the host, %d fallbacks; want %d, %d, %d, 0",
				c.mem, count.host["mul"], count.host["matmul"], count.host["relu"], tot.Fallbacks, c.hostMul, c.hostMatmul, c.hostRelu)
		}
		if back := tot.BytesD2H - 4; back < 0 || back%(128<<10) != 0 || back > int64(c.hostMatmul)*128<<10 {
			t.Errorf("at %d bytes: %d bytes copied back, want the mean's 4 and at most one 128 KiB activation per host matmul (no weight)", c.mem, tot.BytesD2H)
		}
	}
}

// TestFlowKeepsOpsOnInexactDevice: the stream workload at 3 MiB, where
// flow runs 66 ops on the host of sim (TestFlowPlacesOpsByCost), runs
// every op on a device whose kernels differ from the host's (sim told so,
// as torch and CUDA are): there the output would depend on the budget.
func TestFlowKeepsOpsOnInexactDevice(t *testing.T) {
	const path = "testdata/offload/stream.tr"
	count := &eventCount{host: map[string]int{}}
	ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", NoExactFallback: true, Mem: 3 << 20, Strategy: "flow",
		Lookahead: refs.DefaultLookahead, Cost: device.Cost{Flops: 4e12}, Trace: trace.NewRecorder(count)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := placetest.Run(t, ex, path), placetest.Run(t, &cpu.Device{}, path); got != want {
		t.Fatalf("output %q, want the cpu device's %q", got, want)
	}
	tot, err := ex.(*placement.Engine).Finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(count.host) != 0 || tot.Fallbacks != 0 || count.device["matmul"] == 0 {
		t.Fatalf("ops on the host %v, %d fallbacks, on the device %v", count.host, tot.Fallbacks, count.device)
	}
}
