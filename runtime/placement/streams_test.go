package placement

import (
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// planStream is one of the op streams of BenchmarkPlanning (see there),
// built on a runtime: its weights and activation live until release.
type planStream struct {
	tb    testing.TB
	rt    *refs.Runtime
	name  string
	ws    []*refs.Ref
	x     *refs.Ref
	sites []refs.Site
}

// planStreamMem is each stream's device budget: room for a third of
// blocks' 48 weights, for 40 of stress's 256, and the activations.
var planStreamMem = map[string]int64{"blocks": 16*64 + 8*16, "stress": 40*64 + 4*16}

// newPlanStream makes the weights and the input of stream name on rt.
func newPlanStream(tb testing.TB, rt *refs.Runtime, name string) *planStream {
	mk := func(shape ...int) *refs.Ref {
		return rt.FromHost(refs.Site{Pos: pos.Pos{File: "b.tr", Line: 1, Col: 1}}, tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float32}))
	}
	s := &planStream{tb: tb, rt: rt, name: name}
	n := map[string]int{"blocks": 48, "stress": 256}[name]
	s.ws = make([]*refs.Ref, n)
	for i := range s.ws {
		s.ws[i] = mk(4, 4)
	}
	s.x = mk(1, 4)
	s.sites = []refs.Site{{Pos: pos.Pos{File: "b.tr", Line: 2, Col: 1}}}
	if name == "blocks" {
		s.sites = make([]refs.Site, 16)
		for i := range s.sites {
			s.sites[i] = refs.Site{Pos: pos.Pos{File: "blocks.tr", Line: i + 1, Col: 1}}
		}
	}
	return s
}

// submit submits op at site i, failing the test or benchmark on an
// error, and calls step (when not nil) after it.
func (s *planStream) submit(step func(), i int, op ops.Op, ins ...*refs.Ref) *refs.Ref {
	y, err := s.rt.Submit(s.sites[i], op, nil, ins...)
	if err != nil {
		s.tb.Fatal(err)
	}
	if step != nil {
		step()
	}
	return y
}

// run submits ops ops (blocks: whole blocks of 16), calling step after
// each.
func (s *planStream) run(ops int, step func()) {
	if s.name == "stress" {
		// A matmul with the next weight, in turn.
		for i := range ops {
			y := s.submit(step, 0, ptestMatmul, s.x, s.ws[i%len(s.ws)])
			s.rt.Release(s.x)
			s.x = y
		}
		return
	}
	// Passes over 8 blocks; a block is, per weight, a matmul and an
	// elementwise op, then four more elementwise ops: 16 ops.
	for n := 0; n < ops; n += 16 {
		blk := (n / 16) % 8
		for i, w := range s.ws[6*blk : 6*blk+6] {
			y := s.submit(step, 2*i, ptestMatmul, s.x, w)
			s.rt.Release(s.x)
			s.x = s.submit(step, 2*i+1, ptestRelu, y)
			s.rt.Release(y)
		}
		for i := 12; i < 16; i++ {
			y := s.submit(step, i, ptestAdd, s.x, s.x)
			s.rt.Release(s.x)
			s.x = y
		}
	}
}

// release drops the stream's refs.
func (s *planStream) release() {
	s.rt.Release(s.x)
	for _, w := range s.ws {
		s.rt.Release(w)
	}
}
