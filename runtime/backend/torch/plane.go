package torch

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/tref-lang/tref/runtime/backend/cuda"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
	"golang.org/x/sys/unix"
)

// planeKernels runs ops with libtorch on memory that tref's CUDA data
// plane owns (cuda.Kernels): the operands and the result are libtorch
// views of the plane's buffers, and the op's result is copied into the
// output buffer on libtorch's current stream, the legacy default stream
// the plane uses as its compute stream.
type planeKernels struct {
	lib          *Lib
	dev          int // -1: host memory (tests on torch:cpu)
	wrapFn, into uintptr
}

// newPlaneKernels resolves the plugin's functions for plane memory.
func newPlaneKernels(lib *Lib, dev int) (*planeKernels, error) {
	h, err := purego.Dlopen(lib.Path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("torch backend: %s: %v", lib.Path, oneLine(err))
	}
	k := &planeKernels{lib: lib, dev: dev}
	for _, s := range []struct {
		name string
		dst  *uintptr
	}{{"tt_wrap_memory", &k.wrapFn}, {"tt_op_into", &k.into}} {
		if *s.dst, err = purego.Dlsym(h, s.name); err != nil {
			return nil, fmt.Errorf("torch backend: %s lacks %s; rebuild it with scripts/build-torch.sh", lib.Path, s.name)
		}
	}
	return k, nil
}

// Supports is "" when the plugin runs op.
func (k *planeKernels) Supports(op *refs.Op) string { return supports(k.lib, op) }

// Launch issues op on libtorch's stream over the plane's memory.
func (k *planeKernels) Launch(s cuda.Stream, op *refs.Op, out cuda.Ptr, ins []cuda.Ptr) error {
	if s != 0 {
		return errors.New("internal: libtorch's kernels run on the legacy default stream only")
	}
	c, err := k.prepare(op)
	if err != nil {
		return err
	}
	addrs := make([]uintptr, len(ins))
	for i, p := range ins {
		addrs[i] = uintptr(p)
	}
	return k.run(c, uintptr(out), addrs)
}

// planeCall is what running an op needs, taken from the op when it is
// issued (the engine reuses the op once Run returns).
type planeCall struct {
	op     ops.Op
	ia     []int64
	fa     []float64
	out    tensor.Meta
	inputs []tensor.Meta
}

func (k *planeKernels) prepare(op *refs.Op) (planeCall, error) {
	ia, fa, ok := marshal(op)
	if !ok {
		return planeCall{}, fmt.Errorf("internal: cannot pass the attributes of %s", op.Op.Name())
	}
	if int(op.Op) >= len(k.lib.cnames) || op.Op == 0 {
		return planeCall{}, fmt.Errorf("torch: no op %s (registered after the plugin loaded)", op.Op)
	}
	c := planeCall{op: op.Op, ia: ia, fa: fa, out: op.Out.Meta()}
	for _, in := range op.Inputs {
		c.inputs = append(c.inputs, in.Meta())
	}
	return c, nil
}

// run runs c over the memory at addresses out and ins.
func (k *planeKernels) run(c planeCall, out uintptr, ins []uintptr) error {
	ia, fa := c.ia, c.fa
	k.lib.mu.Lock()
	defer k.lib.mu.Unlock()
	hs := make([]Handle, 0, len(ins)+1)
	defer func() {
		for _, h := range hs {
			k.lib.Free(h)
		}
	}()
	for i, p := range ins {
		h, err := k.wrap(p, c.inputs[i])
		if err != nil {
			return err
		}
		hs = append(hs, h)
	}
	oh, err := k.wrap(out, c.out)
	if err != nil {
		return err
	}
	hs = append(hs, oh)
	var pia, pfa unsafe.Pointer
	if len(ia) > 0 {
		pia = unsafe.Pointer(&ia[0])
	}
	if len(fa) > 0 {
		pfa = unsafe.Pointer(&fa[0])
	}
	cname := k.lib.cnames[c.op]
	var pins unsafe.Pointer
	if len(ins) > 0 {
		pins = unsafe.Pointer(&hs[0])
	}
	r, _, _ := purego.SyscallN(k.into, uintptr(unsafe.Pointer(&cname[0])), uintptr(pins), uintptr(len(ins)),
		uintptr(pia), uintptr(len(ia)), uintptr(pfa), uintptr(len(fa)), uintptr(oh))
	runtime.KeepAlive(ia)
	runtime.KeepAlive(fa)
	runtime.KeepAlive(hs)
	if int32(r) != 0 {
		return fmt.Errorf("torch: %w", k.lib.lastError())
	}
	return nil
}

// wrap is a libtorch view of the memory at p holding a tensor of meta m;
// the caller holds lib.mu.
func (k *planeKernels) wrap(p uintptr, m tensor.Meta) (Handle, error) {
	var shape []int64
	for _, d := range m.Shape {
		shape = append(shape, int64(d))
	}
	var ps unsafe.Pointer
	if len(shape) > 0 {
		ps = unsafe.Pointer(&shape[0])
	}
	r, _, _ := purego.SyscallN(k.wrapFn, p, uintptr(m.Bytes()), uintptr(m.DType), uintptr(ps), uintptr(len(shape)), uintptr(int64(k.dev)))
	runtime.KeepAlive(shape)
	if r == 0 {
		return 0, fmt.Errorf("torch: %w", k.lib.lastError())
	}
	return Handle(r), nil
}

// openPlane opens cuda:N as tref's CUDA data plane (runtime/backend/cuda)
// with libtorch's kernels: the plugin must be built against a CUDA
// libtorch, whose libcudart the plane then finds in the process.
// TREF_CUDA_SYNC=1 opens the synchronous Device instead;
// TREF_CUDA_STAGE=sync keeps every staging memcpy on the engine's thread
// (no worker, see cuda.Config.StageAsync), to measure what the worker
// gains, and TREF_CUDA_STAGE=wait issues the worker's chunks' copies at
// once, behind waits on the copy stream for their memcpys (StageWait);
// TREF_CUDA_STAGING_MIB and TREF_CUDA_CHUNK_MIB size the pinned staging
// pool and its chunks, TREF_CUDA_COPY_SPLIT_KIB and
// TREF_CUDA_COPY_PIECE_KIB how the memcpys into it are split among
// goroutines (cuda.Config's Staging, Chunk, CopySplit, CopyPiece), and
// TREF_CUDA_STAGING_REGISTER=0 makes the pool's buffers HostAlloc's
// rather than Go memory pinned in place (StagingHostAlloc) and
// TREF_CUDA_PIN_AT=first|birth pins host blocks at their first copy in,
// or when the host pool hands them out, rather than at their second
// (PinAt), and TREF_CUDA_PREALLOC=N allocates N of
// them ahead (Prealloc; 0: none), for finding the best on a GPU machine
// (scripts/gpu-sweep.sh). Traced, the
// plane measures its copies and kernels with CUDA events
// (device.Measurer), and the trace shows those times.
func openPlane(spec device.Spec, opts device.Options) (device.Device, error) {
	lib, err := Load("")
	if err != nil {
		return nil, err
	}
	if n := lib.CUDADevices(); n == 0 {
		return nil, fmt.Errorf("torch backend: %s: libtorch %s (%s) has no CUDA; build the plugin against a CUDA PyTorch (scripts/build-torch.sh)", spec.Name, lib.Version, lib.Path)
	} else if spec.Index >= n {
		return nil, fmt.Errorf("torch backend: no device %s (libtorch %s sees %d CUDA devices)", spec.Name, lib.Version, n)
	}
	rt, err := cuda.Load(cuda.Libraries)
	if err != nil {
		return nil, fmt.Errorf("torch backend: %s: %w", spec.Name, err)
	}
	k, err := newPlaneKernels(lib, spec.Index)
	if err != nil {
		return nil, err
	}
	cfg := cuda.Config{Name: spec.Name, Index: spec.Index, Margin: cuda.DefaultMargin, Mem: opts.Mem, Pinned: opts.Pinned}
	if err := tuneFromEnv(&cfg, os.Getenv); err != nil {
		return nil, err
	}
	return cuda.NewPlane(rt, k, cfg)
}

// tuneFromEnv applies the TREF_CUDA_* settings that getenv gives (see
// openPlane) to cfg.
func tuneFromEnv(cfg *cuda.Config, getenv func(string) string) error {
	switch v := getenv("TREF_CUDA_STAGE"); v {
	case "":
	case "sync":
		cfg.StageAsync = -1
	case "wait":
		cfg.StageWait = true
	default:
		return fmt.Errorf("torch backend: TREF_CUDA_STAGE=%q: want sync or wait", v)
	}
	switch v := getenv("TREF_CUDA_STAGING_REGISTER"); v {
	case "", "1":
	case "0":
		cfg.StagingHostAlloc = true
	default:
		return fmt.Errorf("torch backend: TREF_CUDA_STAGING_REGISTER=%q: want 0 or 1", v)
	}
	if v := getenv("TREF_CUDA_PIN_AT"); v != "" {
		at, err := cuda.ParsePinAt(v)
		if err != nil {
			return fmt.Errorf("torch backend: TREF_CUDA_PIN_AT=%w", err)
		}
		cfg.PinAt = at
	}
	if v := getenv("TREF_CUDA_PREALLOC"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 64 {
			return fmt.Errorf("torch backend: TREF_CUDA_PREALLOC=%q: want a whole number from 0 to 64", v)
		}
		cfg.Prealloc = n
		if n == 0 {
			cfg.Prealloc = -1
		}
	}
	for _, knob := range []struct {
		name string
		unit int64
		dst  *int64
	}{
		{"TREF_CUDA_STAGING_MIB", 1 << 20, &cfg.Staging}, {"TREF_CUDA_CHUNK_MIB", 1 << 20, &cfg.Chunk},
		{"TREF_CUDA_COPY_SPLIT_KIB", 1 << 10, &cfg.CopySplit}, {"TREF_CUDA_COPY_PIECE_KIB", 1 << 10, &cfg.CopyPiece},
	} {
		if v := getenv(knob.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 1<<20 {
				return fmt.Errorf("torch backend: %s=%q: want a whole number from 1 to 1048576", knob.name, v)
			}
			*knob.dst = int64(n) * knob.unit
		}
	}
	return nil
}

// IntoStats counts the plugin's runs of ops into the CUDA data plane's
// memory: those that wrote the output directly (an op's out= variant)
// and those whose result was copied into it, and the host time spent
// issuing each part.
type IntoStats struct {
	Direct, Copied int64
	OpNs, CopyNs   int64
}

// Total is the sum of per-op counts.
func Total(perOp map[string]IntoStats) IntoStats {
	var t IntoStats
	for _, s := range perOp {
		t.Direct, t.Copied, t.OpNs, t.CopyNs = t.Direct+s.Direct, t.Copied+s.Copied, t.OpNs+s.OpNs, t.CopyNs+s.CopyNs
	}
	return t
}

// Sub is s less an earlier count of the same.
func (s IntoStats) Sub(earlier IntoStats) IntoStats {
	return IntoStats{Direct: s.Direct - earlier.Direct, Copied: s.Copied - earlier.Copied,
		OpNs: s.OpNs - earlier.OpNs, CopyNs: s.CopyNs - earlier.CopyNs}
}

// IntoOpStats is what the plugin counted so far, per op
// (tt_into_op_stats).
func (l *Lib) IntoOpStats() map[string]IntoStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	for capacity := 64; ; capacity *= 2 {
		names := make([]*byte, capacity)
		stats := make([]int64, 4*capacity)
		r, _, _ := purego.SyscallN(l.fnIntoOpStats, uintptr(unsafe.Pointer(&names[0])), uintptr(unsafe.Pointer(&stats[0])), uintptr(capacity))
		n := int(int32(r))
		if n > capacity {
			continue
		}
		m := make(map[string]IntoStats, n)
		for i := range n {
			m[unix.BytePtrToString(names[i])] = IntoStats{Direct: stats[4*i], Copied: stats[4*i+1], OpNs: stats[4*i+2], CopyNs: stats[4*i+3]}
		}
		return m
	}
}
