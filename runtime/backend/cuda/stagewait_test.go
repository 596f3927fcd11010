package cuda

import (
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TestStageWait: with StageWait a copy in returns before the worker's
// memcpy, its chunks' copies already issued behind waits for it; the
// engine never waits for the worker, and the device gets the bytes. On
// a copy stream that runs its work at once (the fake's CopiesFirst),
// without the wait (the mutation) the copies read the staging buffers
// before the worker filled them. A driver without stream memory
// operations is an error when the plane opens.
func TestStageWait(t *testing.T) {
	m := tensor.Meta{Shape: tensor.Shape{768}, DType: tensor.Float32} // three 1 KiB chunks
	run := func(skip string, copiesFirst bool) (float32, PinStats) {
		f, p, host := boundPlane(t, Config{Pinned: -1, StageAsync: 1, StageWait: true, Chunk: 1 << 10, StagingHostAlloc: true}, 2*time.Millisecond)
		f.CopiesFirst, f.Lazy = copiesFirst, !copiesFirst
		p.skip = skip
		src := filled(t, host, m, 9)
		mem, _ := p.Alloc(m)
		if _, err := p.CopyIn(mem, src); err != nil {
			t.Fatal(err)
		}
		if !copiesFirst && (len(p.stage.queue) != 0 || len(p.stage.wait.issued) != 3) {
			t.Fatalf("the copies were not issued at once: %d queued, %d issued", len(p.stage.queue), len(p.stage.wait.issued))
		}
		back := tensor.NewDense(m)
		if _, err := p.CopyOut(back, mem); err != nil {
			t.Fatal(err)
		}
		worst := back.F32()[0]
		for _, v := range back.F32() {
			if v != 9 {
				worst = v
			}
		}
		p.Free(mem)
		host.Free(src)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		return worst, p.PinStats()
	}
	for _, copiesFirst := range []bool{false, true} {
		v, s := run("", copiesFirst)
		if v != 9 || s.Async != 3 || s.StageWaits != 0 || s.Memcpy.Count != 3 || s.Memcpy.Bytes != 3<<10 || s.IssueLagNs != 0 {
			t.Fatalf("copies first %v: the device holds %v, %+v", copiesFirst, v, s)
		}
	}
	f := NewFake(1 << 20)
	f.NoStreamWait = true
	if _, err := NewPlane(f, FakeKernels{F: f}, Config{Name: "cuda:0", StageWait: true}); err == nil ||
		!strings.Contains(err.Error(), "TREF_CUDA_STAGE=wait") || !strings.Contains(err.Error(), "no stream memory operations") {
		t.Fatalf("without stream memory operations: %v", err)
	}

	if raceEnabled {
		t.Skip("the mutation is a data race (the copy reads what the worker writes), which the race detector reports")
	}
	if v, _ := run("copy-after-stage", true); v == 9 {
		t.Fatal("without the wait copy-after-stage the device still holds the bytes")
	} else {
		t.Logf("caught: the device holds %v", v)
	}
}
