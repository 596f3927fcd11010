package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's samplers of counts: poisson and binomial, exact samplers (no
// normal approximation) drawn on the host from the thread's seeded
// stream, as bernoulli's (random_more.go): a seed repeats them, the
// numbers are not torch's, and the gradient to the rates or the
// probabilities is zero, as torch's.

func init() {
	register("poisson", "poisson(input): a Poisson sample of each rate in the floating-point input (>= 0), in input's dtype, as torch.poisson; exact (Knuth's product of uniforms below a rate of 10, Hörmann's transformed rejection above), from the seeded stream of rand; the gradient to the rates is zero", poissonBuiltin)
	register("binomial", "binomial(count, prob): a binomial sample of count trials of probability prob for each element (floating-point tensors, broadcast together; count a whole number >= 0, prob in [0, 1]), in their promoted dtype, as torch.binomial; exact (inversion below a mean of 10, Hörmann's BTRS above), from the seeded stream of rand; the gradient is zero", binomialBuiltin)
}

func poissonBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	check := func(v float64) error {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("invalid Poisson rate %v: the rates must be finite and >= 0", v)
		}
		return nil
	}
	return sampleEach(th, b.Name, "rates", x, check, samplePoisson)
}

func binomialBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var count, prob *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "count", &count, "prob", &prob); err != nil {
		return nil, err
	}
	if !count.DType().IsFloat() || !prob.DType().IsFloat() {
		return nil, fmt.Errorf("%s: count and prob must be floating point, got %v and %v", b.Name, count.Meta(), prob.Meta())
	}
	shape, err := ops.BroadcastShapes(count.Shape(), prob.Shape())
	if err != nil {
		return nil, fmt.Errorf("%s: count of shape %v and prob of shape %v do not broadcast", b.Name, count.Shape(), prob.Shape())
	}
	dt := tensor.ResultType(count.Meta(), prob.Meta())
	c := newChain(th)
	cs, ps := c.Expand(count, shape), c.Expand(prob, shape)
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	n, err := th.RT.Read(cs)
	if err != nil {
		return c.Abort(err)
	}
	p, err := th.RT.Read(ps)
	if err != nil {
		return c.Abort(err)
	}
	total := shape.Numel()
	for i := range total {
		if v := n.At(i); !(v >= 0) || v != math.Trunc(v) || v > 1<<53 {
			return c.Abort(fmt.Errorf("%s: every count must be a whole number >= 0, got %v", b.Name, v))
		}
		if v := p.At(i); !(v >= 0 && v <= 1) {
			return c.Abort(fmt.Errorf("%s: every prob must be in [0, 1], got %v", b.Name, v))
		}
	}
	out, err := newHost(th, b.Name, shape, dt)
	if err != nil {
		return c.Abort(err)
	}
	src := th.Rand()
	for i := range total {
		out.Set(i, sampleBinomial(src, n.At(i), p.At(i)))
	}
	c.Release()
	return hostResult(th, out), nil
}

// samplePoisson draws from Poisson(lam), lam finite and >= 0: by the
// product of uniforms below 10, else by Hörmann's transformed rejection
// with squeeze (PTRS, 1993), as numpy's and torch's samplers.
func samplePoisson(src *rng.Source, lam float64) float64 {
	if lam == 0 {
		return 0
	}
	if lam < 10 {
		limit, prod, k := math.Exp(-lam), 1.0, 0.0
		for {
			prod *= src.Float64()
			if prod <= limit {
				return k
			}
			k++
		}
	}
	slam, loglam := math.Sqrt(lam), math.Log(lam)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invalpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := src.Float64() - 0.5
		v := src.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lam + 0.43)
		if us >= 0.07 && v <= vr {
			return k
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invalpha)-math.Log(a/(us*us)+b) <= -lam+k*loglam-lg {
			return k
		}
	}
}

// sampleBinomial draws from Binomial(n, p), n a whole number >= 0 and p
// in [0, 1]: for p > 1/2 as n minus a draw of 1 - p; below a mean of 10
// by inversion (a sequential search of the distribution), else by
// Hörmann's BTRS (transformed rejection with squeeze, 1993), as torch.
func sampleBinomial(src *rng.Source, n, p float64) float64 {
	if n == 0 || p == 0 {
		return 0
	}
	if p == 1 {
		return n
	}
	if p > 0.5 {
		return n - sampleBinomial(src, n, 1-p)
	}
	q := 1 - p
	if n*p < 10 {
		s := p / q
		a := (n + 1) * s
		r := math.Pow(q, n)
		u := src.Float64()
		x := 0.0
		for u > r && x < n {
			u -= r
			x++
			r *= a/x - s
		}
		return x
	}
	spq := math.Sqrt(n * p * q)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := n*p + 0.5
	vr := 0.92 - 4.2/b
	alpha := (2.83 + 5.1/b) * spq
	lpq := math.Log(p / q)
	m := math.Floor((n + 1) * p)
	lm, _ := math.Lgamma(m + 1)
	lnm, _ := math.Lgamma(n - m + 1)
	h := lm + lnm
	for {
		u := src.Float64() - 0.5
		v := src.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + c)
		if k < 0 || k > n {
			continue
		}
		if us >= 0.07 && v <= vr {
			return k
		}
		v = math.Log(v * alpha / (a/(us*us) + b))
		lk, _ := math.Lgamma(k + 1)
		lnk, _ := math.Lgamma(n - k + 1)
		if v <= h-lk-lnk+(k-m)*lpq {
			return k
		}
	}
}
