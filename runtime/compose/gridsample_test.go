package compose

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// builderOn is an ops.Builder submitting to rt (the refs it makes are
// left for the runtime's end).
func builderOn(rt *refs.Runtime) *ops.Builder {
	return ops.NewBuilder(func(op ops.Op, attrs any, ins []ops.T) (ops.T, error) {
		rs := make([]*refs.Ref, len(ins))
		for i, in := range ins {
			rs[i] = in.(*refs.Ref)
		}
		r, err := rt.Submit(refs.Site{}, op, attrs, rs...)
		if err != nil {
			return nil, err
		}
		return r, nil
	}, func(d *tensor.Dense) ops.T { return rt.FromHost(refs.Site{}, d) })
}

func dense(shape tensor.Shape, vals ...float64) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float64})
	for i, v := range vals {
		d.Set(i, v)
	}
	return d
}

// TestGridSampleAtPixelCentres: with align_corners, the grid of pixel
// centres reproduces the image in every mode and padding; a point
// between two pixels mixes them (bilinear) or takes the even one
// (nearest).
func TestGridSampleAtPixelCentres(t *testing.T) {
	img := dense(tensor.Shape{1, 1, 2, 3}, 1, 2, 3, 4, 5, 6)
	// (x, y) of the six centres, row-major: x in {-1, 0, 1}, y in {-1, 1}.
	centres := dense(tensor.Shape{1, 2, 3, 2}, -1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1)
	for _, mode := range GridSampleModes {
		for _, pad := range GridSamplePadding {
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
			b := builderOn(rt)
			out := GridSample(b, rt.FromHost(refs.Site{}, img), rt.FromHost(refs.Site{}, centres), mode, pad, true)
			if b.Err() != nil {
				t.Fatalf("%s/%s: %v", mode, pad, b.Err())
			}
			got, err := rt.Read(out.(*refs.Ref))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				if d := got.At(i) - img.At(i); d > 1e-12 || d < -1e-12 {
					t.Errorf("%s/%s: element %d is %v, want %v", mode, pad, i, got.At(i), img.At(i))
				}
			}
		}
	}
	for mode, want := range map[string]float64{"bilinear": 1.5, "nearest": 1} {
		rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
		b := builderOn(rt)
		half := dense(tensor.Shape{1, 1, 1, 2}, -0.5, -1) // halfway between (0, 0) and (0, 1)
		out := GridSample(b, rt.FromHost(refs.Site{}, img), rt.FromHost(refs.Site{}, half), mode, "zeros", true)
		got, err := rt.Read(out.(*refs.Ref))
		if err != nil || got.At(0) != want {
			t.Errorf("%s halfway: %v (%v), want %v", mode, got, err, want)
		}
	}
}

// TestCheckGridSample names what is wrong with the operands.
func TestCheckGridSample(t *testing.T) {
	m := func(dt tensor.DType, s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: dt} }
	f32, f64 := tensor.Float32, tensor.Float64
	for _, c := range []struct {
		x, grid       tensor.Meta
		mode, padding string
		want          string
	}{
		{m(f32, 1, 1, 2, 2), m(f32, 1, 1, 1, 2), "area", "zeros", `mode "area" is not supported`},
		{m(f32, 1, 1, 2, 2), m(f32, 1, 1, 1, 2), "bilinear", "circular", `padding_mode must be`},
		{m(tensor.Int64, 1, 1, 2, 2), m(f32, 1, 1, 1, 2), "bilinear", "zeros", "floating point"},
		{m(f32, 1, 2, 2), m(f32, 1, 1, 2), "bilinear", "zeros", "[N, C, H, W] or [N, C, D, H, W]"},
		{m(f32, 1, 1, 2, 2), m(f32, 1, 1, 1, 3), "bilinear", "zeros", "[N, H_out, W_out, 2]"},
		{m(f32, 1, 1, 2, 2, 2), m(f32, 1, 1, 1, 1, 3), "bicubic", "zeros", "takes 4-d inputs"},
		{m(f32, 2, 1, 2, 2), m(f32, 1, 1, 1, 2), "bilinear", "zeros", "batch size 1 differs from the input's 2"},
		{m(f32, 1, 1, 2, 2), m(f64, 1, 1, 1, 2), "bilinear", "zeros", "same dtype"},
		{m(f32, 1, 1, 0, 2), m(f32, 1, 1, 1, 2), "bilinear", "zeros", "non-empty"},
	} {
		err := CheckGridSample(c.x, c.grid, c.mode, c.padding)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v, %s, %s: %v, want %q", c.x, c.grid, c.mode, c.padding, err, c.want)
		}
	}
	if err := CheckGridSample(m(f32, 1, 1, 2, 2), m(f32, 1, 3, 3, 2), "bicubic", "reflection"); err != nil {
		t.Errorf("a valid bicubic sample: %v", err)
	}
}

// TestGridSampleHalvesInFloat32: a float16 image wider than 2048 pixels
// (past which float16 holds only even integers) samples pixel 3001, whose
// position the float16 grid holds exactly.
func TestGridSampleHalvesInFloat32(t *testing.T) {
	const w = 4097
	half := func(shape tensor.Shape, f func(i int) float64) *tensor.Dense {
		d := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float16})
		for i := range d.Numel() {
			d.Set(i, f(i))
		}
		return d
	}
	img := half(tensor.Shape{1, 1, 1, w}, func(i int) float64 { return float64(i % 7) })
	// With align_corners, x = 2·3001/4096 − 1 = 953/2048: exact in float16.
	grid := half(tensor.Shape{1, 1, 1, 2}, func(i int) float64 { return []float64{953.0 / 2048, 0}[i] })
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	b := builderOn(rt)
	out := GridSample(b, rt.FromHost(refs.Site{}, img), rt.FromHost(refs.Site{}, grid), "nearest", "zeros", true)
	if b.Err() != nil {
		t.Fatal(b.Err())
	}
	got, err := rt.Read(out.(*refs.Ref))
	if err != nil || got.DType != tensor.Float16 || got.At(0) != 3001%7 {
		t.Errorf("pixel 3001: %v (%v), want %d in float16", got, err, 3001%7)
	}
}
