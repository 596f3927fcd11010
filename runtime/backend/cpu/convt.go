package cpu

import "github.com/tref-lang/tref/runtime/ops"

func init() {
	Register(ops.ConvTranspose2d, viaFloat32Inputs(plainKernel(convKernel("conv_transpose2d", ops.ConvTranspose2dLayout, convTranspose[float32], convTranspose[float64]))))
}

// convTranspose computes, per image and group, the columns Wᵀ·X (one row
// per output channel and kernel tap, one column per input position) with
// the GEMM, a chunk of input positions at a time, and scatters them into
// the output (col2im, the adjoint of conv2d's im2col). Images are spread
// over the cores.
func convTranspose[T float32 | float64](d ops.ConvDims, a ops.ConvTranspose2dAttrs, x, w, bias, out []T, mm mmFunc[T], _ packedMM[T]) {
	g := a.Groups
	cg, og := d.C/g, d.OutC/g
	rows := og * d.KH * d.KW
	npos, onum := d.H*d.W, d.OH*d.OW
	if d.Batch == 0 || d.OutC == 0 {
		return
	}
	chunk := npos
	if rows*npos > colBudget {
		chunk = min(npos, max(colMin, colBudget/max(1, rows)))
	}
	chunks := max(1, (npos+chunk-1)/chunk)
	workers := linalgWorkers()
	inner := 1
	if d.Batch < workers {
		inner, workers = workers, 1
	}
	newCol, release := workerScratch[T](min(workers, d.Batch), rows*chunk)
	defer release()
	forTasks(workers, d.Batch, newCol, func(n int, col []T) {
		dst := out[n*d.OutC*onum : (n+1)*d.OutC*onum]
		for c := range d.OutC {
			v := T(0)
			if bias != nil {
				v = bias[c]
			}
			fill(dst[c*onum:(c+1)*onum], v)
		}
		img := x[n*d.C*npos : (n+1)*d.C*npos]
		for gi := range g {
			// The group's weight rows are [cg, og·kh·kw]: Wᵀ is A transposed.
			wg := w[gi*cg*rows : (gi+1)*cg*rows]
			xg := img[gi*cg*npos : (gi+1)*cg*npos]
			for ch := range chunks {
				j0 := ch * chunk
				cols := min(chunk, npos-j0)
				if cols <= 0 {
					break
				}
				mm(inner, true, false, rows, cols, cg, wg, rows, xg[j0:], npos, false, col, cols)
				col2im(col[:rows*cols], dst[gi*og*onum:(gi+1)*og*onum], d, a, og, j0, cols)
			}
		}
	})
}

// col2im adds column j (input position j0+j) of row (o, ki, kj) of col
// into output pixel (o, ih·stride - pad + ki·dil, iw·stride - pad + kj·dil)
// of one group's og output planes, skipping pixels outside the output.
// The positions are walked input row by input row, with the columns whose
// pixel falls inside the output computed once per row and tap.
func col2im[T float32 | float64](col, dst []T, d ops.ConvDims, a ops.ConvTranspose2dAttrs, og, j0, cols int) {
	sh, sw := a.Stride[0], a.Stride[1]
	ph, pw := a.Padding[0], a.Padding[1]
	dh, dw := a.Dilation[0], a.Dilation[1]
	onum := d.OH * d.OW
	r := 0
	for o := range og {
		plane := dst[o*onum : (o+1)*onum]
		for ki := range d.KH {
			for kj := range d.KW {
				src := col[r*cols : (r+1)*cols]
				r++
				// Input columns iw with 0 <= iw·sw + off < OW.
				off := kj*dw - pw
				lo := 0
				if off < 0 {
					lo = (-off + sw - 1) / sw
				}
				hi := max(lo, min(d.W, (d.OW-off+sw-1)/sw))
				for j := 0; j < cols; {
					p := j0 + j
					ih, iw0 := p/d.W, p%d.W
					n := min(d.W-iw0, cols-j)
					seg := src[j : j+n]
					j += n
					oh := ih*sh - ph + ki*dh
					if oh < 0 || oh >= d.OH {
						continue
					}
					row := plane[oh*d.OW : (oh+1)*d.OW]
					for iw := max(lo, iw0); iw < min(hi, iw0+n); iw++ {
						row[iw*sw+off] += seg[iw-iw0]
					}
				}
			}
		}
	}
}
