package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// RMSprop and Adagrad as optim.go's optimizers, with the arithmetic of
// torch.optim 1.13's single-tensor implementations in its order. State
// slots start as none (init) and are made at the first step from what
// torch's zeros (or Adagrad's initial accumulator) would give: 0·alpha +
// v is v, so the first step adds nothing to a zero. torch fuses its adds
// with alpha and its addcmul into one rounding (FMA) on CPU; tref
// multiplies and adds, which can differ in the last bit.

func init() {
	register("rmsprop", "rmsprop(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=false, maximize=false): torch.optim.RMSprop as {init, update(params, grads, state, lr=, momentum=)}; update's momentum= (a momentum schedule's) needs an rmsprop made with a momentum, whose state keeps the momentum_buffer", builtinRMSprop)
	register("adagrad", "adagrad(lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=false): torch.optim.Adagrad as {init, update}", builtinAdagrad)
}

func builtinRMSprop(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr, alpha, eps, wd, momentum := 1e-2, 0.99, 1e-8, 0.0, 0.0
	var centered, maximize bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr?", &lr, "alpha?", &alpha, "eps?", &eps, "weight_decay?", &wd, "momentum?", &momentum, "centered?", &centered, "maximize?", &maximize); err != nil {
		return nil, err
	}
	if !(lr >= 0 && alpha >= 0 && eps >= 0 && wd >= 0 && momentum >= 0) {
		return nil, fmt.Errorf("%s: invalid hyperparameters (lr %v, alpha %v, eps %v, weight_decay %v, momentum %v): none may be negative", b.Name, lr, alpha, eps, wd, momentum)
	}
	slots := []string{"square_avg"}
	bufAt, avgAt := -1, -1
	if momentum > 0 {
		bufAt, slots = len(slots), append(slots, "momentum_buffer")
	}
	if centered {
		avgAt, slots = len(slots), append(slots, "grad_avg")
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: slots, maximize: maximize, momentum: momentum, momentumKw: "momentum", step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, r rates) (*refs.Ref, []*refs.Ref) {
		lr := r.lr
		o.th.RT.Retain(g)
		if wd != 0 {
			// grad.add(param, alpha=weight_decay)
			n := o.addS(g, p, wd)
			o.free(g)
			g = n
		}
		out := make([]*refs.Ref, len(slots))
		// square_avg.mul_(alpha).addcmul_(grad, grad, value=1-alpha)
		ag := o.mulS(g, 1-alpha)
		sq := o.op(ops.Mul, ag, g)
		o.free(ag)
		if s[0] != nil {
			prev := o.mulS(s[0], alpha)
			n := o.op(ops.Add, prev, sq)
			o.free(prev, sq)
			sq = n
		}
		out[0] = sq
		var root *refs.Ref
		if centered {
			// grad_avg.mul_(alpha).add_(grad, alpha=1-alpha)
			ga := o.mulS(g, 1-alpha)
			if s[avgAt] != nil {
				prev := o.mulS(s[avgAt], alpha)
				n := o.op(ops.Add, prev, ga)
				o.free(prev, ga)
				ga = n
			}
			out[avgAt] = ga
			// square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
			neg := o.mulS(ga, -1)
			gg := o.op(ops.Mul, neg, ga)
			v := o.op(ops.Add, sq, gg)
			root = o.sqrt(v)
			o.free(neg, gg, v)
		} else {
			root = o.sqrt(sq)
		}
		// avg.add_(eps)
		e := o.scalar(eps, root)
		avg := o.op(ops.Add, root, e)
		o.free(root, e)
		var np *refs.Ref
		if bufAt >= 0 && r.momentum == 0 {
			// a momentum scheduled to 0 leaves the buffer as it is
			o.keep(s[bufAt])
			out[bufAt] = s[bufAt]
		}
		if r.momentum > 0 {
			// buf.mul_(momentum).addcdiv_(grad, avg); param.add_(buf, alpha=-lr)
			buf := o.op(ops.Div, g, avg)
			if s[bufAt] != nil {
				prev := o.mulS(s[bufAt], r.momentum)
				n := o.op(ops.Add, prev, buf)
				o.free(prev, buf)
				buf = n
			}
			out[bufAt] = buf
			np = o.addS(p, buf, -lr)
		} else {
			// param.addcdiv_(grad, avg, value=-lr): p + (-lr·grad)/avg
			lg := o.mulS(g, -lr)
			q := o.op(ops.Div, lg, avg)
			np = o.op(ops.Add, p, q)
			o.free(lg, q)
		}
		o.free(avg, g)
		return np, out
	}}), nil
}

func builtinAdagrad(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr, lrDecay, wd, initAcc, eps := 1e-2, 0.0, 0.0, 0.0, 1e-10
	var maximize bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr?", &lr, "lr_decay?", &lrDecay, "weight_decay?", &wd, "initial_accumulator_value?", &initAcc, "eps?", &eps, "maximize?", &maximize); err != nil {
		return nil, err
	}
	if !(lr >= 0 && lrDecay >= 0 && wd >= 0 && initAcc >= 0 && eps >= 0) {
		return nil, fmt.Errorf("%s: invalid hyperparameters (lr %v, lr_decay %v, weight_decay %v, initial_accumulator_value %v, eps %v): none may be negative", b.Name, lr, lrDecay, wd, initAcc, eps)
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"sum"}, maximize: maximize, step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, t int, r rates) (*refs.Ref, []*refs.Ref) {
		o.th.RT.Retain(g)
		if wd != 0 {
			n := o.addS(g, p, wd)
			o.free(g)
			g = n
		}
		clr := r.lr / (1 + float64(t-1)*lrDecay)
		// state_sum.addcmul_(grad, grad, value=1); the sum starts at
		// initial_accumulator_value.
		sum := o.op(ops.Mul, g, g)
		prev := s[0]
		if prev == nil && initAcc != 0 {
			prev = o.scalar(initAcc, g)
			defer o.free(prev)
		}
		if prev != nil {
			n := o.op(ops.Add, prev, sum)
			o.free(sum)
			sum = n
		}
		// std = state_sum.sqrt().add_(eps); param.addcdiv_(grad, std, value=-clr)
		root := o.sqrt(sum)
		e := o.scalar(eps, root)
		std := o.op(ops.Add, root, e)
		lg := o.mulS(g, -clr)
		q := o.op(ops.Div, lg, std)
		np := o.op(ops.Add, p, q)
		o.free(root, e, std, lg, q, g)
		return np, []*refs.Ref{sum}
	}}), nil
}
