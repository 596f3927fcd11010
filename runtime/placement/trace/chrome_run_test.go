package trace_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// TestChromeRealRun traces testdata/offload.tr on the sim device, tight
// enough to evict, prefetch and write back, with weights read from disk,
// and checks the chrome output against the rules of Perfetto's JSON
// importer and the track layout docs/trace.md describes.
func TestChromeRealRun(t *testing.T) {
	src, err := os.ReadFile("testdata/offload.tr")
	if err != nil {
		t.Fatal(err)
	}
	// The script saves and loads a file next to itself.
	path := filepath.Join(t.TempDir(), "offload.tr")
	var buf bytes.Buffer
	rec := trace.NewRecorder(trace.NewChrome(&buf))
	ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", Mem: 160 << 10, Strategy: "flow", Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	rt := refs.New(ex, refs.Options{Lookahead: 64})
	eng.Attach(rt)
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: io.Discard})
	if err := in.RunSource(path, src); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := rt.Flush(); err != nil {
		t.Fatal(err)
	}
	tot, err := eng.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// The run must show what the check is about.
	if tot.Evictions == 0 || tot.PrefetchHits == 0 || tot.BytesD2H == 0 || tot.BytesDisk == 0 {
		t.Fatalf("the run has %d evictions, %d prefetch hits, %d bytes written back, %d bytes read from disk: want some of each",
			tot.Evictions, tot.PrefetchHits, tot.BytesD2H, tot.BytesDisk)
	}
	perThread, err := trace.CheckChromeRun(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sim:0/compute (ops)", "sim:0/copy h2d", "sim:0/copy d2h", "sim:0/stalls", "cpu/disk reads"} {
		if perThread[want] == 0 {
			t.Errorf("no slices on %s; threads: %v", want, perThread)
		}
	}
	// The three weights read from disk are read at the same virtual time:
	// three lanes.
	if perThread["cpu/disk reads 2"] == 0 || perThread["cpu/disk reads 3"] == 0 {
		t.Errorf("overlapping disk reads not spread over lanes; threads: %v", perThread)
	}
}
