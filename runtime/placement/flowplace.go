package placement

import (
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
)

// OnDevice decides where op runs, by cost. An op with an operand on the
// accelerator runs there. One whose operands are all on the host runs on
// the host when that costs less than moving: on the accelerator it costs
// its kernel, the copies in of its operands that die at op (one read
// later would be copied anyway), and the result's write-back
// when it would be evicted while alive: before its next read in the
// window (the refs the window needs before that read leave it no room:
// Belady's policy would evict it first), or at any time when the script
// holds it beyond the window and the window's refs do not fit with it.
// On the host it costs the host's kernel, and the result's copy in for
// its next read when it would have stayed until then. Only an op whose
// bytes moved in vain are bandwidth-bound goes (see bandwidthBound). The
// host is the cpu backend on every device, so the output is the same
// wherever the op runs.
func (f *flow) OnDevice(v *View, op *refs.Op) bool { return !f.hostWins(v, op, 0) }

// hostWins reports whether op, the current op (from 0) or the window's
// op before index from, runs on the host: its operands are all computed
// and on the host only, and running it there costs less (see OnDevice).
// The prefetch scan asks it too, and brings no operand of such an op.
func (f *flow) hostWins(v *View, op *refs.Op, from int) bool {
	for _, in := range op.Inputs {
		if in.State() != refs.Ready {
			return false // computed by an op of the window
		}
		if s := v.State(in); s != nil && s.Resident() {
			return false
		}
	}
	return f.hostCheaper(v, op, from)
}

// hostCheaper is hostWins for an op whose operands are all on the host
// only.
func (f *flow) hostCheaper(v *View, op *refs.Op, from int) bool {
	var buf [4]*refs.Ref
	ins := opInputs(op, buf[:])
	// moved is the bytes the accelerator's side moves for op alone: the
	// operands that die at op (the copy of one read later is not
	// charged: it would be made anyway), and below the result's
	// write-back when it is evicted while alive.
	var moved, inBytes int64
	for _, in := range ins {
		s := v.State(in)
		var b int64
		if s != nil {
			b = s.Bytes()
		} else {
			b = in.Bytes()
		}
		inBytes += b
		if in.Count() == 1 {
			moved += b
		}
	}
	out := v.State(op.Out)
	var outBytes int64
	if out != nil {
		outBytes = out.Bytes()
	} else {
		outBytes = op.Out.Bytes()
	}
	p := v.Cost()
	if !bandwidthBound(p, moved+outBytes) {
		return false // even with its result's write-back
	}
	devNs := v.EstNs(op)
	if devNs == 0 {
		devNs = p.OpNs(v.Flops(op), inBytes+outBytes)
	}
	devNs += p.CopyNs(moved, p.H2D) - p.LatencyNs
	for _, in := range ins {
		if in.Count() == 1 {
			devNs += p.LatencyNs // a copy each
		}
	}
	hostNs := p.HostOpNs(v.Flops(op), inBytes+outBytes)
	if hostNs >= devNs {
		return false // the device wins even if its result stays
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
	if stays {
		hostNs += p.CopyNs(outBytes, p.H2D) // its read would find it there
	}
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
	return hostNs < devNs && bandwidthBound(p, moved)
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
