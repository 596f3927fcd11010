package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Shape builtins of torch that rearrange elements: view (reshape), repeat
// (reshape, expand, reshape), flip (an index with negative steps), roll
// (index and cat), tril and triu (the trilu op).

func init() {
	register("view", "view(x, shape): reshape (tref tensors are always contiguous); one dimension may be -1 (also x.view(4, 3))", builtinView)
	register("repeat", "repeat(x, sizes): x tiled sizes[i] times along dimension i (also x.repeat(2, 3)); sizes may have more dimensions than x, as torch's Tensor.repeat", builtinRepeat)
	register("flip", "flip(x, dims): x with the order of the elements along each of dims reversed", builtinFlip)
	register("roll", "roll(x, shifts, dims=none): x shifted circularly by shifts along dims (an int or a list each); without dims, the flattened x", builtinRoll)
	register("tril", "tril(x, diagonal=0): the lower triangle of the matrices in x's last two dimensions (j - i <= diagonal), zeros above", builtinTrilu(false))
	register("triu", "triu(x, diagonal=0): the upper triangle of the matrices in x's last two dimensions (j - i >= diagonal), zeros below", builtinTrilu(true))
}

func builtinView(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var shape tensor.Shape
	if err := unpackShaped(th, b.Name, "shape", args, kwargs, &x, (*[]int)(&shape)); err != nil {
		return nil, err
	}
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: shape}, x)
}

func builtinRepeat(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var sizes []int
	if err := unpackShaped(th, b.Name, "sizes", args, kwargs, &x, &sizes); err != nil {
		return nil, err
	}
	xs := x.Shape()
	if len(sizes) < len(xs) {
		return nil, fmt.Errorf("%s: %d sizes for a tensor of shape %v; give at least one per dimension", b.Name, len(sizes), xs)
	}
	// [s0, s1] repeated [r0, r1]: reshape to [1, s0, 1, s1], expand to
	// [r0, s0, r1, s1], reshape to [r0*s0, r1*s1].
	padded := slices.Concat(make([]int, len(sizes)-len(xs)), []int(xs))
	inter, wide, out := tensor.Shape{}, tensor.Shape{}, tensor.Shape{}
	for i, r := range sizes {
		if r < 0 {
			return nil, fmt.Errorf("%s: sizes must not be negative, got %v", b.Name, sizes)
		}
		s := padded[i]
		if i < len(sizes)-len(xs) {
			s = 1
		}
		inter = append(inter, 1, s)
		wide = append(wide, r, s)
		out = append(out, r*s)
	}
	if _, err := tensor.CheckedNumel(wide); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	r := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: inter}, x)
	r = c.Op(ops.Expand, ops.ExpandAttrs{Shape: wide}, r)
	return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: out}, r))
}

// normDims normalises a list of distinct dims of a tensor of shape s.
func normDims(fname string, dims []int, s tensor.Shape) ([]int, error) {
	out := make([]int, len(dims))
	for i, d := range dims {
		n, err := tensor.NormDim(d, max(len(s), 1))
		if err != nil {
			return nil, fmt.Errorf("%s of a tensor of shape %v: %v", fname, s, err)
		}
		if slices.Contains(out[:i], n) {
			return nil, fmt.Errorf("%s: dim %d appears more than once in %v", fname, d, dims)
		}
		out[i] = n
	}
	return out, nil
}

func builtinFlip(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dims []int
	if err := unpackShaped(th, b.Name, "dims", args, kwargs, &x, &dims); err != nil {
		return nil, err
	}
	s := x.Shape()
	nd, err := normDims(b.Name, dims, s)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	items := ops.FullSlices(len(s))
	for _, d := range nd {
		items[d].Step = -1
	}
	return th.Submit(ops.Index, &ops.IndexAttrs{Items: items}, x)
}

func builtinRoll(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var shifts []int
	dimsV := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x", &x, "shifts", &shifts, "dims?", &dimsV); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dimsV, true)
	if err != nil {
		return nil, err
	}
	s := x.Shape()
	if dims == nil {
		// torch rolls the flattened tensor and restores the shape.
		if len(shifts) != 1 {
			return nil, fmt.Errorf("%s: without dims, shifts must be one int, got %v", b.Name, shifts)
		}
		flat, err := th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{-1}}, x)
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, flat)
		r, err := rollDim(th, flat.(eval.Tensor).Ref, 0, shifts[0])
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, r)
		return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: s.Clone()}, r.(eval.Tensor).Ref)
	}
	if len(shifts) != len(dims) {
		return nil, fmt.Errorf("%s: shifts %v and dims %v must have the same length", b.Name, shifts, dims)
	}
	if _, err := normDims(b.Name, dims, s); err != nil && len(s) > 0 {
		return nil, err
	}
	th.RT.Retain(x)
	var cur eval.Value = eval.Tensor{Ref: x}
	for i, d := range dims {
		nd, err := tensor.NormDim(d, max(len(s), 1))
		if err != nil {
			eval.Release(th.RT, cur)
			return nil, fmt.Errorf("%s of a tensor of shape %v: %v", b.Name, s, err)
		}
		next, err := rollDim(th, cur.(eval.Tensor).Ref, nd, shifts[i])
		eval.Release(th.RT, cur)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// rollDim rolls x by shift along dimension d: cat(x[.., n-s:], x[.., :n-s]).
func rollDim(th *eval.Thread, x *refs.Ref, d, shift int) (eval.Value, error) {
	s := x.Shape()
	if len(s) == 0 || s[d] == 0 || ((shift%s[d])+s[d])%s[d] == 0 {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	n := s[d]
	k := ((shift % n) + n) % n
	part := func(start, stop int) (eval.Value, error) {
		items := ops.FullSlices(d + 1)
		items[d] = ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: stop, HasStart: true, HasStop: true, Step: 1}
		return th.Submit(ops.Index, &ops.IndexAttrs{Items: items}, x)
	}
	tail, err := part(n-k, n)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, tail)
	head, err := part(0, n-k)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, head)
	return th.Submit(ops.Cat, ops.CatAttrs{Dim: d}, tail.(eval.Tensor).Ref, head.(eval.Tensor).Ref)
}

func builtinTrilu(upper bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		diagonal := 0
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x", &x, "diagonal?", &diagonal); err != nil {
			return nil, err
		}
		return th.Submit(ops.Trilu, ops.TriluAttrs{Diagonal: diagonal, Upper: upper}, x)
	}
}
