package stdlib

import (
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The normal distribution's functions and the modified Bessel functions
// of torch.special, composed of tref's ops: ndtr and log_ndtr from erfc,
// ndtri and the Bessel functions from the Cephes series torch evaluates
// (its rational approximations and Chebyshev expansions, with its
// coefficients in the input's dtype), so that their values follow torch's
// and their gradients come from the ops. Each branch of a where reads a
// harmless input where the other is taken (see pointwise_port.go).
func init() {
	register("ndtr", "ndtr(input): the standard normal CDF, erfc(-input / sqrt(2)) / 2 (integers give float32), as torch.special.ndtr; more precise than torch's (1 + erf(input / sqrt(2))) / 2 far below 0, where torch's gives 0 from about -5.5 in float32 and -8.3 in float64", unaryChain(widened(ndtr)))
	register("log_ndtr", "log_ndtr(input): log(ndtr(input)), precise for very negative input (log1p(-erfc(input / sqrt(2)) / 2) from -1 on, log(erfc(-input / sqrt(2)) / 2) below, and below -12 (-36 in float64) the asymptotic series -input²/2 - log(-input) - log(2pi)/2 + log(1 - 1/input² + 3/input⁴ - ...) for torch's log(erfcx)) (integers give float32), as torch.special.log_ndtr", unaryChain(widened(logNdtr)))
	register("ndtri", "ndtri(input): the inverse of ndtr, the x with ndtr(x) = input, -inf at 0, inf at 1 and NaN outside [0, 1] (integers give float32), computed with torch's (Cephes') rational approximations, as torch.special.ndtri; the gradient is 0 at 0 and 1 (torch: inf)", unaryChain(widened(ndtri)))
	register("i0", "i0(input): the modified Bessel function of the first kind of order 0 (integers give float32), as torch.i0 (torch.special.i0), from Cephes' Chebyshev expansions on [0, 8] and beyond as torch", unaryChain(widened(besselI(0, false))))
	register("i0e", "i0e(input): exp(-|input|) * i0(input), the exponentially scaled i0 (integers give float32), as torch.special.i0e", unaryChain(widened(besselI(0, true))))
	register("i1", "i1(input): the modified Bessel function of the first kind of order 1 (odd; integers give float32), as torch.special.i1, from Cephes' Chebyshev expansions on [0, 8] and beyond as torch (its shorter float32 tables for float32)", unaryChain(widened(besselI(1, false))))
	register("i1e", "i1e(input): exp(-|input|) * i1(input), the exponentially scaled i1 (integers give float32), as torch.special.i1e", unaryChain(widened(besselI(1, true))))
}

// widened is f of a floating x: integers and bools become float32, and
// float16 and bfloat16 are computed in float32 and rounded back (their
// series would lose too much, step by step, in 16 bits).
func widened(f func(c *chain, x *refs.Ref) *refs.Ref) func(c *chain, x *refs.Ref) *refs.Ref {
	return func(c *chain, x *refs.Ref) *refs.Ref {
		x = c.floatOrF32(x)
		if c.Err() != nil {
			return nil
		}
		if dt := x.DType(); dt == tensor.Float16 || dt == tensor.BFloat16 {
			return c.Cast(f(c, c.Cast(x, tensor.Float32)), dt)
		}
		return f(c, x)
	}
}

// polevl is Cephes' polevl (torch's): the polynomial of coefs (highest
// degree first) at x by Horner's rule.
func (c *chain) polevl(x *refs.Ref, coefs []float64) *refs.Ref {
	if x == nil {
		return nil
	}
	r := c.scalar(coefs[0], x.DType())
	for _, a := range coefs[1:] {
		r = c.Op(ops.Add, nil, c.Op(ops.Mul, nil, r, x), c.scalar(a, x.DType()))
	}
	return r
}

// chbevl is Cephes' chbevl (torch's): the Chebyshev series of coefs
// (highest order first) at y/2 by Clenshaw's recurrence, (b0 - b2) / 2.
func (c *chain) chbevl(y *refs.Ref, coefs []float64) *refs.Ref {
	if y == nil {
		return nil
	}
	dt := y.DType()
	b0, b1 := c.scalar(coefs[0], dt), c.scalar(0, dt)
	var b2 *refs.Ref
	for i, a := range coefs[1:] {
		b2, b1 = b1, b0
		b0 = c.Op(ops.Mul, nil, y, b1)
		if i > 0 { // b2 is 0 at first
			b0 = c.Op(ops.Sub, nil, b0, b2)
		}
		b0 = c.Op(ops.Add, nil, b0, c.scalar(a, dt))
	}
	return c.Op(ops.Mul, nil, c.scalar(0.5, dt), c.Op(ops.Sub, nil, b0, b2))
}

func ndtr(c *chain, x *refs.Ref) *refs.Ref {
	dt := x.DType()
	return c.Op(ops.Mul, nil, c.Op(ops.Erfc, nil, c.Op(ops.Mul, nil, x, c.scalar(-math.Sqrt2/2, dt))), c.scalar(0.5, dt))
}

// logNdtrFar is the x below which log_ndtr takes the asymptotic series:
// erfc(-x/√2) and exp(-x²/2) are normal numbers of dt above it, and the
// series' error (its first term left out, about 3e-12 at -12) is below
// dt's rounding below it.
func logNdtrFar(dt tensor.DType) float64 {
	if dt == tensor.Float64 {
		return -36
	}
	return -12
}

// logNdtrSeries is 1 - w + 3w² - 15w³ + ..., the asymptotic series of
// sqrt(2pi)·|x|·exp(x²/2)·ndtr(x) in w = 1/x² as x → -inf, highest power
// first ((-1)^k (2k-1)!! for w^k).
var logNdtrSeries = []float64{2027025, -135135, 10395, -945, 105, -15, 3, -1, 1}

func logNdtr(c *chain, x *refs.Ref) *refs.Ref {
	dt := x.DType()
	k := func(v float64) *refs.Ref { return c.scalar(v, dt) }
	low := c.Op(ops.Lt, nil, x, k(-1))
	// from -1 on (and NaN): log1p(-erfc(x/√2)/2)
	xh := c.Op(ops.Where, nil, low, k(0), x)
	high := c.Op(ops.Log1p, nil, c.Op(ops.Mul, nil, c.Op(ops.Erfc, nil, c.Op(ops.Mul, nil, xh, k(math.Sqrt2/2))), k(-0.5)))
	// below: log(erfc(-x/√2)/2), and far below the asymptotic series
	far := c.Op(ops.Lt, nil, x, k(logNdtrFar(dt)))
	mid := c.Op(ops.BitwiseAnd, nil, low, c.Op(ops.LogicalNot, nil, far))
	xm := c.Op(ops.Where, nil, mid, x, k(-2))
	middle := c.Op(ops.Log, nil, c.Op(ops.Mul, nil, c.Op(ops.Erfc, nil, c.Op(ops.Mul, nil, xm, k(-math.Sqrt2/2))), k(0.5)))
	xf := c.Op(ops.Where, nil, far, x, k(logNdtrFar(dt)-1))
	sq := c.Op(ops.Mul, nil, xf, xf)
	series := c.Op(ops.Log, nil, c.polevl(c.Op(ops.Div, nil, k(1), sq), logNdtrSeries))
	lead := c.Op(ops.Add, nil, c.Op(ops.Mul, nil, sq, k(0.5)), c.Op(ops.Log, nil, c.Op(ops.Neg, nil, xf)))
	tail := c.Op(ops.Sub, nil, c.Op(ops.Sub, nil, series, lead), k(math.Log(2*math.Pi)/2))
	return c.Op(ops.Where, nil, low, c.Op(ops.Where, nil, far, tail, middle), high)
}

// Cephes' ndtri coefficients (torch's calc_ndtri): P0/Q0 for |p - 0.5| <=
// 3/8, then in z = 1/sqrt(-2 log p) P1/Q1 for sqrt(-2 log p) in [2, 8)
// and P2/Q2 beyond.
var (
	ndtriP0 = []float64{-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1, 1.39312609387279679503e1, -1.23916583867381258016e0}
	ndtriQ0 = []float64{1, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1, -2.25462687854119370527e2,
		2.00260212380060660359e2, -8.20372256168333339912e1, 1.59056225126211695515e1, -1.18331621121330003142e0}
	ndtriP1 = []float64{4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1, 4.40805073893200834700e1,
		1.46849561928858024014e1, 2.18663306850790267539e0, -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4}
	ndtriQ1 = []float64{1, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1, 1.50425385692907503408e1,
		2.50464946208309415979e0, -1.42182922854787788574e-1, -3.80806407691578277194e-2, -9.33259480895457427372e-4}
	ndtriP2 = []float64{3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0, 1.33303460815807542389e0,
		2.01485389549179081538e-1, 1.23716634817820021358e-2, 3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9}
	ndtriQ2 = []float64{1, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0, 2.16236993594496635890e-1,
		1.34204006088543189037e-2, 3.28014464682127739104e-4, 2.89247864745380683936e-6, 6.79019408009981274425e-9}
)

// ratio is z·P(z)/Q(z), Cephes' form of ndtri's tails.
func (c *chain) ratio(z *refs.Ref, p, q []float64) *refs.Ref {
	return c.Op(ops.Div, nil, c.Op(ops.Mul, nil, z, c.polevl(z, p)), c.polevl(z, q))
}

func ndtri(c *chain, p *refs.Ref) *refs.Ref {
	dt := p.DType()
	k := func(v float64) *refs.Ref { return c.scalar(v, dt) }
	// exp(-2) and 1 - exp(-2), as torch rounds them to dt
	e2 := ops.FloatScalar(0.13533528323661269189, dt).Float()
	hi := ops.FloatScalar(1-e2, dt).Float()
	inside := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Gt, nil, p, k(0)), c.Op(ops.Lt, nil, p, k(1)))
	central := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Gt, nil, p, k(e2)), c.Op(ops.Le, nil, p, k(hi)))
	upper := c.Op(ops.Gt, nil, p, k(hi))
	tail := c.Op(ops.BitwiseAnd, nil, inside, c.Op(ops.LogicalNot, nil, central))
	// central: (y + y·y²·P0(y²)/Q0(y²))·sqrt(2pi) with y = p - 1/2
	y := c.Op(ops.Sub, nil, c.Op(ops.Where, nil, central, p, k(0.5)), k(0.5))
	y2 := c.Op(ops.Mul, nil, y, y)
	frac := c.Op(ops.Div, nil, c.Op(ops.Mul, nil, y2, c.polevl(y2, ndtriP0)), c.polevl(y2, ndtriQ0))
	mid := c.Op(ops.Mul, nil, c.Op(ops.Add, nil, y, c.Op(ops.Mul, nil, y, frac)), k(2.50662827463100050242))
	// tails: with q = p, or 1 - p above 1 - exp(-2), and x = sqrt(-2 log
	// q): -(x - log(x)/x - z·P(z)/Q(z)) with z = 1/x, positive above
	q := c.Op(ops.Where, nil, tail, c.Op(ops.Where, nil, upper, c.Op(ops.Sub, nil, k(1), p), p), k(e2))
	logq := c.Op(ops.Log, nil, q)
	x := c.Op(ops.Sqrt, nil, c.Op(ops.Mul, nil, k(-2), logq))
	x0 := c.Op(ops.Sub, nil, x, c.Op(ops.Div, nil, c.Op(ops.Log, nil, x), x))
	z := c.Op(ops.Div, nil, k(1), x)
	x1 := c.Op(ops.Where, nil, c.Op(ops.Lt, nil, x, k(8)), c.ratio(z, ndtriP1, ndtriQ1), c.ratio(z, ndtriP2, ndtriQ2))
	t := c.Op(ops.Sub, nil, x0, x1)
	t = c.Op(ops.Where, nil, upper, t, c.Op(ops.Neg, nil, t))
	edge := c.Op(ops.Where, nil, c.Op(ops.Eq, nil, p, k(1)), k(math.Inf(1)), k(math.NaN()))
	edge = c.Op(ops.Where, nil, c.Op(ops.Eq, nil, p, k(0)), k(math.Inf(-1)), edge)
	return c.Op(ops.Where, nil, inside, c.Op(ops.Where, nil, central, mid, t), edge)
}

// Cephes' Chebyshev coefficients of exp(-x)·I0(x) on [0, 8] (i0eA) and
// of exp(-x)·sqrt(x)·I0(x) on (8, inf) in 32/x - 2 (i0eB), and the same
// of I1 (i1eA, i1eB), as torch's tables; for float32 torch keeps the last
// 17 of i1eA and the last 7 of i1eB.
var (
	i0eA = []float64{-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16, 1.71539128555513303061e-15,
		-1.16853328779934516808e-14, 7.67618549860493561688e-14, -4.85644678311192946090e-13, 2.95505266312963983461e-12,
		-1.72682629144155570723e-11, 9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
		-1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7, 1.11738753912010371815e-6,
		-4.41673835845875056359e-6, 1.64484480707288970893e-5, -5.75419501008210370398e-5, 1.88502885095841655729e-4,
		-5.76375574538582365885e-4, 1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
		-2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2, 1.71620901522208775349e-1,
		-3.04682672343198398683e-1, 6.76795274409476084995e-1}
	i0eB = []float64{-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17, 3.46122286769746109310e-17,
		-2.82762398051658348494e-16, -3.42548561967721913462e-16, 1.77256013305652638360e-15, 3.81168066935262242075e-15,
		-9.55484669882830764870e-15, -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
		7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11, -3.14991652796324136454e-11,
		1.18891471078464383424e-11, 4.94060238822496958910e-10, 3.39623202570838634515e-9, 2.26666899049817806459e-8,
		2.04891858946906374183e-7, 2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
		8.04490411014108831608e-1}
	i1eA = []float64{2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16, -1.10559694773538630805e-15,
		7.60068429473540693410e-15, -5.04218550472791168711e-14, 3.22379336594557470981e-13, -1.98397439776494371520e-12,
		1.17361862988909016308e-11, -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
		9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7, -8.56872026469545474066e-7,
		3.47025130813767847674e-6, -1.32731636560394358279e-5, 4.78156510755005422638e-5, -1.61760815825896745588e-4,
		5.12285956168575772895e-4, -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
		2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1, -1.76416518357834055153e-1,
		2.52587186443633654823e-1}
	i1eB = []float64{7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17, -3.20952592199342395980e-17,
		2.96262899764595013876e-16, 3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15,
		1.04202769841288027642e-14, 4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
		-7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11, 3.25260358301548823856e-11,
		-1.89749581235054123450e-11, -5.58974346219658380687e-10, -3.83538038596423702205e-9, -2.63146884688951950684e-8,
		-2.51223623787020892529e-7, -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
		7.78576235018280120474e-1}
)

// besselTables are the Chebyshev coefficients torch uses for order 0 or 1
// in dtype dt.
func besselTables(order int, dt tensor.DType) (near, far []float64) {
	switch {
	case order == 0:
		return i0eA, i0eB
	case dt == tensor.Float32:
		return i1eA[len(i1eA)-17:], i1eB[len(i1eB)-7:]
	}
	return i1eA, i1eB
}

// besselI is i0 or i1 (order 0 or 1), or with scaled i0e or i1e: torch's
// calc_i0, calc_i1 and their exponentially scaled forms, the series in
// |x|/2 - 2 up to |x| = 8 and in 32/|x| - 2 beyond. Order 1 multiplies
// the near series by x itself (not |x|, whose gradient at 0 is 0), so that
// the gradient at 0 is i1'(0) = 1/2.
func besselI(order int, scaled bool) func(c *chain, x *refs.Ref) *refs.Ref {
	return func(c *chain, x *refs.Ref) *refs.Ref {
		dt := x.DType()
		k := func(v float64) *refs.Ref { return c.scalar(v, dt) }
		a := c.Op(ops.Abs, nil, x)
		isNear := c.Op(ops.Le, nil, a, k(8))
		an, af := c.Op(ops.Where, nil, isNear, a, k(8)), c.Op(ops.Where, nil, isNear, k(8), a)
		tn, tf := besselTables(order, dt)
		near := c.chbevl(c.Op(ops.Sub, nil, c.Op(ops.Div, nil, an, k(2)), k(2)), tn)
		far := c.chbevl(c.Op(ops.Sub, nil, c.Op(ops.Div, nil, k(32), af), k(2)), tf)
		if order == 1 {
			xn := c.Op(ops.Where, nil, isNear, x, k(8))
			if scaled {
				near = c.Op(ops.Mul, nil, near, xn)
			} else {
				near = c.Op(ops.Mul, nil, c.Op(ops.Mul, nil, c.Op(ops.Exp, nil, an), xn), near)
			}
		} else if !scaled {
			near = c.Op(ops.Mul, nil, c.Op(ops.Exp, nil, an), near)
		}
		if !scaled {
			far = c.Op(ops.Mul, nil, c.Op(ops.Exp, nil, af), far)
		}
		far = c.Op(ops.Div, nil, far, c.Op(ops.Sqrt, nil, af))
		if order == 1 {
			far = c.Op(ops.Where, nil, c.Op(ops.Lt, nil, x, k(0)), c.Op(ops.Neg, nil, far), far)
		}
		return c.Op(ops.Where, nil, isNear, near, far)
	}
}
