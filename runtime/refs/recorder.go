package refs

// Recorder sees every op as it is submitted, before it can run: the
// autograd tape (runtime/autograd) records the ops it will differentiate.
// Submitted may Retain the op's inputs or result to keep them alive past
// the op; it must not submit ops itself.
type Recorder interface {
	Submitted(op *Op)
}

// SetRecorder installs r (nil removes it) and returns the recorder it
// replaces, so that a caller can pause recording and restore it.
func (rt *Runtime) SetRecorder(r Recorder) (prev Recorder) {
	prev, rt.rec = rt.rec, r
	return prev
}

// Recorder is the installed recorder, or nil.
func (rt *Runtime) Recorder() Recorder { return rt.rec }
