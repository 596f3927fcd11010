package cpu

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
)

// symmetricEigen returns the eigenvalues of the symmetric n×n row-major a
// (overwritten), ascending, and the eigenvectors as the columns of v
// (row-major), each with its entry of largest magnitude positive. It
// reduces a to tridiagonal form by Householder reflections and
// diagonalises that by the implicit QL method with Wilkinson-like shifts
// (EISPACK's tred2 and tql2, as JAMA writes them): LAPACK's approach for
// syevd's small cases. A non-finite entry makes every value NaN, as
// torch's eigh gives. QL steps that do not converge (qlStepsPerValue for
// each eigenvalue) are an error, as LAPACK's info > 0, with the values
// and vectors as far as they got.
func symmetricEigen(a []float64, n int) (w, v []float64, err error) {
	w = make([]float64, n)
	if !allFinite(a) {
		fillNaN(w)
		fillNaN(a)
		return w, a, nil
	}
	if n == 0 {
		return w, a, nil
	}
	e := make([]float64, n)
	tridiagonalize(a, w, e, n)
	vt := a // Q's columns as rows: QL rotates pairs of them
	if unconverged := tridiagonalQL(vt, w, e, n); unconverged > 0 {
		err = fmt.Errorf("the eigenvalue algorithm failed to converge (%d off-diagonal elements of the tridiagonal form did not reach zero); the matrix may be ill-conditioned", unconverged)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(w[i], w[j]) })
	sorted, vals := make([]float64, n*n), make([]float64, n)
	for c, src := range order {
		vals[c] = w[src]
		for r := range n {
			sorted[r*n+c] = vt[src*n+r]
		}
		normalizeSign(sorted, c, n, n, nil)
	}
	return vals, sorted, err
}

// tridiagonalize overwrites the symmetric v with Qᵀ, the transpose of
// the orthogonal Q of Qᵀ·A·Q = T, T's diagonal in d and its subdiagonal
// in e[1:] (tred2, its indices swapped so that its inner loops run along
// memory, and Q's columns come out as rows for tridiagonalQL).
func tridiagonalize(v, d, e []float64, n int) {
	for j := range n {
		d[j] = v[j*n+(n-1)]
	}
	for i := n - 1; i > 0; i-- {
		scale, h := 0.0, 0.0
		for k := range i {
			scale += math.Abs(d[k])
		}
		if scale == 0 {
			e[i] = d[i-1]
			for j := range i {
				d[j] = v[j*n+(i-1)]
				v[j*n+i], v[i*n+j] = 0, 0
			}
			d[i] = h
			continue
		}
		// The Householder vector of row i.
		for k := range i {
			d[k] /= scale
			h += d[k] * d[k]
		}
		f := d[i-1]
		g := math.Sqrt(h)
		if f > 0 {
			g = -g
		}
		e[i] = scale * g
		h -= f * g
		d[i-1] = f - g
		for j := range i {
			e[j] = 0
		}
		// The similarity transformation of the remaining columns.
		for j := range i {
			f = d[j]
			v[i*n+j] = f
			row := v[j*n+j+1 : j*n+i]
			e[j] += v[j*n+j]*f + dot(row, d[j+1:i])
			gemm.AxpyF64(f, row, e[j+1:i])
		}
		f = 0
		for j := range i {
			e[j] /= h
			f += e[j] * d[j]
		}
		hh := f / (h + h)
		for j := range i {
			e[j] -= hh * d[j]
		}
		for j := range i {
			row := v[j*n+j : j*n+i]
			gemm.AxpyF64(-d[j], e[j:i], row)
			gemm.AxpyF64(-e[j], d[j:i], row)
			d[j] = v[j*n+(i-1)]
			v[j*n+i] = 0
		}
		d[i] = h
	}
	// Accumulate the transformations.
	for i := range n - 1 {
		v[i*n+(n-1)] = v[i*n+i]
		v[i*n+i] = 1
		if h := d[i+1]; h != 0 {
			for k := 0; k <= i; k++ {
				d[k] = v[(i+1)*n+k] / h
			}
			for j := 0; j <= i; j++ {
				row := v[j*n : j*n+i+1]
				gemm.AxpyF64(-dot(v[(i+1)*n:(i+1)*n+i+1], row), d[:i+1], row)
			}
		}
		for k := 0; k <= i; k++ {
			v[(i+1)*n+k] = 0
		}
	}
	for j := range n {
		d[j] = v[j*n+(n-1)]
		v[j*n+(n-1)] = 0
	}
	v[(n-1)*n+(n-1)] = 1
	e[0] = 0
}

// qlStepsPerValue bounds the QL steps spent on one eigenvalue (tql2's
// 30; a variable so that a test can make it fail).
var qlStepsPerValue = 30

// tridiagonalQL diagonalises the tridiagonal (d, e[1:]) by implicit QL
// steps (tql2), leaving the eigenvalues in d and rotating the rows of vt
// (the columns of Q) into the eigenvectors. It returns how many
// eigenvalues gave up before their off-diagonal element vanished (0:
// all converged).
func tridiagonalQL(vt, d, e []float64, n int) (unconverged int) {
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	f, tst1 := 0.0, 0.0
	const eps = 0x1p-52
	for l := range n {
		tst1 = max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && math.Abs(e[m]) > eps*tst1 {
			m++
		}
		iter := 0
		for ; m > l && iter < qlStepsPerValue; iter++ {
			// The implicit shift.
			g := d[l]
			p := (d[l+1] - g) / (2 * e[l])
			r := math.Hypot(p, 1)
			if p < 0 {
				r = -r
			}
			d[l] = e[l] / (p + r)
			d[l+1] = e[l] * (p + r)
			dl1 := d[l+1]
			h := g - d[l]
			for i := l + 2; i < n; i++ {
				d[i] -= h
			}
			f += h
			// The implicit QL transformation.
			p = d[m]
			c, c2, c3 := 1.0, 1.0, 1.0
			el1 := e[l+1]
			s, s2 := 0.0, 0.0
			for i := m - 1; i >= l; i-- {
				c3, c2, s2 = c2, c, s
				g = c * e[i]
				h = c * p
				r = math.Hypot(p, e[i])
				e[i+1] = s * r
				s = e[i] / r
				c = p / r
				p = c*d[i] - s*g
				d[i+1] = h + s*(c*g+s*d[i])
				// Columns i and i+1 of Q: rows of vt.
				rotate(vt[i*n:(i+1)*n], vt[(i+1)*n:(i+2)*n], c, s)
			}
			p = -s * s2 * c3 * el1 * e[l] / dl1
			e[l] = s * p
			d[l] = c * p
			if math.Abs(e[l]) <= eps*tst1 {
				break
			}
		}
		if m > l && iter == qlStepsPerValue {
			unconverged++
		}
		d[l] += f
		e[l] = 0
	}
	return unconverged
}
