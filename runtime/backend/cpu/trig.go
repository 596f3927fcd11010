package cpu

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the trigonometric and hyperbolic ops of runtime/ops/trig.go:
// Go's math functions in float64 per element (floatMap).

var trigFuncs = map[ops.Op]func(float64) float64{
	ops.Tan: math.Tan, ops.Asin: math.Asin, ops.Acos: math.Acos, ops.Atan: math.Atan,
	ops.Sinh: math.Sinh, ops.Cosh: math.Cosh, ops.Asinh: math.Asinh, ops.Acosh: math.Acosh, ops.Atanh: math.Atanh,
}

func init() {
	for _, op := range ops.Trig {
		name, f := op.Name(), trigFuncs[op]
		Register(op, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
			if err := checkInputs(name, ins, 1); err != nil {
				return err
			}
			return floatMap(name, out, ins[0], f)
		})
	}
}
