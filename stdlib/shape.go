package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Shape builtins. squeeze, unsqueeze and flatten submit "reshape";
// transpose submits "permute" (as the evaluator does for x.T); split and
// chunk submit one "index" per piece.
func init() {
	register("reshape", "reshape(x, shape): the same elements in a new shape; one dimension may be -1 (also reshape(x, 2, 3))", builtinReshape)
	register("transpose", "transpose(x, d0, d1): swap two dimensions", builtinTranspose)
	register("permute", "permute(x, dims): reorder the dimensions; output dimension i is input dimension dims[i] (also permute(x, 1, 0))", builtinPermute)
	register("squeeze", "squeeze(x, dim=none): remove dimensions of size 1 (all of them, or those listed in dim)", builtinSqueeze)
	register("unsqueeze", "unsqueeze(x, dim): insert a dimension of size 1 at dim", builtinUnsqueeze)
	register("flatten", "flatten(x, start=0, end=-1): merge dimensions start..end into one", builtinFlatten)
	register("expand", "expand(x, shape): broadcast x to shape without changing its values; -1 keeps a dimension (also expand(x, 2, 3))", builtinExpand("expand"))
	register("broadcast_to", "broadcast_to(x, shape): broadcast x to shape (NumPy rules), like expand", builtinExpand("broadcast_to"))
	register("cat", "cat(tensors, dim=0): join a list of tensors along an existing dimension", builtinJoin(ops.Cat))
	register("stack", "stack(tensors, dim=0): join a list of equal-shaped tensors along a new dimension", builtinJoin(ops.Stack))
	register("split", "split(x, size_or_sections, dim=0): a list of pieces along dim, each of the given size (the last may be smaller) or of the listed sizes; on a string, s.split(sep=none, maxsplit=-1) is Python's (at each sep, or at runs of white space)", builtinSplit)
	register("chunk", "chunk(x, n, dim=0): split x into at most n pieces of equal size (the last may be smaller)", builtinChunk)
}

// unpackShaped reads the arguments (x, shape) of reshape, permute and
// expand; the shape may also be spelled as separate ints, as in
// x.reshape(2, 3).
func unpackShaped(th *eval.Thread, fname, sparam string, args []eval.Value, kwargs []eval.Kwarg, x **refs.Ref, ints *[]int) error {
	if len(args) <= 2 {
		return eval.UnpackArgs(th, fname, args, kwargs, "x|input", x, sparam, ints)
	}
	if err := eval.UnpackArgs(th, fname, args[:1], kwargs, "x|input", x); err != nil {
		return err
	}
	out := make([]int, len(args)-1)
	for i, v := range args[1:] {
		n, ok := th.AsInt(v)
		if !ok {
			return fmt.Errorf("%s: argument %d must be an int, not %s", fname, i+2, eval.Describe(v))
		}
		out[i] = n
	}
	*ints = out
	return nil
}

func builtinReshape(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var shape tensor.Shape
	if err := unpackShaped(th, "reshape", "shape", args, kwargs, &x, (*[]int)(&shape)); err != nil {
		return nil, err
	}
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: shape}, x)
}

func builtinTranspose(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var d0, d1 int
	if err := eval.UnpackArgs(th, "transpose", args, kwargs, "x|input", &x, "d0|dim0", &d0, "d1|dim1", &d1); err != nil {
		return nil, err
	}
	return transpose(th, "transpose", x, d0, d1)
}

// transpose swaps dimensions d0 and d1 of x, for the builtin fname.
func transpose(th *eval.Thread, fname string, x *refs.Ref, d0, d1 int) (eval.Value, error) {
	rank := len(x.Shape())
	a, err := tensor.NormDim(d0, rank)
	if err != nil {
		return nil, fmt.Errorf("%s of a tensor of shape %v: %v", fname, x.Shape(), err)
	}
	b, err := tensor.NormDim(d1, rank)
	if err != nil {
		return nil, fmt.Errorf("%s of a tensor of shape %v: %v", fname, x.Shape(), err)
	}
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = i
	}
	if rank > 0 {
		perm[a], perm[b] = b, a
	}
	return th.Submit(ops.Permute, ops.PermuteAttrs{Dims: perm}, x)
}

func builtinPermute(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dims []int
	if err := unpackShaped(th, "permute", "dims", args, kwargs, &x, &dims); err != nil {
		return nil, err
	}
	return th.Submit(ops.Permute, ops.PermuteAttrs{Dims: dims}, x)
}

func builtinSqueeze(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dimv eval.Value = eval.None
	if err := eval.UnpackArgs(th, "squeeze", args, kwargs, "x|input", &x, "dim?", &dimv); err != nil {
		return nil, err
	}
	s := x.Shape()
	drop := make([]bool, len(s))
	if _, none := dimv.(eval.NoneType); none {
		for k, n := range s {
			drop[k] = n == 1
		}
	} else {
		var dims []int
		if err := eval.UnpackArgs(th, "squeeze", []eval.Value{dimv}, nil, "dim", &dims); err != nil {
			return nil, err
		}
		for _, d := range dims {
			k, err := tensor.NormDim(d, len(s))
			if err != nil {
				return nil, fmt.Errorf("squeeze of a tensor of shape %v: %v", s, err)
			}
			// Like torch, a listed dimension that is not of size 1 stays.
			if len(s) > 0 && s[k] == 1 {
				drop[k] = true
			}
		}
	}
	out := tensor.Shape{}
	for k, n := range s {
		if !drop[k] {
			out = append(out, n)
		}
	}
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: out}, x)
}

func builtinUnsqueeze(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim int
	if err := eval.UnpackArgs(th, "unsqueeze", args, kwargs, "x|input", &x, "dim", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	k, err := tensor.NormDim(dim, len(s)+1)
	if err != nil {
		return nil, fmt.Errorf("unsqueeze of a tensor of shape %v: %v", s, err)
	}
	out := make(tensor.Shape, 0, len(s)+1)
	out = append(append(append(out, s[:k]...), 1), s[k:]...)
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: out}, x)
}

func builtinFlatten(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	start, end := 0, -1
	if err := eval.UnpackArgs(th, "flatten", args, kwargs, "x|input", &x, "start|start_dim?", &start, "end|end_dim?", &end); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) == 0 {
		return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{1}}, x)
	}
	a, err := tensor.NormDim(start, len(s))
	if err != nil {
		return nil, fmt.Errorf("flatten of a tensor of shape %v: start: %v", s, err)
	}
	b, err := tensor.NormDim(end, len(s))
	if err != nil {
		return nil, fmt.Errorf("flatten of a tensor of shape %v: end: %v", s, err)
	}
	if a > b {
		return nil, fmt.Errorf("flatten of a tensor of shape %v: start dimension %d comes after end dimension %d", s, a, b)
	}
	out := append(s[:a:a], s[a:b+1].Numel())
	out = append(out, s[b+1:]...)
	return th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: out}, x)
}

func builtinExpand(name string) eval.BuiltinFunc {
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var shape tensor.Shape
		if err := unpackShaped(th, name, "shape", args, kwargs, &x, (*[]int)(&shape)); err != nil {
			return nil, err
		}
		return th.Submit(ops.Expand, ops.ExpandAttrs{Shape: shape}, x)
	}
}

func builtinJoin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var xs []*refs.Ref
		dim := 0
		if err := eval.UnpackArgs(th, op.Name(), args, kwargs, "tensors", &xs, "dim?", &dim); err != nil {
			return nil, err
		}
		return th.Submit(op, ops.CatAttrs{Dim: dim}, xs...)
	}
}

// splitPieces cuts x along dim into pieces of the given sizes (which sum
// to the dimension's size) with one "index" op each, returning an owned
// list.
func splitPieces(th *eval.Thread, x *refs.Ref, dim int, sizes []int) (eval.Value, error) {
	elems := make([]eval.Value, 0, len(sizes))
	fail := func(err error) (eval.Value, error) {
		for _, e := range elems {
			eval.Release(th.RT, e)
		}
		return nil, err
	}
	start := 0
	for _, n := range sizes {
		v, err := th.Submit(ops.Index, ops.IndexAttrs{Items: ops.SliceAlong(dim, start, start+n)}, x)
		if err != nil {
			return fail(err)
		}
		elems = append(elems, v)
		start += n
	}
	return eval.NewList(elems), nil
}

// splitDim resolves the dimension argument of split and chunk.
func splitDim(fname string, x *refs.Ref, dim int) (int, int, error) {
	s := x.Shape()
	if len(s) == 0 {
		return 0, 0, fmt.Errorf("%s needs a tensor with at least one dimension, got a 0-d tensor", fname)
	}
	k, err := tensor.NormDim(dim, len(s))
	if err != nil {
		return 0, 0, fmt.Errorf("%s of a tensor of shape %v: %v", fname, s, err)
	}
	return k, s[k], nil
}

// evenSizes cuts n into pieces of size (the last smaller); an empty
// dimension gives one empty piece, as in torch.
func evenSizes(n, size int) []int {
	if n == 0 {
		return []int{0}
	}
	var sizes []int
	for at := 0; at < n; at += size {
		sizes = append(sizes, min(size, n-at))
	}
	return sizes
}

func builtinSplit(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) > 0 {
		if _, ok := args[0].(eval.String); ok {
			return strSplit(th, b, args, kwargs)
		}
	}
	var x *refs.Ref
	var how eval.Value
	dim := 0
	if err := eval.UnpackArgs(th, "split", args, kwargs, "x|tensor", &x, "size_or_sections|split_size_or_sections", &how, "dim?", &dim); err != nil {
		return nil, err
	}
	k, n, err := splitDim("split", x, dim)
	if err != nil {
		return nil, err
	}
	if size, ok := th.AsInt(how); ok {
		if size <= 0 && n > 0 {
			return nil, fmt.Errorf("split: the piece size must be positive, got %d", size)
		}
		return splitPieces(th, x, k, evenSizes(n, max(size, 1)))
	}
	var sizes []int
	if err := eval.UnpackArgs(th, "split", []eval.Value{how}, nil, "size_or_sections", &sizes); err != nil {
		return nil, err
	}
	total := 0
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("split: section sizes must be non-negative, got %v", tensor.Shape(sizes))
		}
		total += s
	}
	if total != n {
		return nil, fmt.Errorf("split: sections %v sum to %d, but dimension %d of shape %v has size %d",
			tensor.Shape(sizes), total, k, x.Shape(), n)
	}
	return splitPieces(th, x, k, sizes)
}

func builtinChunk(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var chunks int
	dim := 0
	if err := eval.UnpackArgs(th, "chunk", args, kwargs, "x|input", &x, "n|chunks", &chunks, "dim?", &dim); err != nil {
		return nil, err
	}
	if chunks <= 0 {
		return nil, fmt.Errorf("chunk: the number of chunks must be positive, got %d", chunks)
	}
	k, n, err := splitDim("chunk", x, dim)
	if err != nil {
		return nil, err
	}
	return splitPieces(th, x, k, evenSizes(n, max((n+chunks-1)/chunks, 1)))
}
