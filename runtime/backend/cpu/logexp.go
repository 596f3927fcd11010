package cpu

import (
	"math"

	"github.com/tref-lang/tref/internal/fmath"
	"github.com/tref-lang/tref/runtime/ops"
)

// Kernels of the ops of runtime/ops/logexp.go: Go's math functions in
// float64 per element (floatMap).

var logExpFuncs = map[ops.Op]func(float64) float64{
	ops.Log1p: math.Log1p, ops.Expm1: math.Expm1, ops.Log2: math.Log2, ops.Log10: fmath.Log10,
	ops.Reciprocal: func(x float64) float64 { return 1 / x },
}

func init() { registerFloatMaps(ops.LogExp, logExpFuncs) }
