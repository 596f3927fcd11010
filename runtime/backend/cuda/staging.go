package cuda

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/refs"
)

// staging is a pinned host buffer the copies go through, busy until the
// event of the last copy that used it completes.
type staging struct {
	buf []byte
	// registered: buf is Go memory pinned by HostRegister, not HostAlloc's.
	registered bool
	busy       Event // 0: idle
	// job is the worker's memcpy into buf whose copy is not issued yet
	// (see stager.go): buf is reserved until then.
	job *stageJob
}

// stagingPool holds pinned buffers of exact sizes, at most limit bytes
// together (one larger tensor may take a buffer of its own once every
// other is freed). Pinned memory is scarce and slow to allocate: buffers
// are kept for reuse, and reused only after their copy completed.
type stagingPool struct {
	rt     Runtime
	events *eventPool
	// host, when set, counts the buffers against the host limit: a
	// buffer that would pass it is refused before it is allocated.
	host *refs.HostPool
	// issue issues the copies waiting for the worker up to a job (the
	// plane's issueStaged), for a reserved buffer to be waited for.
	issue func(*stageJob) error
	// register makes buffers of Go memory pinned by HostRegister rather
	// than with HostAlloc (Config.StagingRegister).
	register bool
	// inside is set while get or tryGet runs: the host pool's Reserve
	// may drop cached blocks then, calling the plane's Releasing hook,
	// which must not use the pool again (settleReading).
	inside bool
	limit  int64
	bytes  int64
	peak   int64
	all    []*staging // oldest first
}

// get returns an idle buffer of n bytes, waiting for a busy one's copy
// when the pool is full.
func (p *stagingPool) get(n int64) (*staging, error) {
	defer p.enter()()
	for {
		if s, err := p.idleOfSize(n); s != nil || err != nil {
			return s, err
		}
		if p.bytes+n <= p.limit || len(p.all) == 0 {
			s, refused, err := p.add(n)
			if refused != nil && len(p.all) > 0 {
				// Make room by freeing the oldest idle-able buffer.
				if err := p.free(p.all[0]); err != nil {
					return nil, err
				}
				continue
			}
			if refused != nil {
				return nil, fmt.Errorf("pinned staging memory of %s: %w", refs.FormatBytes(n), refused)
			}
			return s, err
		}
		// Full: wait for the oldest buffer, then reuse it if it has
		// the size, else free it to make room.
		s := p.all[0]
		if int64(len(s.buf)) != n {
			if err := p.free(s); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := p.idle(s, true); err != nil {
			return nil, err
		}
		return s, nil
	}
}

// add allocates a buffer of n bytes into the pool; refused is the host
// pool's refusal to count n more bytes (nothing allocated then).
func (p *stagingPool) add(n int64) (s *staging, refused, err error) {
	if p.host != nil {
		if err := p.host.Reserve(n); err != nil {
			return nil, err, nil
		}
	}
	s, err = p.alloc(n)
	if err != nil {
		if p.host != nil {
			p.host.Unreserve(n)
		}
		return nil, nil, fmt.Errorf("pinned staging memory of %d bytes: %w", n, err)
	}
	p.all = append(p.all, s)
	p.bytes += n
	p.peak = max(p.peak, p.bytes)
	return s, nil, nil
}

// alloc makes a buffer of n bytes: Go memory pinned in place when the
// pool registers (HostAlloc when HostRegister refuses it), else
// HostAlloc's.
func (p *stagingPool) alloc(n int64) (*staging, error) {
	if p.register {
		b := make([]byte, n)
		if err := p.rt.HostRegister(b); err == nil {
			return &staging{buf: b, registered: true}, nil
		}
	}
	b, err := p.rt.HostAlloc(n)
	if err != nil {
		return nil, err
	}
	return &staging{buf: b}, nil
}

// tryGet is get without waiting: an idle buffer of n bytes, a new one
// within the limit (freeing idle buffers of other sizes to make room),
// or nil when every buffer is busy or the host pool has no room.
func (p *stagingPool) tryGet(n int64) (*staging, error) {
	defer p.enter()()
	if s, err := p.idleOfSize(n); s != nil || err != nil {
		return s, err
	}
	for p.bytes+n > p.limit && len(p.all) > 0 {
		// Room from the idle buffers of other sizes, oldest first.
		var victim *staging
		for _, s := range p.all {
			if int64(len(s.buf)) == n {
				continue
			}
			done, err := p.idle(s, false)
			if err != nil {
				return nil, err
			}
			if done {
				victim = s
				break
			}
		}
		if victim == nil {
			return nil, nil
		}
		if err := p.drop(victim); err != nil {
			return nil, err
		}
	}
	s, refused, err := p.add(n)
	if refused != nil {
		return nil, nil
	}
	return s, err
}

// idleOfSize is an idle buffer of n bytes, nil when none is.
func (p *stagingPool) idleOfSize(n int64) (*staging, error) {
	for _, s := range p.all {
		if int64(len(s.buf)) != n {
			continue
		}
		if done, err := p.idle(s, false); err != nil {
			return nil, err
		} else if done {
			return s, nil
		}
	}
	return nil, nil
}

// enter marks the pool in use until the function it returns runs.
func (p *stagingPool) enter() func() {
	was := p.inside
	p.inside = true
	return func() { p.inside = was }
}

// free waits for s's copies and frees it. Waiting may issue the worker's
// copy into s, which moves s in p.all (use): s is found again after.
func (p *stagingPool) free(s *staging) error {
	if _, err := p.idle(s, true); err != nil {
		return err
	}
	return p.drop(s)
}

// idle reports whether s's last copy completed, waiting for it if wait.
func (p *stagingPool) idle(s *staging, wait bool) (bool, error) {
	if s.job != nil {
		if !wait {
			return false, nil
		}
		if err := p.issue(s.job); err != nil {
			return false, err
		}
	}
	if s.busy == 0 {
		return true, nil
	}
	if wait {
		if err := p.rt.EventSynchronize(s.busy); err != nil {
			return false, err
		}
	} else if done, err := p.rt.EventQuery(s.busy); err != nil || !done {
		return false, err
	}
	p.events.put(s.busy)
	s.busy = 0
	return true, nil
}

// use marks s busy until e (which the pool now owns) completes.
func (p *stagingPool) use(s *staging, e Event) {
	p.events.put(s.busy)
	s.busy = e
	// Most recently used last: the oldest is the first to wait for.
	for i, t := range p.all {
		if t == s {
			copy(p.all[i:], p.all[i+1:])
			p.all[len(p.all)-1] = s
			break
		}
	}
}

// drop frees s, idle.
func (p *stagingPool) drop(s *staging) error {
	if !p.forget(s) {
		return fmt.Errorf("staging pool: freeing a buffer it does not hold")
	}
	if s.registered {
		return p.rt.HostUnregister(s.buf)
	}
	return p.rt.FreeHost(s.buf)
}

// close waits for every copy and frees every buffer.
func (p *stagingPool) close() error {
	var first error
	for len(p.all) > 0 {
		s := p.all[0]
		if err := p.free(s); err != nil {
			if first == nil {
				first = err
			}
			// Not known to be idle: leave its memory allocated rather
			// than free what a copy may still use.
			p.forget(s)
		}
	}
	return first
}

// forget takes s out of the pool and its count, without freeing its
// memory; false when the pool does not hold s.
func (p *stagingPool) forget(s *staging) bool {
	i := slices.Index(p.all, s)
	if i < 0 {
		return false
	}
	p.all = slices.Delete(p.all, i, i+1)
	p.bytes -= int64(len(s.buf))
	if p.host != nil {
		p.host.Unreserve(int64(len(s.buf)))
	}
	return true
}

// BindHost counts the plane's pinned staging buffers against p's limit
// and pins p's blocks in place as they are copied again (see pinning.go;
// refs.HostBinder): the runtime hands its host pool over when it starts.
func (d *Plane) BindHost(p *refs.HostPool) {
	d.staging.host = p
	d.bindPins(p, d.cfg.Pinned)
}
