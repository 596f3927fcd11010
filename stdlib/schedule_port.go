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
// CosineAnnealingWarmRestarts compute each rate directly, as here. The
// momentum OneCycleLR and CyclicLR also cycle (cycle_momentum=True, their
// default) is onecycle_momentum's and cyclic_momentum's, for update's
// momentum= or beta1=.
// A rate for which torch divides by zero (a degenerate phase or cycle) is
// an error, as torch's ZeroDivisionError.

func init() {
	register("multistep_lr", "multistep_lr(lr, step, milestones, gamma=0.1): lr·gamma^(the number of milestones m with 0 <= m <= step; a repeated one counts again), as torch.optim.lr_scheduler.MultiStepLR (in closed form, within rounding of its steps)", builtinMultiStepLR)
	register("exponential_lr", "exponential_lr(lr, step, gamma): lr·gamma^step, as ExponentialLR (in closed form: torch's steps multiply by gamma, within rounding of it)", builtinExponentialLR)
	register("linear_lr", "linear_lr(lr, step, start_factor=1/3, end_factor=1.0, total_iters=5): lr·(start_factor + (end_factor - start_factor)·min(step, total_iters)/total_iters), as LinearLR in closed form (total_iters <= 0: lr·start_factor throughout, as torch's steps give; start_factor 0, which torch 1.13 accepts but then divides by zero at its first step, is an error)", builtinLinearLR)
	register("polynomial_lr", "polynomial_lr(lr, step, total_iters=5, power=1.0): lr·(1 - min(step, total_iters)/total_iters)^power, as PolynomialLR in closed form (total_iters <= 0: lr throughout, as torch's steps give; a negative power is an error from step total_iters on, where torch divides by zero)", builtinPolynomialLR)
	register("onecycle_lr", "onecycle_lr(max_lr, step, total_steps, pct_start=0.3, anneal_strategy=\"cos\", div_factor=25, final_div_factor=1e4, three_phase=false): OneCycleLR's rate (its momentum: onecycle_momentum): from max_lr/div_factor up to max_lr over pct_start of total_steps, then down to max_lr/div_factor/final_div_factor (three_phase: back to max_lr/div_factor first, then down), cosine or linear; step may be at most total_steps; a step in a phase of length 0 is an error, where torch divides by zero", builtinOneCycleLR)
	register("cyclic_lr", "cyclic_lr(base_lr, max_lr, step, step_size_up=2000, step_size_down=none, mode=\"triangular\", gamma=1.0): CyclicLR's rate (its momentum: cyclic_momentum): up from base_lr to max_lr in step_size_up steps and back in step_size_down (none: step_size_up), the height halved each cycle (\"triangular2\") or scaled by gamma^step (\"exp_range\"); no custom scale_fn; a step_size_up of 0 is an error at the cycle starts, where torch divides by zero", builtinCyclicLR)
	register("onecycle_momentum", "onecycle_momentum(step, total_steps, pct_start=0.3, anneal_strategy=\"cos\", base_momentum=0.85, max_momentum=0.95, three_phase=false): the momentum OneCycleLR gives the optimizer at step (cycle_momentum=True): from max_momentum down to base_momentum while onecycle_lr rises, then back up (three_phase: back up while the rate falls to its start, then level at max_momentum); pass it as update's momentum= (sgd, rmsprop) or beta1= (adam, adamw, adamax, nadam, radam), as torch sets group[\"momentum\"] or group[\"betas\"][0]", builtinOneCycleMomentum)
	register("cyclic_momentum", "cyclic_momentum(step, base_momentum=0.8, max_momentum=0.9, step_size_up=2000, step_size_down=none, mode=\"triangular\", gamma=1.0): the momentum CyclicLR gives the optimizer at step (cycle_momentum=True): max_momentum less (max_momentum - base_momentum) times the share of its height cyclic_lr's rate has then (the same cycle, mode and gamma), so down while the rate goes up; pass it as update's momentum= (sgd, rmsprop) or beta1= (adam and its kin: torch 2 sets betas[0]; torch 1.13's CyclicLR takes only optimizers with a momentum)", builtinCyclicMomentum)
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

// oneCycle is OneCycleLR's cycle: its phases end at pct_start of
// total_steps (and at twice that, three_phase) and at total_steps; a
// quantity it schedules goes from one value to the next in each phase.
type oneCycle struct {
	name        string
	step, total int
	pct         float64
	anneal      string
	three       bool
}

func (c oneCycle) check() error {
	if err := stepAtLeast0(c.name, c.step); err != nil {
		return err
	}
	switch {
	case c.total <= 0:
		return fmt.Errorf("%s: expected a positive total_steps, got %d", c.name, c.total)
	case !(c.pct >= 0 && c.pct <= 1):
		return fmt.Errorf("%s: expected pct_start between 0 and 1, got %v", c.name, c.pct)
	case c.anneal != "cos" && c.anneal != "linear":
		return fmt.Errorf("%s: anneal_strategy must be \"cos\" or \"linear\", not %q", c.name, c.anneal)
	case c.step > c.total:
		return fmt.Errorf("%s: step %d is past total_steps %d", c.name, c.step, c.total)
	}
	return nil
}

// at is the value at c.step of a quantity that goes from vals[i] to
// vals[i+1] in phase i (three values, four for three_phase).
func (c oneCycle) at(vals ...float64) (eval.Value, error) {
	total := float64(c.total)
	ends := []float64{c.pct*total - 1, total - 1}
	if c.three {
		ends = []float64{c.pct*total - 1, 2*c.pct*total - 2, total - 1}
	}
	s, from := float64(c.step), 0.0
	for i, end := range ends {
		if s <= end || i == len(ends)-1 {
			frac, err := divided(c.name, s-from, end-from, fmt.Sprintf("phase %d of the cycle", i+1))
			if err != nil {
				return nil, err
			}
			start, stop := vals[i], vals[i+1]
			if c.anneal == "linear" {
				return eval.Float64((stop-start)*frac + start), nil
			}
			return eval.Float64(stop + (start-stop)/2*(math.Cos(math.Pi*frac)+1)), nil
		}
		from = end
	}
	panic("unreachable")
}

func builtinOneCycleLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var maxLR float64
	c := oneCycle{name: b.Name, pct: 0.3, anneal: "cos"}
	div, finalDiv := 25.0, 1e4
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "max_lr", &maxLR, "step", &c.step, "total_steps", &c.total, "pct_start?", &c.pct, "anneal_strategy?", &c.anneal, "div_factor?", &div, "final_div_factor?", &finalDiv, "three_phase?", &c.three); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	if div == 0 || finalDiv == 0 {
		return nil, fmt.Errorf("%s: div_factor and final_div_factor must not be 0 (torch divides by them), got %v and %v", b.Name, div, finalDiv)
	}
	initial := maxLR / div
	minLR := initial / finalDiv
	if c.three {
		return c.at(initial, maxLR, initial, minLR)
	}
	return c.at(initial, maxLR, minLR)
}

func builtinOneCycleMomentum(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	c := oneCycle{name: b.Name, pct: 0.3, anneal: "cos"}
	base, top := 0.85, 0.95
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "step", &c.step, "total_steps", &c.total, "pct_start?", &c.pct, "anneal_strategy?", &c.anneal, "base_momentum?", &base, "max_momentum?", &top, "three_phase?", &c.three); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.three {
		return c.at(top, base, top, top)
	}
	return c.at(top, base, top)
}

// cyclicHeight is the share of its height a CyclicLR quantity has at
// step: up from 0 to 1 in step_size_up steps, back in step_size_down,
// times the mode's scale (halved each cycle, or gamma^step).
func cyclicHeight(th *eval.Thread, name string, step int, up float64, downV eval.Value, mode string, gamma float64) (float64, error) {
	if err := stepAtLeast0(name, step); err != nil {
		return 0, err
	}
	down, set, err := optFloat(th, name, "step_size_down", downV)
	if err != nil {
		return 0, err
	}
	if !set {
		down = up
	}
	if !slices.Contains([]string{"triangular", "triangular2", "exp_range"}, mode) {
		return 0, fmt.Errorf("%s: mode must be \"triangular\", \"triangular2\" or \"exp_range\", not %q", name, mode)
	}
	ratio, err := divided(name, up, up+down, "the cycle (step_size_up + step_size_down)")
	if err != nil {
		return 0, err
	}
	e := float64(step)
	cycle := math.Floor(1 + e/(up+down))
	x := 1 + e/(up+down) - cycle
	var scale float64
	if x <= ratio {
		scale, err = divided(name, x, ratio, "the rise (step_size_up)")
	} else {
		scale, err = divided(name, x-1, ratio-1, "the fall (step_size_down)")
	}
	switch mode {
	case "triangular2":
		return scale * (1 / math.Pow(2, cycle-1)), err
	case "exp_range":
		return scale * math.Pow(gamma, e), err
	}
	return scale, err
}

func builtinCyclicLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var base, maxLR float64
	var step int
	up, gamma, mode := 2000.0, 1.0, "triangular"
	var downV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "base_lr", &base, "max_lr", &maxLR, "step", &step, "step_size_up?", &up, "step_size_down?", &downV, "mode?", &mode, "gamma?", &gamma); err != nil {
		return nil, err
	}
	h, err := cyclicHeight(th, b.Name, step, up, downV, mode, gamma)
	if err != nil {
		return nil, err
	}
	return eval.Float64(base + (maxLR-base)*h), nil
}

func builtinCyclicMomentum(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var step int
	base, top := 0.8, 0.9
	up, gamma, mode := 2000.0, 1.0, "triangular"
	var downV eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "step", &step, "base_momentum?", &base, "max_momentum?", &top, "step_size_up?", &up, "step_size_down?", &downV, "mode?", &mode, "gamma?", &gamma); err != nil {
		return nil, err
	}
	h, err := cyclicHeight(th, b.Name, step, up, downV, mode, gamma)
	if err != nil {
		return nil, err
	}
	return eval.Float64(top - (top-base)*h), nil
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
