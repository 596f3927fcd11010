package cuda

import (
	"bytes"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// A staged copy in costs the host a memcpy into pinned memory before the
// copy engine can take the bytes: one core's 7.6 GB/s on the H200
// machine, 550 µs for a 4 MiB weight. On the engine's thread that memcpy
// delays every kernel issued after it: session 12's traces show the GPU
// idle between layers under --mem, for the weights copied in for the
// first time (the plane pins a host block only at its second copy, see
// pinning.go). So a plane bound to the runtime's host pool hands the
// memcpy of each large chunk to a worker goroutine, as PyTorch's
// pin-memory thread and DeepSpeed's swapper stage ahead of the compute,
// and returns at once. The copy itself is issued on the copy stream once
// the worker is done: at the plane's next call that finds it so, or when
// a kernel, a copy out or a free needs the tensor, or the staging pool
// needs the buffer, whichever comes first; every CUDA call stays on the
// engine's thread. Until then the chunk's staging buffer is reserved, and
// the host block it reads may not change: the pool's hooks (Overwriting,
// Releasing) wait for the worker first, as they wait for a pinned block's
// copies. An unbound plane memcpys on the calling thread, keeping
// device.Device's "src may change once CopyIn returns".
//
// Nor does a copy in wait for a staging buffer: with the pool full, its
// chunks wait in line (pending) and are handed to the worker as buffers
// come free, at the plane's later calls, or at once when something needs
// the tensor or the host block. Otherwise a run that prefetches more
// than the pool holds (a resident run prefetches every weight in its
// window) would issue no kernel until the last prefetch had a buffer:
// on the H200 the matmuls of 1 GiB of resident weights began only after
// all their copies had been staged.

// DefaultStageAsync is the smallest chunk whose staging memcpy the worker
// does: below it the memcpy costs about what handing it over does.
const DefaultStageAsync = 1 << 20

// chunk is one chunk of a copy in: src, copied into b at off.
type chunk struct {
	b    *buffer
	off  int64
	src  []byte
	at   uintptr // the host block src lies in; 0 once detached
	last bool    // the copy's last chunk: b's copy is then complete
	// work is the measured id of the whole copy (device.Span.Work).
	work uint64
}

// stageJob is a chunk handed to the worker: it copies src into s, then
// the plane issues the copy of s into b at off.
type stageJob struct {
	chunk
	s *staging
	// m is the measure work belongs to (nil when not measuring).
	m    *measure
	done chan struct{} // closed when the worker has copied src
	// took is how long the worker's memcpy took, copied when it ended
	// (set before done is closed).
	took   time.Duration
	copied time.Time
	// word, with StageWait, is the word the copy stream waits on: the
	// worker stores seq there once src is copied.
	word *uint32
	seq  uint32
}

// stager is the plane's worker and the copies waiting for it.
type stager struct {
	// min is the smallest chunk handed to the worker, not above 0 when
	// none is.
	min  int64
	jobs chan *stageJob // nil until the first job starts the worker
	// queue is the chunks handed over whose copies are not issued yet,
	// in order; reading is, for each host block, the last chunk handed
	// over that reads it, until its copy is issued or a hook waited for it.
	queue   []*stageJob
	reading map[uintptr]*stageJob
	// pending is the chunks waiting for a staging buffer, in order (all
	// after the queue's); pendingReading is, for each host block, the
	// last pending chunk that reads it.
	pending        []*pendingChunk
	pendingReading map[uintptr]*pendingChunk
	// detached counts the chunks detach gave a copy of their bytes.
	detached int
	// begin is the start event of the copy being issued (measuring).
	begin Event
	// hold, when set (tests), runs in the worker before each memcpy.
	hold func()
	// wait is StageWait's word and the jobs issued behind it.
	wait *stageWait
}

// stageWait is what a plane with StageWait issues its staged copies
// behind: a word of mapped pinned memory that the worker stores each
// job's sequence number into once its memcpy is done, and that the copy
// stream waits on before the job's copy (cuStreamWaitValue32). The copy
// then starts as soon as the memcpy ends, with no call of the engine's
// thread between: on the H200 machine a chunk's copy was issued 228 µs
// after its memcpy on average, the engine's thread being inside libtorch
// (bench/RESULTS.md, session 17). Every CUDA call stays on the engine's
// thread; the worker only stores the word.
type stageWait struct {
	flag []byte
	at   Ptr
	word *uint32
	seq  uint32
	// issued is the jobs issued behind the word whose memcpy the plane
	// has not seen end yet, in order (their timing and host blocks).
	issued []*stageJob
}

// openWait allocates the word and checks that the driver can wait on it.
func (st *stager) openWait(rt Runtime, copy Stream) error {
	flag, at, err := rt.HostAllocMapped(64)
	if err != nil {
		return err
	}
	if err := rt.StreamWaitValue(copy, at, 0); err != nil {
		rt.FreeHost(flag)
		return err
	}
	st.wait = &stageWait{flag: flag, at: at, word: (*uint32)(unsafe.Pointer(unsafe.SliceData(flag)))}
	return nil
}

// closeWait frees the word (the worker stopped, the streams idle).
func (st *stager) closeWait(rt Runtime) error {
	if st.wait == nil {
		return nil
	}
	err := rt.FreeHost(st.wait.flag)
	st.wait = nil
	return err
}

// pendingChunk is a chunk waiting for a staging buffer.
type pendingChunk struct {
	chunk
	// queued: still in the stager's pending line.
	queued bool
}

// stageAsync hands the chunk to the worker now if a staging buffer is
// free without waiting and no chunk waits before it, else queues it.
func (d *Plane) stageAsync(c *pendingChunk) error {
	st := &d.stage
	if len(st.pending) == 0 {
		s, err := d.staging.tryGet(int64(len(c.src)))
		if err != nil {
			return err
		}
		if s != nil {
			return d.handOver(c.chunk, s)
		}
	}
	if st.pendingReading == nil {
		st.pendingReading = map[uintptr]*pendingChunk{}
	}
	c.queued = true
	st.pending = append(st.pending, c)
	st.pendingReading[c.at] = c
	c.b.pending = c
	d.pins.stats.Deferred++
	return nil
}

// pump hands the pending chunks to the worker, in order, while staging
// buffers are free without waiting.
func (d *Plane) pump() error {
	st := &d.stage
	for len(st.pending) > 0 {
		c := st.pending[0]
		s, err := d.staging.tryGet(int64(len(c.src)))
		if err != nil || s == nil {
			return err
		}
		if err := d.popPending(s); err != nil {
			return err
		}
	}
	return nil
}

// force hands the pending chunks up to c to the worker, in order,
// waiting for staging buffers as needed.
func (d *Plane) force(c *pendingChunk) error {
	st := &d.stage
	for c.queued {
		first := st.pending[0]
		s, err := d.staging.get(int64(len(first.src)))
		if err != nil {
			return err
		}
		if err := d.popPending(s); err != nil {
			return err
		}
	}
	return nil
}

// detach makes the pending chunks that read the host block at read a
// copy of their bytes instead: for the block's change while the staging
// pool is in use (the pool's own host reservation dropping a cached
// block), when the chunks cannot be staged first. The copies are host
// memory the pool does not count, for as long as the chunks wait.
func (d *Plane) detach(at uintptr) {
	st := &d.stage
	for _, c := range st.pending {
		if c.at == at {
			c.src = bytes.Clone(c.src)
			c.at = 0
			st.detached++
		}
	}
	delete(st.pendingReading, at)
}

// popPending hands the first pending chunk to the worker with s.
func (d *Plane) popPending(s *staging) error {
	st := &d.stage
	c := st.pending[0]
	c.queued = false
	st.pending[0] = nil
	st.pending = st.pending[1:]
	if st.pendingReading[c.at] == c {
		delete(st.pendingReading, c.at)
	}
	if c.b.pending == c {
		c.b.pending = nil
	}
	return d.handOver(c.chunk, s)
}

// async reports whether a copy in whose chunks are n bytes (the first)
// may be staged by the worker.
func (d *Plane) async(n int64) bool {
	return d.pins.host != nil && d.stage.min > 0 && n >= d.stage.min
}

// handOver gives the worker the memcpy of c's bytes into s, and queues
// c's copy; with StageWait it issues the copy at once, behind a wait for
// the memcpy.
func (d *Plane) handOver(c chunk, s *staging) error {
	st := &d.stage
	if st.jobs == nil {
		st.jobs = make(chan *stageJob, 64)
		st.reading = map[uintptr]*stageJob{}
		go stageWorker(st.jobs, st.hold, d.hc)
	}
	j := &stageJob{chunk: c, s: s, m: d.m, done: make(chan struct{})}
	s.job = j
	// The worker copies in order: the block's last chunk is the one to
	// wait for.
	st.reading[c.at] = j
	d.pins.stats.Async++
	w := st.wait
	if w == nil {
		c.b.staging = j
		st.queue = append(st.queue, j)
		st.jobs <- j
		return nil
	}
	w.seq++
	j.word, j.seq = w.word, w.seq
	// The job first: a copy stream that runs its work at once (the
	// fake's) waits for the worker here.
	st.jobs <- j
	if d.skip != "copy-after-stage" {
		if err := d.rt.StreamWaitValue(d.copy, w.at, j.seq); err != nil {
			return err
		}
	}
	w.issued = append(w.issued, j)
	return d.issueChunk(j)
}

// memcpysDone counts the memcpys of the jobs issued behind StageWait's
// word that have ended, in order, and lets go of their host blocks;
// with all, it waits for every one (after a Sync they have ended).
func (d *Plane) memcpysDone(all bool) {
	w := d.stage.wait
	if w == nil {
		return
	}
	n := 0
	for ; n < len(w.issued); n++ {
		j := w.issued[n]
		if all {
			<-j.done
		} else if !closed(j.done) {
			break
		}
		d.memcpyEnded(j)
	}
	w.issued = slices.Delete(w.issued, 0, n)
}

// memcpyEnded counts j's memcpy, which has ended, and lets go of the
// host block it read when j was the last job reading it.
func (d *Plane) memcpyEnded(j *stageJob) {
	d.pins.stats.Memcpy.add(int64(len(j.src)), int64(j.took))
	if d.stage.reading[j.at] == j {
		delete(d.stage.reading, j.at)
	}
}

// closed reports whether c is closed, without waiting.
func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// stageWorker copies each job's chunk into its staging buffer with hc,
// in order.
func stageWorker(jobs <-chan *stageJob, hold func(), hc hostCopier) {
	for j := range jobs {
		if hold != nil {
			hold()
		}
		t0 := time.Now()
		hc.copy(j.s.buf, j.src)
		j.copied = time.Now()
		j.took = j.copied.Sub(t0)
		if j.word != nil {
			// A full fence on amd64 (XCHG): the memcpy's stores,
			// non-temporal ones too, are visible before the word is.
			atomic.StoreUint32(j.word, j.seq)
		}
		close(j.done)
	}
}

// progress issues the copies whose memcpy is done and hands the pending
// chunks that buffers are free for to the worker: at every plane call.
func (d *Plane) progress() error {
	d.memcpysDone(false)
	if err := d.issueStaged(nil); err != nil {
		return err
	}
	return d.pump()
}

// issueStaged issues the copies whose memcpy is done, in order; with
// until set, it first waits for the worker up to that job and issues it.
func (d *Plane) issueStaged(until *stageJob) error {
	st := &d.stage
	for len(st.queue) > 0 {
		j := st.queue[0]
		if until == nil {
			if !closed(j.done) {
				return nil
			}
		} else {
			d.waitWorker(j)
		}
		st.queue[0] = nil
		st.queue = st.queue[1:]
		if err := d.issueJob(j); err != nil {
			return err
		}
		if j == until {
			return nil
		}
	}
	return nil
}

// waitWorker waits for the worker to finish j, counting the wait.
func (d *Plane) waitWorker(j *stageJob) {
	if closed(j.done) {
		return
	}
	t0 := time.Now()
	<-j.done
	d.pins.stats.StageWaits++
	d.pins.stats.StageWaitNs += int64(time.Since(t0))
}

// issueJob issues the copy of j's staged chunk, its memcpy done.
func (d *Plane) issueJob(j *stageJob) error {
	d.memcpyEnded(j)
	d.pins.stats.IssueLagNs += int64(time.Since(j.copied))
	return d.issueChunk(j)
}

// issueChunk issues the copy of j's chunk from its staging buffer, which
// it no longer reserves (the copy's event keeps it busy), and, for a
// copy's last chunk, records the copy's end.
func (d *Plane) issueChunk(j *stageJob) error {
	st := &d.stage
	j.s.job = nil
	if j.off == 0 {
		var err error
		if st.begin, err = d.begin(d.copy); err != nil {
			return err
		}
	}
	if err := d.copyChunkIn(j.b.p+Ptr(j.off), j.s); err != nil {
		return err
	}
	if !j.last {
		return nil
	}
	a := st.begin
	st.begin = 0
	if err := d.endAs(a, d.copy, j.work, j.m); err != nil {
		return err
	}
	if j.b.staging == j {
		j.b.staging = nil
	}
	return d.copied(j.b)
}

// settleStaged issues b's copies still waiting for a staging buffer or
// the worker, waiting for them: before a kernel reads b, a copy out of it
// or its free.
func (d *Plane) settleStaged(b *buffer) error {
	if b.pending != nil {
		if err := d.force(b.pending); err != nil {
			return err
		}
	}
	if b.staging == nil {
		return nil
	}
	return d.issueStaged(b.staging)
}

// settleReading waits for the worker's memcpy from the host block at, if
// one is pending, before the pool overwrites or drops the block.
func (d *Plane) settleReading(at uintptr, why string) {
	if d.skip == why {
		return
	}
	if c := d.stage.pendingReading[at]; c != nil {
		if d.staging.inside {
			d.detach(at)
		} else if err := d.force(c); err != nil && d.broken == nil {
			// The chunk would copy the block's new bytes: no later
			// call may succeed.
			d.broken = fmt.Errorf("%s: staging a copy before its host memory changed: %w", d.cfg.Name, err)
		}
	}
	j := d.stage.reading[at]
	if j == nil {
		return
	}
	delete(d.stage.reading, at)
	select {
	case <-j.done:
	default:
		d.pins.stats.Waits++
		<-j.done
	}
}

// stopWorker ends the worker once every job is issued (Close).
func (d *Plane) stopWorker() {
	if d.stage.jobs != nil {
		close(d.stage.jobs)
		d.stage.jobs = nil
	}
}
