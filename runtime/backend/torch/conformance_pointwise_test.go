package torch

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// pointwiseCases are the conformance rows of runtime/ops/pointwise.go.
func pointwiseCases() []opCase {
	var t []opCase
	for _, op := range append(append([]ops.Op{ops.Round, ops.Sign, ops.Erf, ops.Isnan, ops.Isinf, ops.NanToNum}, ops.RoundingUnary...), ops.Activations...) {
		var attrs any
		switch op {
		case ops.Round:
			attrs = ops.RoundAttrs{}
		case ops.LeakyRelu:
			attrs = ops.LeakyReluAttrs{NegativeSlope: 0.1}
		case ops.Elu:
			attrs = ops.EluAttrs{Alpha: 1.5}
		case ops.Softplus:
			attrs = ops.SoftplusAttrs{Beta: 2, Threshold: 1}
		case ops.NanToNum:
			attrs = ops.NanToNumAttrs{Nan: 1, PosInf: 2, HasPosInf: true}
		}
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 4, 5)}, attrs: attrs},
			opCase{op: op, in: []tensor.Meta{m(f64, 7)}, attrs: attrs})
	}
	return append(t,
		opCase{op: ops.Round, in: []tensor.Meta{m(f32, 9)}, attrs: ops.RoundAttrs{Decimals: 2}},
		opCase{op: ops.Sign, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Floor, in: []tensor.Meta{m(i64, 6)}},
		opCase{op: ops.Erf, in: []tensor.Meta{m(i64, 6)}},
	)
}
