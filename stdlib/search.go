package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// searchsorted and bucketize: where values go in sorted sequences, by the
// searchsorted op (torch's binary search, on every device).

func init() {
	register("searchsorted", `searchsorted(sorted_sequence, input, out_int32=false, right=false, side=none, sorter=none): for each value of input, the index in its row of sorted_sequence (1-d, or sharing input's leading dimensions) before which it goes to keep the row sorted: after equal elements with right=true or side="right"; sorter, the int64 indices that sort each row, when the rows are not sorted themselves; int64 (int32 with out_int32), as torch.searchsorted`, searchsortedBuiltin)
	register("bucketize", "bucketize(input, boundaries, out_int32=false, right=false): the index of the bucket of 1-d sorted boundaries that holds each value of input: searchsorted(boundaries, input, right=right), as torch.bucketize", bucketizeBuiltin)
}

func searchsortedBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var sorted, values *refs.Ref
	var outInt32, right bool
	side, sorter := eval.Value(eval.None), eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "sorted_sequence", &sorted, "input|values|x", &values,
		"out_int32?", &outInt32, "right?", &right, "side?", &side, "sorter?", &sorter); err != nil {
		return nil, err
	}
	switch s := side.(type) {
	case eval.NoneType:
	case eval.String:
		if s != "left" && s != "right" {
			return nil, fmt.Errorf(`%s: side must be "left" or "right", got %q`, b.Name, string(s))
		}
		if right && s == "left" {
			return nil, fmt.Errorf(`%s: side="left" and right=true say opposite things`, b.Name)
		}
		right = s == "right"
	default:
		return nil, fmt.Errorf(`%s: side must be "left" or "right", got %s`, b.Name, eval.Describe(side))
	}
	c := newChain(th)
	switch s := sorter.(type) {
	case eval.NoneType:
	case eval.Tensor:
		if s.Ref.DType() != tensor.Int64 || !s.Ref.Shape().Equal(sorted.Shape()) {
			return nil, fmt.Errorf("%s: sorter must be an int64 tensor of the sorted sequence's shape %v, got %s", b.Name, sorted.Shape(), eval.Describe(sorter))
		}
		if len(sorted.Shape()) == 0 {
			return nil, fmt.Errorf("%s: the sorted sequence must have at least one dimension, got a 0-d tensor", b.Name)
		}
		sorted = c.Op(ops.Gather, ops.DimAttrs{Dim: -1}, sorted, s.Ref)
	default:
		return nil, fmt.Errorf("%s: sorter must be an int64 tensor, got %s", b.Name, eval.Describe(sorter))
	}
	return c.Result(search(c, sorted, values, right, outInt32))
}

func bucketizeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var values, boundaries *refs.Ref
	var outInt32, right bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &values, "boundaries", &boundaries, "out_int32?", &outInt32, "right?", &right); err != nil {
		return nil, err
	}
	if len(boundaries.Shape()) != 1 {
		return nil, fmt.Errorf("%s: boundaries must be 1-d, got shape %v", b.Name, boundaries.Shape())
	}
	c := newChain(th)
	return c.Result(search(c, boundaries, values, right, outInt32))
}

// search submits searchsorted over the two inputs in their common dtype,
// as torch 1.13 compares them.
func search(c *chain, sorted, values *refs.Ref, right, outInt32 bool) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if s := sorted.Shape(); outInt32 && len(s) > 0 && s[len(s)-1] >= 1<<31-1 {
		c.Fail(fmt.Errorf("out_int32: a sorted row of %d elements has indices beyond int32", s[len(s)-1]))
		return nil
	}
	dt := ops.PromoteAll([]tensor.Meta{sorted.Meta(), values.Meta()})
	r := c.Op(ops.Searchsorted, ops.SearchsortedAttrs{Right: right}, c.Cast(sorted, dt), c.Cast(values, dt))
	if outInt32 {
		r = c.Cast(r, tensor.Int32)
	}
	return r
}
