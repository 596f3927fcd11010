package stdlib

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Functions whose result's shape depends on the data (as x[mask]): the
// input is read on the host, which waits for the ops that make it, and
// the result is made there. None is differentiable (their results are
// integers or selections, as in torch).

func init() {
	register("nonzero", "nonzero(input, as_tuple=false): the int64 [n, ndim] positions of input's nonzero elements in row-major order (as_tuple: one 1-d tensor per dimension), as torch.nonzero", nonzeroBuiltin(false))
	register("argwhere", "argwhere(input): nonzero(input), as torch.argwhere", nonzeroBuiltin(true))
	register("unique", "unique(input, sorted=true, return_inverse=false, return_counts=false, dim=none): the distinct values of input in ascending order (the distinct slices along dim, ordered element by element), with the positions of input's elements among them and their counts when asked (then a list), as torch.unique (sorted=false, whose order torch leaves unspecified, sorts too); NaNs are distinct from each other and sort last", uniqueBuiltin)
	register("bincount", "bincount(input, weights=none, minlength=0): the count (or the summed weights) of each value of a 1-d tensor of non-negative integers, as torch.bincount", bincountBuiltin)
}

func nonzeroBuiltin(argwhere bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		asTuple := false
		pairs := []any{"input|x", &x}
		if !argwhere {
			pairs = append(pairs, "as_tuple?", &asTuple)
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		d, err := th.RT.Read(x)
		if err != nil {
			return nil, err
		}
		s := x.Shape()
		var hits []int
		for i := range d.Numel() {
			if d.At(i) != 0 {
				hits = append(hits, i)
			}
		}
		r := len(s)
		strides := s.Strides()
		coord := func(i, k int) int64 { return int64(i / strides[k] % s[k]) }
		if asTuple {
			if r == 0 {
				r = 1 // a 0-d input gives one tensor, as torch
			}
			out := make([]eval.Value, 0, r)
			for k := range r {
				c, err := newHost(th, b.Name, tensor.Shape{len(hits)}, tensor.Int64)
				if err != nil {
					eval.Release(th.RT, eval.NewList(out))
					return nil, err
				}
				for j, i := range hits {
					if len(s) > 0 {
						c.I64()[j] = coord(i, k)
					}
				}
				out = append(out, hostResult(th, c))
			}
			return eval.NewList(out), nil
		}
		out, err := newHost(th, b.Name, tensor.Shape{len(hits), r}, tensor.Int64)
		if err != nil {
			return nil, err
		}
		p := out.I64()
		for j, i := range hits {
			for k := range r {
				p[j*r+k] = coord(i, k)
			}
		}
		return hostResult(th, out), nil
	}
}

func uniqueBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	sorted, inverse, counts := true, false, false
	var dimV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "sorted?", &sorted, "return_inverse?", &inverse,
		"return_counts?", &counts, "dim?", &dimV); err != nil {
		return nil, err
	}
	return uniqueOf(th, b.Name, x, dimV, inverse, counts, false)
}

// uniqueOf is unique (its items sorted first) or, consecutive,
// unique_consecutive (only runs of equal neighbours merged), for the
// builtin fname: the values, then the inverse and the counts when asked
// (then a list).
func uniqueOf(th *eval.Thread, fname string, x *refs.Ref, dimV eval.Value, inverse, counts, consecutive bool) (eval.Value, error) {
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	s := x.Shape()
	// The items compared: the elements, or the slices along dim.
	dim, n, width := -1, d.Numel(), 1
	if _, none := dimV.(eval.NoneType); !none {
		v, ok := th.AsInt(dimV)
		if !ok {
			return nil, fmt.Errorf("%s: dim must be an int or none, not %s", fname, eval.Describe(dimV))
		}
		if dim, err = dimOf(fname, v, s); err != nil {
			return nil, err
		}
		for k, m := range s {
			if m == 0 && k != dim { // torch: no slices to compare
				return nil, fmt.Errorf("%s: dimension %d of the input of shape %v is empty and is not dim %d; the slices along dim cannot be compared", fname, k, s, dim)
			}
		}
		n = s[dim]
		width = 0
		if n > 0 {
			width = d.Numel() / n
		}
	}
	// The items' elements, item by item (dim moved to the front), in one
	// slice: items[i] is item i.
	outer, inner := 1, 1
	if dim >= 0 {
		outer, inner = s[:dim].Numel(), s[dim+1:].Numel()
	}
	if err := th.RT.HostPool().CheckValue(int64(n*width) * 8); err != nil {
		return nil, fmt.Errorf("%s: %v", fname, err)
	}
	flat := make([]float64, n*width)
	items := make([][]float64, n)
	for i := range items {
		v := flat[i*width : (i+1)*width]
		for o := range outer {
			for k := range inner {
				v[o*inner+k] = d.At((o*n+i)*inner + k)
			}
		}
		items[i] = v
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	compare := func(a, b []float64) int {
		for k := range a {
			if c := cmpNaNLast(a[k], b[k]); c != 0 {
				return c
			}
		}
		return 0
	}
	if !consecutive {
		slices.SortStableFunc(order, func(i, j int) int { return compare(items[i], items[j]) })
	}
	var groups []int // the first item of each group, in order
	inv := make([]int64, n)
	cnt := []int64{}
	for _, i := range order {
		if len(groups) == 0 || !sameItem(items[groups[len(groups)-1]], items[i]) {
			groups = append(groups, i)
			cnt = append(cnt, 0)
		}
		inv[i] = int64(len(groups) - 1)
		cnt[len(cnt)-1]++
	}
	// The values.
	var vs tensor.Shape
	if dim < 0 {
		vs = tensor.Shape{len(groups)}
	} else {
		vs = slices.Clone(s)
		vs[dim] = len(groups)
	}
	vals, err := newHost(th, fname, vs, x.DType())
	if err != nil {
		return nil, err
	}
	es := x.DType().Size()
	for g, i := range groups {
		for o := range outer {
			src := (o*n + i) * inner * es
			dst := (o*len(groups) + g) * inner * es
			copy(vals.Buf[dst:dst+inner*es], d.Buf[src:src+inner*es])
		}
	}
	result := hostResult(th, vals)
	if !inverse && !counts {
		return result, nil
	}
	out := []eval.Value{result}
	if inverse {
		is := s
		if dim >= 0 {
			is = tensor.Shape{n}
		}
		t, err := newHost(th, fname, is, tensor.Int64)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		copy(t.I64(), inv)
		out = append(out, hostResult(th, t))
	}
	if counts {
		t, err := newHost(th, fname, tensor.Shape{len(cnt)}, tensor.Int64)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		copy(t.I64(), cnt)
		out = append(out, hostResult(th, t))
	}
	return eval.NewList(out), nil
}

// cmpNaNLast orders numbers with NaN above everything; two NaNs compare
// equal for sorting (sameItem keeps them apart).
func cmpNaNLast(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// sameItem reports whether two items are equal element by element (a
// NaN equals nothing).
func sameItem(a, b []float64) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func bincountBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var wv eval.Value = eval.None
	minlength := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "weights?", &wv, "minlength?", &minlength); err != nil {
		return nil, err
	}
	if len(x.Shape()) != 1 || !x.DType().IsInt() {
		return nil, fmt.Errorf("%s: the input must be a 1-d tensor of integers, got %v", b.Name, x.Meta())
	}
	if minlength < 0 {
		return nil, fmt.Errorf("%s: minlength must not be negative, got %d", b.Name, minlength)
	}
	w, err := optionalTensor(th, b.Name, "weights", wv)
	if err != nil {
		return nil, err
	}
	if w != nil && !w.Shape().Equal(x.Shape()) {
		return nil, fmt.Errorf("%s: weights of shape %v for an input of shape %v", b.Name, w.Shape(), x.Shape())
	}
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	n := minlength
	for i := range d.Numel() {
		v := d.IntAt(i)
		if v < 0 {
			return nil, fmt.Errorf("%s: the input must not hold negative values, got %d", b.Name, v)
		}
		if v >= 1<<40 {
			return nil, fmt.Errorf("%s: value %d would make %d bins", b.Name, v, v+1)
		}
		n = max(n, int(v)+1)
	}
	dt := tensor.Int64
	var wd *tensor.Dense
	if w != nil {
		if wd, err = th.RT.Read(w); err != nil {
			return nil, err
		}
		dt = tensor.Float64 // torch: float64, or float32 weights' float32
		if w.DType() == tensor.Float32 {
			dt = tensor.Float32
		}
	}
	out, err := newHost(th, b.Name, tensor.Shape{n}, dt)
	if err != nil {
		return nil, err
	}
	if wd == nil {
		p := out.I64()
		for i := range d.Numel() {
			p[d.IntAt(i)]++
		}
		return hostResult(th, out), nil
	}
	// Summed in the result's dtype, in order, as torch.
	for i := range d.Numel() {
		k := int(d.IntAt(i))
		out.Set(k, out.At(k)+wd.At(i))
	}
	return hostResult(th, out), nil
}
