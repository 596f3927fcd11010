package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Batching for training loops: batches gives the index tensors of an
// epoch's minibatches (use them with index_select).

func init() {
	register("batches", "batches(n, size, shuffle=false, drop_last=false, order=none): the int64 index tensors of the minibatches of an epoch over n examples: in order, shuffled (randperm's seeded stream) or in the order of the given indices (each below n)", builtinBatches)
}

func builtinBatches(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var n, size int
	var shuffle, dropLast bool
	order := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "n", &n, "size", &size, "shuffle?", &shuffle, "drop_last?", &dropLast, "order?", &order); err != nil {
		return nil, err
	}
	if n < 0 || size < 1 {
		return nil, fmt.Errorf("batches: n must be at least 0 and size at least 1, got %d and %d", n, size)
	}
	var idx []int64
	switch o := order.(type) {
	case eval.NoneType:
		idx = make([]int64, n)
		if shuffle {
			permutation(th, idx)
		} else {
			for i := range idx {
				idx[i] = int64(i)
			}
		}
	case eval.Tensor:
		if shuffle {
			return nil, fmt.Errorf("batches: give order= or shuffle=true, not both")
		}
		if len(o.Ref.Shape()) != 1 || o.Ref.DType().IsFloat() || o.Ref.DType() == tensor.Bool {
			return nil, fmt.Errorf("batches: order must be a 1-d integer tensor of indices, got %s", eval.Describe(order))
		}
		idx = make([]int64, o.Ref.Shape()[0])
		d, err := th.RT.Read(o.Ref)
		if err != nil {
			return nil, err
		}
		for i := range idx {
			v := d.At(i) // exact: indices below n fit a float64
			if v < 0 || v >= float64(n) {
				return nil, fmt.Errorf("batches: order[%d] = %v is not an index below %d", i, v, n)
			}
			idx[i] = int64(v)
		}
	default:
		return nil, fmt.Errorf("batches: order must be a tensor of indices, not %s", eval.Describe(order))
	}
	var out []eval.Value
	for lo := 0; lo < len(idx); lo += size {
		hi := min(lo+size, len(idx))
		if dropLast && hi-lo < size {
			break
		}
		d, err := newHost(th, b.Name, tensor.Shape{hi - lo}, tensor.Int64)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		copy(d.I64(), idx[lo:hi])
		out = append(out, hostResult(th, d))
	}
	return eval.NewList(out), nil
}

// permutation fills p with a random permutation of 0..len(p)-1: Fisher-Yates
// over the thread's seeded stream (randperm and batches).
func permutation(th *eval.Thread, p []int64) {
	src := th.Rand()
	for i := range p {
		p[i] = int64(i)
	}
	for i := len(p) - 1; i > 0; i-- {
		j := int(src.Below(uint64(i + 1)))
		p[i], p[j] = p[j], p[i]
	}
}
