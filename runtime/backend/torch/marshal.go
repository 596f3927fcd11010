package torch

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// marshal turns an op's attributes into the integer and float arrays that
// tt_op reads (the layouts are documented next to each op in
// csrc/tref_torch.cpp). ok is false when the attributes are of a kind this
// backend does not know, and the op then runs on the host.
func marshal(op *refs.Op) (ia []int64, fa []float64, ok bool) {
	switch a := op.Attrs.(type) {
	case nil:
		return nil, nil, true
	case ops.ReduceAttrs:
		return reduceAttrs(a), nil, true
	case *ops.ReduceAttrs:
		return reduceAttrs(*a), nil, true
	case ops.CastAttrs:
		return []int64{int64(a.To)}, nil, true
	case ops.IndexAttrs:
		return indexAttrs(a, op.Inputs[0].Shape())
	}
	return nil, nil, false
}

func reduceAttrs(a ops.ReduceAttrs) []int64 {
	ia := []int64{b2i(a.Keepdim), int64(a.Correction), int64(len(a.Dims))}
	for _, d := range a.Dims {
		ia = append(ia, int64(d))
	}
	return ia
}

// indexAttrs normalises Python-style index items against the input shape
// into (kind, start, count, step) per item, so the plugin does no bounds
// arithmetic of its own.
func indexAttrs(a ops.IndexAttrs, shape tensor.Shape) ([]int64, []float64, bool) {
	ia := []int64{int64(len(a.Items))}
	dim := 0
	for _, it := range a.Items {
		if dim >= len(shape) {
			return nil, nil, false
		}
		n := shape[dim]
		switch it.Kind {
		case ops.IndexAt:
			i := it.At
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return nil, nil, false
			}
			ia = append(ia, 0, int64(i), 1, 1)
		case ops.IndexSlice:
			start, count, step := sliceBounds(it, n)
			ia = append(ia, 1, int64(start), int64(count), int64(step))
		}
		dim++
	}
	return ia, nil, true
}

// sliceBounds applies Python's slice rules to a dimension of size n.
func sliceBounds(it ops.IndexItem, n int) (start, count, step int) {
	step = it.Step
	if step == 0 {
		step = 1
	}
	clamp := func(v, lo, hi int) int { return min(max(v, lo), hi) }
	if step > 0 {
		start, stop := 0, n
		if it.HasStart {
			start = it.Start
			if start < 0 {
				start += n
			}
			start = clamp(start, 0, n)
		}
		if it.HasStop {
			stop = it.Stop
			if stop < 0 {
				stop += n
			}
			stop = clamp(stop, 0, n)
		}
		if stop > start {
			count = (stop - start + step - 1) / step
		}
		return start, count, step
	}
	start, stop := n-1, -1
	if it.HasStart {
		start = it.Start
		if start < 0 {
			start += n
		}
		start = clamp(start, -1, n-1)
	}
	if it.HasStop {
		stop = it.Stop
		if stop < 0 {
			stop += n
		}
		stop = clamp(stop, -1, n-1)
	}
	if start > stop {
		count = (start - stop - step - 1) / -step
	}
	return start, count, step
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
