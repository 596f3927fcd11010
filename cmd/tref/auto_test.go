package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
)

// TestAutoSaysWhyNotTheGPU: --device auto runs on the host when the
// machine has no GPU, silently, and when it has one that cannot be used
// (a stale plugin), with one line saying why.
func TestAutoSaysWhyNotTheGPU(t *testing.T) {
	defer func(was func(placement.Config) (refs.Executor, error)) { openAutoGPU = was }(openAutoGPU)
	for _, c := range []struct {
		err  error
		note string
	}{
		{device.Absent{Why: "no NVIDIA GPU on this machine"}, ""},
		{errors.New("torch backend: plugin built from other sources; rebuild it"),
			"tref: --device auto: cuda:0 is here but cannot be used, so the host runs the script: torch backend: plugin built from other sources; rebuild it\n"},
	} {
		openAutoGPU = func(placement.Config) (refs.Executor, error) { return nil, c.err }
		var stderr bytes.Buffer
		cfg := defaultConfig()
		cfg.stderr = &stderr
		ex, err := newExecutor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ex.(*cpu.Device); !ok {
			t.Errorf("%v: auto made %T, want the host's cpu.Device", c.err, ex)
		}
		if stderr.String() != c.note {
			t.Errorf("%v: auto said %q, want %q", c.err, stderr.String(), c.note)
		}
	}
}
