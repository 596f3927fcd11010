package ops

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The reductions take one tensor and ReduceAttrs. Dims nil (or empty)
// reduces every dimension; argmax and argmin accept at most one dim and,
// without one, index the flattened tensor.
var (
	Sum    = Register(reduceDef("sum"))
	Mean   = Register(reduceDef("mean"))
	Max    = Register(reduceDef("max"))
	Min    = Register(reduceDef("min"))
	Argmax = Register(reduceDef("argmax"))
	Argmin = Register(reduceDef("argmin"))
	Var    = Register(reduceDef("var"))
	Std    = Register(reduceDef("std"))
	Prod   = Register(reduceDef("prod"))
	Any    = Register(reduceDef("any"))
	All    = Register(reduceDef("all"))
)

// Reductions lists the reductions.
var Reductions = []Op{Sum, Mean, Max, Min, Argmax, Argmin, Var, Std, Prod, Any, All}

func reduceDef(name string) *Def {
	return &Def{Name: name, Infer: inferReduce(name), Flops: perInput}
}

// perInput costs one flop per input element.
func perInput(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	if len(in) == 0 {
		return 0
	}
	return int64(in[0].Shape.Numel())
}

// ReduceDims normalises a reduction's dims against rank: sorted, without
// negatives, every dim when dims is empty. Repeated dims are an error.
func ReduceDims(dims []int, rank int) ([]int, error) {
	if len(dims) == 0 {
		all := make([]int, rank)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	out := make([]int, 0, len(dims))
	for _, d := range dims {
		n, err := tensor.NormDim(d, rank)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("dim %d appears more than once in the list of dims %v", d, dims)
		}
		out = append(out, n)
	}
	if rank == 0 {
		return nil, nil // dim 0 or -1 of a scalar reduces nothing
	}
	slices.Sort(out)
	return out, nil
}

// ReduceShape is the shape left after reducing dims (normalised, sorted)
// of s, with size-1 dims in their place when keepdim.
func ReduceShape(s tensor.Shape, dims []int, keepdim bool) tensor.Shape {
	out := tensor.Shape{}
	for i, d := range s {
		if slices.Contains(dims, i) {
			if keepdim {
				out = append(out, 1)
			}
			continue
		}
		out = append(out, d)
	}
	return out
}

// ReduceDType is a reduction's result dtype: sum and prod widen integers
// and bools to int64, arg reductions give int64, any/all give bool, mean,
// var and std need floats, the others keep the input's dtype.
func ReduceDType(name string, in tensor.DType) (tensor.DType, error) {
	switch name {
	case "sum", "prod":
		if !in.IsFloat() {
			return tensor.Int64, nil
		}
	case "mean", "var", "std":
		if !in.IsFloat() {
			return 0, fmt.Errorf("%s needs a float tensor; use astype(x, \"float32\") (got %v)", name, in)
		}
	case "argmax", "argmin":
		if in == tensor.Bool {
			return 0, fmt.Errorf("%s is not supported on bool tensors; use astype first", name)
		}
		return tensor.Int64, nil
	case "any", "all":
		return tensor.Bool, nil
	}
	return in, nil
}

func inferReduce(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		a, ok := attrs.(ReduceAttrs)
		if !ok {
			return tensor.Meta{}, fmt.Errorf("%s: attributes must be ReduceAttrs, got %T", name, attrs)
		}
		x := in[0]
		dt, err := ReduceDType(name, x.DType)
		if err != nil {
			return tensor.Meta{}, err
		}
		isArg := name == "argmax" || name == "argmin"
		if isArg && len(a.Dims) > 1 {
			return tensor.Meta{}, fmt.Errorf("%s takes one dim, got %v", name, a.Dims)
		}
		dims, err := ReduceDims(a.Dims, len(x.Shape))
		if err != nil {
			return tensor.Meta{}, err
		}
		if name == "max" || name == "min" || isArg {
			if len(a.Dims) == 0 && x.Shape.Numel() == 0 {
				return tensor.Meta{}, fmt.Errorf("%s of an empty tensor (shape %v) has no value; give dim=", name, x.Shape)
			}
			for _, d := range dims {
				if x.Shape[d] == 0 {
					return tensor.Meta{}, fmt.Errorf("%s over dimension %d of size 0 (shape %v) has no value", name, d, x.Shape)
				}
			}
		}
		var shape tensor.Shape
		if isArg && len(a.Dims) == 0 {
			// torch: argmax without dim indexes the flattened tensor;
			// keepdim then gives all-ones of the input's rank.
			shape = tensor.Shape{}
			if a.Keepdim {
				for range x.Shape {
					shape = append(shape, 1)
				}
			}
		} else {
			shape = ReduceShape(x.Shape, dims, a.Keepdim)
		}
		return tensor.Meta{Shape: shape, DType: dt}, nil
	}
}
