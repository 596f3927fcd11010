package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
)

// torch.optim.lr_scheduler.ReduceLROnPlateau, the schedule that follows
// a metric rather than the step: as the optimizers, a record {init,
// step} whose state is a value the script passes along.

func init() {
	register("reduce_lr_on_plateau", "reduce_lr_on_plateau(mode=\"min\", factor=0.1, patience=10, threshold=1e-4, threshold_mode=\"rel\", cooldown=0, min_lr=0, eps=1e-8): torch.optim.lr_scheduler.ReduceLROnPlateau as {init(lr) -> state, step(state, metric) -> state}: state.lr is the rate for update's lr=; step multiplies it by factor (not below min_lr, and only by more than eps) once the metric has not improved on the best (by threshold, relative or absolute; lower for mode \"min\", higher for \"max\") for more than patience steps, then waits cooldown steps; the state also keeps torch's best, num_bad_epochs, cooldown_counter and last_epoch", plateauBuiltin)
}

// plateau is one ReduceLROnPlateau's settings.
type plateau struct {
	max, relative               bool
	factor, threshold, min, eps float64
	patience, cooldown          int
}

// plateauKeys are the state's fields.
var plateauKeys = []string{"lr", "best", "num_bad_epochs", "cooldown_counter", "last_epoch"}

func plateauBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	mode, thresholdMode := "min", "rel"
	p := plateau{factor: 0.1, patience: 10, threshold: 1e-4, eps: 1e-8}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "mode?", &mode, "factor?", &p.factor, "patience?", &p.patience, "threshold?", &p.threshold,
		"threshold_mode?", &thresholdMode, "cooldown?", &p.cooldown, "min_lr?", &p.min, "eps?", &p.eps); err != nil {
		return nil, err
	}
	switch {
	case p.factor >= 1 || math.IsNaN(p.factor):
		return nil, fmt.Errorf("%s: factor should be < 1.0, got %v", b.Name, p.factor)
	case mode != "min" && mode != "max":
		return nil, fmt.Errorf("%s: mode %q is unknown (\"min\" or \"max\")", b.Name, mode)
	case thresholdMode != "rel" && thresholdMode != "abs":
		return nil, fmt.Errorf("%s: threshold mode %q is unknown (\"rel\" or \"abs\")", b.Name, thresholdMode)
	}
	p.max, p.relative = mode == "max", thresholdMode == "rel"
	name := b.Name
	initFn := eval.NewBound(name+".init", func(th *eval.Thread, _, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var lr float64
		if err := eval.UnpackArgs(th, name+".init", args, kwargs, "lr", &lr); err != nil {
			return nil, err
		}
		best := math.Inf(1)
		if p.max {
			best = math.Inf(-1)
		}
		return plateauState{lr: lr, best: best}.record(), nil
	}, nil)
	stepFn := eval.NewBound(name+".step", func(th *eval.Thread, _, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var state eval.Value
		var metric float64
		if err := eval.UnpackArgs(th, name+".step", args, kwargs, "state", &state, "metric|metrics", &metric); err != nil {
			return nil, err
		}
		s, err := p.read(th, name+".step", state)
		if err != nil {
			return nil, err
		}
		return p.step(s, metric), nil
	}, nil)
	return eval.NewRecord([]string{"init", "step"}, []eval.Value{initFn, stepFn}), nil
}

// plateauState is the state's numbers.
type plateauState struct {
	lr, best                 float64
	bad, cooldown, lastEpoch int
}

// read reads the state record init or step made.
func (p plateau) read(th *eval.Thread, fname string, v eval.Value) (plateauState, error) {
	var s plateauState
	r, ok := v.(*eval.Record)
	bad := fmt.Errorf("%s: state must be the record init or step gave (%v), not %s", fname, plateauKeys, eval.Describe(v))
	if !ok {
		return s, bad
	}
	floats := []*float64{&s.lr, &s.best}
	ints := []*int{&s.bad, &s.cooldown, &s.lastEpoch}
	for i, k := range plateauKeys {
		f, ok := r.Get(k)
		if !ok {
			return s, bad
		}
		if i < 2 {
			if *floats[i], ok = th.AsFloat(f); !ok {
				return s, fmt.Errorf("%s: the state's %s must be a number, not %s", fname, k, eval.Describe(f))
			}
		} else if *ints[i-2], ok = th.AsInt(f); !ok {
			return s, fmt.Errorf("%s: the state's %s must be an int, not %s", fname, k, eval.Describe(f))
		}
	}
	return s, nil
}

// better is torch's is_better: a improves on best by the threshold.
func (p plateau) better(a, best float64) bool {
	switch {
	case !p.max && p.relative:
		return a < best*(1-p.threshold)
	case !p.max:
		return a < best-p.threshold
	case p.relative:
		return a > best*(p.threshold+1)
	}
	return a > best+p.threshold
}

// step is torch's ReduceLROnPlateau.step(metric) on state s.
func (p plateau) step(s plateauState, metric float64) eval.Value {
	s.lastEpoch++
	if p.better(metric, s.best) {
		s.best, s.bad = metric, 0
	} else {
		s.bad++
	}
	if s.cooldown > 0 {
		s.cooldown--
		s.bad = 0
	}
	if s.bad > p.patience {
		if lr := math.Max(s.lr*p.factor, p.min); s.lr-lr > p.eps {
			s.lr = lr
		}
		s.cooldown, s.bad = p.cooldown, 0
	}
	return s.record()
}

// record is the state as the script holds it (plateauKeys).
func (s plateauState) record() eval.Value {
	return eval.NewRecord(plateauKeys, []eval.Value{eval.Float64(s.lr), eval.Float64(s.best), eval.Int(s.bad), eval.Int(s.cooldown), eval.Int(s.lastEpoch)})
}
