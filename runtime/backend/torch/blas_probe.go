package torch

import (
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// A process started with $TREF_OPENBLAS_PROBE set is a core-type probe
// (execProbe): it times the OpenBLAS named there and exits before main.
func init() {
	if lib := os.Getenv(probeEnv); lib != "" {
		core, gflops, err := probeChild(lib, 256, 20*time.Millisecond)
		if err != nil {
			fmt.Fprintln(os.Stderr, "openblas probe:", err)
			os.Exit(1)
		}
		fmt.Printf("%s %.2f\n", core, gflops)
		os.Exit(0)
	}
}

// probeChild loads the OpenBLAS at lib (which reads OPENBLAS_CORETYPE as
// it loads) and returns the core it chose and the best rate of an n×n×n
// single-precision GEMM over repeated calls that take budget of CPU time
// (or 20 budgets of wall time). Each call is timed by the calling thread's
// CPU clock, on which OpenBLAS runs it (the child has one BLAS thread), so
// other processes taking the core do not count: the rates of a loaded
// machine stay comparable.
func probeChild(lib string, n int, budget time.Duration) (string, float64, error) {
	runtime.LockOSThread()
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return "", 0, err
	}
	var corename func() string
	purego.RegisterLibFunc(&corename, h, "openblas_get_corename")
	sgemm, err := purego.Dlsym(h, "sgemm_")
	if err != nil {
		return "", 0, err
	}
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7)-3, float32(i%5)-2
	}
	trans := byte('N')
	dim := int32(n)
	alpha, beta := float32(1), float32(0)
	call := func() time.Duration {
		t := threadTime()
		purego.SyscallN(sgemm, uintptr(unsafe.Pointer(&trans)), uintptr(unsafe.Pointer(&trans)),
			uintptr(unsafe.Pointer(&dim)), uintptr(unsafe.Pointer(&dim)), uintptr(unsafe.Pointer(&dim)),
			uintptr(unsafe.Pointer(&alpha)), uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&dim)),
			uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&dim)),
			uintptr(unsafe.Pointer(&beta)), uintptr(unsafe.Pointer(&c[0])), uintptr(unsafe.Pointer(&dim)))
		return threadTime() - t
	}
	call() // warm-up: thread pool, packing buffers
	best, spent := time.Duration(1<<62), time.Duration(0)
	for start := time.Now(); spent < budget && time.Since(start) < 20*budget; {
		d := call()
		spent += d
		if d < best {
			best = d
		}
	}
	if best <= 0 {
		return "", 0, fmt.Errorf("thread CPU clock did not advance")
	}
	// Check the product so a broken kernel cannot win: c[0] is row 0 of
	// a times column 0 of b, column-major (exact: small integers).
	want := float32(0)
	for k := 0; k < n; k++ {
		want += a[k*n] * b[k]
	}
	if c[0] != want {
		return "", 0, fmt.Errorf("sgemm gave %v, want %v", c[0], want)
	}
	return corename(), 2 * float64(n) * float64(n) * float64(n) / best.Seconds() / 1e9, nil
}

// threadTime is the calling thread's CPU time.
func threadTime() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
