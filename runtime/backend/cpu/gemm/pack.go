package gemm

import (
	"sync"
	"unsafe"
)

// packA copies rows [i0, i0+rows) and columns [p0, p0+kc) of alpha·op(A)
// into dst as MR-row micro-panels: panel r holds, for each step p, the MR
// values of rows r·MR.. in a row (zero past the last row).
func (p *problem) packA(dst []float32, i0, rows, p0, kc int) {
	alpha := p.alpha
	for ir := 0; ir < rows; ir += mr {
		rs := min(mr, rows-ir)
		d := dst[ir*kc : (ir+mr)*kc]
		if p.transA {
			// op(A)[i][q] = A[q][i]: each step's MR values are contiguous.
			for q := range kc {
				src := p.a[(p0+q)*p.lda+i0+ir:][:rs]
				dq := d[q*mr : q*mr+mr]
				for i, v := range src {
					dq[i] = alpha * v
				}
				clear(dq[rs:])
			}
			continue
		}
		base := (i0+ir)*p.lda + p0
		if rs == mr && alpha == 1 {
			done := 0
			if p.mach.packA != nil {
				done = p.mach.packA(d, p.a[base:], p.lda, kc)
			}
			r0 := p.a[base:][:kc]
			r1 := p.a[base+p.lda:][:kc]
			r2 := p.a[base+2*p.lda:][:kc]
			r3 := p.a[base+3*p.lda:][:kc]
			r4 := p.a[base+4*p.lda:][:kc]
			r5 := p.a[base+5*p.lda:][:kc]
			for q := done; q < kc; q++ {
				dq := d[q*mr : q*mr+mr : q*mr+mr]
				dq[0], dq[1], dq[2], dq[3], dq[4], dq[5] = r0[q], r1[q], r2[q], r3[q], r4[q], r5[q]
			}
			continue
		}
		for i := range mr {
			if i >= rs {
				for q := range kc {
					d[q*mr+i] = 0
				}
				continue
			}
			src := p.a[base+i*p.lda:][:kc]
			for q, v := range src {
				d[q*mr+i] = alpha * v
			}
		}
	}
}

// packB copies rows [p0, p0+kc) of op(B), columns jc+lo·NR up to
// jc+hi·NR (and at most jc+ncur), into micro-panels lo..hi-1 of bp: panel
// q holds, for each step, NR values in a row (zero past the last column).
func (p *problem) packB(bp []float32, p0, kc, jc, ncur, lo, hi int) {
	if !p.transB {
		// Row by row across all the panels, so that B is read along its
		// rows (a column strip of a wide B touches a new page every row).
		for q := range kc {
			src := p.b[(p0+q)*p.ldb+jc : (p0+q)*p.ldb+jc+ncur]
			pn := lo
			if p.mach.packBRow != nil {
				// The full panels at once; an edge panel below.
				if full := min(hi, ncur/nr) - lo; full > 0 {
					p.mach.packBRow(bp[(lo*kc+q)*nr:], src[lo*nr:], full, kc*nr)
					pn += full
				}
			}
			for ; pn < hi; pn++ {
				dq := bp[(pn*kc+q)*nr : (pn*kc+q+1)*nr]
				if j0 := pn * nr; j0+nr <= ncur {
					*(*[nr]float32)(dq) = *(*[nr]float32)(src[j0:])
				} else {
					clear(dq[copy(dq, src[j0:]):])
				}
			}
		}
		return
	}
	for pn := lo; pn < hi; pn++ {
		j0 := pn * nr
		p.packBTPanel(bp[pn*kc*nr:(pn+1)*kc*nr], p0, kc, jc+j0, min(nr, ncur-j0))
	}
}

// packBTPanel packs one micro-panel of op(B) = Bᵀ: columns [j0, j0+cols),
// cols ≤ NR, of op(B) are rows of B, read along k.
func (p *problem) packBTPanel(dst []float32, p0, kc, j0, cols int) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	done := 0
	if cols == nr && p.mach.packBT != nil {
		done = p.mach.packBT(dst, p.b[j0*p.ldb+p0:], p.ldb, kc)
	}
	// A few steps at a time, so that the writes stay within a handful of
	// cache lines.
	const step = 8
	for q0 := done; q0 < kc; q0 += step {
		qs := min(step, kc-q0)
		for j := range cols {
			src := p.b[(j0+j)*p.ldb+p0+q0:][:qs]
			for q, v := range src {
				dst[(q0+q)*nr+j] = v
			}
		}
	}
}

// buf is a pooled scratch slice whose data starts on a 64-byte boundary, so
// that every packed row of B is exactly one cache line.
type buf struct {
	raw []float32
	s   []float32
}

var bufPool sync.Pool

func getBuf(n int) *buf {
	b, _ := bufPool.Get().(*buf)
	if b == nil {
		b = &buf{}
	}
	if cap(b.raw) < n+16 {
		b.raw = make([]float32, n+16)
	}
	off := 0
	if rem := uintptr(unsafe.Pointer(&b.raw[0])) % 64; rem != 0 {
		off = int(64-rem) / 4
	}
	b.s = b.raw[off : off+n]
	return b
}

func putBuf(b *buf) { bufPool.Put(b) }
