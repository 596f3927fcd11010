package placement

import "github.com/tref-lang/tref/runtime/refs"

// keyCache keeps NextKey's memo valid from one step to the next, so that
// the victim search reads most resident refs' next-use keys without
// recomputing them. A ref's key changes only when
//
//   - the op that reads it next runs: Execute forgets the keys of the
//     current op's inputs;
//   - an op that reads it enters the window: absorb forgets its key;
//   - the forecast observes a read of it: observe forgets its key;
//   - the window's end reaches its predicted use (a prediction inside the
//     window is dropped, see NextKey): a memo of a predicted key records
//     that position, checked at every lookup;
//   - an op of the window is cancelled (its result died: Drop) or skipped
//     (an input failed: a gap in the sequence numbers Execute sees). Both
//     are rare, so they start a new epoch, which forgets every memo.
//
// Outside Execute (no current op, no window) keys are computed afresh and
// not memoized.
type keyCache struct {
	// epoch is the memos' generation, from 1 once an op has run; a memo
	// of another epoch is stale.
	epoch uint64
	// end is the window's end during Execute, NoUse outside (so that
	// every lookup misses).
	end uint64
	// last is the sequence number of the last op executed.
	last uint64
}

// begin starts the step of op, whose window ends at end, and reports
// whether that starts a new epoch.
func (k *keyCache) begin(op *refs.Op, end uint64) bool {
	skipped := k.epoch == 0 || op.Seq != k.last+1
	if skipped {
		k.epoch++ // ops were skipped (or a new stream began)
	}
	k.last, k.end = op.Seq, end
	return skipped
}

// finish ends a step.
func (k *keyCache) finish() { k.end = NoUse }

// forgetAll drops every memo.
func (k *keyCache) forgetAll() { k.epoch++ }

// forgetKey drops s's memo.
func forgetKey(s *RefState) { s.keyEpoch = 0 }

// keyLimit is the window end at which a memoized key stops being valid:
// a predicted key once the window reaches it, the others never (within
// their epoch).
func keyLimit(key uint64, predicted bool) uint64 {
	if predicted {
		return key
	}
	return NoUse
}
