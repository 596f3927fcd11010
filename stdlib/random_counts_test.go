package stdlib

import (
	"math"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// poisson and binomial are tested by their moments and, where they
// reject (PTRS, BTRS), by a chi-square test of the whole distribution,
// with fixed seeds and bounds of 6 standard errors (or the chi-square's
// mean plus 6 of its standard deviations).

// chiSquare is the chi-square statistic of the counts of values xs
// against pmf, over the bins whose expected count is at least 5 (the
// rest pooled into one), and its degrees of freedom.
func chiSquare(xs []float64, pmf func(k int) float64, hi int) (float64, int) {
	seen := map[int]int{}
	for _, x := range xs {
		seen[int(x)]++
	}
	n := float64(len(xs))
	stat, bins := 0.0, 0
	restObs, restExp := 0.0, 0.0
	for k := 0; k <= hi; k++ {
		e := n * pmf(k)
		if e < 5 {
			restObs += float64(seen[k])
			restExp += e
			continue
		}
		d := float64(seen[k]) - e
		stat += d * d / e
		bins++
	}
	if restExp >= 5 {
		d := restObs - restExp
		stat += d * d / restExp
		bins++
	}
	return stat, bins - 1
}

func checkChiSquare(t *testing.T, what string, xs []float64, pmf func(k int) float64, hi int) {
	t.Helper()
	stat, df := chiSquare(xs, pmf, hi)
	if limit := float64(df) + 6*math.Sqrt(2*float64(df)); stat > limit {
		t.Errorf("%s: chi-square %.1f over %d degrees of freedom (limit %.1f)", what, stat, df, limit)
	}
}

func logFactorial(k int) float64 {
	v, _ := math.Lgamma(float64(k) + 1)
	return v
}

func TestPoissonStatistics(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(21)})
	const n = 20000
	rates := []float64{0, 0.5, 3, 9.9, 10, 25, 1000}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := repeatRows(th, dt, n, rates...)
		got, gdt := draw(t, th, "poisson", x)
		eval.Release(th.RT, x)
		if gdt != dt {
			t.Fatalf("poisson of %v rates gives %v", dt, gdt)
		}
		for j, lam := range rates {
			col := column(got, len(rates), j)
			for _, v := range col {
				if v < 0 || v != math.Trunc(v) {
					t.Fatalf("rate %v: sample %v is not a count", lam, v)
				}
			}
			m, s := meanStd(col)
			if lam == 0 {
				if m != 0 {
					t.Errorf("rate 0: mean %v", m)
				}
				continue
			}
			if se := math.Sqrt(lam / n); math.Abs(m-lam) > 6*se {
				t.Errorf("%v: rate %v: mean %v", dt, lam, m)
			}
			if se := math.Sqrt((lam + 2*lam*lam) / n); math.Abs(s*s-lam) > 6*se {
				t.Errorf("%v: rate %v: variance %v", dt, lam, s*s)
			}
			if dt == tensor.Float64 && (lam == 3 || lam == 25 || lam == 10) {
				pmf := func(k int) float64 {
					return math.Exp(-lam + float64(k)*math.Log(lam) - logFactorial(k))
				}
				checkChiSquare(t, "poisson rate "+tensor.Float64.String(), col, pmf, int(lam*4+20))
			}
		}
	}
}

func TestBinomialStatistics(t *testing.T) {
	th := newTestThread(t)
	call(t, th, "seed", []eval.Value{eval.Int(22)})
	const n = 20000
	type pair struct{ count, p float64 }
	pairs := []pair{{0, 0.3}, {10, 0}, {10, 1}, {5, 0.5}, {20, 0.3}, {100, 0.05}, {100, 0.3}, {1000, 0.7}, {37, 0.9}}
	counts, probs := make([]float64, len(pairs)), make([]float64, len(pairs))
	for i, q := range pairs {
		counts[i], probs[i] = q.count, q.p
	}
	cs := repeatRows(th, tensor.Float32, n, counts...)
	ps := hostTensor(th, tensor.Float64, tensor.Shape{len(pairs)}, probs...) // broadcast over the rows
	got, dt := draw(t, th, "binomial", cs, ps)
	eval.Release(th.RT, cs)
	eval.Release(th.RT, ps)
	if dt != tensor.Float64 || len(got) != n*len(pairs) {
		t.Fatalf("binomial gives %d values of %v", len(got), dt)
	}
	for j, q := range pairs {
		col := column(got, len(pairs), j)
		for _, v := range col {
			if v < 0 || v > q.count || v != math.Trunc(v) {
				t.Fatalf("binomial(%v, %v): sample %v", q.count, q.p, v)
			}
		}
		m, s := meanStd(col)
		mean, pq := q.count*q.p, q.p*(1-q.p)
		v := q.count * pq
		if v == 0 {
			if m != mean || s != 0 {
				t.Errorf("binomial(%v, %v): mean %v std %v", q.count, q.p, m, s)
			}
			continue
		}
		if math.Abs(m-mean) > 6*math.Sqrt(v/n) {
			t.Errorf("binomial(%v, %v): mean %v, want %v", q.count, q.p, m, mean)
		}
		mu4 := v * (1 + 3*(q.count-2)*pq)
		if math.Abs(s*s-v) > 6*math.Sqrt((mu4-v*v)/n)+1e-9 {
			t.Errorf("binomial(%v, %v): variance %v, want %v", q.count, q.p, s*s, v)
		}
		if q.count >= 20 {
			nn := int(q.count)
			pmf := func(k int) float64 {
				if k > nn {
					return 0
				}
				return math.Exp(logFactorial(nn) - logFactorial(k) - logFactorial(nn-k) + float64(k)*math.Log(q.p) + float64(nn-k)*math.Log(1-q.p))
			}
			checkChiSquare(t, "binomial", col, pmf, nn)
		}
	}
}

func TestCountSamplersRefuse(t *testing.T) {
	th := newTestThread(t)
	for _, c := range []struct {
		name string
		args []eval.Value
		want string
	}{
		{"poisson", []eval.Value{hostTensor(th, tensor.Float32, tensor.Shape{2}, 1, -1)}, "invalid Poisson rate -1"},
		{"poisson", []eval.Value{hostTensor(th, tensor.Float32, tensor.Shape{1}, math.Inf(1))}, "invalid Poisson rate +Inf"},
		{"poisson", []eval.Value{hostTensor(th, tensor.Int64, tensor.Shape{1}, 1)}, "the rates must be floating point"},
		{"binomial", []eval.Value{hostTensor(th, tensor.Float32, tensor.Shape{1}, 2.5), hostTensor(th, tensor.Float32, tensor.Shape{1}, 0.5)}, "whole number >= 0, got 2.5"},
		{"binomial", []eval.Value{hostTensor(th, tensor.Float32, tensor.Shape{1}, 3), hostTensor(th, tensor.Float32, tensor.Shape{1}, 1.5)}, "in [0, 1], got 1.5"},
		{"binomial", []eval.Value{hostTensor(th, tensor.Float32, tensor.Shape{2}, 3, 3), hostTensor(th, tensor.Float32, tensor.Shape{3}, 0.5, 0.5, 0.5)}, "do not broadcast"},
	} {
		_, err := callErr(th, c.name, c.args)
		for _, a := range c.args {
			eval.Release(th.RT, a)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
