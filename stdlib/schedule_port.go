package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
)

// More of torch.optim.lr_scheduler (torch 1.13) as schedule.go's pure
// functions of the step: the rate torch's scheduler gives the optimizer
// after step calls to scheduler.step() (step 0: the rate right after it
// is made). Where torch updates the rate by a factor at each step (its
// chainable form), the closed form here differs from it by rounding only
// (within 1e-12 relative); OneCycleLR, CyclicLR and
// CosineAnnealingWarmRestarts compute each rate directly, as here. Only
// the rate: the momentum OneCycleLR and CyclicLR also cycle is not given.
// A rate for which torch divides by zero (a degenerate phase or cycle) is
// an error, as torch's ZeroDivisionError.

func init() {
	register("multistep_lr", "multistep_lr(lr, step, milestones, gamma=0.1): lr·gamma^(the number of milestones m with 0 <= m <= step; a repeated one counts again), as torch.optim.lr_scheduler.MultiStepLR (in closed form, within rounding of its steps)", builtinMultiStepLR)
	register("exponential_lr", "exponential_lr(lr, step, gamma): lr·gamma^step, as ExponentialLR (in closed form: torch's steps multiply by gamma, within rounding of it)", builtinExponentialLR)
	register("linear_lr", "linear_lr(lr, step, start_factor=1/3, end_factor=1.0, total_iters=5): lr·(start_factor + (end_factor - start_factor)·min(step, total_iters)/total_iters), as LinearLR in closed form (total_iters <= 0: lr·start_factor throughout, as torch's steps give; start_factor 0, which torch 1.13 accepts but then divides by zero at its first step, is an error)", builtinLinearLR)
	register("polynomial_lr", "polynomial_lr(lr, step, total_iters=5, power=1.0): lr·(1 - min(step, total_iters)/total_iters)^power, as PolynomialLR in closed form (total_iters <= 0: lr throughout, as torch's steps give; a negative power is an error from step total_iters on, where torch divides by zero)", builtinPolynomialLR)
	register("onecycle_lr", "onecycle_lr(max_lr, step, total_steps, pct_start=0.3, anneal_strategy=\"cos\", div_factor=25, final_div_factor=1e4, three_phase=false): OneCycleLR's rate (not its momentum): from max_lr/div_factor up to max_lr over pct_start of total_steps, then down to max_lr/div_factor/final_div_factor (three_phase: back to max_lr/div_factor first, then down), cosine or linear; step may be at most total_steps; a step in a phase of length 0 is an error, where torch divides by zero", builtinOneCycleLR)
	register("cyclic_lr", "cyclic_lr(base_lr, max_lr, step, step_size_up=2000, step_size_down=none, mode=\"triangular\", gamma=1.0): CyclicLR's rate (not its momentum): up from base_lr to max_lr in step_size_up steps and back in step_size_down (none: step_size_up), the height halved each cycle (\"triangular2\") or scaled by gamma^step (\"exp_range\"); no custom scale_fn; a step_size_up of 0 is an error at the cycle starts, where torch divides by zero", builtinCyclicLR)
	register("cosine_warm_restarts_lr", "cosine_warm_restarts_lr(lr, step, T_0, T_mult=1, eta_min=0): CosineAnnealingWarmRestarts: eta_min + (lr - eta_min)(1 + cos(π·T_cur/T_i))/2, T_cur the steps since the last restart, T_i the current period (T_0, then times T_mult at each restart)", builtinCosineWarmRestartsLR)
}

// stepAtLeast0 is the error of a negative step.
func stepAtLeast0(name string, step int) error {
	if step < 0 {
		return fmt.Errorf("%s: step must be at least 0, got %d", name, step)
	}
	return nil
}

func builtinMultiStepLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr float64
	var step int
	var milestones []int
	gamma := 0.1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "milestones", &milestones, "gamma?", &gamma); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	// torch multiplies by gamma^count at each milestone it steps on,
	// step 0 included (never on a negative one)
	n := 0
	for _, m := range milestones {
		if m >= 0 && m <= step {
			n++
		}
	}
	return eval.Float64(lr * math.Pow(gamma, float64(n))), nil
}

func builtinExponentialLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr, gamma float64
	var step int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "gamma", &gamma); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	return eval.Float64(lr * math.Pow(gamma, float64(step))), nil
}

func builtinLinearLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr float64
	var step int
	start, end, total := 1.0/3, 1.0, 5
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "start_factor?", &start, "end_factor?", &end, "total_iters?", &total); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	if !(start > 0 && start <= 1) || !(end >= 0 && end <= 1) {
		return nil, fmt.Errorf("%s: start_factor must be in (0, 1] and end_factor in [0, 1], got %v and %v", b.Name, start, end)
	}
	if total <= 0 {
		return eval.Float64(lr * start), nil
	}
	return eval.Float64(lr * (start + (end-start)*float64(min(total, step))/float64(total))), nil
}

func builtinPolynomialLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr float64
	var step int
	total, power := 5, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "total_iters?", &total, "power?", &power); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	if total <= 0 {
		return eval.Float64(lr), nil
	}
	if step >= total && power < 0 {
		return nil, fmt.Errorf("%s: the rate at step %d is 0 to the power %v (torch divides by zero)", b.Name, step, power)
	}
	return eval.Float64(lr * math.Pow(1-float64(min(total, step))/float64(total), power)), nil
}

// divided is a/b, or an error naming what was zero where Python would
// raise ZeroDivisionError.
func divided(name string, a, b float64, what string) (float64, error) {
	if b == 0 {
		return 0, fmt.Errorf("%s: %s has length 0 (torch divides by zero)", name, what)
	}
	return a / b, nil
}

func builtinOneCycleLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var maxLR float64
	var step, total int
	pct, anneal, div, finalDiv := 0.3, "cos", 25.0, 1e4
	var three bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "max_lr", &maxLR, "step", &step, "total_steps", &total, "pct_start?", &pct, "anneal_strategy?", &anneal, "div_factor?", &div, "final_div_factor?", &finalDiv, "three_phase?", &three); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	switch {
	case total <= 0:
		return nil, fmt.Errorf("%s: expected a positive total_steps, got %d", b.Name, total)
	case !(pct >= 0 && pct <= 1):
		return nil, fmt.Errorf("%s: expected pct_start between 0 and 1, got %v", b.Name, pct)
	case anneal != "cos" && anneal != "linear":
		return nil, fmt.Errorf("%s: anneal_strategy must be \"cos\" or \"linear\", not %q", b.Name, anneal)
	case div == 0 || finalDiv == 0:
		return nil, fmt.Errorf("%s: div_factor and final_div_factor must not be 0 (torch divides by them), got %v and %v", b.Name, div, finalDiv)
	case step > total:
		return nil, fmt.Errorf("%s: step %d is past total_steps %d", b.Name, step, total)
	}
	initial := maxLR / div
	minLR := initial / finalDiv
	type phase struct{ end, from, to float64 }
	phases := []phase{{pct*float64(total) - 1, initial, maxLR}, {float64(total) - 1, maxLR, minLR}}
	if three {
		phases = []phase{{pct*float64(total) - 1, initial, maxLR}, {2*pct*float64(total) - 2, maxLR, initial}, {float64(total) - 1, initial, minLR}}
	}
	s, from := float64(step), 0.0
	for i, ph := range phases {
		if s <= ph.end || i == len(phases)-1 {
			frac, err := divided(b.Name, s-from, ph.end-from, fmt.Sprintf("phase %d of the cycle", i+1))
			if err != nil {
				return nil, err
			}
			if anneal == "linear" {
				return eval.Float64((ph.to-ph.from)*frac + ph.from), nil
			}
			return eval.Float64(ph.to + (ph.from-ph.to)/2*(math.Cos(math.Pi*frac)+1)), nil
		}
		from = ph.end
	}
	panic("unreachable")
}

func builtinCyclicLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var base, maxLR float64
	var step int
	up, gamma, mode := 2000.0, 1.0, "triangular"
	var downV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "base_lr", &base, "max_lr", &maxLR, "step", &step, "step_size_up?", &up, "step_size_down?", &downV, "mode?", &mode, "gamma?", &gamma); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	down, set, err := optFloat(th, b.Name, "step_size_down", downV)
	if err != nil {
		return nil, err
	}
	if !set {
		down = up
	}
	if !slices.Contains([]string{"triangular", "triangular2", "exp_range"}, mode) {
		return nil, fmt.Errorf("%s: mode must be \"triangular\", \"triangular2\" or \"exp_range\", not %q", b.Name, mode)
	}
	ratio, err := divided(b.Name, up, up+down, "the cycle (step_size_up + step_size_down)")
	if err != nil {
		return nil, err
	}
	e := float64(step)
	cycle := math.Floor(1 + e/(up+down))
	x := 1 + e/(up+down) - cycle
	var scale float64
	if x <= ratio {
		scale, err = divided(b.Name, x, ratio, "the rise (step_size_up)")
	} else {
		scale, err = divided(b.Name, x-1, ratio-1, "the fall (step_size_down)")
	}
	if err != nil {
		return nil, err
	}
	height := (maxLR - base) * scale
	switch mode {
	case "triangular2":
		return eval.Float64(base + height*(1/math.Pow(2, cycle-1))), nil
	case "exp_range":
		return eval.Float64(base + height*math.Pow(gamma, e)), nil
	}
	return eval.Float64(base + height*1), nil
}

func builtinCosineWarmRestartsLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr, etaMin float64
	var step, t0 int
	mult := 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "T_0", &t0, "T_mult?", &mult, "eta_min?", &etaMin); err != nil {
		return nil, err
	}
	if err := stepAtLeast0(b.Name, step); err != nil {
		return nil, err
	}
	if t0 <= 0 || mult < 1 {
		return nil, fmt.Errorf("%s: expected a positive T_0 and T_mult >= 1, got %d and %d", b.Name, t0, mult)
	}
	// torch's steps: T_cur counts up, and on reaching T_i goes back by
	// T_i while T_i grows T_mult times
	cur, period := step, t0
	if mult == 1 {
		cur %= t0
	}
	for cur >= period {
		cur -= period
		if period > math.MaxInt/mult { // the next period is past any step
			return eval.Float64(etaMin + (lr-etaMin)*(1+math.Cos(math.Pi*float64(cur)/(float64(period)*float64(mult))))/2), nil
		}
		period *= mult
	}
	return eval.Float64(etaMin + (lr-etaMin)*(1+math.Cos(math.Pi*float64(cur)/float64(period)))/2), nil
}
