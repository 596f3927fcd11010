//go:build amd64 && !purego

package cpu

// AVX2 comparisons of float32 rows and where on 32-bit elements
// (elementwise_cmp_amd64.s): the scalar loops write one byte per compare
// and branch-free selects, at about half of memory speed.

//go:noescape
func eqVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func neVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func ltVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func leVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func gtVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func geVVF32(o *uint8, a, b *float32, n int)

//go:noescape
func eqVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func neVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func ltVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func leVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func gtVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func geVSF32(o *uint8, a *float32, s float32, n int)

//go:noescape
func whereVVU32(o *uint32, c *uint8, a, b *uint32, n int)

//go:noescape
func whereVSU32(o *uint32, c *uint8, a, b *uint32, n int)

//go:noescape
func whereSVU32(o *uint32, c *uint8, a, b *uint32, n int)

// simdCompareF32 returns the vectorised row of comparison name on float32,
// or nil. generic finishes the tails.
func simdCompareF32(name string, generic func(o []uint8, a, b []float32) error) func(o []uint8, a, b []float32) error {
	if !simdAVX2 {
		return nil
	}
	type kernels struct {
		vv     func(o *uint8, a, b *float32, n int)
		vs, sv func(o *uint8, a *float32, s float32, n int)
	}
	var k kernels
	// s op b[i] is b[i] op' s with op' the mirrored comparison.
	switch name {
	case "eq":
		k = kernels{eqVVF32, eqVSF32, eqVSF32}
	case "ne":
		k = kernels{neVVF32, neVSF32, neVSF32}
	case "lt":
		k = kernels{ltVVF32, ltVSF32, gtVSF32}
	case "le":
		k = kernels{leVVF32, leVSF32, geVSF32}
	case "gt":
		k = kernels{gtVVF32, gtVSF32, ltVSF32}
	case "ge":
		k = kernels{geVVF32, geVSF32, leVSF32}
	default:
		return nil
	}
	return func(o []uint8, a, b []float32) error {
		n := len(o)
		m := n &^ 31
		switch {
		case m == 0:
		case len(a) == n && len(b) == n:
			k.vv(&o[0], &a[0], &b[0], m)
			return generic(o[m:], a[m:], b[m:])
		case len(a) == n:
			k.vs(&o[0], &a[0], b[0], m)
			return generic(o[m:], a[m:], b)
		case len(b) == n:
			k.sv(&o[0], &b[0], a[0], m)
			return generic(o[m:], a, b[m:])
		}
		return generic(o, a, b)
	}
}

// simdWhereU32 returns the vectorised where row on 32-bit elements (the
// condition advancing with the output; either value operand may be a
// broadcast scalar), or nil. generic does the rest.
func simdWhereU32(generic func(o []uint32, c []uint8, a, b []uint32)) func(o []uint32, c []uint8, a, b []uint32) {
	if !simdAVX2 {
		return nil
	}
	return func(o []uint32, c []uint8, a, b []uint32) {
		n := len(o)
		m := n &^ 31
		if m == 0 || len(c) != n {
			generic(o, c, a, b)
			return
		}
		switch {
		case len(a) == n && len(b) == n:
			whereVVU32(&o[0], &c[0], &a[0], &b[0], m)
			generic(o[m:], c[m:], a[m:], b[m:])
		case len(a) == n:
			whereVSU32(&o[0], &c[0], &a[0], &b[0], m)
			generic(o[m:], c[m:], a[m:], b)
		case len(b) == n:
			whereSVU32(&o[0], &c[0], &a[0], &b[0], m)
			generic(o[m:], c[m:], a, b[m:])
		default:
			generic(o, c, a, b)
		}
	}
}
