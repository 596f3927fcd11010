package eval

import (
	"fmt"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// TestCollectorWorkIsLinear builds a long chain of lists of closures in a
// variable that a closure captures. Every iteration offers the previous,
// still live, chain to the cycle collector as a root; examining it at
// every safe point made the loop quadratic (16000 links took a minute).
// The collector's work must now stay linear in the links.
func TestCollectorWorkIsLinear(t *testing.T) {
	const n = 20000
	src := fmt.Sprintf(`fn build(n) {
  let l = []
  let i = 0
  while i < n {
    let c = i
    l = [l, fn() => c]
    i += 1
  }
  let g = none
  g = fn() => [g, l]
  return i
}
build(%d)
`, n)
	rt := refs.New(&cpu.Device{}, refs.Options{TrackRefs: true})
	in := NewInterpreter(Config{RT: rt, Universe: map[string]*Builtin{}})
	if err := in.RunSource("chain.tr", []byte(src)); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if v := in.th.col.visited; v > 200*n {
		t.Errorf("the collector examined %d nodes for %d links, want at most %d", v, n, 200*n)
	}
	if len(in.th.col.roots) != 0 {
		t.Errorf("%d candidate roots left after Close", len(in.th.col.roots))
	}
}
