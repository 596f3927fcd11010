package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// ReshapeAttrs are the attributes of "reshape": the target shape, in which
// one dimension may be -1 (inferred from the element count). squeeze,
// unsqueeze and flatten are reshapes too.
type ReshapeAttrs struct {
	Shape tensor.Shape
}

// PermuteAttrs are the attributes of "permute": output dimension i is input
// dimension Dims[i] (negative allowed). transpose and .T are permutes.
type PermuteAttrs struct {
	Dims []int
}

// ExpandAttrs are the attributes of "expand" (broadcast_to): the target
// shape, which may add leading dimensions; -1 keeps an existing dimension.
type ExpandAttrs struct {
	Shape tensor.Shape
}

// CatAttrs are the attributes of "cat" (join along an existing dimension)
// and "stack" (join along a new one).
type CatAttrs struct {
	Dim int
}

// The shape ops.
var (
	// Reshape takes ReshapeAttrs; its result keeps input 0's bytes.
	Reshape = Register(&Def{Name: "reshape", Infer: inferReshape, KeepsBytes: true})
	// Permute takes PermuteAttrs.
	Permute = Register(&Def{Name: "permute", Infer: inferPermute})
	// Expand takes ExpandAttrs.
	Expand = Register(&Def{Name: "expand", Infer: inferExpand})
	// Cat joins its inputs along CatAttrs.Dim.
	Cat = Register(&Def{Name: "cat", Infer: inferCat})
	// Stack joins its inputs along a new dimension CatAttrs.Dim.
	Stack = Register(&Def{Name: "stack", Infer: inferStack})
)

// singleWithAttrs checks that an op got exactly one input and attributes of
// type A (or *A).
func singleWithAttrs[A any](op string, in []tensor.Meta, attrs any) (tensor.Meta, A, error) {
	a, err := AttrsAs[A](op, attrs)
	if err != nil {
		return tensor.Meta{}, a, err
	}
	if len(in) != 1 {
		return tensor.Meta{}, a, fmt.Errorf("%s takes 1 tensor, got %d", op, len(in))
	}
	return in[0], a, nil
}

// AttrsAs reads an op's attributes given as A or *A (backends use it too);
// the error names the op and both types.
func AttrsAs[A any](op string, attrs any) (A, error) {
	switch a := attrs.(type) {
	case A:
		return a, nil
	case *A:
		if a != nil {
			return *a, nil
		}
	}
	var z A
	return z, fmt.Errorf("%s: attributes are %T, want %T", op, attrs, z)
}

// ReshapeShape resolves target (one -1 allowed) against a tensor of shape
// from, failing when the element counts differ.
func ReshapeShape(from, target tensor.Shape) (tensor.Shape, error) {
	n := from.Numel()
	out := target.Clone()
	if out == nil {
		out = tensor.Shape{}
	}
	infer, known := -1, 1
	for i, d := range out {
		switch {
		case d == -1 && infer >= 0:
			return nil, fmt.Errorf("cannot reshape %v to %v: only one dimension can be -1", from, target)
		case d == -1:
			infer = i
		case d < 0:
			return nil, fmt.Errorf("cannot reshape %v to %v: dimension %d is negative", from, target, i)
		default:
			if d != 0 && known > tensor.MaxElements/d {
				return nil, fmt.Errorf("cannot reshape %v to %v: the shape is too large", from, target)
			}
			known *= d
		}
	}
	if infer >= 0 {
		if known == 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v: the -1 is ambiguous when the other dimensions hold 0 elements", from, target)
		}
		if n%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v (%d elements) to %v: %d is not a multiple of %d",
				from, n, target, n, known)
		}
		out[infer] = n / known
		return out, nil
	}
	if known != n {
		return nil, fmt.Errorf("cannot reshape %v (%d elements) to %v (%d elements)", from, n, target, known)
	}
	return out, nil
}

func inferReshape(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[ReshapeAttrs]("reshape", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	s, err := ReshapeShape(x.Shape, a.Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: s, DType: x.DType}, nil
}

// NormPerm checks that dims is a permutation of a rank-dimensional tensor's
// dimensions and returns it with negative dimensions resolved.
func NormPerm(dims []int, rank int) ([]int, error) {
	if len(dims) != rank {
		return nil, fmt.Errorf("permutation %v has %d dimensions, the tensor has %d", dims, len(dims), rank)
	}
	out := make([]int, rank)
	seen := make([]bool, rank)
	for i, d := range dims {
		nd, err := tensor.NormDim(d, rank)
		if err != nil {
			return nil, fmt.Errorf("permutation %v: %v", dims, err)
		}
		if seen[nd] {
			return nil, fmt.Errorf("permutation %v repeats dimension %d", dims, nd)
		}
		seen[nd] = true
		out[i] = nd
	}
	return out, nil
}

func inferPermute(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[PermuteAttrs]("permute", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(x.Shape) == 0 && len(a.Dims) == 0 {
		return x, nil
	}
	p, err := NormPerm(a.Dims, len(x.Shape))
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("cannot permute a tensor of shape %v: %v", x.Shape, err)
	}
	s := make(tensor.Shape, len(p))
	for i, d := range p {
		s[i] = x.Shape[d]
	}
	return tensor.Meta{Shape: s, DType: x.DType}, nil
}

// ExpandShape resolves the target of expand/broadcast_to for a tensor of
// shape from: new dimensions lead, -1 keeps a dimension, and only
// dimensions of size 1 grow.
func ExpandShape(from, target tensor.Shape) (tensor.Shape, error) {
	if len(target) < len(from) {
		return nil, fmt.Errorf("cannot expand %v to %v: the target has fewer dimensions", from, target)
	}
	lead := len(target) - len(from)
	out := make(tensor.Shape, len(target))
	for i, d := range target {
		if i < lead {
			if d < 0 {
				return nil, fmt.Errorf("cannot expand %v to %v: new dimension %d cannot be %d", from, target, i, d)
			}
			out[i] = d
			continue
		}
		have := from[i-lead]
		switch {
		case d == -1 || d == have:
			out[i] = have
		case have == 1 && d >= 0:
			out[i] = d
		default:
			return nil, fmt.Errorf("cannot expand %v to %v: dimension %d has size %d, which must be 1 or %d",
				from, target, i, have, d)
		}
	}
	return out, nil
}

func inferExpand(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[ExpandAttrs]("expand", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	s, err := ExpandShape(x.Shape, a.Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: s, DType: x.DType}, nil
}

// PromoteAll is the common dtype of several tensors (torch.cat's promotion:
// all operands weigh the same).
func PromoteAll(in []tensor.Meta) tensor.DType {
	dt := in[0].DType
	one := tensor.Shape{1}
	for _, m := range in[1:] {
		dt = tensor.ResultType(tensor.Meta{Shape: one, DType: dt}, tensor.Meta{Shape: one, DType: m.DType})
	}
	return dt
}

// CatSkips reports whether cat ignores an input: like torch, a 1-d empty
// tensor joins anything.
func CatSkips(m tensor.Meta) bool { return len(m.Shape) == 1 && m.Shape[0] == 0 }

func inferCat(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[CatAttrs]("cat", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(in) == 0 {
		return tensor.Meta{}, fmt.Errorf("cat needs at least one tensor")
	}
	ref := -1
	for i, m := range in {
		if !CatSkips(m) {
			ref = i
			break
		}
	}
	dt := PromoteAll(in)
	if ref < 0 {
		return tensor.Meta{Shape: tensor.Shape{0}, DType: dt}, nil
	}
	base := in[ref].Shape
	if len(base) == 0 {
		return tensor.Meta{}, fmt.Errorf("cat: tensor %d is 0-d; zero-dimensional tensors cannot be concatenated (use stack)", ref)
	}
	dim, err := tensor.NormDim(a.Dim, len(base))
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("cat: %v", err)
	}
	out := base.Clone()
	out[dim] = 0
	for i, m := range in {
		if CatSkips(m) {
			continue
		}
		if len(m.Shape) != len(base) {
			return tensor.Meta{}, fmt.Errorf("cat: tensor %d has shape %v and tensor %d has shape %v; they must have the same number of dimensions",
				ref, base, i, m.Shape)
		}
		for k, d := range m.Shape {
			if k != dim && d != base[k] {
				return tensor.Meta{}, fmt.Errorf("cat along dimension %d: tensor %d has shape %v and tensor %d has shape %v; they must match except in dimension %d",
					dim, ref, base, i, m.Shape, dim)
			}
		}
		out[dim] += m.Shape[dim]
	}
	return tensor.Meta{Shape: out, DType: dt}, nil
}

func inferStack(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[CatAttrs]("stack", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(in) == 0 {
		return tensor.Meta{}, fmt.Errorf("stack needs at least one tensor")
	}
	base := in[0].Shape
	for i, m := range in[1:] {
		if !m.Shape.Equal(base) {
			return tensor.Meta{}, fmt.Errorf("stack: tensor 0 has shape %v and tensor %d has shape %v; they must be equal",
				base, i+1, m.Shape)
		}
	}
	dim, err := tensor.NormDim(a.Dim, len(base)+1)
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("stack: %v", err)
	}
	out := make(tensor.Shape, 0, len(base)+1)
	out = append(out, base[:dim]...)
	out = append(out, len(in))
	out = append(out, base[dim:]...)
	return tensor.Meta{Shape: out, DType: PromoteAll(in)}, nil
}
