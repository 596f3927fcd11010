package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("tensordot", "tensordot(a, b, dims=2): the sum of products of a and b over contracted dimensions: the last dims of a with the first dims of b for an int, or a's dims[0] with b's dims[1] for a list of two lists; the result has a's free dimensions then b's, as torch.tensordot", tensordotBuiltin)
}

func tensordotBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	var dims eval.Value = eval.Int(2)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a", &x, "b", &y, "dims?", &dims); err != nil {
		return nil, err
	}
	da, db, err := contractedDims(th, b.Name, dims, x.Shape(), y.Shape())
	if err != nil {
		return nil, err
	}
	sa, sb := x.Shape(), y.Shape()
	k := 1
	for i := range da {
		if sa[da[i]] != sb[db[i]] {
			return nil, fmt.Errorf("%s: contracted dimension %d of a %v has size %d but dimension %d of b %v has size %d", b.Name, da[i], sa, sa[da[i]], db[i], sb, sb[db[i]])
		}
		k *= sa[da[i]]
	}
	freeA, freeB := freeDims(len(sa), da), freeDims(len(sb), db)
	outA, outB := pick(sa, freeA), pick(sb, freeB)
	c := newChain(th)
	// a [free..., contracted...] as [Fa, K] @ b [contracted..., free...] as [K, Fb]
	am := c.Reshape(c.Op(ops.Permute, ops.PermuteAttrs{Dims: slices.Concat(freeA, da)}, x), tensor.Shape{outA.Numel(), k})
	bm := c.Reshape(c.Op(ops.Permute, ops.PermuteAttrs{Dims: slices.Concat(db, freeB)}, y), tensor.Shape{k, outB.Numel()})
	return named(b.Name)(c.Result(c.Reshape(c.Op(ops.Matmul, nil, am, bm), slices.Concat(outA, outB))))
}

// contractedDims reads tensordot's dims: an int n (a's last n dimensions
// with b's first n) or [dims of a, dims of b] (ints or lists of ints).
func contractedDims(th *eval.Thread, fname string, v eval.Value, sa, sb tensor.Shape) ([]int, []int, error) {
	if n, ok := th.AsInt(v); ok {
		if n < 0 || n > len(sa) || n > len(sb) {
			return nil, nil, fmt.Errorf("%s: dims %d must be between 0 and the ranks of a %v and b %v", fname, n, sa, sb)
		}
		da, db := make([]int, n), make([]int, n)
		for i := range n {
			da[i], db[i] = len(sa)-n+i, i
		}
		return da, db, nil
	}
	l, ok := v.(*eval.List)
	if !ok || len(l.Elems) != 2 {
		return nil, nil, fmt.Errorf("%s: dims must be an int or a list of two lists of dimensions, not %s", fname, eval.Describe(v))
	}
	da, err := dimList(th, fname, "a", l.Elems[0], sa)
	if err != nil {
		return nil, nil, err
	}
	db, err := dimList(th, fname, "b", l.Elems[1], sb)
	if err != nil {
		return nil, nil, err
	}
	if len(da) != len(db) {
		return nil, nil, fmt.Errorf("%s: dims lists %d dimensions of a but %d of b; they must pair up", fname, len(da), len(db))
	}
	return da, db, nil
}

// dimList reads one side of tensordot's dims: an int or a list of
// distinct dimensions of a tensor of shape s (called name).
func dimList(th *eval.Thread, fname, name string, v eval.Value, s tensor.Shape) ([]int, error) {
	dims, err := dimsArg(th, fname, v, true)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(dims))
	for i, d := range dims {
		n, err := tensor.NormDim(d, len(s))
		if err != nil || len(s) == 0 {
			return nil, fmt.Errorf("%s: dimension %d is out of range for %s of shape %v", fname, d, name, s)
		}
		if slices.Contains(out[:i], n) {
			return nil, fmt.Errorf("%s: dimension %d of %s is listed twice", fname, n, name)
		}
		out[i] = n
	}
	return out, nil
}

// freeDims are the dimensions 0..rank-1 not in used, in order.
func freeDims(rank int, used []int) []int {
	var out []int
	for k := range rank {
		if !slices.Contains(used, k) {
			out = append(out, k)
		}
	}
	return out
}

// pick is the sizes of s at dims.
func pick(s tensor.Shape, dims []int) tensor.Shape {
	out := tensor.Shape{}
	for _, k := range dims {
		out = append(out, s[k])
	}
	return out
}
