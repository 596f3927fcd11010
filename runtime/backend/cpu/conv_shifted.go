package cpu

import "github.com/tref-lang/tref/runtime/ops"

// shiftedMinChannels is the fewest input channels per group for which a
// unit-stride convolution runs as shifted products (convShifted): each
// tap's product is then at least this deep, where im2col's single product
// is KH·KW times deeper.
const shiftedMinChannels = 16

// useShifted reports whether convForward runs a convolution with
// convShifted: unit stride, a kernel of more than one tap and enough
// input channels per group.
func useShifted(d ops.ConvDims, a ops.Conv2dAttrs) bool {
	return a.Stride == [2]int{1, 1} && d.KH*d.KW > 1 && d.C/a.Groups >= shiftedMinChannels
}

// convShifted computes a unit-stride convolution without lowering it:
// with the image zero-padded once into planes PW = OW + (KW-1)·dw wide,
// the input pixel tap (ki, kj) multiplies for output (oh, ow) sits at
// (oh + ki·dh)·PW + ow + kj·dw, so over output positions laid out PW to a
// row it is the padded planes shifted by ki·dh·PW + kj·dw: a plain
// strided matrix. The result is the sum over taps of one GEMM each,
// W[:, :, ki, kj] times that matrix, accumulated onto the bias in a
// scratch of PW-wide rows whose first OW columns are then the output.
// This skips im2col's copy of every pixel KH·KW times, which cost as
// much as the products on the OCR detector's 3×3 convolutions.
func convShifted[T float32 | float64](d ops.ConvDims, a ops.Conv2dAttrs, x, w, bias, out []T, mm mmFunc[T], pm packedMM[T]) {
	g := a.Groups
	cg, og := d.C/g, d.OutC/g
	dh, dw := a.Dilation[0], a.Dilation[1]
	taps := d.KH * d.KW
	ph := d.OH + (d.KH-1)*dh
	pw := d.OW + (d.KW-1)*dw
	// Output positions on the PW-wide grid, up to the last valid one.
	n := (d.OH-1)*pw + d.OW
	npos := d.OH * d.OW
	workers := linalgWorkers()
	inner := 1
	if d.Batch < workers {
		inner, workers = workers, 1
	}
	padSize, accSize, wSize := d.C*ph*pw, og*n, og*cg*taps
	newScratch, release := workerScratch[T](min(workers, d.Batch), padSize+accSize+wSize)
	defer release()
	forTasks(workers, d.Batch, newScratch, func(b int, buf []T) {
		pad, acc, wt := buf[:padSize], buf[padSize:padSize+accSize], buf[padSize+accSize:]
		img := x[b*d.C*d.H*d.W : (b+1)*d.C*d.H*d.W]
		for c := range d.C {
			padPlane(pad[c*ph*pw:(c+1)*ph*pw], img[c*d.H*d.W:(c+1)*d.H*d.W], d.H, d.W, ph, pw, a.PadLo[0], a.PadLo[1])
		}
		for gi := range g {
			// The group's weights tap by tap, wt[tap][o][c], laid out
			// when a tap's product first needs them (a constant
			// weight's packed taps may all be kept).
			wg := w[gi*og*cg*taps : (gi+1)*og*cg*taps]
			laid := false
			lay := func() {
				if laid {
					return
				}
				for o := range og {
					for c := range cg {
						src := wg[(o*cg+c)*taps : (o*cg+c+1)*taps]
						for t, v := range src {
							wt[(t*og+o)*cg+c] = v
						}
					}
				}
				laid = true
			}
			accumulate := bias != nil
			if accumulate {
				for o := range og {
					fill(acc[o*n:(o+1)*n], bias[gi*og+o])
				}
			}
			planes := pad[gi*cg*ph*pw : (gi+1)*cg*ph*pw]
			for ki := range d.KH {
				for kj := range d.KW {
					t := ki*d.KW + kj
					shifted := planes[ki*dh*pw+kj*dw:]
					wtap := wt[t*og*cg : (t+1)*og*cg]
					if pm == nil || !pm(inner, tapPart(gi, taps, t), og, n, cg, wtap, cg, lay, shifted, ph*pw, accumulate, acc, n) {
						lay()
						mm(inner, false, false, og, n, cg, wtap, cg, shifted, ph*pw, accumulate, acc, n)
					}
					accumulate = true
				}
			}
			dst := out[(b*d.OutC+gi*og)*npos : (b*d.OutC+(gi+1)*og)*npos]
			for o := range og {
				for oh := range d.OH {
					copy(dst[o*npos+oh*d.OW:o*npos+(oh+1)*d.OW], acc[o*n+oh*pw:])
				}
			}
		}
	})
}
