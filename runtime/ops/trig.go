package ops

// The trigonometric and hyperbolic functions beyond sin, cos and tanh
// (elementwise.go): they compute in floating point, so integer and bool
// inputs give float32, as torch 1.13.
var (
	Tan   = Register(unaryDef("tan", true))
	Asin  = Register(unaryDef("asin", true))
	Acos  = Register(unaryDef("acos", true))
	Atan  = Register(unaryDef("atan", true))
	Sinh  = Register(unaryDef("sinh", true))
	Cosh  = Register(unaryDef("cosh", true))
	Asinh = Register(unaryDef("asinh", true))
	Acosh = Register(unaryDef("acosh", true))
	Atanh = Register(unaryDef("atanh", true))
)

// Trig lists the ops of this file.
var Trig = []Op{Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh}
