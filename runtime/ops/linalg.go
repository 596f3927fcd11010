package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Linear algebra ops. "matmul" follows torch.matmul: a 1-d operand is
// promoted to a matrix (a row on the left, a column on the right) and the
// added dimension removed from the result; leading batch dimensions
// broadcast. "linear" is x @ wᵀ (+ bias) with w in torch's [out, in]
// layout; "outer" is the outer product of two vectors.
// The linear algebra ops.
var (
	// Matmul is a @ b with torch.matmul's rules.
	Matmul = Register(&Def{Name: "matmul", Infer: inferMatmul, Flops: matmulFlops})
	// Linear is x @ w^T (+ bias).
	Linear = Register(&Def{Name: "linear", Infer: inferLinear, Flops: linearFlops})
	// Outer is the outer product of two vectors.
	Outer = Register(&Def{Name: "outer", Infer: inferOuter})
	// MatmulTN is aᵀ @ b for matrices a [k, m] and b [k, n], the product
	// gradient rules need (linear's weight gradient gᵀ·x): the kernels
	// read a transposed, so the transpose is never materialised.
	MatmulTN = Register(&Def{Name: "matmul_tn", Infer: inferMatmulTN, Flops: matmulTNFlops})
)

// MatmulDims is the layout of a matmul after torch's promotion of 1-d
// operands: Batch (broadcast) copies of an M×K by K×N product. ABatch and
// BBatch are the operands' own batch dimensions, left-padded with ones to
// Batch's rank, so a dimension of 1 there against a larger one in Batch
// means the operand is reused along it.
type MatmulDims struct {
	M, N, K        int
	Batch          tensor.Shape
	ABatch, BBatch tensor.Shape
	Out            tensor.Shape
}

// BatchCount is the number of matrix products.
func (d MatmulDims) BatchCount() int { return d.Batch.Numel() }

// MatmulLayout lays out the product of tensors of shapes a and b as torch.matmul
// does, or says why they do not multiply.
func MatmulLayout(a, b tensor.Shape) (MatmulDims, error) {
	var d MatmulDims
	if len(a) == 0 || len(b) == 0 {
		return d, fmt.Errorf("matmul: both operands need at least one dimension, got shapes %v and %v", a, b)
	}
	ka, kb := a[len(a)-1], b[0]
	if len(b) > 1 {
		kb = b[len(b)-2]
	}
	if ka != kb {
		return d, fmt.Errorf("matmul: shapes %v and %v do not align (%d != %d)", a, b, ka, kb)
	}
	d.K = ka
	d.M, d.N = 1, 1
	var aBatch, bBatch tensor.Shape
	if len(a) > 1 {
		d.M = a[len(a)-2]
		aBatch = a[:len(a)-2]
	}
	if len(b) > 1 {
		d.N = b[len(b)-1]
		bBatch = b[:len(b)-2]
	}
	batch, err := tensor.Broadcast(aBatch, bBatch)
	if err != nil {
		return d, fmt.Errorf("matmul: the batch dimensions of shapes %v and %v do not broadcast: %v", a, b, err)
	}
	d.Batch = batch
	d.ABatch = PadOnes(aBatch, len(batch))
	d.BBatch = PadOnes(bBatch, len(batch))
	d.Out = batch.Clone()
	if len(a) > 1 {
		d.Out = append(d.Out, d.M)
	}
	if len(b) > 1 {
		d.Out = append(d.Out, d.N)
	}
	return d, nil
}

// PadOnes left-pads s with ones to rank n (a shape broadcast against a
// higher-rank one).
func PadOnes(s tensor.Shape, n int) tensor.Shape {
	out := make(tensor.Shape, n)
	for i := range out {
		out[i] = 1
	}
	copy(out[n-len(s):], s)
	return out
}

// MatmulDType is the dtype matmul, linear and outer compute in and return
// for the given operands (PyTorch promotion), or an error for bool operands.
func MatmulDType(op string, in []tensor.Meta) (tensor.DType, error) {
	for _, m := range in {
		if m.DType == tensor.Bool || m.DType == tensor.Invalid {
			return tensor.Invalid, fmt.Errorf("%s: expected numeric tensors, got a %s operand", op, m.DType)
		}
	}
	return PromoteAll(in), nil
}

func inferMatmul(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("matmul takes 2 tensors, got %d", len(in))
	}
	d, err := MatmulLayout(in[0].Shape, in[1].Shape)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := MatmulDType("matmul", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Out, DType: dt}, nil
}

func matmulFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	d, err := MatmulLayout(in[0].Shape, in[1].Shape)
	if err != nil {
		return 0
	}
	return 2 * int64(d.M) * int64(d.N) * int64(d.K) * int64(d.BatchCount())
}

// LinearDims lays out linear(x, w): x's leading dimensions flatten to Rows,
// each of In features, giving Out features per row (Out is 1 and the
// feature dimension is dropped when w is a vector). Shape is the result's.
type LinearDims struct {
	Rows, In, Out int
	Shape         tensor.Shape
}

// LinearLayout checks linear's operand shapes: x [..., in], w [out, in] or [in],
// and an optional bias that broadcasts to the result.
func LinearLayout(x, w tensor.Shape, bias *tensor.Shape) (LinearDims, error) {
	var d LinearDims
	if len(x) == 0 {
		return d, fmt.Errorf("linear: the input needs at least one dimension, got a 0-d tensor")
	}
	if len(w) != 1 && len(w) != 2 {
		return d, fmt.Errorf("linear: the weight must be [out, in] or [in], got shape %v", w)
	}
	d.In = x[len(x)-1]
	if win := w[len(w)-1]; win != d.In {
		return d, fmt.Errorf("linear: input shape %v and weight shape %v do not align (%d != %d)", x, w, d.In, win)
	}
	d.Rows = x[:len(x)-1].Numel()
	d.Out = 1
	d.Shape = x[:len(x)-1].Clone()
	if len(w) == 2 {
		d.Out = w[0]
		d.Shape = append(d.Shape, d.Out)
	}
	if bias != nil {
		if s, err := tensor.Broadcast(d.Shape, *bias); err != nil || !s.Equal(d.Shape) {
			return d, fmt.Errorf("linear: bias of shape %v does not broadcast to the output shape %v", *bias, d.Shape)
		}
	}
	return d, nil
}

func inferLinear(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 && len(in) != 3 {
		return tensor.Meta{}, fmt.Errorf("linear takes x, w and an optional bias, got %d tensors", len(in))
	}
	var bias *tensor.Shape
	if len(in) == 3 {
		bias = &in[2].Shape
	}
	d, err := LinearLayout(in[0].Shape, in[1].Shape, bias)
	if err != nil {
		return tensor.Meta{}, err
	}
	dt, err := MatmulDType("linear", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: d.Shape, DType: dt}, nil
}

func linearFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	var bias *tensor.Shape
	if len(in) == 3 {
		bias = &in[2].Shape
	}
	d, err := LinearLayout(in[0].Shape, in[1].Shape, bias)
	if err != nil {
		return 0
	}
	return 2 * int64(d.Rows) * int64(d.In) * int64(d.Out)
}

func inferMatmulTN(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("matmul_tn takes 2 tensors, got %d", len(in))
	}
	a, b := in[0].Shape, in[1].Shape
	if len(a) != 2 || len(b) != 2 || a[0] != b[0] {
		return tensor.Meta{}, fmt.Errorf("matmul_tn: expected matrices [k, m] and [k, n], got shapes %v and %v", a, b)
	}
	dt, err := MatmulDType("matmul_tn", in)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: tensor.Shape{a[1], b[1]}, DType: dt}, nil
}

func matmulTNFlops(in []tensor.Meta, out tensor.Meta, _ any) int64 {
	if len(in) != 2 || len(in[0].Shape) != 2 || len(out.Shape) != 2 {
		return 0
	}
	return 2 * int64(in[0].Shape[0]) * int64(out.Shape[0]) * int64(out.Shape[1])
}

func inferOuter(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if len(in) != 2 {
		return tensor.Meta{}, fmt.Errorf("outer takes 2 tensors, got %d", len(in))
	}
	a, b := in[0], in[1]
	if len(a.Shape) != 1 || len(b.Shape) != 1 {
		return tensor.Meta{}, fmt.Errorf("outer: expected two 1-d tensors, got shapes %v and %v", a.Shape, b.Shape)
	}
	return tensor.Meta{Shape: tensor.Shape{a.Shape[0], b.Shape[0]}, DType: PromoteAll(in)}, nil
}
