package placement_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/placetest"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// offloadWorkloads are the scripts of examples/offload at the budgets of
// bench/placement, and the transfer-bound stream of testdata/offload.
var offloadWorkloads = []struct {
	path string
	mem  int64
}{
	{"../../examples/offload/mlp.tr", 16 << 20},
	{"../../examples/offload/transformer.tr", 32 << 20},
	{"../../examples/offload/embedding.tr", 32 << 20},
	{"../../examples/offload/loop.tr", 32 << 20},
	{"testdata/offload/stream.tr", 8 << 20},
}

// TestOffloadDecisions runs every offload workload under flow on sim (the
// bench's device: 4 TFLOP/s, the default window) and compares its decisions with a golden
// file: where each op ran, every miss, prefetch, eviction, write-back
// and fallback with its reason, and the run's totals. The script's
// output must be the plain cpu device's. Rewrite the goldens with
// go test ./runtime/placement -run OffloadDecisions -update, and read
// the diff.
func TestOffloadDecisions(t *testing.T) {
	update := flag.Lookup("update").Value.(flag.Getter).Get().(bool)
	for _, w := range offloadWorkloads {
		name := strings.TrimSuffix(filepath.Base(w.path), ".tr")
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			log := &decisionLog{w: &got}
			rec := trace.NewRecorder(log)
			ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", Mem: w.mem, Strategy: "flow",
				Lookahead: refs.DefaultLookahead, Cost: device.Cost{Flops: 4e12}, Trace: rec})
			if err != nil {
				t.Fatal(err)
			}
			out := placetest.Run(t, ex, w.path)
			if want := placetest.Run(t, &cpu.Device{}, w.path); out != want {
				t.Fatalf("output on sim:\n%s\nwant the cpu device's:\n%s", out, want)
			}
			tot, err := ex.(*placement.Engine).Finish()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "output %q\ntotals time %d ns, stall %d ns, h2d %d B, d2h %d B, belady %d B, ops %d, misses %d, evictions %d, fallbacks %d\n",
				out, tot.TimeNs, tot.StallNs, tot.BytesH2D, tot.BytesD2H, tot.BeladyBytes, tot.Ops, tot.PrefetchMisses, tot.Evictions, tot.Fallbacks)
			path := filepath.Join("testdata", "offload", name+".golden")
			if update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("decisions differ from %s (run with -update and read the diff):\n%s", path, firstDiff(got.String(), string(want)))
			}
		})
	}
}

// decisionLog writes one line per decision: where each op ran, and every
// miss, prefetch, eviction, write-back and fallback with its reason.
// Positions keep only the file's name.
type decisionLog struct{ w *bytes.Buffer }

func (l *decisionLog) Event(e *trace.Event) error {
	switch e.Kind {
	case trace.OpStart, trace.Miss, trace.Prefetch, trace.Evict, trace.Writeback, trace.Fallback:
	default:
		return nil
	}
	fmt.Fprintf(l.w, "%-9s %-6s #%-5d %9s  %s %s", e.Kind, e.Device, e.Ref, trace.FormatBytes(e.Bytes), e.Op, filepath.Base(e.Pos))
	if e.Reason != "" {
		fmt.Fprintf(l.w, ": %s", e.Reason)
	}
	l.w.WriteByte('\n')
	return nil
}

func (l *decisionLog) Counter(string, int64, int64) error { return nil }
func (l *decisionLog) Close(*trace.Totals) error          { return nil }

// firstDiff shows the first line where got and want differ, with a few
// lines of context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		if i < len(g) && i < len(w) && g[i] == w[i] {
			continue
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end)"
		}
		return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, line(g), line(w))
	}
	return "(equal)"
}
