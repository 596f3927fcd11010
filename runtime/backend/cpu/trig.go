package cpu

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
)

// Kernels of the trigonometric and hyperbolic ops of runtime/ops/trig.go:
// Go's math functions in float64 per element (floatMap).

var trigFuncs = map[ops.Op]func(float64) float64{
	ops.Tan: math.Tan, ops.Asin: math.Asin, ops.Acos: math.Acos, ops.Atan: math.Atan,
	ops.Sinh: math.Sinh, ops.Cosh: math.Cosh, ops.Asinh: math.Asinh, ops.Acosh: math.Acosh, ops.Atanh: math.Atanh,
}

func init() { registerFloatMaps(ops.Trig, trigFuncs) }
