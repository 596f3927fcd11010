package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
)

// Learning-rate schedules: the rate of a step, in closed form as torch's
// schedulers compute it when stepped once per step; pass it to an
// optimizer's update(..., lr=).

func init() {
	register("step_lr", "step_lr(lr, step, step_size, gamma=0.1): lr·gamma^(step // step_size), as torch.optim.lr_scheduler.StepLR", builtinStepLR)
	register("cosine_lr", "cosine_lr(lr, step, total, min_lr=0): min_lr + (lr - min_lr)(1 + cos(π·step/total))/2, as CosineAnnealingLR with T_max=total", builtinCosineLR)
	register("warmup_lr", "warmup_lr(lr, step, warmup, start_factor=1/3): lr·(start_factor + (1 - start_factor)·min(step, warmup)/warmup), as LinearLR's linear warm-up", builtinWarmupLR)
}

func builtinStepLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr float64
	var step, size int
	gamma := 0.1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "step_size", &size, "gamma?", &gamma); err != nil {
		return nil, err
	}
	if step < 0 || size < 1 {
		return nil, fmt.Errorf("step_lr: step must be at least 0 and step_size at least 1, got %d and %d", step, size)
	}
	return eval.Float64(lr * math.Pow(gamma, float64(step/size))), nil
}

func builtinCosineLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr, minLR float64
	var step, total int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "total", &total, "min_lr?", &minLR); err != nil {
		return nil, err
	}
	if step < 0 || total < 1 {
		return nil, fmt.Errorf("cosine_lr: step must be at least 0 and total at least 1, got %d and %d", step, total)
	}
	return eval.Float64(minLR + (lr-minLR)*(1+math.Cos(math.Pi*float64(step)/float64(total)))/2), nil
}

func builtinWarmupLR(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr float64
	var step, warmup int
	start := 1.0 / 3
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr", &lr, "step", &step, "warmup", &warmup, "start_factor?", &start); err != nil {
		return nil, err
	}
	if step < 0 || warmup < 1 || start <= 0 || start > 1 {
		return nil, fmt.Errorf("warmup_lr: step must be at least 0, warmup at least 1 and start_factor in (0, 1], got %d, %d and %v", step, warmup, start)
	}
	return eval.Float64(lr * (start + (1-start)*float64(min(step, warmup))/float64(warmup))), nil
}
