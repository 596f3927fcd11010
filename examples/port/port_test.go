// Package port runs train.tr, the tref port of the PyTorch script
// train.py, and checks it prints what train.py printed (expected.txt,
// written by /usr/bin/python3 train.py with python3-torch 1.13), on cpu
// and on sim under a budget smaller than the run's tensors.
package port

import (
	"bytes"
	"os"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers sim
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// run runs train.tr on ex and returns what it printed and the runtime's
// memory statistics; it fails on a script error or a tensor left alive.
func run(t *testing.T, ex refs.Executor) (string, []refs.DeviceStats) {
	t.Helper()
	rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead, TrackRefs: true})
	var stdout bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &stdout})
	err := in.RunFile("train.tr")
	in.Close()
	if err != nil {
		t.Fatalf("train.tr failed: %v\noutput:\n%s", err, stdout.String())
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the run: %v", n, rt.Leaks())
	}
	return stdout.String(), rt.MemStats()
}

func TestPortPrintsWhatPyTorchPrinted(t *testing.T) {
	want, err := os.ReadFile("expected.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := run(t, &cpu.Device{}); got != string(want) {
		t.Errorf("train.tr printed:\n%s\ntrain.py printed:\n%s", got, want)
	}
	// The same on a simulated accelerator with room for about a third of
	// what the run holds at its peak on cpu (22 kB).
	const budget = 8 << 10
	ex, err := placement.NewExecutor(placement.Config{Device: "sim", Mem: budget, Lookahead: refs.DefaultLookahead})
	if err != nil {
		t.Fatal(err)
	}
	got, stats := run(t, ex)
	if got != string(want) {
		t.Errorf("on sim, train.tr printed:\n%s\ntrain.py printed:\n%s", got, want)
	}
	for _, s := range stats {
		if s.Device == "sim:0" && (s.PeakBytes > budget || s.PeakBytes == 0) {
			t.Errorf("sim's peak is %d bytes, want some and at most the budget %d", s.PeakBytes, budget)
		}
	}
}
