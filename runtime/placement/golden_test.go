package placement

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/golden")

// Golden text traces of small op streams on sim: any change in a decision,
// a time or a reason shows up as a diff. Rewrite them with
// go test ./runtime/placement -run Golden -update, and read the diff.
func TestGoldenTraces(t *testing.T) {
	streams := map[string]func(h *harness){
		// Three layers of relu(x @ w), weights 1 KiB, room for two.
		"mlp": func(h *harness) { mlp(h, 3, 16, 4, 1) },
		// Two passes over three layers: reuse, eviction order.
		"loop": func(h *harness) { mlp(h, 3, 16, 4, 2) },
		// An op too big for the budget runs on the host.
		"fallback": func(h *harness) {
			x := h.host(0, 16, 16)
			y := h.op("ptest_mix", x, x)
			z := h.op("ptest_relu", y)
			h.rt.Release(y)
			h.read(z)
			h.finish(x, z)
		},
		// A dirty result is evicted while alive: written back first.
		"writeback": func(h *harness) {
			x := h.host(0, 4, 16)
			w := h.host(1, 16, 16)
			a := h.op("ptest_relu", x)
			e := h.op("ptest_matmul", x, w)
			h.read(e)
			h.read(a)
			h.finish(x, w, a, e)
		},
	}
	budgets := map[string]int64{"mlp": 2*1024 + 3*256, "loop": 2*1024 + 3*256, "fallback": 1800, "writeback": 1536}
	for name, run := range streams {
		for _, st := range []string{"none", "genoa", "lru", "flow"} {
			if name != "mlp" && name != "loop" && st != "flow" && st != "lru" {
				continue
			}
			t.Run(name+"_"+st, func(t *testing.T) {
				var buf bytes.Buffer
				h := newHarness(t, st, budgets[name], 4, trace.NewText(&buf, false))
				run(h)
				path := filepath.Join("testdata", "golden", name+"_"+st+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("trace differs from %s (run with -update and read the diff):\n%s", path, buf.String())
				}
			})
		}
	}
}

// TestTraceIsDeterministic runs the same stream twice.
func TestTraceIsDeterministic(t *testing.T) {
	run := func() string {
		var buf bytes.Buffer
		forecastLoop(t, "flow", 3, trace.NewJSONL(&buf))
		return buf.String()
	}
	if a, b := run(), run(); a != b {
		t.Fatal("two runs of the same stream gave different traces")
	}
}
