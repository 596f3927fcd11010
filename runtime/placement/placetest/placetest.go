// Package placetest checks an accelerator's data plane against the
// simulated device: the same script under the same cost model and budget
// makes the same placement decisions on both, and prints what the plain
// cpu device prints. The torch and cuda planes' tests use it.
package placetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// Stream is the transfer-bound workload of runtime/placement's tests (12 x
// 1 MiB weights made on the host and scaled once, streamed three times),
// relative to a package directory under runtime/backend.
const Stream = "../../placement/testdata/offload/stream.tr"

// SameAsSim runs the script at path under flow on dev and on sim:0, each
// with budget mem and cost model cost and no in-place results, sim
// claiming dev's exactness (device.Caps.ExactFallback): both print what
// the cpu device prints, and their decisions (every event but stalls,
// without times) are the same. It returns how many ops flow chose to run
// on the host (fallbacks aside).
func SameAsSim(t testing.TB, dev, path string, mem int64, cost device.Cost) (hostOps int) {
	t.Helper()
	want := Run(t, &cpu.Device{}, path)
	var logs [2]*decisionLog
	inexact := false
	for i, d := range []string{dev, "sim:0"} {
		logs[i] = &decisionLog{dev: d}
		ex, err := placement.NewExecutor(placement.Config{Device: d, Mem: mem, Strategy: "flow", Cost: cost,
			NoInPlace: true, NoExactFallback: inexact, Lookahead: refs.DefaultLookahead, Middleware: []placement.Middleware{logs[i]}})
		if err != nil {
			t.Fatal(err)
		}
		inexact = !ex.(*placement.Engine).Accelerator().Caps().ExactFallback
		if got := Run(t, ex, path); got != want {
			t.Fatalf("%s printed %q, the cpu device %q", d, got, want)
		}
		if err := ex.(*placement.Engine).Accelerator().Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, sim := logs[0].events, logs[1].events
	for k := range min(len(got), len(sim)) {
		if got[k] != sim[k] {
			t.Fatalf("event %d on %s is\n\t%s\non sim\n\t%s", k, dev, got[k], sim[k])
		}
	}
	if len(got) != len(sim) {
		t.Fatalf("%d events on %s, %d on sim", len(got), dev, len(sim))
	}
	return logs[0].hostOps - logs[0].fallbacks
}

// Run runs the script at path on ex with the default window and returns
// what it printed; no ref may be alive at the end.
func Run(t testing.TB, ex refs.Executor, path string) string {
	t.Helper()
	var out bytes.Buffer
	rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead})
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &out})
	err := in.RunFile(path)
	in.Close()
	if ferr := rt.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Fatalf("%d refs alive at the end", n)
	}
	return out.String()
}

// decisionLog keeps every event but stalls (which only a virtual clock
// sees), without times, the device's name replaced by "dev", and counts
// the ops run on the host and the fallbacks.
type decisionLog struct {
	placement.Base
	dev                string
	events             []string
	hostOps, fallbacks int
}

func (l *decisionLog) OnEvent(_ *placement.Engine, ev *trace.Event) {
	switch ev.Kind {
	case trace.Stall:
		return
	case trace.OpStart:
		if ev.Device == placement.HostDevice {
			l.hostOps++
		}
	case trace.Fallback:
		l.fallbacks++
	}
	dev := ev.Device
	if dev == l.dev {
		dev = "dev"
	}
	l.events = append(l.events, fmt.Sprintf("%s %s ref#%d %dB %s %s %q", ev.Kind, dev, ev.Ref, ev.Bytes, ev.Op, ev.Pos,
		strings.ReplaceAll(ev.Reason, l.dev, "dev")))
}
