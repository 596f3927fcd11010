package torch

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/placetest"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// eventLog keeps every event but stalls (which only a virtual clock
// sees), without times, the device's name replaced by "dev".
type eventLog struct {
	placement.Base
	dev    string
	events []string
}

func (l *eventLog) OnEvent(_ *placement.Engine, ev *trace.Event) {
	if ev.Kind == trace.Stall {
		return
	}
	dev := ev.Device
	if dev == l.dev {
		dev = "dev"
	}
	l.events = append(l.events, fmt.Sprintf("%s %s ref#%d %dB %s %s %q", ev.Kind, dev, ev.Ref, ev.Bytes, ev.Op, ev.Pos,
		strings.ReplaceAll(ev.Reason, l.dev, "dev")))
}

// decisions runs p on device under mem bytes and strategy, with sim's
// default cost model, no in-place results and no exact fallback
// (torch:cpu has neither), and returns its events.
func decisions(t *testing.T, p randomProgram, lookahead int, device string, mem int64, strategy string) []string {
	t.Helper()
	log := &eventLog{dev: device}
	ex, err := placement.NewExecutor(placement.Config{Device: device, Mem: mem, Strategy: strategy, NoInPlace: true,
		NoExactFallback: true, Middleware: []placement.Middleware{log}})
	if err != nil {
		t.Fatal(err)
	}
	p.run(t, ex, lookahead)
	return log.events
}

// TestSameDecisionsAsSim runs random programs on sim and on torch:cpu
// with the same cost model, budget and strategy: the events (every
// allocation, copy, prefetch, eviction, write-back, hit, miss, op and
// free, in order, with their refs, bytes and reasons) are the same. The
// engine's decisions depend on the cost model and the device's
// capabilities, never on what the device measures.
func TestSameDecisionsAsSim(t *testing.T) {
	plugin(t)
	count := 24
	if testing.Short() {
		count = 8
	}
	compared := 0
	for i := range count {
		p := randomProgram{n: 8 + i%9, inputs: 3 + i%3, steps: 6 + i%7, loops: 2 + i%3, seed: uint64(2000 + i)}
		lookahead := []int{1, 4, 16, 64}[i%4]
		_, res, maxWS := runOnTorch(t, p, lookahead, 0, "flow")
		peak := res.PeakBytes["torch:cpu"]
		for _, mem := range []int64{maxWS, max(maxWS, peak/2), 0} {
			for _, st := range []string{"flow", "lru", "genoa"} {
				budget := mem
				if mem == 0 {
					budget = 4 * peak // everything fits
				}
				want := decisions(t, p, lookahead, "sim:0", budget, st)
				got := decisions(t, p, lookahead, "torch:cpu", budget, st)
				for k := range min(len(got), len(want)) {
					if got[k] != want[k] {
						t.Fatalf("program %d, %s under %d bytes: event %d on torch:cpu is\n\t%s\non sim\n\t%s", i, st, budget, k, got[k], want[k])
					}
				}
				if len(got) != len(want) {
					t.Fatalf("program %d, %s under %d bytes: %d events on torch:cpu, %d on sim", i, st, budget, len(got), len(want))
				}
				compared += len(got)
			}
		}
	}
	t.Logf("%d events compared", compared)
}

// TestHostPlacementSameAsSim runs the stream workload on torch:cpu and
// sim at 8 MiB, where flow on sim runs the scalings of host-made weights
// on the host (moving them would cost more): libtorch's kernels are not
// the host's, so on torch:cpu, and on sim told so, flow runs every op on
// the device, both alike, and the output is the cpu device's.
func TestHostPlacementSameAsSim(t *testing.T) {
	plugin(t)
	if n := placetest.SameAsSim(t, "torch:cpu", placetest.Stream, 8<<20, device.Cost{Flops: 4e12}); n != 0 {
		t.Fatalf("flow ran %d ops on the host by choice, where the results would differ", n)
	}
	if n := placetest.SameAsSim(t, "sim:1", placetest.Stream, 8<<20, device.Cost{Flops: 4e12}); n == 0 {
		t.Fatal("flow on sim ran no op on the host by choice: this test shows nothing")
	}
}
