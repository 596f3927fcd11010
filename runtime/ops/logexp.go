package ops

// Logarithms and exponentials beyond exp, log and sqrt (elementwise.go),
// and the reciprocal: they compute in floating point, so integer and bool
// inputs give float32, as torch 1.13. log1p and expm1 keep their precision
// near 0, where log(1 + x) and exp(x) - 1 lose it.
var (
	Log1p      = Register(unaryDef("log1p", true))
	Expm1      = Register(unaryDef("expm1", true))
	Log2       = Register(unaryDef("log2", true))
	Log10      = Register(unaryDef("log10", true))
	Reciprocal = Register(unaryDef("reciprocal", true))
)

// LogExp lists the ops of this file.
var LogExp = []Op{Log1p, Expm1, Log2, Log10, Reciprocal}
