// Package optimal computes the offline optimum of a placement trace: the
// shortest simulated time in which the ops of a recorded program can run
// on an accelerator of a given capacity, choosing for each op whether it
// runs on the accelerator or the host, which copies to issue when, and
// what to evict, with the device's copy engines and compute stream timed
// by device.Model (the simulated device's clock).
//
// The search is an exact branch and bound over a defined decision space
// (see docs/optimal.md): for traces small enough, and within its node
// limit, it proves the optimum; otherwise it reports the best schedule it
// found and a proven lower bound.
package optimal

import (
	"fmt"
	"sort"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// Problem is a recorded program and the accelerator it runs on.
type Problem struct {
	// Steps is the op log (trace.Recorder.Steps), in program order.
	Steps []trace.Step
	// Capacity is the accelerator's memory in bytes.
	Capacity int64
	// Cost is the cost model (its zero fields take the defaults).
	Cost device.Cost
}

// The defaults of Options.
const (
	DefaultMaxOps   = 400
	DefaultMaxNodes = 300_000
	DefaultWindow   = 16
)

// flowshopMaxOps is the most ops whose trace gets the flow-shop bound
// (a critical path per op: quadratic), searched or not.
const flowshopMaxOps = 2000

// Options bound the search.
type Options struct {
	// MaxOps is the most ops the exact search takes on (DefaultMaxOps
	// when 0): a longer trace gets the lower bound and one greedy
	// schedule.
	MaxOps int
	// MaxNodes is the most search nodes (states tried) before it stops
	// with the best schedule found (DefaultMaxNodes when 0); the first
	// schedule is always completed.
	MaxNodes int
	// Window is how many ops ahead a prefetch may look (DefaultWindow
	// when 0).
	Window int
	// exhaustive turns pruning off: the brute force of the tests.
	exhaustive bool
}

func (o Options) withDefaults() Options {
	if o.MaxOps <= 0 {
		o.MaxOps = DefaultMaxOps
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	return o
}

// refInfo is a ref of the program.
type refInfo struct {
	id    uint64
	bytes int64
	// inNs and outNs are the durations of its copies in and out.
	inNs, outNs int64
	// leaf is set when no op of the trace computes it: it starts on the
	// host; prod is then -1, else the step that computes it.
	leaf bool
	prod int32
	// uses are the steps that read it (ops and host reads), ascending;
	// opUses the op steps among them.
	uses, opUses []int32
}

// opInfo is an op of the program.
type opInfo struct {
	ins     []int32
	out     int32
	inplace int
	flops   int64
	bytes   int64
	// devNs and hostNs are its durations on the accelerator and the host;
	// ws is its working set on the accelerator.
	devNs, hostNs, ws int64
}

// step is one entry of the program: an op (op >= 0) or a read or death
// of ref.
type step struct {
	kind trace.StepKind
	op   int32
	ref  int32
}

// program is a Problem indexed for the search.
type program struct {
	steps    []step
	ops      []opInfo
	refs     []refInfo
	capacity int64
	cost     device.Cost
	// tailDev is, per op, the least time from its start on the
	// accelerator to the end (tails).
	tailDev []int64
}

// compile indexes p's refs and ops and times them with the cost model.
func compile(p Problem) (*program, error) {
	cost := p.Cost.WithDefaults()
	if err := cost.Validate(); err != nil {
		return nil, err
	}
	if p.Capacity <= 0 {
		return nil, fmt.Errorf("optimal: capacity must be positive, got %d bytes", p.Capacity)
	}
	g := &program{capacity: p.Capacity, cost: cost}
	index := map[uint64]int32{}
	ref := func(u trace.Use, produced bool) int32 {
		if i, ok := index[u.Ref]; ok {
			return i
		}
		i := int32(len(g.refs))
		index[u.Ref] = i
		g.refs = append(g.refs, refInfo{id: u.Ref, bytes: u.Bytes, leaf: !produced, prod: -1,
			inNs: cost.CopyNs(u.Bytes, cost.H2D), outNs: cost.CopyNs(u.Bytes, cost.D2H)})
		return i
	}
	for k, s := range p.Steps {
		at := int32(len(g.steps))
		switch s.Kind {
		case trace.StepOp:
			o := opInfo{inplace: s.Inplace, flops: s.Cost.Flops, bytes: s.Cost.Bytes}
			for _, in := range s.Ins {
				r := ref(in, false)
				o.ins = append(o.ins, r)
				g.refs[r].uses = append(g.refs[r].uses, at)
				g.refs[r].opUses = append(g.refs[r].opUses, at)
				o.ws += in.Bytes
			}
			if _, seen := index[s.Out.Ref]; seen {
				return nil, fmt.Errorf("optimal: step %d computes ref#%d, which an earlier step used", k, s.Out.Ref)
			}
			o.out = ref(s.Out, true)
			g.refs[o.out].prod = at
			if o.inplace < 0 || o.inplace >= len(o.ins) {
				o.inplace = -1
				o.ws += s.Out.Bytes
			}
			o.devNs = cost.OpNs(o.flops, o.bytes)
			o.hostNs = cost.HostOpNs(o.flops, o.bytes)
			g.steps = append(g.steps, step{kind: trace.StepOp, op: int32(len(g.ops)), ref: -1})
			g.ops = append(g.ops, o)
		case trace.StepRead:
			r := ref(s.Out, false)
			g.refs[r].uses = append(g.refs[r].uses, at)
			g.steps = append(g.steps, step{kind: trace.StepRead, op: -1, ref: r})
		case trace.StepDeath:
			r, ok := index[s.Out.Ref]
			if !ok {
				continue // never used by a logged step
			}
			g.steps = append(g.steps, step{kind: trace.StepDeath, op: -1, ref: r})
		default:
			return nil, fmt.Errorf("optimal: step %d has unknown kind %d", k, s.Kind)
		}
	}
	g.tails()
	return g, nil
}

// nextUse is the first step after step i that reads r, or -1.
func (g *program) nextUse(r int32, i int32) int32 {
	u := g.refs[r].uses
	k := sort.Search(len(u), func(k int) bool { return u[k] > i })
	if k == len(u) {
		return -1
	}
	return u[k]
}

// opUsesFrom counts the op steps at or after step i that read r.
func (g *program) opUsesFrom(r int32, i int32) int {
	u := g.refs[r].opUses
	return len(u) - sort.Search(len(u), func(k int) bool { return u[k] >= i })
}

// The step kinds, short.
const (
	stepOp    = trace.StepOp
	stepRead  = trace.StepRead
	stepDeath = trace.StepDeath
)
