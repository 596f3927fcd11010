package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Scans, logsumexp, norms, sorting and random permutations, with torch's
// argument names and defaults. sort and topk return {values, indices}
// results (positional records: r[0], r[1] too) built from argsort and
// gather; the ops are documented in runtime/ops/order.go.

func init() {
	register("cumsum", "cumsum(x, dim, dtype=none): running sums along dim (integers and bools give int64)", scanBuiltin(ops.Cumsum))
	register("cumprod", "cumprod(x, dim, dtype=none): running products along dim (integers and bools give int64)", scanBuiltin(ops.Cumprod))
	register("logsumexp", "logsumexp(x, dim, keepdim=false): log(sum(exp(x))) over dim (an int or a list), computed stably", logsumexpBuiltin)
	register("norm", `norm(x, p="fro", dim=none, keepdim=false, dtype=none): the vector p-norm over dim (every dimension when none): p a number, "inf", "-inf", or "fro" (2); "nuc" is the nuclear norm (the sum of the singular values) of a matrix, or over the two dimensions dim, as torch.norm (with dtype, a float dtype, of x converted to it first)`, normBuiltin)
	register("argsort", "argsort(x, dim=-1, descending=false, stable=false): int64 indices that sort x along dim (always stable; NaN sorts last ascending)", argsortBuiltin)
	register("sort", "sort(x, dim=-1, descending=false, stable=false): {values, indices} of x sorted along dim (always stable; NaN sorts last ascending)", sortBuiltin)
	register("topk", "topk(x, k, dim=-1, largest=true, sorted=true): {values, indices} of the k largest (smallest) elements along dim, in order", topkBuiltin)
	register("logcumsumexp", "logcumsumexp(input, dim): log(cumsum(exp(input), dim)) computed stably, each step log(exp(a) + exp(b)) as max + log1p(exp(min - max)) (floating point), as torch.logcumsumexp", logcumsumexpBuiltin)
	register("cummax", "cummax(input, dim): {values, indices} of the running maximum along dim (the last index among equal maxima; a NaN, once seen, is the maximum), as torch.cummax", cumExtremeBuiltin(ops.CummaxIndices))
	register("cummin", "cummin(input, dim): {values, indices} of the running minimum along dim (the last index among equal minima; a NaN, once seen, is the minimum), as torch.cummin", cumExtremeBuiltin(ops.CumminIndices))
	register("randperm", "randperm(n, dtype=\"int64\"): a random permutation of 0..n-1, drawn from the seeded stream of rand and randn", randpermBuiltin)
}

func scanBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var dim int
		dtv := eval.None
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim", &dim, "dtype?", &dtv); err != nil {
			return nil, err
		}
		dt, has, err := optDType(b.Name, dtv)
		if err != nil {
			return nil, err
		}
		if !has {
			return th.Submit(op, ops.ScanAttrs{Dim: dim}, x)
		}
		// torch converts x to dtype first and accumulates in it.
		c, err := asDType(th, x, dt)
		if err != nil {
			return nil, err
		}
		defer eval.Release(th.RT, c)
		r, err := th.Submit(op, ops.ScanAttrs{Dim: dim}, c.(eval.Tensor).Ref)
		if err != nil || !dt.IsInt() || dt == tensor.Int64 {
			return r, err
		}
		defer eval.Release(th.RT, r)
		return asDType(th, r.(eval.Tensor).Ref, dt)
	}
}

func logsumexpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim eval.Value
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim", &dim, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dim, true)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.Logsumexp, ops.ReduceAttrs{Dims: dims, Keepdim: keepdim}, x)
}

func normBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var pv eval.Value = eval.String("fro")
	dim := eval.None
	keepdim := false
	dtv := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "p?", &pv, "dim?", &dim, "keepdim?", &keepdim, "dtype?", &dtv); err != nil {
		return nil, err
	}
	x, _, done, err := dtypeInput(th, b.Name, x, dtv, true)
	if err != nil {
		return nil, err
	}
	defer done()
	var p float64
	switch s := pv.(type) {
	case eval.String:
		switch s {
		case "fro":
			p = 2
		case "inf":
			p = math.Inf(1)
		case "-inf":
			p = math.Inf(-1)
		case "nuc":
			return nuclearNorm(th, b.Name, x, dim, keepdim)
		default:
			return nil, fmt.Errorf("%s: p must be a number, \"fro\", \"nuc\", \"inf\" or \"-inf\", not %q", b.Name, string(s))
		}
	default:
		f, ok := th.AsFloat(pv)
		if !ok {
			return nil, fmt.Errorf("%s: p must be a number or a string, not %s", b.Name, eval.Describe(pv))
		}
		p = f
	}
	dims, err := dimsArg(th, b.Name, dim, true)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.Norm, ops.VectorNormAttrs{P: p, Dims: dims, Keepdim: keepdim}, x)
}

// unpackSort reads the arguments shared by argsort and sort.
func unpackSort(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (*refs.Ref, ops.SortAttrs, error) {
	var x *refs.Ref
	a := ops.SortAttrs{Dim: -1}
	stable := false // every sort here is stable
	err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "dim?", &a.Dim, "descending?", &a.Descending, "stable?", &stable)
	return x, a, err
}

func argsortBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, a, err := unpackSort(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.Argsort, a, x)
}

func sortBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	x, a, err := unpackSort(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	idx, err := th.Submit(ops.Argsort, a, x)
	if err != nil {
		return nil, err
	}
	return gatherResult(th, x, a.Dim, idx)
}

// gatherResult is {values: gather(x, dim, idx), indices: idx}; it takes
// over idx.
func gatherResult(th *eval.Thread, x *refs.Ref, dim int, idx eval.Value) (eval.Value, error) {
	vals, err := th.Submit(ops.Gather, ops.DimAttrs{Dim: dim}, x, idx.(eval.Tensor).Ref)
	if err != nil {
		eval.Release(th.RT, idx)
		return nil, err
	}
	return eval.NewResult([]string{"values", "indices"}, []eval.Value{vals, idx}), nil
}

func topkBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var k int
	dim := -1
	largest, sorted := true, true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "k", &k, "dim?", &dim, "largest?", &largest, "sorted?", &sorted); err != nil {
		return nil, err
	}
	s := x.Shape()
	d, err := tensor.NormDim(dim, max(len(s), 1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	n := 1
	if len(s) > 0 {
		n = s[d]
	}
	if k < 0 || k > n || len(s) == 0 && k != 1 {
		return nil, fmt.Errorf("%s: k (%d) is out of range for dimension %d of size %d (shape %v)", b.Name, k, dim, n, s)
	}
	idx, err := th.Submit(ops.Argsort, ops.SortAttrs{Dim: d, Descending: largest}, x)
	if err != nil {
		return nil, err
	}
	if k < n {
		items := ops.FullSlices(d + 1)
		items[d] = ops.IndexItem{Kind: ops.IndexSlice, Stop: k, HasStop: true, Step: 1}
		first, err := th.Submit(ops.Index, &ops.IndexAttrs{Items: items}, idx.(eval.Tensor).Ref)
		eval.Release(th.RT, idx)
		if err != nil {
			return nil, err
		}
		idx = first
	}
	return gatherResult(th, x, d, idx)
}

func randpermBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var n int
	dtv := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "n", &n, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr(b.Name, dtv, tensor.Int64)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%s: n must be at least 0, got %d", b.Name, n)
	}
	d, err := newHost(th, b.Name, tensor.Shape{n}, tensor.Int64)
	if err != nil {
		return nil, err
	}
	permutation(th, d.I64())
	v := hostResult(th, d)
	if dt == tensor.Int64 {
		return v, nil
	}
	defer eval.Release(th.RT, v)
	return asDType(th, v.(eval.Tensor).Ref, dt)
}

// cumExtremeBuiltin is cummax or cummin: the op locates the running
// extremes and a gather reads them, so the gradient flows to the elements
// that were the extremes, as torch's.
func cumExtremeBuiltin(op ops.Op) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var dim int
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim); err != nil {
			return nil, err
		}
		idx, err := th.Submit(op, ops.ScanAttrs{Dim: dim}, x)
		if err != nil {
			return nil, err
		}
		return gatherResult(th, x, dim, idx)
	}
}

func logcumsumexpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim); err != nil {
		return nil, err
	}
	return th.Submit(ops.Logcumsumexp, ops.ScanAttrs{Dim: dim}, x)
}
