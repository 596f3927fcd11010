package device

import "fmt"

// timeline accounts device memory over virtual time. The placement engine
// decides in program order (issue order), but a buffer freed at issue time
// is only released when its last reader or copy finishes, and a buffer is
// allocated at some virtual time that may lie in the future of the
// streams. The timeline keeps usage as a step function and places every
// allocation at the earliest time from which it fits for good, so that
// usage never exceeds the capacity at any virtual time.
type timeline struct {
	capacity int64
	// base is the usage at every time up to floor; ev holds the changes
	// after floor, sorted by time.
	base  int64
	floor int64
	ev    []memEvent
	// live is usage once every recorded event has happened: the bytes
	// allocated and not freed, in issue order.
	live int64
	peak int64
	// scratch holds suffix maxima between calls, to avoid garbage.
	scratch []int64
}

type memEvent struct {
	t     int64
	delta int64
}

// alloc places n bytes from the earliest time >= earliest at which usage
// plus n stays within capacity from then on, and returns that time. It
// fails when even the issue-order usage leaves no room: the caller must
// free (evict) first.
func (m *timeline) alloc(n, earliest int64) (int64, error) {
	if m.live+n > m.capacity {
		return 0, fmt.Errorf("device: allocating %d bytes with %d of %d in use", n, m.live, m.capacity)
	}
	earliest = max(earliest, m.floor)
	// usage after the first k events is u[k]; the start at index k is the
	// time of event k-1 (or earliest for the first candidate).
	k0 := 0
	for k0 < len(m.ev) && m.ev[k0].t <= earliest {
		k0++
	}
	// suffix maxima of usage from each candidate index.
	u := m.base
	for _, e := range m.ev[:k0] {
		u += e.delta
	}
	us := append(m.scratch[:0], u)
	for _, e := range m.ev[k0:] {
		u += e.delta
		us = append(us, u)
	}
	for i := len(us) - 2; i >= 0; i-- {
		us[i] = max(us[i], us[i+1])
	}
	i := 0
	for us[i]+n > m.capacity {
		i++ // terminates: the last entry is live, checked above
	}
	at := earliest
	if i > 0 {
		at = m.ev[k0+i-1].t
	}
	m.peak = max(m.peak, us[i]+n)
	m.scratch = us
	m.insert(memEvent{at, n})
	m.live += n
	return at, nil
}

// free releases n bytes at time t.
func (m *timeline) free(n, t int64) {
	m.insert(memEvent{max(t, m.floor), -n})
	m.live -= n
}

// insert adds e after every event at the same or an earlier time.
func (m *timeline) insert(e memEvent) {
	i := len(m.ev)
	for i > 0 && m.ev[i-1].t > e.t {
		i--
	}
	m.ev = append(m.ev, memEvent{})
	copy(m.ev[i+1:], m.ev[i:])
	m.ev[i] = e
}

// advance folds the events up to t into base: no allocation will be
// placed before t any more.
func (m *timeline) advance(t int64) {
	if t <= m.floor {
		return
	}
	k := 0
	for k < len(m.ev) && m.ev[k].t <= t {
		m.base += m.ev[k].delta
		k++
	}
	m.ev = append(m.ev[:0], m.ev[k:]...)
	m.floor = t
}
