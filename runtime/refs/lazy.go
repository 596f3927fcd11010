package refs

import (
	"fmt"
	"time"

	"github.com/tref-lang/tref/runtime/tensor"
)

// LoadEvent reports one read of a lazy ref's data from disk into host
// memory: a disk->host move of the disk tier.
type LoadEvent struct {
	Ref *Ref
	// Bytes is the size of the loaded host copy (0 when Err is set).
	Bytes int64
	// Start is when the read began; Dur how long it took.
	Start time.Time
	Dur   time.Duration
	// Err is the failure of the load, if it failed.
	Err error
}

// SetLoadObserver installs f (nil removes it) to be called after every
// lazy load, successful or not, on the thread that forced it. The
// placement engine uses it to trace disk->host reads and to account their
// time. f must not call back into the runtime.
func (rt *Runtime) SetLoadObserver(f func(LoadEvent)) { rt.onLoad = f }

// LazyWithDone is Lazy with a release hook: done is called exactly once
// when the loader is no longer needed, that is right after load succeeded
// or when the ref is freed without having been loaded. File loaders use it
// to keep a memory mapping (or an open file) alive while any of its lazy
// refs may still read from it, and to close it after the last.
func (rt *Runtime) LazyWithDone(site Site, m tensor.Meta, load func() (*tensor.Dense, error), done func()) *Ref {
	r := rt.Lazy(site, m, load)
	r.lazyDone = done
	return r
}

// loadLazy reads r's data from disk into its host copy.
func (rt *Runtime) loadLazy(r *Ref) (*tensor.Dense, error) {
	start := time.Now()
	d, err := r.lazy()
	if err == nil && (!d.Shape.Equal(r.meta.Shape) || d.DType != r.meta.DType) {
		err = fmt.Errorf("lazy load gave %v, expected %v", d.Meta, r.meta)
	}
	if rt.onLoad != nil {
		ev := LoadEvent{Ref: r, Start: start, Dur: time.Since(start), Err: err}
		if err == nil {
			ev.Bytes = d.Meta.Bytes()
		}
		rt.onLoad(ev)
	}
	if err != nil {
		return nil, err
	}
	rt.host.Adopt(d)
	r.host, r.hostValid = d, true
	rt.dropLazy(r)
	return d, nil
}

// dropLazy forgets r's loader and runs its release hook.
func (rt *Runtime) dropLazy(r *Ref) {
	r.lazy = nil
	if done := r.lazyDone; done != nil {
		r.lazyDone = nil
		done()
	}
}
