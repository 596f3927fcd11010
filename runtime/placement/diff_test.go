package placement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The differential test: random op programs (DAGs over a few variables,
// with loops that reuse loop-invariant "weights", reads that force values,
// hints, fresh host tensors mid-program, and ops with a scalar operand,
// which travels as the op's attribute) run on the plain cpu device
// and under every strategy with random budgets, down to the largest op's
// working set and below (fallbacks). Every value read must be bit-identical
// to cpu's; the harness checks peak device bytes against the budget, and
// that no ref and no device byte remains at the end.

// Slot shapes form a set closed under the test matmul.
var diffShapes = []tensor.Shape{{4, 16}, {16, 16}, {4, 4}, {16, 4}}

type stmtKind uint8

const (
	stmtOp stmtKind = iota
	stmtRead
	stmtHint
	stmtFresh
	stmtLoop
)

type stmt struct {
	kind  stmtKind
	op    string
	attrs any // an ops.ScalarOperand, ops.IndexAttrs, or nil
	ins   []int
	out   int
	hint  string
	n     int
	body  []stmt
	pos   string
}

type program struct {
	slots  []tensor.Shape
	frozen int // slots [0, frozen) are weights: never written
	body   []stmt
	maxWS  int64
}

func shapeBytes(s tensor.Shape) int64 { return int64(s.Numel()) * 4 }

// genProgram makes a random program from seed.
func genProgram(rng *rand.Rand) *program {
	p := &program{}
	nslots := 6 + rng.IntN(6)
	for range nslots {
		p.slots = append(p.slots, diffShapes[rng.IntN(len(diffShapes))])
	}
	p.frozen = 2 + rng.IntN(3)
	line := 0
	var gen func(depth, n int) []stmt
	gen = func(depth, n int) []stmt {
		var out []stmt
		for range n {
			line++
			pos := fmt.Sprintf("p.tr:%d:1", line)
			switch r := rng.IntN(20); {
			case r < 13:
				if s, ok := p.genOp(rng, pos); ok {
					out = append(out, s)
				}
			case r < 15:
				out = append(out, stmt{kind: stmtRead, ins: []int{rng.IntN(len(p.slots))}, pos: pos})
			case r < 16:
				hints := []string{HintKeep, HintOffload, HintAuto}
				out = append(out, stmt{kind: stmtHint, ins: []int{rng.IntN(len(p.slots))}, hint: hints[rng.IntN(3)], pos: pos})
			case r < 17:
				out = append(out, stmt{kind: stmtFresh, out: p.frozen + rng.IntN(len(p.slots)-p.frozen), n: rng.IntN(1000), pos: pos})
			default:
				if depth < 2 {
					out = append(out, stmt{kind: stmtLoop, n: 2 + rng.IntN(4), body: gen(depth+1, 2+rng.IntN(8)), pos: pos})
				}
			}
		}
		return out
	}
	p.body = gen(0, 5+rng.IntN(25))
	return p
}

// genOp picks an op whose operands' shapes fit, writing a non-weight slot.
func (p *program) genOp(rng *rand.Rand, pos string) (stmt, bool) {
	a := rng.IntN(len(p.slots))
	var name string
	var attrs any
	var ins []int
	var out tensor.Shape
	switch rng.IntN(6) {
	case 5:
		// x[r:r+4] = v for a [16, n] slot x and a [4, n] slot v
		// (index_assign, in place when x dies at it).
		if p.slots[a][0] != 16 {
			return stmt{}, false
		}
		var vs []int
		for i, s := range p.slots {
			if s.Equal(tensor.Shape{4, p.slots[a][1]}) {
				vs = append(vs, i)
			}
		}
		if len(vs) == 0 {
			return stmt{}, false
		}
		r := 4 * rng.IntN(4)
		name, ins, out = "index_assign", []int{a, vs[rng.IntN(len(vs))]}, p.slots[a]
		attrs = ops.IndexAttrs{Items: []ops.IndexItem{{Kind: ops.IndexSlice, Start: r, Stop: r + 4, HasStart: true, HasStop: true, Step: 1}}}
	case 0, 1:
		var bs []int
		for i, s := range p.slots {
			if s[0] == p.slots[a][1] {
				bs = append(bs, i)
			}
		}
		if len(bs) == 0 {
			return stmt{}, false
		}
		b := bs[rng.IntN(len(bs))]
		name, ins, out = "ptest_matmul", []int{a, b}, tensor.Shape{p.slots[a][0], p.slots[b][1]}
	case 2:
		name, ins, out = "ptest_relu", []int{a}, p.slots[a]
	case 3:
		name = []string{"add", "sub", "mul", "maximum"}[rng.IntN(4)]
		v := ops.FloatScalar(float64(rng.IntN(9)-4)/4, tensor.Float32)
		if rng.IntN(4) == 0 {
			v = ops.IntScalar(int64(rng.IntN(5) - 2))
		}
		attrs, ins, out = ops.ScalarOperand{Value: v, Left: rng.IntN(2) == 0}, []int{a}, p.slots[a]
	default:
		var bs []int
		for i, s := range p.slots {
			if s.Equal(p.slots[a]) {
				bs = append(bs, i)
			}
		}
		b := bs[rng.IntN(len(bs))]
		name = []string{"ptest_add", "ptest_mix"}[rng.IntN(2)]
		ins, out = []int{a, b}, p.slots[a]
	}
	var outs []int
	for i := p.frozen; i < len(p.slots); i++ {
		if p.slots[i].Equal(out) {
			outs = append(outs, i)
		}
	}
	if len(outs) == 0 {
		return stmt{}, false
	}
	ws := shapeBytes(out)
	for i, in := range ins {
		if i == 0 || in != ins[0] {
			ws += shapeBytes(p.slots[in])
		}
	}
	p.maxWS = max(p.maxWS, ws)
	return stmt{kind: stmtOp, op: name, attrs: attrs, ins: ins, out: outs[rng.IntN(len(outs))], pos: pos}, true
}

// run executes the program on h and returns every value read, as bits,
// and the totals (nil on cpu).
func (p *program) run(h *harness) ([]uint32, *trace.Totals) {
	vals := make([]*refs.Ref, len(p.slots))
	for i, s := range p.slots {
		vals[i] = h.host(i, s...)
	}
	var got []uint32
	read := func(r *refs.Ref) {
		for _, v := range h.read(r) {
			got = append(got, math.Float32bits(v))
		}
	}
	var exec func([]stmt)
	exec = func(body []stmt) {
		for _, s := range body {
			switch s.kind {
			case stmtOp:
				ins := make([]*refs.Ref, len(s.ins))
				for i, in := range s.ins {
					ins[i] = vals[in]
				}
				r := h.opWith(s.pos, s.op, s.attrs, ins...)
				h.rt.Release(vals[s.out])
				vals[s.out] = r
			case stmtRead:
				read(vals[s.ins[0]])
			case stmtHint:
				if hi, ok := h.rt.Executor().(refs.Hinter); ok {
					if err := hi.Hint(h.rt, vals[s.ins[0]], s.hint, refs.Site{}); err != nil {
						h.t.Fatal(err)
					}
				}
			case stmtFresh:
				h.rt.Release(vals[s.out])
				vals[s.out] = h.host(s.n, p.slots[s.out]...)
			case stmtLoop:
				for range s.n {
					exec(s.body)
				}
			}
		}
	}
	exec(p.body)
	for _, v := range vals {
		read(v)
	}
	return got, h.finish(vals...)
}

func TestDifferential(t *testing.T) {
	programs := 1000
	if testing.Short() {
		programs = 200
	}
	strategies := []string{"none", "genoa", "lru", "flow"}
	var seen trace.Totals
	assigns := 0
	for seed := range programs {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		p, lookahead, want, total := diffCase(t, rng)
		assigns += countOps(p.body, "index_assign")
		budgets := []int64{p.maxWS, p.maxWS + 64, p.maxWS * 3 / 2, total, 4 * total}
		if p.maxWS > 512 {
			budgets = append(budgets, p.maxWS/2) // the largest ops fall back
		}
		for _, st := range strategies {
			for _, budget := range budgets {
				if rng.IntN(3) == 0 && budget != p.maxWS {
					continue
				}
				name := fmt.Sprintf("seed%d/%s/mem%d/la%d", seed, st, budget, lookahead)
				tot := p.compare(t, name, st, budget, lookahead, want)
				seen.Fallbacks += tot.Fallbacks
				seen.Evictions += tot.Evictions
				seen.BytesD2H += tot.BytesD2H
				seen.PrefetchHits += tot.PrefetchHits
			}
		}
	}
	// The programs must exercise what they are meant to test.
	if seen.Fallbacks == 0 || seen.Evictions == 0 || seen.BytesD2H == 0 || seen.PrefetchHits == 0 || assigns == 0 {
		t.Fatalf("the random programs did not exercise fallbacks, evictions, write-backs, prefetch hits and index_assign: %+v, %d index_assign", seen, assigns)
	}
	t.Logf("%d fallbacks, %d evictions, %d bytes d2h, %d hits, %d index_assign statements", seen.Fallbacks, seen.Evictions, seen.BytesD2H, seen.PrefetchHits, assigns)
}

// countOps counts the statements of body (loops' bodies once) that run op.
func countOps(body []stmt, op string) int {
	n := 0
	for _, s := range body {
		if s.kind == stmtOp && s.op == op {
			n++
		}
		n += countOps(s.body, op)
	}
	return n
}

// compare runs p under strategy st with a device budget and checks that
// every value read is bit-identical to want (cpu's).
func (p *program) compare(t *testing.T, name, st string, budget int64, lookahead int, want []uint32) *trace.Totals {
	t.Helper()
	got, tot := p.run(newHarness(t, st, budget, lookahead))
	if len(got) != len(want) {
		t.Fatalf("%s: read %d values, cpu read %d", name, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d is %v, cpu gives %v", name, i,
				math.Float32frombits(got[i]), math.Float32frombits(want[i]))
		}
	}
	return tot
}

// diffCase generates a program and its lookahead from rng, runs it on
// cpu for the values to compare with, and sums its slots' bytes.
func diffCase(t *testing.T, rng *rand.Rand) (p *program, lookahead int, want []uint32, total int64) {
	p = genProgram(rng)
	lookahead = []int{0, 1, 3, 8, 64}[rng.IntN(5)]
	want, _ = p.run(newHarness(t, "cpu", 0, lookahead))
	for _, s := range p.slots {
		total += shapeBytes(s)
	}
	return p, lookahead, want, total
}
