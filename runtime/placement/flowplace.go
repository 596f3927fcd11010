package placement

import (
	"slices"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
)

// OnDevice decides where op runs, by cost. An op whose operands are all
// on the accelerator runs there. One with an operand on the host runs on
// the host when that costs less than moving: on the accelerator it costs
// its kernel, the copies in of its operands on the host that die at op,
// or that are read again but would be evicted before that read (Belady's
// policy: the refs the window needs until then leave no room for them),
// so that the copy serves op alone (one that stays is not charged: its
// copy would be made anyway), and the result's copy back when its next
// reader runs on the host, or its write-back when it would be evicted
// while alive: before its next read in the window, or at any time when
// the script holds it beyond the window and the window's refs do not fit
// with it. On the host it costs the host's kernel, the copies back of
// the operands only the accelerator holds, and the result's copy in for
// its next read when that reader runs on the accelerator and the result
// would have stayed there until then. Whether the next reader runs on the
// host is the same question asked of it (one op ahead), so that a chain
// of ops over weights streamed through too small a memory moves to the
// host together. Only an op whose bytes moved in vain are bandwidth-bound
// goes (see bandwidthBound). Only where the host's kernels give the
// device's results bit for bit (sim; v.HostExact) does an op move: on
// torch and CUDA the output would depend on the budget.
func (f *flow) OnDevice(v *View, op *refs.Op) bool { return !f.hostWins(v, op, 0) }

// hostWins reports whether op, the current op (from 0) or the window's
// op before index from, runs on the host: at least one of its operands
// is on the host only (see hostOperands), and running it there costs
// less (see OnDevice). The prefetch scan asks it too, and brings no
// operand of such an op.
func (f *flow) hostWins(v *View, op *refs.Op, from int) bool {
	if !v.HostExact() || !f.hostOperands(v, op, nil, from) {
		return false
	}
	return f.hostCheaper(v, op, from, true)
}

// hostOperands reports whether at least one of op's operands (skip,
// which the caller assumes computed on the host, counts) is on the host
// only. For the current op (from 0) every operand is computed; for a
// window op, one that an op of the window computes is on the host when
// the prefetch scan left that op there (hostOuts), else on the
// accelerator (hostCheaper charges its copy back).
func (f *flow) hostOperands(v *View, op *refs.Op, skip *refs.Ref, from int) bool {
	host := skip != nil
	for _, in := range op.Inputs {
		switch {
		case in == skip:
		case in.State() != refs.Ready:
			if from == 0 {
				return false // failed
			}
			// Computed by an op of the window: on the host when the
			// scan left that op there, else on the accelerator.
			host = host || slices.Contains(f.hostOuts, in)
		default:
			if s := v.State(in); s == nil || !s.Resident() {
				host = true
			}
		}
	}
	return host
}

// readerOnHost reports whether the window's op of sequence next, which
// reads op's result, would run on the host if that result were computed
// there: its other operands are computed, at least one is on the host,
// and running it there costs less (without looking further ahead), or it
// falls back.
func (f *flow) readerOnHost(v *View, op *refs.Op, next uint64) bool {
	win := v.Window()
	if len(win) == 0 || next < win[0].Seq || next-win[0].Seq >= uint64(len(win)) {
		return false
	}
	k := int(next - win[0].Seq)
	r := win[k]
	if r.Seq != next || r.Cancelled() {
		return false
	}
	if _, ws := v.Cum(r); ws > v.Capacity() {
		return true // it falls back
	}
	return f.hostOperands(v, r, op.Out, k+1) && f.hostCheaper(v, r, k+1, false)
}

// hostCheaper is hostWins's comparison of costs, for an op whose
// operands are all computed (see hostOperands); look says whether to ask
// where the result's next reader runs (readerOnHost).
func (f *flow) hostCheaper(v *View, op *refs.Op, from int, look bool) bool {
	var buf [4]*refs.Ref
	ins := opInputs(op, buf[:])
	p := v.Cost()
	// moved is the bytes the accelerator's side copies in for op alone:
	// the operands on the host that die at op; those read again (again,
	// their bytes) count when they would be evicted before that read
	// (copiedAgain); and below the result's write-back when it is
	// evicted while alive. back is what the host's side waits for the
	// operands only the accelerator holds.
	var moved, again, inBytes, back int64
	copies, agains := 0, 0
	for _, in := range ins {
		s := v.State(in)
		var b int64
		if s != nil {
			b = s.Bytes()
		} else {
			b = in.Bytes()
		}
		inBytes += b
		switch {
		case in.State() != refs.Ready && !slices.Contains(f.hostOuts, in):
			back += p.CopyNs(b, p.D2H) // to be computed on the accelerator
		case s != nil && s.Resident():
			if s.Dirty() {
				back += p.CopyNs(b, p.D2H)
			}
		case in.Count() == 1:
			moved += b
			copies++
		case s != nil:
			again += b
			agains++
		}
	}
	out := v.State(op.Out)
	var outBytes int64
	if out != nil {
		outBytes = out.Bytes()
	} else {
		outBytes = op.Out.Bytes()
	}
	devNs := v.EstNs(op)
	if devNs == 0 {
		devNs = p.OpNs(v.Flops(op), inBytes+outBytes)
	}
	hostNs := p.HostOpNs(v.Flops(op), inBytes+outBytes) + back
	if hostNs >= devNs+copyNs(p, moved+again, copies+agains)+p.CopyNs(outBytes, p.D2H) {
		return false // the device wins even if it copies every operand and its result back
	}
	if agains > 0 {
		for _, in := range ins {
			if s := v.State(in); s != nil && !s.Resident() && in.Count() != 1 && f.copiedAgain(v, s, s.Bytes(), op, from) {
				moved += s.Bytes()
				copies++
			}
		}
	}
	if !bandwidthBound(p, moved+outBytes) {
		return false // even with its result's write-back
	}
	devNs += copyNs(p, moved, copies)
	if hostNs >= devNs+p.CopyNs(outBytes, p.D2H) {
		return false // the device wins even if its result goes back
	}
	next, predicted, uses := NoUse, false, 0
	if out != nil {
		next, predicted = v.NextKey(out)
		if from > 0 {
			next = v.NextKeyAfter(out, op.Seq)
			predicted = next > v.WindowEnd()
		}
		for _, u := range v.Uses(out) {
			if !u.Cancelled() && u.Seq > op.Seq {
				uses++
			}
		}
	}
	stays := next != NoUse && !predicted && f.staysUntil(v, outBytes, next, from)
	switch {
	case uses > 0 && look && f.readerOnHost(v, op, next):
		// Its reader runs on the host: it copies the result back from
		// the accelerator, which holds no dirty copy afterwards.
		devNs += p.CopyNs(outBytes, p.D2H)
		moved += outBytes
	case stays:
		hostNs += p.CopyNs(outBytes, p.H2D) // its read would find it there
		fallthrough
	default:
		devNs, moved = f.writeBack(v, op, outBytes, uses, stays, from, devNs, moved)
	}
	return hostNs < devNs && bandwidthBound(p, moved)
}

// writeBack adds to devNs and moved the write-back of op's result
// (outBytes, read by uses ops of the window) when it would be evicted
// while alive on the accelerator.
func (f *flow) writeBack(v *View, op *refs.Op, outBytes int64, uses int, stays bool, from int, devNs, moved int64) (int64, int64) {
	p := v.Cost()
	switch {
	case int(op.Out.Count()) > uses:
		// The script holds it beyond the window: on the accelerator it
		// is written back when evicted, unless everything the window
		// holds fits with it.
		if !f.staysUntil(v, outBytes, v.WindowEnd()+1, from) {
			devNs += p.CopyNs(outBytes, p.D2H)
			moved += outBytes
		}
	case uses > 0 && !stays:
		devNs += p.CopyNs(outBytes, p.D2H) // evicted before its read
		moved += outBytes
	}
	return devNs, moved
}

// copyNs is the time of n copies of bytes in all to the accelerator, a
// latency each.
func copyNs(p device.Cost, bytes int64, n int) int64 {
	if n == 0 {
		return 0
	}
	return p.CopyNs(bytes, p.H2D) + int64(n-1)*p.LatencyNs
}

// bandwidthBound reports whether moving n bytes takes the link longer
// than a copy's latency. Below that an op's costs on either side are
// mostly the model's fixed latencies, and the op stays on the
// accelerator, where the script's later ops (beyond the window) most
// likely read its result.
func bandwidthBound(p device.Cost, n int64) bool {
	return p.CopyNs(n, p.H2D) >= 2*p.LatencyNs
}

// staysUntil reports whether a result of size bytes, computed by the
// current op (from 0) or the window's op before index from, would stay on
// the accelerator until the window's op of sequence next reads it:
// whether, with it, the most memory that the refs the window's ops from
// index from up to next read or compute hold at once fits the capacity.
// A ref counts from its first read there (its op for a result, the start
// for one that is resident or read before) to its last read before next;
// the others, read later than the result or never, are the ones Belady's
// policy evicts before it.
func (f *flow) staysUntil(v *View, bytes int64, next uint64, from int) bool {
	win := v.Window()[from:]
	if len(win) == 0 || next <= win[0].Seq {
		return true
	}
	k := int(next - win[0].Seq) // the reads before next are win[:k]
	if k > len(win) {
		k = len(win)
	}
	live := resize(f.live, k+1)
	f.live = live
	first := win[0].Seq
	var buf [4]*refs.Ref
	for j, o := range win[:k] {
		if o.Cancelled() {
			continue
		}
		for _, in := range opInputs(o, buf[:]) {
			s := v.State(in)
			if s == nil || in.State() != refs.Ready {
				continue // computed in the window: counted from its op
			}
			uses := v.Uses(s)
			if firstRead(uses, first) != o {
				continue // counted at its first read from the start
			}
			at := j
			if s.Resident() || uses[0].Seq < first {
				at = 0 // it holds its memory already, or will
			}
			live[at] += s.Bytes()
			live[lastBefore(uses, next, first, j)+1] -= s.Bytes()
		}
		if s := v.State(o.Out); s != nil {
			live[j] += s.Bytes()
			live[lastBefore(v.Uses(s), next, first, j)+1] -= s.Bytes()
		}
	}
	var run, top int64
	for _, d := range live[:k] {
		run += d
		top = max(top, run)
	}
	return top+bytes <= v.Capacity()
}

// firstRead is the first of uses (in order) that is not cancelled and
// reads at or after the op of sequence first, nil when none does.
func firstRead(uses []*refs.Op, first uint64) *refs.Op {
	for _, u := range uses {
		if !u.Cancelled() && u.Seq >= first {
			return u
		}
	}
	return nil
}

// lastBefore is the window index (the window's first op has sequence
// first) of the last of uses before the op of sequence next, at least j.
func lastBefore(uses []*refs.Op, next, first uint64, j int) int {
	last := j
	for _, u := range uses {
		if u.Seq >= next {
			break
		}
		if !u.Cancelled() && u.Seq >= first {
			last = max(last, int(u.Seq-first))
		}
	}
	return last
}

// copiedAgain reports whether s (bytes), an operand of op (the current
// op, or the window's op before index from) that is read again after
// op, would be evicted before that read, so that its copy in for op
// serves op alone: the refs the window needs until that read (until the
// window's end when it lies beyond) leave it no room.
func (f *flow) copiedAgain(v *View, s *RefState, bytes int64, op *refs.Op, from int) bool {
	next := v.NextKeyAfter(s, op.Seq)
	if next == NoUse {
		return false // its copy may serve the script's later ops
	}
	return !f.staysUntil(v, bytes, min(next, v.WindowEnd()+1), from)
}
