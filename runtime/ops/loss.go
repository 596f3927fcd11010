package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Reduction is how a loss combines its per-element values, as torch's
// reduction= argument.
type Reduction uint8

// The reductions of torch's losses.
const (
	ReduceMean Reduction = iota
	ReduceSum
	ReduceNone
)

var reductionNames = [...]string{"mean", "sum", "none"}

// String is the reduction's name as torch spells it.
func (r Reduction) String() string { return reductionNames[r] }

// ParseReduction maps "mean", "sum" or "none" to a Reduction.
func ParseReduction(s string) (Reduction, bool) {
	for i, n := range reductionNames {
		if n == s {
			return Reduction(i), true
		}
	}
	return 0, false
}

// NllLossAttrs are the attributes of "nll_loss": inputs log-probabilities
// [C] or [N, C, d...], int class targets [] or [N, d...], then a weight [C]
// when HasWeight. Targets equal to IgnoreIndex count for nothing. With
// LabelSmoothing ε each loss is (1-ε)·nll + ε/C·(the weighted sum of
// -log-probabilities over the classes), torch's cross_entropy formula.
// Mean divides by the summed weights of the counted targets.
type NllLossAttrs struct {
	Reduction      Reduction
	IgnoreIndex    int
	HasWeight      bool
	LabelSmoothing float64
}

// NllLoss is nll_loss(logp, target[, weight]) with NllLossAttrs.
var NllLoss = Register(&Def{Name: "nll_loss", Infer: inferNllLoss, Flops: nnInputElements(2)})

func inferNllLoss(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[NllLossAttrs]("nll_loss", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	want := 2
	if a.HasWeight {
		want = 3
	}
	if len(in) != want {
		return tensor.Meta{}, fmt.Errorf("nll_loss: got %d tensors, the attributes call for %d", len(in), want)
	}
	if int(a.Reduction) >= len(reductionNames) {
		return tensor.Meta{}, fmt.Errorf("nll_loss: unknown reduction %d", a.Reduction)
	}
	if a.LabelSmoothing < 0 || a.LabelSmoothing > 1 {
		return tensor.Meta{}, fmt.Errorf("nll_loss: label_smoothing must be in [0, 1], got %v", a.LabelSmoothing)
	}
	x, target := in[0], in[1]
	if len(x.Shape) == 0 {
		return tensor.Meta{}, fmt.Errorf("nll_loss: input must be [C] or [N, C, ...], got a 0-d tensor")
	}
	if !x.DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("nll_loss: expected a floating-point input, got %s", x.DType)
	}
	if !target.DType.IsInt() {
		return tensor.Meta{}, fmt.Errorf("nll_loss: targets must be int64 class indices, got %s", target.DType)
	}
	_, classes, _, ts := CrossEntropyLayout(x.Shape)
	if !target.Shape.Equal(ts) {
		return tensor.Meta{}, fmt.Errorf("nll_loss: input of shape %v needs targets of shape %v, got %v", x.Shape, ts, target.Shape)
	}
	if a.HasWeight && !in[2].Shape.Equal(tensor.Shape{classes}) {
		return tensor.Meta{}, fmt.Errorf("nll_loss: input of shape %v has %d classes, but the weight has shape %v", x.Shape, classes, in[2].Shape)
	}
	out := tensor.Shape{}
	if a.Reduction == ReduceNone {
		out = ts
	}
	return tensor.Meta{Shape: out, DType: x.DType}, nil
}
