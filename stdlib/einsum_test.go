package stdlib

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// einsumReference computes an einsum the definitional way: for every
// assignment of values to the labels, add the product of the operands'
// elements to the output element the assignment names. Broadcast
// dimensions (size 1 where the label is larger) read index 0.
func einsumReference(sp *einsumSpec, ins []*tensor.Dense) *tensor.Dense {
	var labels []int
	for l, n := range sp.size {
		if n >= 0 {
			labels = append(labels, l)
		}
	}
	outShape := make(tensor.Shape, len(sp.out))
	for i, l := range sp.out {
		outShape[i] = sp.size[l]
	}
	out := tensor.NewDense(tensor.Meta{Shape: outShape, DType: tensor.Float64})
	val := make([]int, len(sp.size))
	var walk func(i int)
	walk = func(i int) {
		if i < len(labels) {
			for v := range sp.size[labels[i]] {
				val[labels[i]] = v
				walk(i + 1)
			}
			return
		}
		p := 1.0
		for k, in := range ins {
			at := 0
			for d, l := range sp.ins[k] {
				idx := val[l]
				if in.Shape[d] == 1 {
					idx = 0
				}
				at = at*in.Shape[d] + idx
			}
			p *= in.At(at)
		}
		at := 0
		for d, l := range sp.out {
			at = at*outShape[d] + val[l]
		}
		out.Set(at, out.At(at)+p)
	}
	walk(0)
	return out
}

// TestEinsumMatchesDefinition checks einsum's decomposition into ops
// against the definition, in float64, over equations that exercise each
// part of it; and that it leaves no ref alive.
func TestEinsumMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		eq     string
		shapes []tensor.Shape
		want   tensor.Shape
	}{
		{"ij,jk->ik", []tensor.Shape{{3, 4}, {4, 5}}, tensor.Shape{3, 5}},
		{"ij,jk", []tensor.Shape{{3, 4}, {4, 5}}, tensor.Shape{3, 5}},
		{"ji,jk->ki", []tensor.Shape{{4, 3}, {4, 5}}, tensor.Shape{5, 3}},
		{"ij", []tensor.Shape{{3, 4}}, tensor.Shape{3, 4}},
		{"ji", []tensor.Shape{{3, 4}}, tensor.Shape{4, 3}},
		{"ij->", []tensor.Shape{{3, 4}}, tensor.Shape{}},
		{"i,i", []tensor.Shape{{6}, {6}}, tensor.Shape{}},
		{"bij,bkj->bik", []tensor.Shape{{2, 3, 4}, {2, 5, 4}}, tensor.Shape{2, 3, 5}},
		{"abc,cba->b", []tensor.Shape{{2, 3, 4}, {4, 3, 2}}, tensor.Shape{3}},
		{"ij,jk,kl->il", []tensor.Shape{{2, 3}, {3, 4}, {4, 2}}, tensor.Shape{2, 2}},
		{"ij,jk,ki->", []tensor.Shape{{2, 3}, {3, 4}, {4, 2}}, tensor.Shape{}},
		{"ab,bc,ad->cd", []tensor.Shape{{2, 3}, {3, 4}, {2, 5}}, tensor.Shape{4, 5}},
		{"ii->i", []tensor.Shape{{4, 4}}, tensor.Shape{4}},
		{"iji->j", []tensor.Shape{{3, 2, 3}}, tensor.Shape{2}},
		{"iiij,jj->ij", []tensor.Shape{{2, 2, 2, 3}, {3, 3}}, tensor.Shape{2, 3}},
		{"ij,ij->ij", []tensor.Shape{{2, 3}, {1, 3}}, tensor.Shape{2, 3}},
		{"ij,jk->ik", []tensor.Shape{{2, 1}, {3, 4}}, tensor.Shape{2, 4}},
		{"ij,kj->ik", []tensor.Shape{{2, 1}, {3, 1}}, tensor.Shape{2, 3}},
		{"...ij,...jk", []tensor.Shape{{5, 2, 3}, {3, 4}}, tensor.Shape{5, 2, 4}},
		{"...ij,...jk->...ik", []tensor.Shape{{2, 1, 2, 3}, {3, 3, 4}}, tensor.Shape{2, 3, 2, 4}},
		{"i...j->j...i", []tensor.Shape{{2, 3, 4, 5}}, tensor.Shape{5, 3, 4, 2}},
		{"...ij->ij", []tensor.Shape{{3, 2, 3}}, tensor.Shape{2, 3}},
		{",i->i", []tensor.Shape{{}, {4}}, tensor.Shape{4}},
		{"ij,jk->ik", []tensor.Shape{{2, 0}, {0, 3}}, tensor.Shape{2, 3}},
		{"ii->i", []tensor.Shape{{0, 0}}, tensor.Shape{0}},
		{"ii->i", []tensor.Shape{{1, 1}}, tensor.Shape{1}},
	} {
		t.Run(c.eq, func(t *testing.T) {
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
			th := eval.NewThread(rt)
			args := []eval.Value{eval.String(c.eq)}
			dense := make([]*tensor.Dense, len(c.shapes))
			for k, s := range c.shapes {
				d := tensor.NewDense(tensor.Meta{Shape: s, DType: tensor.Float64})
				for i := range d.Numel() {
					d.Set(i, math.Round(rng.NormFloat64()*8)/8)
				}
				dense[k] = d
				args = append(args, eval.Tensor{Ref: rt.FromHost(refs.Site{}, d.Clone())})
			}
			got, err := builtinEinsum(th, nil, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			gd, err := rt.Read(got.(eval.Tensor).Ref)
			if err != nil {
				t.Fatal(err)
			}
			if !gd.Shape.Equal(c.want) {
				t.Fatalf("shape %v, want %v", gd.Shape, c.want)
			}
			sp, err := parseEinsum(c.eq, c.shapes)
			if err != nil {
				t.Fatal(err)
			}
			want := einsumReference(sp, dense)
			for i := range want.Numel() {
				if g, w := gd.At(i), want.At(i); math.Abs(g-w) > 1e-9*(1+math.Abs(w)) {
					t.Fatalf("element %d: %v, want %v", i, g, w)
				}
			}
			eval.Release(rt, got)
			for _, a := range args[1:] {
				eval.Release(rt, a)
			}
			if n := rt.LiveRefs(); n != 0 {
				t.Errorf("%d refs alive: %v", n, rt.Leaks())
			}
		})
	}
}

// TestEinsumImplicitOutput checks the labels of implicit outputs: the
// ellipsis first, then the subscripts used once, upper case before lower.
func TestEinsumImplicitOutput(t *testing.T) {
	for _, c := range []struct {
		eq     string
		shapes []tensor.Shape
		want   string
	}{
		{"ba", []tensor.Shape{{2, 3}}, "ab"},
		{"aB", []tensor.Shape{{2, 3}}, "Ba"},
		{"ij,jk", []tensor.Shape{{2, 3}, {3, 4}}, "ik"},
		{"ii", []tensor.Shape{{2, 2}}, ""},
		{"b...a", []tensor.Shape{{2, 3, 4, 5}}, "......ab"},
	} {
		sp, err := parseEinsum(c.eq, c.shapes)
		if err != nil {
			t.Fatalf("%s: %v", c.eq, err)
		}
		var got strings.Builder
		for _, l := range sp.out {
			got.WriteString(labelName(l))
		}
		if got.String() != c.want {
			t.Errorf("%s: output %q, want %q", c.eq, got.String(), c.want)
		}
	}
}

// FuzzEinsumEquation feeds arbitrary equations over small operands to
// einsum: it must return a result or an error, never panic, and a result
// must have the shape the parsed equation says, with no ref left alive.
func FuzzEinsumEquation(f *testing.F) {
	for _, s := range []string{"ij,jk->ik", "ii", "...ij,...jk", "i...j->j...i", ",i", "iji->j", "ab,bc,ca", "i->i->i", ".", "aA...->A"} {
		f.Add(s, uint8(3), uint8(2))
	}
	f.Fuzz(func(t *testing.T, eq string, seed, dims uint8) {
		if len(eq) > 64 {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(dims)))
		nOps := 1 + strings.Count(eq, ",")
		if nOps > 4 {
			return
		}
		shapes := make([]tensor.Shape, nOps)
		for k := range shapes {
			rank := rng.IntN(int(dims%5) + 1)
			shapes[k] = make(tensor.Shape, rank)
			for d := range shapes[k] {
				shapes[k][d] = rng.IntN(4)
			}
		}
		sp, err := parseEinsum(eq, shapes)
		if err != nil {
			return
		}
		work := 1
		for _, n := range sp.size {
			if n > 0 {
				work *= n
			}
		}
		if work > 1<<12 {
			return
		}
		rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
		th := eval.NewThread(rt)
		args := []eval.Value{eval.String(eq)}
		for _, s := range shapes {
			args = append(args, eval.Tensor{Ref: rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: s, DType: tensor.Float32}))})
		}
		got, err := builtinEinsum(th, nil, args, nil)
		if err != nil {
			t.Fatalf("%q over %v parsed but failed: %v", eq, shapes, err)
		}
		gd, err := rt.Read(got.(eval.Tensor).Ref)
		if err != nil {
			t.Fatalf("%q over %v: %v", eq, shapes, err)
		}
		if len(gd.Shape) != len(sp.out) {
			t.Fatalf("%q over %v: shape %v for %d output labels", eq, shapes, gd.Shape, len(sp.out))
		}
		for i, l := range sp.out {
			if gd.Shape[i] != sp.size[l] {
				t.Fatalf("%q over %v: shape %v, label %s has size %d", eq, shapes, gd.Shape, labelName(l), sp.size[l])
			}
		}
		eval.Release(rt, got)
		for _, a := range args[1:] {
			eval.Release(rt, a)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Fatalf("%q over %v: %d refs alive", eq, shapes, n)
		}
	})
}

// TestEinsumErrorReleases checks that an op failing midway (matmul of
// bool operands, after their permutes) leaves nothing alive.
func TestEinsumErrorReleases(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
	th := eval.NewThread(rt)
	a := eval.Tensor{Ref: rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Bool}))}
	b := eval.Tensor{Ref: rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{4, 3}, DType: tensor.Bool}))}
	_, err := builtinEinsum(th, nil, []eval.Value{eval.String("ij,kj->ik"), a, b}, nil)
	if err == nil || !strings.Contains(err.Error(), "bool") {
		t.Fatalf("einsum of bool operands: %v, want matmul's error", err)
	}
	eval.Release(rt, a)
	eval.Release(rt, b)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the error: %v", n, rt.Leaks())
	}
}
