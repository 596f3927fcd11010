package torch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// TestTraceOnTorch: a jsonl trace on torch:cpu under a budget has the
// events of the run (copies, evictions, ops on torch:cpu) and the summary
// with the wall clock, peak bytes per device, bytes moved and the Belady
// reference.
func TestTraceOnTorch(t *testing.T) {
	plugin(t)
	var buf bytes.Buffer
	rec := trace.NewRecorder(trace.NewJSONL(&buf))
	p := randomProgram{n: 12, inputs: 4, steps: 8, loops: 3, seed: 77}
	_, _, maxWS := runOnTorch(t, p, 8, 0, "flow")
	ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Mem: maxWS + maxWS/3, Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	p.run(t, ex, 8)
	if _, err := ex.(*placement.Engine).Finish(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	kinds := map[string]int{}
	var last map[string]any
	for _, l := range lines {
		last = map[string]any{}
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Fatal(err)
		}
		kinds[last["kind"].(string)]++
	}
	for _, k := range []string{"h2d", "d2h", "evict", "op_end", "alloc", "free", "hit"} {
		if kinds[k] == 0 {
			t.Errorf("no %s event in the trace: %v", k, kinds)
		}
	}
	peak, _ := last["peak_bytes"].(map[string]any)
	if last["kind"] != "summary" || last["clock"] != "wall" || last["device"] != "torch:cpu" || peak["torch:cpu"] == nil ||
		last["belady_bytes"].(float64) <= 0 || last["bytes_h2d"].(float64) <= 0 || last["time_ns"].(float64) <= 0 {
		t.Fatalf("summary %v", last)
	}
	if got := peak["torch:cpu"].(float64); got > float64(maxWS+maxWS/3) {
		t.Fatalf("peak %v over the budget", got)
	}
}
