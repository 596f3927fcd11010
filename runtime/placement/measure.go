package placement

import "github.com/tref-lang/tref/runtime/device"

// measure turns the device's measuring of its work on while a recorder
// traces (device.Measurer: the CUDA plane's events), off otherwise, and
// has the recorder hold the events of that work until it is measured.
func (e *Engine) measure() error {
	m, ok := e.dev.(device.Measurer)
	if !ok {
		return nil
	}
	if e.rec != nil {
		e.rec.SetMeasure(func(work uint64) (int64, int64, bool) {
			s, ok := m.Measured(work)
			return s.Start, s.Dur(), ok
		})
	}
	return m.Measure(e.rec != nil)
}

// resolveMeasured sends on the trace events held for work the device
// has measured (after a Sync: all of it).
func (e *Engine) resolveMeasured() {
	if e.rec != nil {
		e.rec.Resolve()
	}
}
