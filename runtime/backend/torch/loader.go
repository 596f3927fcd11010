// Package torch is tref's libtorch backend. The plugin libtref_torch.so (a
// small C ABI over ATen, csrc/tref_torch.h, built by scripts/build-torch.sh)
// is loaded at run time with purego, so the tref binary itself needs no C++
// toolchain and no cgo, and libtorch is loaded only when a torch device is
// chosen.
package torch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/tref-lang/tref/runtime/ops"
)

// PluginName is the plugin's file name.
const PluginName = "libtref_torch.so"

// abiVersion must equal tt_abi_version() of the plugin. 2: libtorch's
// CUDA state initialised before the first op on the plane's memory,
// relu and attention written into it, tt_into_op_stats (a plugin built
// before behaves otherwise under the same calls: rebuild it).
const abiVersion = 2

// Lib is the loaded plugin. Its methods serialise calls into the plugin
// (whose error message is process-wide).
type Lib struct {
	Path    string
	Version string

	fnFromHost, fnToHost, fnFree, fnHasOp, fnOp, fnNdim, fnDim, fnDtype, fnStorage uintptr
	fnDeviceCount, fnSync, fnThreads, fnToDevice, fnIntoOpStats, fnSetOrdered      uintptr

	errorText func() string
	// scalars is what tt_scalar_operands returned: 1 when tt_op takes a
	// binary op's scalar operand in its attributes, 2 when where's too;
	// 0 for plugins built before it.
	scalars int32

	mu sync.Mutex
	// cnames and has are indexed by op handle: each registered op's name
	// as a NUL-terminated C string, and whether the plugin implements it
	// (both filled once, at load).
	cnames [][]byte
	has    []bool
}

var (
	loadOnce sync.Once
	loaded   *Lib
	loadErr  error
)

// SearchPath lists where Load looks for the plugin, in order: the explicit
// path (a --torch-lib flag), $TREF_TORCH_LIB, next to the tref binary, and
// the user cache dir where scripts/build-torch.sh puts it.
func SearchPath(explicit string) []string {
	var paths []string
	if explicit != "" {
		paths = append(paths, explicit)
	}
	if env := os.Getenv("TREF_TORCH_LIB"); env != "" {
		paths = append(paths, env)
	}
	if exe, err := os.Executable(); err == nil {
		paths = append(paths, filepath.Join(filepath.Dir(exe), PluginName))
	}
	if dir := cacheDir(); dir != "" {
		paths = append(paths, filepath.Join(dir, "tref", PluginName))
	}
	return paths
}

func cacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return d
}

// Load finds and loads the plugin once per process; later calls return the
// same result. The error is one line saying what is missing.
func Load(explicit string) (*Lib, error) {
	loadOnce.Do(func() { loaded, loadErr = load(SearchPath(explicit)) })
	return loaded, loadErr
}

func load(paths []string) (*Lib, error) {
	path := ""
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		return nil, fmt.Errorf("torch backend: plugin %s not found (looked in %s); build it with scripts/build-torch.sh",
			PluginName, strings.Join(paths, ", "))
	}
	setOpenBLASCoreType(path)
	setOMPWaitPolicy()
	setThreadEnv(threadCount())
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("torch backend: cannot load %s: %v (is libtorch installed? rebuild with scripts/build-torch.sh)", path, oneLine(err))
	}
	l := &Lib{Path: path}
	syms := []struct {
		name string
		dst  *uintptr
	}{
		{"tt_from_host", &l.fnFromHost}, {"tt_to_host", &l.fnToHost},
		{"tt_free", &l.fnFree}, {"tt_has_op", &l.fnHasOp}, {"tt_op", &l.fnOp}, {"tt_ndim", &l.fnNdim},
		{"tt_dim", &l.fnDim}, {"tt_storage_bytes", &l.fnStorage}, {"tt_dtype", &l.fnDtype}, {"tt_cuda_device_count", &l.fnDeviceCount},
		{"tt_synchronize", &l.fnSync},
		{"tt_set_num_threads", &l.fnThreads}, {"tt_to_device", &l.fnToDevice},
		{"tt_into_op_stats", &l.fnIntoOpStats}, {"tt_set_ordered_kernels", &l.fnSetOrdered}, {"tt_source", new(uintptr)},
	}
	for _, s := range syms {
		if *s.dst, err = purego.Dlsym(h, s.name); err != nil {
			return nil, fmt.Errorf("torch backend: %s lacks %s; rebuild it with scripts/build-torch.sh", path, s.name)
		}
	}
	var abi func() int32
	purego.RegisterLibFunc(&abi, h, "tt_abi_version")
	if v := abi(); v != abiVersion {
		return nil, fmt.Errorf("torch backend: %s speaks ABI %d, this tref needs %d; rebuild it with scripts/build-torch.sh", path, v, abiVersion)
	}
	var source func() string
	purego.RegisterLibFunc(&source, h, "tt_source")
	if err := checkSource(path, source()); err != nil {
		return nil, err
	}
	if sym, err := purego.Dlsym(h, "tt_scalar_operands"); err == nil {
		r, _, _ := purego.SyscallN(sym)
		l.scalars = int32(r)
	}
	purego.RegisterLibFunc(&l.errorText, h, "tt_error")
	var version func() string
	purego.RegisterLibFunc(&version, h, "tt_version")
	l.Version = version()
	l.cnames, l.has = make([][]byte, ops.Count()), make([]bool, ops.Count())
	for i := 1; i < ops.Count(); i++ {
		l.cnames[i] = cstring(ops.Op(i).Name())
		r, _, _ := purego.SyscallN(l.fnHasOp, uintptr(unsafe.Pointer(&l.cnames[i][0])))
		l.has[i] = r != 0
	}
	return l, nil
}

// setOMPWaitPolicy makes libtorch's OpenMP threads sleep rather than spin
// while they wait for work, unless the user chose a policy: tref calls
// into libtorch from one thread between stretches of Go work, and
// spinning threads then take the cores that work (and other processes)
// need, which made two-thread runs on a shared machine erratic. It must
// be set before libgomp loads with libtorch.
func setOMPWaitPolicy() {
	if os.Getenv("OMP_WAIT_POLICY") == "" {
		os.Setenv("OMP_WAIT_POLICY", "PASSIVE")
	}
}

// threadCount is the number of threads libtorch and its BLAS get:
// $TREF_TORCH_THREADS when set, else tref's own (GOMAXPROCS).
func threadCount() int {
	if n, err := strconv.Atoi(os.Getenv("TREF_TORCH_THREADS")); err == nil && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// setThreadEnv gives OpenMP (libtorch's intra-op pool, and an OpenMP
// OpenBLAS) and a pthreads OpenBLAS, which keeps a pool of its own, n
// threads unless the user set OMP_NUM_THREADS or OPENBLAS_NUM_THREADS: by
// default each would start one per core, and two pools on the same cores
// oversubscribe them. Both are read when the libraries load.
func setThreadEnv(n int) {
	for _, v := range []string{"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"} {
		if os.Getenv(v) == "" {
			os.Setenv(v, strconv.Itoa(n))
		}
	}
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// cstring is s NUL-terminated, for the plugin.
func cstring(s string) []byte { return append([]byte(s), 0) }

// lastError reads the plugin's error message for the calling thread.
func (l *Lib) lastError() error {
	msg := l.errorText()
	if msg == "" {
		msg = "unknown error"
	}
	return errors.New(msg)
}

// HasOp reports whether the plugin implements op.
func (l *Lib) HasOp(op ops.Op) bool { return int(op) < len(l.has) && l.has[op] }

// CUDADevices is the number of CUDA devices libtorch sees (0 for a
// CPU-only build).
func (l *Lib) CUDADevices() int {
	r, _, _ := purego.SyscallN(l.fnDeviceCount)
	return int(int32(r))
}

// SetThreads sets libtorch's intra-op thread count.
func (l *Lib) SetThreads(n int) { purego.SyscallN(l.fnThreads, uintptr(n)) }

// SetOrderedKernels has the plugin run its ordered builds of the ops
// whose CUDA kernels add or scan in no fixed order (the scatters, long
// 1-d scans, nll_loss over [N, C, d...]) on the CPU too, as it always does
// on CUDA, where the CPU otherwise takes torch's kernels, which run in
// order already: tests run the CUDA path on the CPU with it. It returns
// the previous setting.
func (l *Lib) SetOrderedKernels(on bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	arg := uintptr(0)
	if on {
		arg = 1
	}
	r, _, _ := purego.SyscallN(l.fnSetOrdered, arg)
	return r != 0
}
