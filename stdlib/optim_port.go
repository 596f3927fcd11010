package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD as optim.go's
// optimizers, with the arithmetic of torch.optim 1.13's single-tensor
// implementations (foreach=False) in its order, and its defaults and
// hyperparameter checks. As in optim_more.go, slots start as none and the
// first step makes them from what torch's zeros would give; torch fuses
// its adds with alpha and its addcmul into one rounding (FMA) on CPU,
// tref multiplies and adds, which can differ in the last bit. The numbers
// torch keeps as 0-d float32 tensors per parameter (nadam's mu_product,
// asgd's eta and mu) are float32 numbers of the state, rounded as torch
// rounds them. One step counter serves every leaf: torch counts per
// parameter, which differs only for a parameter whose gradient is none at
// some steps and not at others.

func init() {
	register("adadelta", "adadelta(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=false): torch.optim.Adadelta as {init, update}; the state's slots square_avg and acc_delta", builtinAdadelta)
	register("adamax", "adamax(lr=2e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0, maximize=false): torch.optim.Adamax as {init, update(params, grads, state, lr=, beta1=)}; the state's slots exp_avg and exp_inf", builtinAdamax)
	register("nadam", "nadam(lr=2e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0, momentum_decay=4e-3): torch.optim.NAdam as {init, update(params, grads, state, lr=, beta1=)}; the state {step, mu_product, exp_avg, exp_avg_sq}, mu_product the float32 product of the momentum coefficients as torch keeps it", builtinNAdam)
	register("radam", "radam(lr=1e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0): torch.optim.RAdam as {init, update(params, grads, state, lr=, beta1=)}: plain momentum steps until the variance rectification term is defined (rho_t > 5), then rectified adaptive ones; the state's slots exp_avg and exp_avg_sq", builtinRAdam)
	register("rprop", "rprop(lr=1e-2, etas=[0.5, 1.2], step_sizes=[1e-6, 50], maximize=false): torch.optim.Rprop as {init, update}; the state's slots prev and step_size. lr (and update's lr=) only sets the step sizes at the first update, as torch's", builtinRprop)
	register("asgd", "asgd(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=false): torch.optim.ASGD as {init, update}; the state {step, eta, mu, ax}: ax the average of the parameters (a tree like params, what to evaluate with), eta and mu float32 numbers as torch keeps them (eta is none until the first update takes lr, and each update's lr sets the next eta)", builtinASGD)
}

// numberPair reads an optional list of two numbers (betas, etas) into a
// and b, which keep their defaults when the list is nil.
func numberPair(th *eval.Thread, name, param string, l []eval.Value, a, b *float64) error {
	if l == nil {
		return nil
	}
	x, okx := th.AsFloat(l[0])
	y, oky := th.AsFloat(l[min(1, len(l)-1)])
	if len(l) != 2 || !okx || !oky {
		return fmt.Errorf("%s: %s must be a list of two numbers", name, param)
	}
	*a, *b = x, y
	return nil
}

// hyper is one hyperparameter check: ok false makes the error
// "name: invalid what v (torch requires want)".
type hyper struct {
	what string
	v    float64
	ok   bool
	want string
}

func checkHypers(name string, hs ...hyper) error {
	for _, h := range hs {
		if !h.ok {
			return fmt.Errorf("%s: invalid %s %v (torch requires %s)", name, h.what, h.v, h.want)
		}
	}
	return nil
}

// nonNegative checks the hyperparameters that torch requires to be at
// least 0 (NaN fails).
func nonNegative(what string, v float64) hyper {
	return hyper{what, v, v >= 0, "0 <= " + what}
}

// betaChecks are Adam's checks of its betas: each in [0, 1).
func betaChecks(b1, b2 float64) []hyper {
	return []hyper{{"betas[0]", b1, 0 <= b1 && b1 < 1, "0 <= betas[0] < 1"}, {"betas[1]", b2, 0 <= b2 && b2 < 1, "0 <= betas[1] < 1"}}
}

// f32 rounds to float32, as torch's 0-d float32 state tensors hold it.
func f32(v float64) float64 { return float64(float32(v)) }

// decayed is g + p·wd (torch's grad.add(param, alpha=weight_decay)), or
// g itself (a new reference either way).
func (a *arith) decayed(g, p *refs.Ref, wd float64) *refs.Ref {
	if wd == 0 {
		a.keep(g)
		return g
	}
	return a.addS(g, p, wd)
}

// ema is torch's prev.mul_(beta).add_(x, alpha=1-beta), with prev nil
// for zeros: prev·beta + x·(1 - beta).
func (a *arith) ema(prev, x *refs.Ref, beta float64) *refs.Ref {
	t := a.mulS(x, 1-beta)
	if prev == nil {
		return t
	}
	pb := a.mulS(prev, beta)
	defer a.free(pb, t)
	return a.op(ops.Add, pb, t)
}

// emaSq is torch's prev.mul_(beta).addcmul_(x, x, value=1-beta), with
// prev nil for zeros: prev·beta + ((1 - beta)·x)·x.
func (a *arith) emaSq(prev, x *refs.Ref, beta float64) *refs.Ref {
	t := a.mulS(x, 1-beta)
	sq := a.op(ops.Mul, t, x)
	a.free(t)
	if prev == nil {
		return sq
	}
	pb := a.mulS(prev, beta)
	defer a.free(pb, sq)
	return a.op(ops.Add, pb, sq)
}

// addcdiv is torch's p.addcdiv(x, y, value=v): p + (v·x)/y.
func (a *arith) addcdiv(p, x, y *refs.Ref, v float64) *refs.Ref {
	vx := a.mulS(x, v)
	q := a.op(ops.Div, vx, y)
	defer a.free(vx, q)
	return a.op(ops.Add, p, q)
}

// addScalar is x + v (v in x's dtype).
func (a *arith) addScalar(x *refs.Ref, v float64) *refs.Ref {
	s := a.scalar(v, x)
	if s == nil {
		return nil
	}
	defer a.free(s)
	return a.op(ops.Add, x, s)
}

// where is where(c, x, y) with x a number in y's dtype.
func (a *arith) where(c *refs.Ref, x float64, y *refs.Ref) *refs.Ref {
	s := a.scalar(x, y)
	if s == nil {
		return nil
	}
	defer a.free(s)
	return a.do(ops.Where, nil, c, s, y)
}

// cmpScalar is x op v for a comparison op, v in x's dtype.
func (a *arith) cmpScalar(op ops.Op, x *refs.Ref, v float64) *refs.Ref {
	s := a.scalar(v, x)
	if s == nil {
		return nil
	}
	defer a.free(s)
	return a.op(op, x, s)
}

func builtinAdadelta(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr, rho, eps, wd := 1.0, 0.9, 1e-6, 0.0
	var maximize bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr?", &lr, "rho?", &rho, "eps?", &eps, "weight_decay?", &wd, "maximize?", &maximize); err != nil {
		return nil, err
	}
	if err := checkHypers(b.Name, nonNegative("lr", lr), hyper{"rho", rho, 0 <= rho && rho <= 1, "0 <= rho <= 1"}, nonNegative("eps", eps), nonNegative("weight_decay", wd)); err != nil {
		return nil, err
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"square_avg", "acc_delta"}, maximize: maximize, step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, r rates) (*refs.Ref, []*refs.Ref) {
		lr := r.lr
		g = o.decayed(g, p, wd)
		sq := o.emaSq(s[0], g, rho)
		// std = square_avg.add(eps).sqrt_()
		se := o.addScalar(sq, eps)
		std := o.sqrt(se)
		// delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
		var ae *refs.Ref
		if s[1] == nil {
			ae = o.scalar(eps, g)
		} else {
			ae = o.addScalar(s[1], eps)
		}
		root := o.sqrt(ae)
		q := o.op(ops.Div, root, std)
		delta := o.op(ops.Mul, q, g)
		acc := o.emaSq(s[1], delta, rho)
		np := o.addS(p, delta, -lr)
		o.free(g, se, std, ae, root, q, delta)
		return np, []*refs.Ref{sq, acc}
	}}), nil
}

// adamBetas reads Adam's common hyperparameters lr, betas, eps and
// weight_decay (lr's default given) and checks them as torch does.
func adamBetas(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, lr float64, more ...any) (lr2, b1, b2, eps, wd float64, err error) {
	eps = 1e-8
	var betas []eval.Value
	pairs := append([]any{"lr?", &lr, "betas?", &betas, "eps?", &eps, "weight_decay?", &wd}, more...)
	if err = eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
		return
	}
	b1, b2 = 0.9, 0.999
	if err = numberPair(th, b.Name, "betas", betas, &b1, &b2); err != nil {
		return
	}
	hs := append([]hyper{nonNegative("lr", lr), nonNegative("eps", eps)}, betaChecks(b1, b2)...)
	err = checkHypers(b.Name, append(hs, nonNegative("weight_decay", wd))...)
	return lr, b1, b2, eps, wd, err
}

func builtinAdamax(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var maximize bool
	lr, b1, b2, eps, wd, err := adamBetas(th, b, args, kwargs, 2e-3, "maximize?", &maximize)
	if err != nil {
		return nil, err
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"exp_avg", "exp_inf"}, maximize: maximize, momentum: b1, momentumKw: "beta1", step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, t int, r rates) (*refs.Ref, []*refs.Ref) {
		lr, b1 := r.lr, r.momentum
		g = o.decayed(g, p, wd)
		m := o.ema(s[0], g, b1)
		// exp_inf = amax([exp_inf·beta2, |grad| + eps]); zeros·beta2 are
		// below |grad| + eps (or NaN with it)
		ag := o.do(ops.Abs, nil, g)
		u := o.addScalar(ag, eps)
		if s[1] != nil {
			ub := o.mulS(s[1], b2)
			n := o.op(ops.Maximum, ub, u)
			o.free(ub, u)
			u = n
		}
		np := o.addcdiv(p, m, u, -(lr / (1 - math.Pow(b1, float64(t)))))
		o.free(g, ag)
		return np, []*refs.Ref{m, u}
	}}), nil
}

func builtinNAdam(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	md := 4e-3
	lr, b1, b2, eps, wd, err := adamBetas(th, b, args, kwargs, 2e-3, "momentum_decay?", &md)
	if err == nil {
		err = checkHypers(b.Name, nonNegative("momentum_decay", md))
	}
	if err != nil {
		return nil, err
	}
	// mu_product is a float32 tensor in torch, and its products are
	// float32 products with the coefficients rounded to float32.
	begin := func(t int, r rates, cur []float64) (stepRule, []eval.Value) {
		lr, b1 := r.lr, r.momentum
		step := float64(t)
		mu := b1 * (1 - 0.5*math.Pow(0.96, step*md))
		muNext := b1 * (1 - 0.5*math.Pow(0.96, (step+1)*md))
		prod := float32(cur[0]) * float32(mu)
		prodNext := float64(prod * float32(mu) * float32(muNext))
		bc2 := 1 - math.Pow(b2, step)
		return func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, _ rates) (*refs.Ref, []*refs.Ref) {
			g = o.decayed(g, p, wd)
			m := o.ema(s[0], g, b1)
			v := o.emaSq(s[1], g, b2)
			// denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
			bc := o.scalar(bc2, v)
			vb := o.op(ops.Div, v, bc)
			root := o.sqrt(vb)
			denom := o.addScalar(root, eps)
			p1 := o.addcdiv(p, g, denom, -lr*(1-mu)/(1-float64(prod)))
			np := o.addcdiv(p1, m, denom, -lr*muNext/(1-prodNext))
			o.free(g, bc, vb, root, denom, p1)
			return np, []*refs.Ref{m, v}
		}, []eval.Value{eval.Float32(prod)}
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"exp_avg", "exp_avg_sq"}, shared: []string{"mu_product"}, first: []eval.Value{eval.Float32(1)}, begin: begin, momentum: b1, momentumKw: "beta1"}), nil
}

func builtinRAdam(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr, b1, b2, eps, wd, err := adamBetas(th, b, args, kwargs, 1e-3)
	if err != nil {
		return nil, err
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"exp_avg", "exp_avg_sq"}, momentum: b1, momentumKw: "beta1", step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, t int, r rates) (*refs.Ref, []*refs.Ref) {
		lr, b1 := r.lr, r.momentum
		step := float64(t)
		bc1 := 1 - math.Pow(b1, step)
		bc2 := 1 - math.Pow(b2, step)
		g = o.decayed(g, p, wd)
		m := o.ema(s[0], g, b1)
		v := o.emaSq(s[1], g, b2)
		o.free(g)
		// bias_corrected_exp_avg = exp_avg / bias_correction1
		bc := o.scalar(bc1, m)
		mhat := o.op(ops.Div, m, bc)
		upd := o.mulS(mhat, lr)
		o.free(bc, mhat)
		rhoInf := 2/(1-b2) - 1
		rhoT := rhoInf - 2*step*math.Pow(b2, step)/bc2
		if rhoT > 5 {
			rect := math.Sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT))
			// adaptive_lr = math.sqrt(bc2) / (exp_avg_sq.sqrt() + eps): a
			// number over a tensor is its reciprocal times the number
			root := o.sqrt(v)
			den := o.addScalar(root, eps)
			rec := o.do(ops.Reciprocal, nil, den)
			adaptive := o.mulS(rec, math.Sqrt(bc2))
			ua := o.op(ops.Mul, upd, adaptive)
			o.free(upd, root, den, rec, adaptive)
			upd = o.mulS(ua, rect)
			o.free(ua)
		}
		np := o.op(ops.Sub, p, upd)
		o.free(upd)
		return np, []*refs.Ref{m, v}
	}}), nil
}

func builtinRprop(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr := 1e-2
	var etas, sizes []eval.Value
	var maximize bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr?", &lr, "etas?", &etas, "step_sizes?", &sizes, "maximize?", &maximize); err != nil {
		return nil, err
	}
	etaMinus, etaPlus, minStep, maxStep := 0.5, 1.2, 1e-6, 50.0
	if err := numberPair(th, b.Name, "etas", etas, &etaMinus, &etaPlus); err != nil {
		return nil, err
	}
	if err := numberPair(th, b.Name, "step_sizes", sizes, &minStep, &maxStep); err != nil {
		return nil, err
	}
	if err := checkHypers(b.Name, nonNegative("lr", lr), hyper{"etas[0]", etaMinus, 0 < etaMinus && etaMinus < 1, "0 < etas[0] < 1 < etas[1]"}, hyper{"etas[1]", etaPlus, etaPlus > 1, "0 < etas[0] < 1 < etas[1]"}); err != nil {
		return nil, err
	}
	clamp := ops.ClampAttrs{Min: minStep, Max: maxStep, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"prev", "step_size"}, maximize: maximize, step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, r rates) (*refs.Ref, []*refs.Ref) {
		lr := r.lr
		// sign = grad.mul(prev).sign(), prev zeros at first; then
		// etaplus where positive, etaminus where negative, 1 where 0
		var gp *refs.Ref
		if s[0] == nil {
			gp = o.mulS(g, 0)
		} else {
			gp = o.op(ops.Mul, g, s[0])
		}
		sign := o.do(ops.Sign, nil, gp)
		pos := o.cmpScalar(ops.Gt, sign, 0)
		neg := o.cmpScalar(ops.Lt, sign, 0)
		zero := o.cmpScalar(ops.Eq, sign, 0)
		f1 := o.where(zero, 1, sign)
		f2 := o.where(neg, etaMinus, f1)
		f := o.where(pos, etaPlus, f2)
		o.free(gp, sign, pos, neg, zero, f1, f2)
		// step_size.mul_(sign).clamp_(min, max); it starts filled with lr
		var grown *refs.Ref
		if s[1] == nil {
			grown = o.mulS(f, lr)
		} else {
			grown = o.op(ops.Mul, s[1], f)
		}
		size := o.do(ops.Clamp, clamp, grown)
		// grad[sign == etaminus] = 0; param.addcmul_(grad.sign(), step_size, value=-1)
		back := o.cmpScalar(ops.Eq, f, etaMinus)
		kept := o.where(back, 0, g)
		dir := o.do(ops.Sign, nil, kept)
		move := o.op(ops.Mul, dir, size)
		np := o.op(ops.Sub, p, move)
		o.free(f, grown, back, dir, move)
		return np, []*refs.Ref{kept, size}
	}}), nil
}

func builtinASGD(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	lr, lambd, alpha, t0, wd := 1e-2, 1e-4, 0.75, 1e6, 0.0
	var maximize bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "lr?", &lr, "lambd?", &lambd, "alpha?", &alpha, "t0?", &t0, "weight_decay?", &wd, "maximize?", &maximize); err != nil {
		return nil, err
	}
	if err := checkHypers(b.Name, nonNegative("lr", lr), nonNegative("weight_decay", wd)); err != nil {
		return nil, err
	}
	// eta and mu are float32 tensors in torch: eta starts as the lr of
	// the first step, each step sets the next from its own lr.
	begin := func(t int, r rates, cur []float64) (stepRule, []eval.Value) {
		lr := r.lr
		eta, mu := cur[0], cur[1]
		if t == 1 {
			eta = f32(lr)
		}
		step := float64(t)
		next := []eval.Value{eval.Float32(lr / math.Pow(1+lambd*lr*step, alpha)), eval.Float32(1 / math.Max(1, step-t0))}
		return func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, _ rates) (*refs.Ref, []*refs.Ref) {
			g = o.decayed(g, p, wd)
			// param.mul_(1 - lambd·eta); param.add_(grad, alpha=-eta)
			pd := o.mulS(p, 1-lambd*eta)
			np := o.addS(pd, g, -eta)
			o.free(g, pd)
			// ax.add_(param.sub(ax).mul(mu)), or ax.copy_(param) while mu is 1
			var ax *refs.Ref
			if mu == 1 || s[0] == nil {
				ax = np
				o.keep(ax)
			} else {
				d := o.op(ops.Sub, np, s[0])
				dm := o.mulS(d, mu)
				ax = o.op(ops.Add, s[0], dm)
				o.free(d, dm)
			}
			return np, []*refs.Ref{ax}
		}, next
	}
	return newOptimizer(optimizer{name: b.Name, lr: lr, slots: []string{"ax"}, maximize: maximize, shared: []string{"eta", "mu"}, first: []eval.Value{eval.None, eval.Float32(1)}, begin: begin}), nil
}
