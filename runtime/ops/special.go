package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// The special functions of torch.special that tref has: erfc, erfinv,
// lgamma, digamma, polygamma, erfcx, zeta, gammainc and gammaincc. They
// compute in floating point, so integer and bool inputs give float32, as
// torch 1.13, but for gammainc and gammaincc, which take floating-point
// operands only (torch has no integer kernels of them).
var (
	Erfc    = Register(unaryDef("erfc", true))
	Erfinv  = Register(unaryDef("erfinv", true))
	Lgamma  = Register(unaryDef("lgamma", true))
	Digamma = Register(unaryDef("digamma", true))
	// Polygamma takes PolygammaAttrs.
	Polygamma = Register(&Def{Name: "polygamma", Infer: inferPolygamma, Flops: perOutput, Inplace: []int{0}})
	// Erfcx is the scaled complementary error function exp(x²)·erfc(x).
	Erfcx = Register(unaryDef("erfcx", true))
	// Zeta is the Hurwitz zeta function ζ(x, q) = Σ_k (k + q)^-x,
	// broadcasting, either operand a number (ScalarOperand).
	Zeta = Register(binaryDef("zeta"))
	// Gammainc and Gammaincc are the regularized lower and upper
	// incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x),
	// broadcasting, either operand a number.
	Gammainc  = Register(binaryDef("gammainc"))
	Gammaincc = Register(binaryDef("gammaincc"))
)

// Special lists the unary special functions without attributes.
var Special = []Op{Erfc, Erfinv, Lgamma, Digamma, Erfcx}

// SpecialBinary lists the binary special functions.
var SpecialBinary = []Op{Zeta, Gammainc, Gammaincc}

// PolygammaAttrs are the attributes of "polygamma": the order N >= 0 of
// the derivative of digamma (polygamma of order 0 is digamma).
type PolygammaAttrs struct {
	N int
}

// PolygammaMaxOrder bounds polygamma's order: its factor N! overflows
// float64 beyond 170, and every value of a higher order is infinite or
// NaN.
const PolygammaMaxOrder = 170

func inferPolygamma(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[PolygammaAttrs]("polygamma", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if a.N < 0 || a.N > PolygammaMaxOrder {
		return tensor.Meta{}, fmt.Errorf("polygamma: the order n must be in [0, %d], got %d", PolygammaMaxOrder, a.N)
	}
	return inferUnary("polygamma", true)(in, nil)
}
