package torch

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestPolygammaFarNegative: polygamma of order 2 or more below -64, where
// torch's zeta would sum one term per unit up to 9 (1e15 of them at the
// first value: the test would not end), agrees with cpu's, at poles and
// between them, in float64 and float32.
func TestPolygammaFarNegative(t *testing.T) {
	xs := []float64{-999999999999999.5, -1e6 - 0.25, -4096.3, -100.25, -65, -64.5, -63.75, 2.5}
	for _, dt := range []tensor.DType{f64, f32} {
		for _, n := range []int{2, 3, 4} {
			in := tensor.NewDense(m(dt, len(xs)))
			for i, v := range xs {
				in.Set(i, v)
			}
			c := opCase{op: ops.Polygamma, in: []tensor.Meta{in.Meta}, attrs: ops.PolygammaAttrs{N: n}}
			want, err := runCase(t, &cpu.Device{}, c, []*tensor.Dense{in})
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			dev, _ := onTorch(t, 0, "", nil)
			got, err := runCase(t, dev, c, []*tensor.Dense{in})
			if err != nil {
				t.Fatalf("torch:cpu: %v", err)
			}
			if msg := agree(got, want); msg != "" {
				t.Errorf("polygamma(%d) of %s: %s", n, dt, msg)
			}
		}
	}
}

// TestSpecialDomains: zeta, gammainc, gammaincc and erfcx over random
// values across their domains and at their edges (x = 1 and x < 1,
// q at 0, at negative integers and far below 0, a or x at 0, below 0
// or infinite, NaN, erfcx's branches at -26.7, -6.1, 50 and 5e7) agree
// with cpu's: in float64 to 1e-9 relative (torch's AVX2 code fuses
// multiply-adds and its libm rounds otherwise; gammainc's exp(a·log(x) -
// x - lgamma(a)) magnifies that to about 1e-11 where a is in the
// thousands), in float32 as the conformance table.
func TestSpecialDomains(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	nan, inf := math.NaN(), math.Inf(1)
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	var zx, zq, ga, gx, ex []float64
	for range 300 {
		zx = append(zx, uniform(1, 15))
		zq = append(zq, math.Exp(uniform(-3, 5)))
		a := math.Exp(uniform(-5, 8))
		ga = append(ga, a, a)
		gx = append(gx, a*math.Exp(0.3*r.NormFloat64()), math.Exp(uniform(-6, 8)))
		ex = append(ex, uniform(-30, 60), math.Exp(uniform(-40, 690)))
	}
	for range 40 {
		zx = append(zx, float64(2+r.IntN(5)))
		zq = append(zq, uniform(-30, 0))
	}
	zx = append(zx, 1, 0.5, 2, 3, 2.5, 2, nan, 2, inf, 3, 4, 3, 2)
	zq = append(zq, 2, 2, 0, -2, -1.5, -1.5, 1, nan, 2, -1e6-0.25, -64.5, -1e15+0.5, inf)
	ga = append(ga, 0, 0, 1, 1, -1, 2, inf, inf, 2, nan, 2, 0, 1e-300, 1e6, 1e6)
	gx = append(gx, 0, 1, 0, inf, 1, -1, 1, inf, nan, 1, inf, nan, 1e-300, 1e6+1, 1e6+3000)
	ex = append(ex, 0, math.Copysign(0, -1), -26.7, -26.69, -6.1, -6.09, 50, 50.0001, 5e7, 5.1e7, inf, -inf, nan, -1e-300)
	vec := func(dt tensor.DType, v []float64) *tensor.Dense {
		d := tensor.NewDense(m(dt, len(v)))
		for i, x := range v {
			d.Set(i, x)
		}
		return d
	}
	dev, _ := onTorch(t, 0, "", nil)
	for _, dt := range []tensor.DType{f64, f32} {
		cases := []struct {
			op  ops.Op
			ins []*tensor.Dense
		}{
			{ops.Zeta, []*tensor.Dense{vec(dt, zx), vec(dt, zq)}},
			{ops.Gammainc, []*tensor.Dense{vec(dt, ga), vec(dt, gx)}},
			{ops.Gammaincc, []*tensor.Dense{vec(dt, ga), vec(dt, gx)}},
			{ops.Erfcx, []*tensor.Dense{vec(dt, ex)}},
		}
		for _, c := range cases {
			oc := opCase{op: c.op, in: []tensor.Meta{c.ins[0].Meta}}
			if len(c.ins) == 2 {
				oc.in = append(oc.in, c.ins[1].Meta)
			}
			want, err := runCase(t, &cpu.Device{}, oc, c.ins)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			got, err := runCase(t, dev, oc, c.ins)
			if err != nil {
				t.Fatalf("torch:cpu: %v", err)
			}
			if dt == f32 {
				if msg := agree(got, want); msg != "" {
					t.Errorf("%s of %s: %s", c.op, dt, msg)
				}
				continue
			}
			for i := range want.Numel() {
				g, w := got.At(i), want.At(i)
				if !(math.IsNaN(g) && math.IsNaN(w) || g == w || math.Abs(g-w) <= 1e-9*math.Abs(w)) {
					args := []float64{c.ins[0].At(i)}
					if len(c.ins) == 2 {
						args = append(args, c.ins[1].At(i))
					}
					t.Errorf("%s%v: torch %v, cpu %v", c.op, args, g, w)
				}
			}
		}
	}
}
