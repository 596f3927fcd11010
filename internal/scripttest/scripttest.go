// Package scripttest runs a tref script inside a Go test, as the example
// tests do: on a given executor, with the standard builtins, its output
// captured, failing the test on a script error or a tensor left alive.
package scripttest

import (
	"bytes"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// Run runs the script at path on ex with argv as its argv() and returns
// what it printed and the runtime's memory statistics. src is the
// script's text, or nil to read path. The output is logged; t fails at
// once on a script error and, after the run, for every ref left alive.
func Run(t testing.TB, ex refs.Executor, path string, src []byte, argv ...string) (string, []refs.DeviceStats) {
	t.Helper()
	rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead, TrackRefs: true})
	var stdout bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &stdout, Argv: argv})
	var err error
	if src == nil {
		err = in.RunFile(path)
	} else {
		err = in.RunSource(path, src)
	}
	in.Close()
	t.Logf("%s output:\n%s", path, stdout.String())
	if err != nil {
		t.Fatalf("%s failed: %v", path, err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after %s: %v", n, path, rt.Leaks())
	}
	return stdout.String(), rt.MemStats()
}

// Peak is device dev's peak bytes in stats; t fails when stats has none
// for dev.
func Peak(t testing.TB, stats []refs.DeviceStats, dev string) int64 {
	t.Helper()
	for _, s := range stats {
		if s.Device == dev {
			return s.PeakBytes
		}
	}
	t.Fatalf("no memory statistics for %s in %+v", dev, stats)
	return 0
}
