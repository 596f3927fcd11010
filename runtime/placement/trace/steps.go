package trace

// OpCost is what an op costs the cost model: its compute work (0 for
// memory-bound ops) and the bytes it reads and writes, a repeated operand
// counted each time (device.Cost.OpNs and HostOpNs).
type OpCost struct {
	Flops, Bytes int64
}

// StepKind says what a Step is.
type StepKind uint8

const (
	// StepOp is an executed op.
	StepOp StepKind = iota
	// StepRead is the host reading a ref (printing it, a host-side use):
	// it needs a valid host copy.
	StepRead
	// StepDeath is a ref dying: its copies are freed everywhere.
	StepDeath
)

// Step is one entry of the op log, in program order: what the offline
// optimum (package optimal) schedules. An op has its distinct inputs, its
// result, the index in Ins of a dying input whose buffer the result may
// take over (-1 for none) and its cost; a read or a death has its ref in
// Out.
type Step struct {
	Kind    StepKind
	Ins     []Use
	Out     Use
	Inplace int
	Cost    OpCost
}

// steps lists the log's entries as Steps, leaving out the reads that host
// ops made of their own operands (an op's step implies them when it runs
// on the host).
func (l *opLog) steps() []Step {
	out := make([]Step, 0, len(l.entries))
	op := 0
	for _, e := range l.entries {
		switch e.kind {
		case entryOp:
			out = append(out, Step{Kind: StepOp, Ins: l.uses[e.first : e.first+e.n : e.first+e.n],
				Out: l.uses[e.first+e.n], Inplace: int(e.inplace), Cost: l.costs[op]})
			op++
		case entryRead:
			out = append(out, Step{Kind: StepRead, Out: l.uses[e.first], Inplace: -1})
		case entryDeath:
			out = append(out, Step{Kind: StepDeath, Out: l.uses[e.first], Inplace: -1})
		}
	}
	return out
}
