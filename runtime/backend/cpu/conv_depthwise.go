package cpu

import "github.com/tref-lang/tref/runtime/ops"

// Depthwise convolutions (one input channel per group, the MobileNet
// blocks of the OCR and keyword models) run as a direct kernel: lowering
// them with im2col made one GEMM per channel with a single output row,
// where packing the operands cost more than the product.

// isDepthwise reports whether convForward runs a convolution with
// convDepthwise: grouped with one input channel per group.
func isDepthwise(d ops.ConvDims, a ops.Conv2dAttrs) bool {
	return a.Groups > 1 && a.Groups == d.C
}

// convDepthwise computes a depthwise convolution directly: each input
// plane is copied once into a zero-padded scratch plane holding the
// pixels the taps read, and every output row is the sum over the taps of
// a weight times a shifted row of it, on top of the bias. A stride along
// the row is taken out first: the padded plane is split into sw phase
// planes (columns c·sw + q), and each tap reads one of them at unit
// stride. Rows are computed 8 columns at a time into a scratch row, so
// that a row of any width runs whole in the vector kernel. Output channel
// o reads input channel o/mult (mult output channels per group). Planes
// are spread over the cores.
func convDepthwise[T float32 | float64](d ops.ConvDims, a ops.Conv2dAttrs, x, w, bias, out []T) {
	mult := d.OutC / d.C
	sh, sw := a.Stride[0], a.Stride[1]
	dh, dw := a.Dilation[0], a.Dilation[1]
	// The padded plane: rows oh·sh + ki·dh, columns ow·sw + kj·dw.
	ph := (d.OH-1)*sh + (d.KH-1)*dh + 1
	pw := (d.OW-1)*sw + (d.KW-1)*dw + 1
	// Phase planes of qw columns (one phase, the padded plane itself,
	// without a stride); rows computed ext columns wide read up to 7
	// columns past a row, into the next row or the slack at the end.
	qw := (pw + sw - 1) / sw
	ext := (d.OW + 7) &^ 7
	// Without a stride down the plane, output row oh, column ow, tap row
	// ki reads row oh + ki·dh of the phase plane, so the whole output,
	// computed qw columns to a row (the last qw-OW dropped), is one long
	// row over the plane: one kernel call per phase instead of one per
	// row and phase. The extra row of slack covers what its last block
	// reads past the plane.
	whole := sh == 1
	if whole {
		ext = (d.OH*qw + 7) &^ 7
	}
	phaseSize := (ph+1)*qw + 8
	padSize := ph*pw + 8
	if sw == 1 {
		padSize = 0
	}
	phases := tapPhases(d.KW, sw, dw)
	taps := d.KH * d.KW
	npos := d.OH * d.OW
	planes := d.Batch * d.C
	workers := min(linalgWorkers(), planes)
	newScratch, release := workerScratch[T](workers, padSize+sw*phaseSize+ext+taps)
	defer release()
	forTasks(workers, planes, newScratch, func(t int, buf []T) {
		pad, phase := buf[:padSize], buf[padSize:padSize+sw*phaseSize]
		row, wq := buf[padSize+sw*phaseSize:][:ext], buf[padSize+sw*phaseSize+ext:][:taps]
		plane := x[t*d.H*d.W : (t+1)*d.H*d.W]
		if sw == 1 {
			padPlane(phase[:ph*pw], plane, d.H, d.W, ph, pw, a.PadLo[0], a.PadLo[1])
			clear(phase[ph*pw:])
		} else {
			padPlane(pad[:ph*pw], plane, d.H, d.W, ph, pw, a.PadLo[0], a.PadLo[1])
			splitPhases(phase, pad[:ph*pw], ph, pw, sw, qw, phaseSize)
		}
		c, n := t%d.C, t/d.C
		for m := range mult {
			o := c*mult + m
			dst := out[(n*d.OutC+o)*npos : (n*d.OutC+o+1)*npos]
			var b T
			if bias != nil {
				b = bias[o]
			}
			// Each phase's weights, [kh, nq], one after another in wq
			// (the kernel itself without a stride).
			wo := w[o*taps : (o+1)*taps]
			if sw > 1 {
				gatherPhaseWeights(wq, wo, phases, d.KH, d.KW)
				wo = wq
			}
			if whole {
				at := 0
				for i := range phases {
					p := &phases[i]
					dwRow(row, phase[p.q*phaseSize+p.off:], dh*qw, wo[at:at+d.KH*p.nq], d.KH, p.nq, p.dil, b, i == 0)
					at += d.KH * p.nq
				}
				for oh := range d.OH {
					copy(dst[oh*d.OW:(oh+1)*d.OW], row[oh*qw:])
				}
				continue
			}
			for oh := range d.OH {
				// Rows a multiple of 8 wide are computed in place.
				row := row
				if ext == d.OW {
					row = dst[oh*d.OW : (oh+1)*d.OW]
				}
				at := 0
				for i := range phases {
					p := &phases[i]
					src := phase[p.q*phaseSize+oh*sh*qw+p.off:]
					dwRow(row, src, dh*qw, wo[at:at+d.KH*p.nq], d.KH, p.nq, p.dil, b, i == 0)
					at += d.KH * p.nq
				}
				if ext != d.OW {
					copy(dst[oh*d.OW:(oh+1)*d.OW], row)
				}
			}
		}
	})
}

// tapPhase is the taps of a kernel row that read phase plane q: kj = k0,
// k0+step, ... (nq of them) read its columns off, off+dil, ....
type tapPhase struct{ q, k0, step, nq, off, dil int }

// tapPhases groups a kernel row's kw taps (dilation dw) by the phase
// plane they read under stride sw: tap kj reads column ow·sw + kj·dw,
// which is column ow + kj·dw/sw of phase (kj·dw) mod sw.
func tapPhases(kw, sw, dw int) []tapPhase {
	g := gcd(sw, dw)
	var ps []tapPhase
	for q := range sw {
		for kj := range kw {
			if kj*dw%sw == q {
				p := tapPhase{q: q, k0: kj, step: sw / g, off: kj * dw / sw, dil: dw / g}
				p.nq = (kw-1-kj)/p.step + 1
				ps = append(ps, p)
				break
			}
		}
	}
	return ps
}

// gatherPhaseWeights writes the kh×kw kernel w as each phase's [kh, nq]
// taps, one phase after another, into wq.
func gatherPhaseWeights[T float32 | float64](wq, w []T, phases []tapPhase, kh, kw int) {
	at := 0
	for _, p := range phases {
		for ki := range kh {
			for i := range p.nq {
				wq[at+ki*p.nq+i] = w[ki*kw+p.k0+i*p.step]
			}
		}
		at += kh * p.nq
	}
}

// splitPhases writes the columns q, q+sw, q+2·sw, ... of each row of the
// ph×pw plane pad as the rows (qw wide) of phase plane q, each phase size
// elements apart in phase; what no column fills is zero.
func splitPhases[T float32 | float64](phase, pad []T, ph, pw, sw, qw, size int) {
	clear(phase)
	for q := range sw {
		dst := phase[q*size:]
		for r := range ph {
			src, d := pad[r*pw:(r+1)*pw], dst[r*qw:(r+1)*qw]
			for c := range d {
				if i := c*sw + q; i < pw {
					d[c] = src[i]
				}
			}
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// padPlane writes the h×w plane x into the ph×pw plane pad at row top and
// column left, zero elsewhere (the part of x past pad's extent, which no
// tap reads, is dropped).
func padPlane[T float32 | float64](pad, x []T, h, w, ph, pw, top, left int) {
	for r := range ph {
		dst := pad[r*pw : (r+1)*pw]
		ih := r - top
		if ih < 0 || ih >= h {
			clear(dst)
			continue
		}
		src := x[ih*w : (ih+1)*w]
		lo := min(pw, left)
		hi := max(lo, min(pw, left+w))
		clear(dst[:lo])
		if hi > lo {
			copy(dst[lo:hi], src[lo-left:hi-left])
		}
		clear(dst[hi:])
	}
}

// dwRow sets each out[j] to its start (b when init, else out[j]) plus the
// taps of one output row: the sum over (ki, kj) of w[ki·kw+kj] ·
// x[ki·ldx + j + kj·dil].
func dwRow[T float32 | float64](out, x []T, ldx int, w []T, kh, kw, dil int, b T, init bool) {
	for j := dwRowSIMD(out, x, ldx, w, kh, kw, dil, b, init); j < len(out); j++ {
		s := b
		if !init {
			s = out[j]
		}
		for ki := range kh {
			xr := x[ki*ldx+j:]
			for kj, wv := range w[ki*kw : (ki+1)*kw] {
				s += wv * xr[kj*dil]
			}
		}
		out[j] = s
	}
}
