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
// plane is copied once into a zero-padded scratch plane holding exactly
// the pixels the taps read, and every output row is then the sum over
// the taps of a weight times a shifted row of it, accumulated on top of
// the bias. Output channel o reads input channel o/mult (mult output
// channels per group). Planes are spread over the cores.
func convDepthwise[T float32 | float64](d ops.ConvDims, a ops.Conv2dAttrs, x, w, bias, out []T) {
	mult := d.OutC / d.C
	sh, sw := a.Stride[0], a.Stride[1]
	dh, dw := a.Dilation[0], a.Dilation[1]
	// The padded plane: rows oh·sh + ki·dh, columns ow·sw + kj·dw.
	ph := (d.OH-1)*sh + (d.KH-1)*dh + 1
	pw := (d.OW-1)*sw + (d.KW-1)*dw + 1
	npos, taps := d.OH*d.OW, d.KH*d.KW
	planes := d.Batch * d.C
	workers := min(linalgWorkers(), planes)
	newPad, release := workerScratch[T](workers, ph*pw)
	defer release()
	forTasks(workers, planes, newPad, func(t int, pad []T) {
		c := t % d.C
		padPlane(pad, x[t*d.H*d.W:(t+1)*d.H*d.W], d.H, d.W, ph, pw, a.PadLo[0], a.PadLo[1])
		n := t / d.C
		for m := range mult {
			o := c*mult + m
			dst := out[(n*d.OutC+o)*npos : (n*d.OutC+o+1)*npos]
			var b T
			if bias != nil {
				b = bias[o]
			}
			wo := w[o*taps : (o+1)*taps]
			for oh := range d.OH {
				row := dst[oh*d.OW : (oh+1)*d.OW]
				for j := range row {
					row[j] = b
				}
				dwRow(row, pad[oh*sh*pw:], dh*pw, wo, d.KH, d.KW, sw, dw)
			}
		}
	})
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

// dwRow adds to each out[j] the taps of one output row: the sum over
// (ki, kj) of w[ki·kw+kj] · x[ki·ldx + j·sw + kj·dw].
func dwRow[T float32 | float64](out, x []T, ldx int, w []T, kh, kw, sw, dw int) {
	j0 := 0
	if sw == 1 {
		j0 = dwRowSIMD(out, x, ldx, w, kh, kw, dw)
	}
	for j := j0; j < len(out); j++ {
		s := out[j]
		for ki := range kh {
			xr := x[ki*ldx+j*sw:]
			wr := w[ki*kw : (ki+1)*kw]
			for kj, wv := range wr {
				s += wv * xr[kj*dw]
			}
		}
		out[j] = s
	}
}
