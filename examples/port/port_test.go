// Package port runs train.tr, the tref port of the PyTorch script
// train.py, and checks it prints what train.py printed (expected.txt,
// written by /usr/bin/python3 train.py with python3-torch 1.13), on cpu
// and on sim under a budget smaller than the run's tensors.
package port

import (
	"os"
	"testing"

	"github.com/tref-lang/tref/internal/scripttest"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers sim
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
)

// run runs train.tr on ex (see scripttest.Run).
func run(t *testing.T, ex refs.Executor) (string, []refs.DeviceStats) {
	return scripttest.Run(t, ex, "train.tr", nil)
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
	if p := scripttest.Peak(t, stats, "sim:0"); p > budget || p == 0 {
		t.Errorf("sim's peak is %d bytes, want some and at most the budget %d", p, budget)
	}
}
