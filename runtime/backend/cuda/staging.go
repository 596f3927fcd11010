package cuda

import (
	"fmt"
	"runtime"
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
	// than with HostAlloc (the default; Config.StagingHostAlloc).
	register bool
	// inside is set while get or tryGet runs: the host pool's Reserve
	// may drop cached blocks then, calling the plane's Releasing hook,
	// which must not use the pool again (settleReading).
	inside bool
	limit  int64
	bytes  int64
	peak   int64
	all    []*staging // oldest first
	// coming is the buffers being allocated off the engine's thread
	// (grow), in the order asked for; their bytes count in bytes.
	coming []*arrival
	// setup runs first on each thread that allocates off the engine's
	// (the plane makes its device current there).
	setup func() error
	// grown counts the buffers allocated off the engine's thread.
	grown int64
}

// arrival is a staging buffer being allocated off the engine's thread.
type arrival struct {
	n    int64
	done chan struct{} // closed once s or err is set
	s    *staging
	err  error
	// ahead: allocated before anything asked for it (prealloc); its
	// failure is not an error (the pool allocates on demand instead).
	ahead bool
}

// Pinned memory is slow to allocate (cudaHostAlloc pinned 2.9 GB/s on
// the H200 machine: 22 ms for a 64 MiB pool, inside the first copies of
// a run whose weights took 65 ms to copy in), and it is allocated while
// the copies wait for it. So the pool allocates off the engine's thread:
// a bound plane asks at once for a part of the pool in chunk-sized
// buffers (prealloc), which arrive while the host builds or loads the
// model, and a copy that finds no idle buffer of its size but room for
// one (tryGet) asks for it and waits in the pending line (stager.go)
// rather than on the allocation, as PyTorch's pinned-memory thread
// allocates while the model runs. A buffer being allocated counts
// against the pool's limit and the host's from the moment it is asked
// for; get, which must return a buffer, waits for one of its size that
// is coming, and allocates on the engine's thread otherwise.

// DefaultPrealloc is how many chunk-sized buffers a pool of staging
// bytes allocates ahead when the caller states none: the whole pool (the
// default's four), at least one, at most eight. Half the pool ahead left
// the first copies of the H200 machine's 1 GiB of weights waiting for
// the other half's allocation: 65 ms against 60 with the whole pool
// (bench/RESULTS.md, session 17). Buffers for tensors smaller than a
// chunk take the room of idle chunk-sized ones (tryGet).
func DefaultPrealloc(staging, chunk int64) int {
	return int(min(max(staging/chunk, 1), 8))
}

// grow asks for a buffer of n bytes off the engine's thread; refused is
// the host pool's refusal to count n more bytes (nothing asked for then).
func (p *stagingPool) grow(n int64, ahead bool) (refused error) {
	if p.host != nil {
		if err := p.host.Reserve(n); err != nil {
			return err
		}
	}
	a := &arrival{n: n, done: make(chan struct{}), ahead: ahead}
	p.coming = append(p.coming, a)
	p.bytes += n
	p.peak = max(p.peak, p.bytes)
	go p.allocate(a)
	return nil
}

// allocate allocates a's buffer on its own goroutine, after setup (the
// plane's device made current on the goroutine's thread, for cuda:N with
// N > 0), then closes a.done.
func (p *stagingPool) allocate(a *arrival) {
	defer close(a.done)
	if a.err = onOwnThread(p.setup); a.err != nil {
		return
	}
	a.s, a.err = p.alloc(a.n)
}

// onOwnThread prepares a goroutine of the plane's own for CUDA calls:
// with setup (the plane's device made current), it locks the goroutine
// to its thread and runs setup there. The device set stays with that
// thread, which exits with the goroutine.
func onOwnThread(setup func() error) error {
	if setup == nil {
		return nil
	}
	runtime.LockOSThread()
	return setup()
}

// prealloc asks for k buffers of n bytes ahead of any copy, as many as
// the pool's limit allows and a quarter of the room the host limit
// leaves (memory asked for before anything needs it should not take
// the host's room for tensors).
func (p *stagingPool) prealloc(k int, n int64) {
	room := int64(-1)
	if p.host != nil {
		room = p.host.KeptRoom()
	}
	for i := range int64(k) {
		if n <= 0 || p.bytes+n > p.limit || room >= 0 && (i+1)*n > room/4 || p.grow(n, true) != nil {
			return
		}
	}
}

// arrive takes the buffers allocated off the engine's thread into the
// pool, idle and first in line to be reused or freed; it waits for want
// (nil: none) and, with all, for every one. A failed allocation gives its
// bytes back; its error is returned when something waited for it or
// asked for it on demand.
func (p *stagingPool) arrive(want *arrival, all bool) error {
	var first error
	p.coming = slices.DeleteFunc(p.coming, func(a *arrival) bool {
		if a == want || all {
			<-a.done
		} else {
			select {
			case <-a.done:
			default:
				return false
			}
		}
		if a.err != nil {
			p.bytes -= a.n
			if p.host != nil {
				p.host.Unreserve(a.n)
			}
			if (a == want || !a.ahead) && first == nil {
				first = fmt.Errorf("pinned staging memory of %d bytes: %w", a.n, a.err)
			}
			return true
		}
		p.grown++
		p.all = slices.Insert(p.all, 0, a.s)
		return true
	})
	return first
}

// comingOfSize is a buffer of n bytes being allocated, nil when none is.
func (p *stagingPool) comingOfSize(n int64) *arrival {
	for _, a := range p.coming {
		if a.n == n {
			return a
		}
	}
	return nil
}

// get returns an idle buffer of n bytes, waiting for a busy one's copy
// when the pool is full, or for one being allocated.
func (p *stagingPool) get(n int64) (*staging, error) {
	defer p.enter()()
	for {
		if err := p.arrive(nil, false); err != nil {
			return nil, err
		}
		if s, err := p.idleOfSize(n); s != nil || err != nil {
			return s, err
		}
		if a := p.comingOfSize(n); a != nil {
			if err := p.arrive(a, false); err != nil {
				return nil, err
			}
			continue
		}
		if len(p.all) == 0 && len(p.coming) > 0 && p.bytes+n > p.limit {
			// The room is the coming buffers': take them in to free.
			if err := p.arrive(nil, true); err != nil {
				return nil, err
			}
			continue
		}
		if p.bytes+n <= p.limit || len(p.all) == 0 {
			s, refused, err := p.add(n)
			if refused == nil {
				return s, err
			}
			// Refused by the host pool: make room by freeing the oldest
			// idle-able buffer, or the coming ones once they arrive.
			switch {
			case len(p.all) > 0:
				err = p.free(p.all[0])
			case len(p.coming) > 0:
				err = p.arrive(nil, true)
			default:
				return nil, fmt.Errorf("pinned staging memory of %s: %w", refs.FormatBytes(n), refused)
			}
			if err != nil {
				return nil, err
			}
			continue
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

// tryGet is get without waiting: an idle buffer of n bytes, or nil when
// none is. It then asks for one to be allocated off the engine's thread
// (grow) if none of that size is coming and there is room for it,
// freeing idle buffers of other sizes to make it; nil too when every
// buffer is busy or the host pool has no room.
func (p *stagingPool) tryGet(n int64) (*staging, error) {
	defer p.enter()()
	if err := p.arrive(nil, false); err != nil {
		return nil, err
	}
	if s, err := p.idleOfSize(n); s != nil || err != nil {
		return s, err
	}
	if p.comingOfSize(n) != nil {
		return nil, nil
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
	if p.bytes+n > p.limit && len(p.coming) > 0 {
		// The room is the coming buffers': wait in line for them.
		return nil, nil
	}
	// Ask for it (refused by the host pool, nothing is asked for: the
	// chunk waits in line for room all the same).
	_ = p.grow(n, false)
	return nil, nil
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
	first := p.arrive(nil, true)
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

// BindHost counts the plane's pinned staging buffers against p's limit,
// starts allocating them (Config.Prealloc) and pins p's blocks in place
// as they are copied again (see pinning.go; refs.HostBinder): the
// runtime hands its host pool over when it starts.
func (d *Plane) BindHost(p *refs.HostPool) {
	d.staging.host = p
	d.bindPins(p, d.cfg.Pinned)
	k := d.cfg.Prealloc
	if k == 0 {
		k = DefaultPrealloc(d.cfg.Staging, d.cfg.Chunk)
	}
	d.staging.prealloc(k, d.cfg.Chunk)
}
