package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gather and scatter, as torch 1.13 (and ONNX's GatherElements,
// ScatterElements, Gather on one axis, OneHot). Indices are int64 and are
// checked when the op runs: an index outside [0, size) is an error (torch
// takes no negative indices here; the ONNX importer wraps them first).
//
//   - gather(x, index): out[i][j][k] = x[i][index[i][j][k]][k] for Dim 1;
//     index has x's rank and no dimension but Dim larger than x's; the
//     result has index's shape.
//   - scatter(x, index, src): x with out[i][index[i][j][k]][k] =
//     src[i][j][k] (Dim 1); every dimension of index at most src's, and but
//     Dim at most x's. A 0-d src is a value written at every index. Where
//     two indices name one element, the last write wins.
//   - scatter_add: as scatter, adding src to x's element instead.
//   - index_select(x, index): the slices of x along Dim that a 1-d (or
//     0-d) index names, in its order.
//   - one_hot(x): int64 x gives int64 x.shape + [NumClasses], 1 at each
//     value's position; values must be in [0, NumClasses).

// DimAttrs are the attributes of gather, scatter, scatter_add and
// index_select: the dimension they index (negative counts from the end).
type DimAttrs struct {
	Dim int
}

// OneHotAttrs are the attributes of one_hot.
type OneHotAttrs struct {
	NumClasses int
}

// The ops; all but OneHot take DimAttrs.
var (
	Gather      = Register(&Def{Name: "gather", Infer: inferGather})
	Scatter     = Register(&Def{Name: "scatter", Infer: inferScatter("scatter"), Inplace: []int{0}})
	ScatterAdd  = Register(&Def{Name: "scatter_add", Infer: inferScatter("scatter_add"), Inplace: []int{0}})
	IndexSelect = Register(&Def{Name: "index_select", Infer: inferIndexSelect})
	// OneHot takes OneHotAttrs.
	OneHot = Register(&Def{Name: "one_hot", Infer: inferOneHot})
)

// dimAttr reads DimAttrs (by value or pointer) and normalises the dim.
func dimAttr(name string, attrs any, rank int) (int, error) {
	a, err := AttrsAs[DimAttrs](name, attrs)
	if err != nil {
		return 0, err
	}
	d, err := tensor.NormDim(a.Dim, max(rank, 1))
	if err != nil {
		return 0, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

func wantIndex(name string, idx tensor.Meta) error {
	if idx.DType != tensor.Int64 {
		return fmt.Errorf("%s: the index must be an int64 tensor, got %v", name, idx)
	}
	return nil
}

// rankOf is the rank gather and scatter see: a 0-d tensor counts as 1-d.
func rankOf(s tensor.Shape) int { return max(len(s), 1) }

// dimSize is s[d], with a 0-d shape read as [1].
func dimSize(s tensor.Shape, d int) int {
	if len(s) == 0 {
		return 1
	}
	return s[d]
}

func inferGather(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("gather", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	x, idx := in[0], in[1]
	if err := wantIndex("gather", idx); err != nil {
		return tensor.Meta{}, err
	}
	dim, err := dimAttr("gather", attrs, len(x.Shape))
	if err != nil {
		return tensor.Meta{}, err
	}
	if rankOf(idx.Shape) != rankOf(x.Shape) {
		return tensor.Meta{}, fmt.Errorf("gather: index %v and input %v must have the same number of dimensions", idx.Shape, x.Shape)
	}
	for d := range rankOf(x.Shape) {
		if d != dim && dimSize(idx.Shape, d) > dimSize(x.Shape, d) {
			return tensor.Meta{}, fmt.Errorf("gather: index %v is larger than input %v in dimension %d (only dimension %d may be)", idx.Shape, x.Shape, d, dim)
		}
	}
	return tensor.Meta{Shape: idx.Shape, DType: x.DType}, nil
}

func inferScatter(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 3); err != nil {
			return tensor.Meta{}, err
		}
		x, idx, src := in[0], in[1], in[2]
		if err := wantIndex(name, idx); err != nil {
			return tensor.Meta{}, err
		}
		dim, err := dimAttr(name, attrs, len(x.Shape))
		if err != nil {
			return tensor.Meta{}, err
		}
		if src.DType != x.DType {
			return tensor.Meta{}, fmt.Errorf("%s: src %v must have the input's dtype %v", name, src, x.DType)
		}
		if name != "scatter" && x.DType == tensor.Bool {
			return tensor.Meta{}, fmt.Errorf("%s is not supported on bool tensors; use astype first", name)
		}
		if rankOf(idx.Shape) != rankOf(x.Shape) {
			return tensor.Meta{}, fmt.Errorf("%s: index %v and input %v must have the same number of dimensions", name, idx.Shape, x.Shape)
		}
		if len(src.Shape) > 0 || name != "scatter" {
			if rankOf(src.Shape) != rankOf(x.Shape) {
				return tensor.Meta{}, fmt.Errorf("%s: src %v and input %v must have the same number of dimensions", name, src.Shape, x.Shape)
			}
		}
		for d := range rankOf(x.Shape) {
			if d != dim && dimSize(idx.Shape, d) > dimSize(x.Shape, d) {
				return tensor.Meta{}, fmt.Errorf("%s: index %v is larger than input %v in dimension %d (only dimension %d may be)", name, idx.Shape, x.Shape, d, dim)
			}
			if (len(src.Shape) > 0 || name != "scatter") && dimSize(idx.Shape, d) > dimSize(src.Shape, d) {
				return tensor.Meta{}, fmt.Errorf("%s: index %v is larger than src %v in dimension %d", name, idx.Shape, src.Shape, d)
			}
		}
		return x, nil
	}
}

func inferIndexSelect(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("index_select", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	x, idx := in[0], in[1]
	if err := wantIndex("index_select", idx); err != nil {
		return tensor.Meta{}, err
	}
	if len(idx.Shape) > 1 {
		return tensor.Meta{}, fmt.Errorf("index_select: the index must be 1-d or 0-d, got shape %v", idx.Shape)
	}
	dim, err := dimAttr("index_select", attrs, len(x.Shape))
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(x.Shape) == 0 {
		return tensor.Meta{Shape: tensor.Shape{}, DType: x.DType}, nil
	}
	s := x.Shape.Clone()
	s[dim] = idx.Shape.Numel()
	return tensor.Meta{Shape: s, DType: x.DType}, nil
}

func inferOneHot(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[OneHotAttrs]("one_hot", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if x.DType != tensor.Int64 {
		return tensor.Meta{}, fmt.Errorf("one_hot needs an int64 tensor of class indices, got %v", x)
	}
	if a.NumClasses < 0 {
		return tensor.Meta{}, fmt.Errorf("one_hot: num_classes must be at least 0, got %d", a.NumClasses)
	}
	s := append(x.Shape.Clone(), a.NumClasses)
	return tensor.Meta{Shape: s, DType: tensor.Int64}, nil
}
