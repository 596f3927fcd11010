package stdlib

import (
	"fmt"
	"math"
	"sort"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("multinomial", "multinomial(input, num_samples, replacement=false): indices drawn from the categorical distributions whose unnormalised weights are input's last dimension ([n] or [rows, n]: one row of num_samples int64 indices per distribution), as torch.multinomial; without replacement a category is drawn at most once; from the seeded stream of rand and randn", multinomialBuiltin)
}

func multinomialBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var k int
	replacement := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "num_samples", &k, "replacement?", &replacement); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(s) != 1 && len(s) != 2 {
		return nil, fmt.Errorf("%s: the weights must be 1-d or 2-d, got shape %v", b.Name, s)
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the weights must be floating point, got %s", b.Name, x.DType())
	}
	n := s[len(s)-1]
	switch {
	case k <= 0:
		return nil, fmt.Errorf("%s: num_samples must be positive, got %d", b.Name, k)
	case n == 0:
		return nil, fmt.Errorf("%s: there are no categories to draw from (shape %v)", b.Name, s)
	case !replacement && k > n:
		return nil, fmt.Errorf("%s: cannot draw %d samples from %d categories without replacement", b.Name, k, n)
	}
	rows := 1
	out := tensor.Shape{k}
	if len(s) == 2 {
		rows, out = s[0], tensor.Shape{s[0], k}
	}
	w, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	weights := make([]float64, n)
	row := func(r int) []float64 {
		for i := range weights {
			weights[i] = w.At(r*n + i)
		}
		return weights
	}
	for r := range rows {
		if err := checkWeights(row(r), replacement, k); err != nil {
			if rows > 1 {
				return nil, fmt.Errorf("%s: row %d: %v", b.Name, r, err)
			}
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
	}
	d, err := newHost(th, b.Name, out, tensor.Int64)
	if err != nil {
		return nil, err
	}
	idx := d.I64()
	for r := range rows {
		drawCategories(th.Rand(), row(r), replacement, idx[r*k:(r+1)*k])
	}
	return hostResult(th, d), nil
}

// checkWeights reports whether k categories can be drawn in proportion
// to weights.
func checkWeights(weights []float64, replacement bool, k int) error {
	total, nonzero := 0.0, 0
	for i, v := range weights {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("weight %d is %v: weights must be finite and not negative", i, v)
		}
		if v > 0 {
			nonzero++
		}
		total += v
	}
	if total <= 0 {
		return fmt.Errorf("the weights sum to 0")
	}
	if !replacement && nonzero < k {
		return fmt.Errorf("cannot draw %d samples without replacement from %d categories of nonzero weight", k, nonzero)
	}
	return nil
}

// drawCategories fills out with categories drawn in proportion to
// weights (checked by checkWeights; it may change them): independently
// with replacement, else each at most once, a drawn category's weight
// then set to 0.
func drawCategories(src *rng.Source, weights []float64, replacement bool, out []int64) {
	total := 0.0
	for _, v := range weights {
		total += v
	}
	if replacement {
		cdf := make([]float64, len(weights))
		c := 0.0
		for i, v := range weights {
			c += v
			cdf[i] = c
		}
		for j := range out {
			u := src.Float64() * c
			// The first category whose cumulative weight passes u: one of
			// weight 0 never does.
			out[j] = int64(min(sort.SearchFloat64s(cdf, math.Nextafter(u, math.Inf(1))), len(cdf)-1))
		}
		return
	}
	for j := range out {
		u := src.Float64() * total
		pick, c := -1, 0.0
		for i, v := range weights {
			if v == 0 {
				continue
			}
			pick = i
			if c += v; c > u {
				break
			}
		}
		out[j] = int64(pick)
		total -= weights[pick]
		weights[pick] = 0
		if total <= 0 { // rounding: recount what is left
			total = 0
			for _, v := range weights {
				total += v
			}
		}
	}
}
