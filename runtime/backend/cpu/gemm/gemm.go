// Package gemm is tref's float32 matrix multiply: a blocked, parallel SGEMM
// in the style of Goto and BLIS. Operands are packed into cache-sized
// panels (MC×KC of A kept in L2, KC×NR slivers of B in L1) and a
// register-tiled micro-kernel computes each MR×NR tile of C. On amd64 with
// AVX2 and FMA the micro-kernel is hand-written assembly; elsewhere a
// portable Go kernel with the same packed layout runs.
//
// float64 and int64 products use Gemm, a simpler cache-blocked loop.
package gemm

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The register tile of the micro-kernel: MR rows of A times NR columns of
// B. Twelve 8-wide accumulators plus two B vectors and one broadcast fill
// the sixteen YMM registers of AVX2.
const (
	mr = 6
	nr = 16
)

// Cache blocking, tuned on an AMD EPYC (Zen 3: 32 KiB L1d and 512 KiB L2
// per core, shared L3): a KC×NR sliver of B (16 KiB) stays in L1 while the
// micro-kernel sweeps an MC×KC block of A (144 KiB) held in L2; the KC×NC
// panel of B lives in L3.
const (
	kcBlock = 256
	mcBlock = 144
	ncBlock = 4080
)

// parallelMin is the work (m·n·k multiply-adds) below which goroutines cost
// more than they save (Gemm's loop).
const parallelMin = 64 * 64 * 64

// blockParallelMin is the work of one depth block of Sgemm (m·n·min(k,
// KC) multiply-adds) below which the product runs in one goroutine. Each
// depth block hands work to the other goroutines twice (B's panel, then
// C's tiles), and a hand-off to an idle core costs a futex wake-up, tens
// of microseconds on a virtual machine: a block under about 80 µs of work
// lost more than it gained. The MLP 784-128-10's products at batch 64
// (2.1 and 6.4 M per block) ran no faster on two goroutines and the epoch
// took 0.58 s instead of 0.44 s (bench/RESULTS.md, training).
const blockParallelMin = 8 << 20

// Workers is the number of goroutines, at most most, worth giving an
// m×k by k×n product: 1 when its depth blocks are too small to split.
func Workers(most, m, n, k int) int {
	if int64(m)*int64(n)*int64(min(k, kcBlock)) < blockParallelMin {
		return 1
	}
	return most
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C on row-major float32
// matrices, where op(X) is X or, when its trans flag is set, Xᵀ. op(A) is
// m×k, op(B) is k×n and C is m×n; lda, ldb and ldc are the row strides of
// the matrices as stored. When beta is 0, C is only written, never read
// (it may hold garbage, even NaN). Large products run on every available
// core (GOMAXPROCS).
//
// Sgemm panics when a slice is too short for its dimensions and stride:
// callers pass matrices they built, so that is a programming error.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	workers := Workers(runtime.GOMAXPROCS(0), m, n, k)
	SgemmWorkers(workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmWorkers is Sgemm with an explicit number of goroutines; 1 runs the
// whole product in the calling goroutine, which is what callers that
// already parallelise over a batch want.
func SgemmWorkers(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(best, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemm is SgemmWorkers on a chosen machine (tests run each).
func sgemm(mach machine, workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkOperand("A", transA, m, k, len(a), lda)
	checkOperand("B", transB, k, n, len(b), ldb)
	checkOperand("C", false, m, n, len(c), ldc)
	accum, ok := startC(m, n, k, alpha, beta, c, ldc)
	if !ok {
		return
	}
	p := &problem{
		transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
		mach: mach,
	}
	p.run(max(1, workers), accum)
}

// startC applies beta to C ahead of a product: it reports whether there
// is a product to add (ok) and whether it adds to C (accum) or
// overwrites it. An empty product only scales C.
func startC(m, n, k int, alpha, beta float32, c []float32, ldc int) (accum, ok bool) {
	if m == 0 || n == 0 {
		return false, false
	}
	if k == 0 || alpha == 0 {
		if beta != 1 {
			scaleC(m, n, beta, c, ldc)
		}
		return false, false
	}
	if beta != 0 && beta != 1 {
		scaleC(m, n, beta, c, ldc)
		beta = 1
	}
	return beta != 0, true
}

// checkOperand verifies that a rows×cols matrix (cols×rows when trans) with
// row stride ld fits in size elements.
func checkOperand(name string, trans bool, rows, cols, size, ld int) {
	if trans {
		rows, cols = cols, rows
	}
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("gemm: %s has negative dimensions %d×%d", name, rows, cols))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if ld < cols {
		panic(fmt.Sprintf("gemm: %s row stride %d is less than its %d columns", name, ld, cols))
	}
	if need := (rows-1)*ld + cols; size < need {
		panic(fmt.Sprintf("gemm: %s holds %d elements, %d×%d with stride %d needs %d", name, size, rows, cols, ld, need))
	}
}

// scaleC sets C = beta·C, writing zeros when beta is 0 so that garbage in C
// (NaN included) is discarded, as BLAS does.
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// kernelFunc computes the MR×NR tile C = Ap·Bp (accum false) or
// C += Ap·Bp (accum true) over k packed steps; Ap holds k·MR values, Bp
// k·NR values, and C's rows are ldc apart.
type kernelFunc func(k int, ap, bp, c []float32, ldc int, accum bool)

// problem is one Sgemm call in flight.
type problem struct {
	transA, transB bool
	m, n, k        int
	alpha          float32
	a, b, c        []float32
	lda, ldb, ldc  int
	mach           machine
	// packed is op(A) packed ahead (SgemmPackedA), packedB op(B)
	// (SgemmPackedB), else nil.
	packed  *PackedA
	packedB *PackedB
}

// run walks the Goto loop nest: column panels of C (NC), then depth blocks
// (KC), packing each KC×NC panel of B once (in parallel) and sharing it
// among workers that each pack and multiply their own MC×KC blocks of A.
func (p *problem) run(workers int, accumInit bool) {
	var bp *buf
	if p.packedB == nil {
		bp = getBuf(min(p.k, kcBlock) * roundUp(min(p.n, ncBlock), nr))
		defer putBuf(bp)
	}
	for jc := 0; jc < p.n; jc += ncBlock {
		ncur := min(ncBlock, p.n-jc)
		panels := (ncur + nr - 1) / nr
		for pc := 0; pc < p.k; pc += kcBlock {
			kcur := min(kcBlock, p.k-pc)
			accum := accumInit || pc > 0
			if p.packedB != nil {
				p.multiply(workers, p.packedB.block(jc, ncur, pc, kcur), jc, ncur, pc, kcur, accum)
				continue
			}
			parallel(min(workers, panels), panels, func(lo, hi int) {
				p.packB(bp.s, pc, kcur, jc, ncur, lo, hi)
			})
			p.multiply(workers, bp.s, jc, ncur, pc, kcur, accum)
		}
	}
}

// multiply computes C[:, jc:jc+ncur] (+)= op(A)[:, pc:pc+kcur]·Bp. The
// work is cut into tasks (a block of rows × a range of B panels) that
// workers claim in order, so a core slowed by other load takes fewer.
func (p *problem) multiply(workers int, bp []float32, jc, ncur, pc, kcur int, accum bool) {
	panels := (ncur + nr - 1) / nr
	// Row blocks: at most MC rows, and a multiple of the worker count so
	// that the last round of tasks keeps every core busy.
	rowBlocks := (p.m + mcBlock - 1) / mcBlock
	if workers > 1 && rowBlocks > 1 {
		rowBlocks = roundUp(rowBlocks, workers)
	}
	mcur := roundUp((p.m+rowBlocks-1)/rowBlocks, mr)
	rowBlocks = (p.m + mcur - 1) / mcur
	// Few rows: split the columns instead, each worker packing the
	// (small) A block itself.
	colChunks := 1
	if rowBlocks < 2*workers && workers > 1 {
		colChunks = min(panels, (2*workers+rowBlocks-1)/rowBlocks)
	}
	chunk := (panels + colChunks - 1) / colChunks
	colChunks = (panels + chunk - 1) / chunk
	tasks := rowBlocks * colChunks

	var next atomic.Int64
	work := func() {
		// The pooled scratch holds the packed A block (unless A comes
		// packed) and, after it, the edge tile, which would otherwise
		// escape to the heap on every call (the kernel is a func value).
		aSize := mcur * kcur
		if p.packed != nil {
			aSize = 0
		}
		ap := getBuf(aSize + mr*nr)
		defer putBuf(ap)
		tile := (*[mr * nr]float32)(ap.s[aSize:])
		packed := -1
		for {
			t := int(next.Add(1) - 1)
			if t >= tasks {
				return
			}
			rb, cb := t/colChunks, t%colChunks
			i0 := rb * mcur
			rows := min(mcur, p.m-i0)
			var as []float32
			if p.packed != nil {
				// i0 is a multiple of MR: its panels start i0·kcur in.
				as = p.packed.block(pc, kcur)[i0*kcur:]
			} else {
				if packed != rb {
					p.packA(ap.s, i0, rows, pc, kcur)
					packed = rb
				}
				as = ap.s
			}
			q0, q1 := cb*chunk, min(panels, (cb+1)*chunk)
			p.macroKernel(as, bp, i0, rows, jc, ncur, q0, q1, kcur, accum, tile)
		}
	}
	if workers == 1 || tasks == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range min(workers, tasks) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// macroKernel runs the micro-kernel over rows [i0, i0+rows) and B panels
// [q0, q1): each KC×NR sliver of B stays in L1 while the A block streams
// from L2. Edge tiles go through a scratch tile and are merged into C.
func (p *problem) macroKernel(ap, bp []float32, i0, rows, jc, ncur, q0, q1, kcur int, accum bool, tile *[mr * nr]float32) {
	for q := q0; q < q1; q++ {
		j0 := q * nr
		cols := min(nr, ncur-j0)
		bs := bp[q*nr*kcur : (q+1)*nr*kcur]
		for ir := 0; ir < rows; ir += mr {
			rs := min(mr, rows-ir)
			as := ap[ir*kcur : (ir+mr)*kcur]
			off := (i0+ir)*p.ldc + jc + j0
			if rs == mr && cols == nr {
				p.mach.kern(kcur, as, bs, p.c[off:], p.ldc, accum)
				continue
			}
			p.mach.kern(kcur, as, bs, tile[:], nr, false)
			for i := range rs {
				dst := p.c[off+i*p.ldc : off+i*p.ldc+cols]
				src := tile[i*nr : i*nr+cols]
				if accum {
					for j, v := range src {
						dst[j] += v
					}
				} else {
					copy(dst, src)
				}
			}
		}
	}
}

// parallel splits [0, n) into at most workers contiguous ranges and runs fn
// on each, the first in the calling goroutine.
func parallel(workers, n int, fn func(lo, hi int)) {
	if workers <= 1 || n <= 1 {
		fn(0, n)
		return
	}
	step := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		wg.Go(func() { fn(lo, min(n, lo+step)) })
	}
	fn(0, min(n, step))
	wg.Wait()
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }
