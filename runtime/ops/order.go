package ops

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Scans, logsumexp, vector norms and sorting, as torch 1.13:
//
//   - cumsum, cumprod (ScanAttrs): running sums and products along Dim;
//     integers and bools give int64, floats keep their dtype (float32
//     accumulates in float64, as torch's cpu kernels).
//   - logcumsumexp (ScanAttrs): log(cumsum(exp(x))) along Dim, each step
//     torch's stable log(exp(a) + exp(b)); floats only, accumulated in
//     float64.
//   - logsumexp (ReduceAttrs): log(sum(exp(x))) over Dims, computed as
//     m + log(sum(exp(x - m))) with m the largest element (0 where that is
//     infinite, so all -inf gives -inf and +inf gives +inf); integers give
//     float32.
//   - norm (VectorNormAttrs): (sum |x|^P)^(1/P) over Dims (every dimension
//     when empty); P = inf is max |x|, -inf min |x|, 0 the count of
//     nonzeros. Floats only.
//   - argsort (SortAttrs): the int64 indices that sort x along Dim, stably
//     (ties keep their order); NaN sorts above every number, as in torch.
//     sort and topk are argsort followed by gather.
//   - cummax_indices, cummin_indices (ScanAttrs): the int64 index along
//     Dim of the running maximum (minimum) so far: the last of equal
//     extremes, and once a NaN is seen the last NaN, as torch's cummax
//     and cummin; their values are a gather of x at the indices.

// ScanAttrs are the attributes of cumsum and cumprod.
type ScanAttrs struct {
	Dim int
}

// VectorNormAttrs are the attributes of norm.
type VectorNormAttrs struct {
	P       float64
	Dims    []int
	Keepdim bool
}

// SortAttrs are the attributes of argsort.
type SortAttrs struct {
	Dim        int
	Descending bool
}

// The ops.
var (
	// Cumsum and Cumprod take ScanAttrs.
	Cumsum  = Register(&Def{Name: "cumsum", Infer: inferScan("cumsum"), Flops: perInput})
	Cumprod = Register(&Def{Name: "cumprod", Infer: inferScan("cumprod"), Flops: perInput})
	// Logcumsumexp takes ScanAttrs.
	Logcumsumexp = Register(&Def{Name: "logcumsumexp", Infer: inferLogcumsumexp, Flops: perInput})
	// Logsumexp takes ReduceAttrs.
	Logsumexp = Register(&Def{Name: "logsumexp", Infer: inferLogsumexp, Flops: perInput})
	// Norm takes VectorNormAttrs.
	Norm = Register(&Def{Name: "norm", Infer: inferVectorNorm, Flops: perInput})
	// Argsort takes SortAttrs.
	Argsort = Register(&Def{Name: "argsort", Infer: inferArgsort, Flops: perInput})
	// CummaxIndices and CumminIndices take ScanAttrs.
	CummaxIndices = Register(&Def{Name: "cummax_indices", Infer: inferScanIndices("cummax_indices"), Flops: perInput})
	CumminIndices = Register(&Def{Name: "cummin_indices", Infer: inferScanIndices("cummin_indices"), Flops: perInput})
)

// inferScanIndices is the int64 result of x's shape of a scan that
// locates elements (any dtype).
func inferScanIndices(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		x, err := scanInput(name, in, attrs)
		return tensor.Meta{Shape: x.Shape, DType: tensor.Int64}, err
	}
}

// scanInput is a scan's one input, its ScanAttrs' Dim checked against it.
func scanInput(name string, in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[ScanAttrs](name, in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if _, err := tensor.NormDim(a.Dim, max(len(x.Shape), 1)); err != nil {
		return tensor.Meta{}, fmt.Errorf("%s: %v", name, err)
	}
	return x, nil
}

func inferLogcumsumexp(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, err := scanInput("logcumsumexp", in, attrs)
	if err == nil && !x.DType.IsFloat() {
		err = fmt.Errorf("logcumsumexp takes a floating-point tensor, got %v", x.DType)
	}
	return x, err
}

func inferScan(name string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		x, err := scanInput(name, in, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		dt := x.DType
		if !dt.IsFloat() {
			dt = tensor.Int64
		}
		return tensor.Meta{Shape: x.Shape, DType: dt}, nil
	}
}

func inferLogsumexp(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[ReduceAttrs]("logsumexp", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	dims, err := ReduceDims(a.Dims, len(x.Shape))
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("logsumexp: %v", err)
	}
	dt := x.DType
	if !dt.IsFloat() {
		dt = tensor.Float32
	}
	return tensor.Meta{Shape: ReduceShape(x.Shape, dims, a.Keepdim), DType: dt}, nil
}

func inferVectorNorm(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[VectorNormAttrs]("norm", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if !x.DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("norm needs a float tensor; use astype(x, \"float32\") (got %v)", x)
	}
	if math.IsNaN(a.P) {
		return tensor.Meta{}, fmt.Errorf("norm: p must be a number, not NaN")
	}
	dims, err := ReduceDims(a.Dims, len(x.Shape))
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("norm: %v", err)
	}
	n := 1
	for _, d := range dims {
		n *= x.Shape[d]
	}
	if n == 0 && (a.P < 0 || math.IsInf(a.P, 1)) {
		return tensor.Meta{}, fmt.Errorf("norm of order %v over no elements (shape %v) has no value", a.P, x.Shape)
	}
	return tensor.Meta{Shape: ReduceShape(x.Shape, dims, a.Keepdim), DType: x.DType}, nil
}

func inferArgsort(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[SortAttrs]("argsort", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if _, err := tensor.NormDim(a.Dim, max(len(x.Shape), 1)); err != nil {
		return tensor.Meta{}, fmt.Errorf("argsort: %v", err)
	}
	return tensor.Meta{Shape: x.Shape, DType: tensor.Int64}, nil
}
