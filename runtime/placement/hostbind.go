package placement

import "github.com/tref-lang/tref/runtime/refs"

// BindHost hands the runtime's host pool to the device when it allocates
// host memory of its own (the CUDA plane's pinned staging buffers), so
// that memory counts against the host limit.
func (e *Engine) BindHost(p *refs.HostPool) {
	if b, ok := e.dev.(refs.HostBinder); ok {
		b.BindHost(p)
	}
}
