package torch

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// pointwiseCases are the conformance rows of runtime/ops/pointwise.go.
func pointwiseCases() []opCase {
	var t []opCase
	for _, op := range append(append([]string{"round", "sign", "erf", "isnan", "isinf", "nan_to_num"}, ops.RoundingUnary...), ops.Activations...) {
		var attrs any
		switch op {
		case "round":
			attrs = ops.RoundAttrs{}
		case "leaky_relu":
			attrs = ops.LeakyReluAttrs{NegativeSlope: 0.1}
		case "elu":
			attrs = ops.EluAttrs{Alpha: 1.5}
		case "softplus":
			attrs = ops.SoftplusAttrs{Beta: 2, Threshold: 1}
		case "nan_to_num":
			attrs = ops.NanToNumAttrs{Nan: 1, PosInf: 2, HasPosInf: true}
		}
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 4, 5)}, attrs: attrs},
			opCase{op: op, in: []tensor.Meta{m(f64, 7)}, attrs: attrs})
	}
	return append(t,
		opCase{op: "round", in: []tensor.Meta{m(f32, 9)}, attrs: ops.RoundAttrs{Decimals: 2}},
		opCase{op: "sign", in: []tensor.Meta{m(i64, 6)}},
		opCase{op: "floor", in: []tensor.Meta{m(i64, 6)}},
		opCase{op: "erf", in: []tensor.Meta{m(i64, 6)}},
	)
}
