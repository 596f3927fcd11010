package cuda

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Libraries are the CUDA runtime's names, newest first: a CUDA libtorch
// has loaded one of them already, and dlopen then finds it in the
// process.
var Libraries = []string{"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}

// cudart is libcudart, its functions resolved at run time with their
// signatures declared here (no CUDA headers at build time).
type cudart struct {
	setDevice, memGetInfo, streamCreateWithFlags, streamDestroy, streamSynchronize uintptr
	eventCreate, eventDestroy, eventRecord, eventSynchronize, eventQuery           uintptr
	eventElapsedTime, streamWaitEvent, mallocAsync, freeAsync, hostAlloc           uintptr
	freeHost, memcpyAsync, getErrorString, hostRegister, hostUnregister            uintptr
	getLastError, hostGetDevicePointer                                             uintptr
	// streamWaitValue is the driver's cuStreamWaitValue32 (libcuda), 0
	// when the driver library has none.
	streamWaitValue uintptr
}

// The values of the CUDA enums the calls pass.
const (
	cudaSuccess           = 0
	cudaErrorNotReady     = 600
	cudaStreamNonBlocking = 1
	cudaHostAllocDefault  = 0
	cudaHostAllocPortable = 1
	cudaHostAllocMapped   = 2
	// cuStreamWaitValueGEQ: wait until the word is at least the value.
	cuStreamWaitValueGEQ = 0
	// cudaHostRegisterPortable: pinned for every CUDA context, not only
	// the current one.
	cudaHostRegisterPortable = 1
	cudaMemcpyHostToDev      = 1
	cudaMemcpyDevToHost      = 2
)

// Load opens the first of names that dlopen finds and resolves the
// functions the plane calls.
func Load(names []string) (Runtime, error) {
	var tried []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			tried = append(tried, n)
			continue
		}
		return resolve(h, n)
	}
	return nil, fmt.Errorf("no CUDA runtime library: none of %s loads (is the NVIDIA driver and a CUDA libtorch installed?)", strings.Join(tried, ", "))
}

func resolve(h uintptr, name string) (*cudart, error) {
	c := &cudart{}
	for _, s := range []struct {
		name string
		dst  *uintptr
	}{
		{"cudaSetDevice", &c.setDevice}, {"cudaMemGetInfo", &c.memGetInfo},
		{"cudaStreamCreateWithFlags", &c.streamCreateWithFlags}, {"cudaStreamDestroy", &c.streamDestroy},
		{"cudaStreamSynchronize", &c.streamSynchronize}, {"cudaEventCreate", &c.eventCreate},
		{"cudaEventDestroy", &c.eventDestroy}, {"cudaEventRecord", &c.eventRecord},
		{"cudaEventSynchronize", &c.eventSynchronize}, {"cudaEventQuery", &c.eventQuery},
		{"cudaEventElapsedTime", &c.eventElapsedTime}, {"cudaStreamWaitEvent", &c.streamWaitEvent},
		{"cudaMallocAsync", &c.mallocAsync}, {"cudaFreeAsync", &c.freeAsync},
		{"cudaHostAlloc", &c.hostAlloc}, {"cudaFreeHost", &c.freeHost},
		{"cudaMemcpyAsync", &c.memcpyAsync}, {"cudaGetErrorString", &c.getErrorString},
		{"cudaHostRegister", &c.hostRegister}, {"cudaHostUnregister", &c.hostUnregister},
		{"cudaGetLastError", &c.getLastError}, {"cudaHostGetDevicePointer", &c.hostGetDevicePointer},
	} {
		p, err := purego.Dlsym(h, s.name)
		if err != nil {
			return nil, fmt.Errorf("%s has no %s: %w", name, s.name, err)
		}
		*s.dst = p
	}
	// The driver library, which the runtime has loaded: its stream
	// memory operations are optional (StreamWaitValue says so).
	if d, err := purego.Dlopen("libcuda.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
		for _, name := range []string{"cuStreamWaitValue32_v2", "cuStreamWaitValue32"} {
			if p, err := purego.Dlsym(d, name); err == nil {
				c.streamWaitValue = p
				break
			}
		}
	}
	return c, nil
}

// call runs fn with arguments that hold no pointers and turns a CUDA
// error code into an error.
//
// A call whose arguments point into Go memory (an out-parameter, say)
// must convert each pointer with uintptr(unsafe.Pointer(&x)) in
// purego.SyscallN's own argument list, never pass it through call or any
// other function: SyscallN is go:uintptrescapes, so only there does the
// compiler move x to the heap and keep it alive. A pointer to a local
// passed on as a plain uintptr would point into a goroutine stack that
// may move (grow or shrink) before the C function writes through it, and
// the result would silently stay zero (seen on the H200 machine: a
// cudaMallocAsync that "succeeded" with a null pointer, then
// cudaMemcpyAsync: invalid argument). TestNoPointersThroughWrappers
// keeps this so.
func (c *cudart) call(what string, fn uintptr, args ...uintptr) error {
	r, _, _ := purego.SyscallN(fn, args...)
	return c.check(what, int32(r))
}

func (c *cudart) check(what string, code int32) error {
	if code == cudaSuccess {
		return nil
	}
	s, _, _ := purego.SyscallN(c.getErrorString, uintptr(code))
	return fmt.Errorf("%s: %s (CUDA error %d)", what, cString(s), code)
}

// cString copies the NUL-terminated string at p (at most 1 KiB).
func cString(p uintptr) string {
	if p == 0 {
		return "unknown error"
	}
	b := unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), 1024)
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

func (c *cudart) SetDevice(n int) error { return c.call("cudaSetDevice", c.setDevice, uintptr(n)) }

func (c *cudart) MemGetInfo() (int64, int64, error) {
	var free, total uint64
	r, _, _ := purego.SyscallN(c.memGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))
	return int64(free), int64(total), c.check("cudaMemGetInfo", int32(r))
}

func (c *cudart) StreamCreateNonBlocking() (Stream, error) {
	var s uintptr
	r, _, _ := purego.SyscallN(c.streamCreateWithFlags, uintptr(unsafe.Pointer(&s)), cudaStreamNonBlocking)
	return Stream(s), c.check("cudaStreamCreateWithFlags", int32(r))
}

func (c *cudart) StreamDestroy(s Stream) error {
	return c.call("cudaStreamDestroy", c.streamDestroy, uintptr(s))
}

func (c *cudart) StreamSynchronize(s Stream) error {
	return c.call("cudaStreamSynchronize", c.streamSynchronize, uintptr(s))
}

func (c *cudart) EventCreate() (Event, error) {
	var e uintptr
	r, _, _ := purego.SyscallN(c.eventCreate, uintptr(unsafe.Pointer(&e)))
	return Event(e), c.check("cudaEventCreate", int32(r))
}

func (c *cudart) EventDestroy(e Event) error {
	return c.call("cudaEventDestroy", c.eventDestroy, uintptr(e))
}

func (c *cudart) EventRecord(e Event, s Stream) error {
	return c.call("cudaEventRecord", c.eventRecord, uintptr(e), uintptr(s))
}

func (c *cudart) EventSynchronize(e Event) error {
	return c.call("cudaEventSynchronize", c.eventSynchronize, uintptr(e))
}

func (c *cudart) EventQuery(e Event) (bool, error) {
	r, _, _ := purego.SyscallN(c.eventQuery, uintptr(e))
	if int32(r) == cudaErrorNotReady {
		return false, nil
	}
	return true, c.check("cudaEventQuery", int32(r))
}

func (c *cudart) EventElapsed(a, b Event) (float32, error) {
	var ms uint32
	r, _, _ := purego.SyscallN(c.eventElapsedTime, uintptr(unsafe.Pointer(&ms)), uintptr(a), uintptr(b))
	return math.Float32frombits(ms), c.check("cudaEventElapsedTime", int32(r))
}

func (c *cudart) StreamWaitEvent(s Stream, e Event) error {
	return c.call("cudaStreamWaitEvent", c.streamWaitEvent, uintptr(s), uintptr(e), 0)
}

func (c *cudart) MallocAsync(n int64, s Stream) (Ptr, error) {
	var p uintptr
	r, _, _ := purego.SyscallN(c.mallocAsync, uintptr(unsafe.Pointer(&p)), uintptr(n), uintptr(s))
	if err := c.check("cudaMallocAsync", int32(r)); err != nil {
		return 0, err
	}
	if p == 0 && n > 0 {
		return 0, errors.New("cudaMallocAsync: no memory")
	}
	return Ptr(p), nil
}

func (c *cudart) FreeAsync(p Ptr, s Stream) error {
	return c.call("cudaFreeAsync", c.freeAsync, uintptr(p), uintptr(s))
}

func (c *cudart) HostAlloc(n int64) ([]byte, error) {
	var p *byte
	r, _, _ := purego.SyscallN(c.hostAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n), cudaHostAllocDefault)
	if err := c.check("cudaHostAlloc", int32(r)); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("cudaHostAlloc: no memory")
	}
	return unsafe.Slice(p, n), nil
}

func (c *cudart) FreeHost(b []byte) error {
	r, _, _ := purego.SyscallN(c.freeHost, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	return c.check("cudaFreeHost", int32(r))
}

func (c *cudart) HostRegister(b []byte) error {
	r, _, _ := purego.SyscallN(c.hostRegister, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), cudaHostRegisterPortable)
	if int32(r) != cudaSuccess {
		// The runtime also keeps the failure as its last error, which
		// libtorch's launch checks (cudaGetLastError after a kernel)
		// would report as the next kernel's: take it back.
		purego.SyscallN(c.getLastError)
	}
	return c.check("cudaHostRegister", int32(r))
}

func (c *cudart) HostUnregister(b []byte) error {
	r, _, _ := purego.SyscallN(c.hostUnregister, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	if int32(r) != cudaSuccess {
		purego.SyscallN(c.getLastError)
	}
	return c.check("cudaHostUnregister", int32(r))
}

func (c *cudart) CopyH2D(dst Ptr, src []byte, s Stream) error {
	r, _, _ := purego.SyscallN(c.memcpyAsync, uintptr(dst), uintptr(unsafe.Pointer(unsafe.SliceData(src))),
		uintptr(len(src)), cudaMemcpyHostToDev, uintptr(s))
	return c.check("cudaMemcpyAsync", int32(r))
}

func (c *cudart) CopyD2H(dst []byte, src Ptr, s Stream) error {
	r, _, _ := purego.SyscallN(c.memcpyAsync, uintptr(unsafe.Pointer(unsafe.SliceData(dst))), uintptr(src),
		uintptr(len(dst)), cudaMemcpyDevToHost, uintptr(s))
	return c.check("cudaMemcpyAsync", int32(r))
}

func (c *cudart) HostAllocMapped(n int64) ([]byte, Ptr, error) {
	var p *byte
	r, _, _ := purego.SyscallN(c.hostAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n), cudaHostAllocPortable|cudaHostAllocMapped)
	if err := c.check("cudaHostAlloc", int32(r)); err != nil {
		return nil, 0, err
	}
	if p == nil {
		return nil, 0, errors.New("cudaHostAlloc: no memory")
	}
	b := unsafe.Slice(p, n)
	var dev uintptr
	r, _, _ = purego.SyscallN(c.hostGetDevicePointer, uintptr(unsafe.Pointer(&dev)), uintptr(unsafe.Pointer(p)), 0)
	if err := c.check("cudaHostGetDevicePointer", int32(r)); err != nil {
		c.FreeHost(b)
		return nil, 0, err
	}
	clear(b)
	return b, Ptr(dev), nil
}

func (c *cudart) StreamWaitValue(s Stream, p Ptr, v uint32) error {
	if c.streamWaitValue == 0 {
		return errors.New("cuStreamWaitValue32: the CUDA driver library (libcuda.so.1) has none")
	}
	r, _, _ := purego.SyscallN(c.streamWaitValue, uintptr(s), uintptr(p), uintptr(v), cuStreamWaitValueGEQ)
	if r != 0 {
		return fmt.Errorf("cuStreamWaitValue32: CUDA driver error %d", int32(r))
	}
	return nil
}
