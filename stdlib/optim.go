package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Optimizers with torch.optim's arithmetic (torch 1.13, one tensor at a
// time): each is a record {init, update}; init(params) gives the state
// and update(params, grads, state) gives {params, state}. Parameters are
// trees of tensors (records and lists); leaves whose gradient is none are
// kept as they are. tree_map applies a function leaf by leaf.

func init() {
	register("sgd", "sgd(lr, momentum=0, dampening=0, weight_decay=0, nesterov=false, maximize=false): torch.optim.SGD as {init(params), update(params, grads, state, lr=, momentum=) -> {params, state}}; update's momentum= (a momentum schedule's) needs an sgd made with a momentum, whose state keeps the momentum_buffer", builtinSGD)
	register("adam", "adam(lr=1e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0, amsgrad=false, maximize=false): torch.optim.Adam as {init, update(params, grads, state, lr=, beta1=)}; amsgrad keeps the state's max_exp_avg_sq", builtinAdam(false))
	register("adamw", "adamw(lr=1e-3, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.01, amsgrad=false, maximize=false): torch.optim.AdamW as {init, update(params, grads, state, lr=, beta1=)}; amsgrad keeps the state's max_exp_avg_sq", builtinAdam(true))
	register("tree_map", "tree_map(f, tree, ...): f applied to the leaves at each position of trees of one structure (lists and records)", builtinTreeMap)
	register("tree_flatten", "tree_flatten(tree): a flat record of the tree's leaves keyed by their paths (\"w.b[2]\"), none leaves left out: what save writes", builtinTreeFlatten)
	register("tree_unflatten", "tree_unflatten(flat, like): a tree shaped like like whose leaves are flat's values at their paths (like's leaf where flat has none): what load read back", builtinTreeUnflatten)
}

// optimizer is one update rule over a parameter's leaf: p, its gradient
// and its state slots (borrowed refs, nil before the first step), the
// step number t from 1 and the update's rates; it returns the new
// parameter and slots (owned; nil for a slot still none).
type optimizer struct {
	name  string
	lr    float64 // the default; update's lr= overrides it (schedules)
	slots []string
	step  stepRule
	// momentum is the default of the rate update's momentumKw= overrides:
	// "momentum" (sgd, rmsprop) or "beta1" (the adam family), what torch's
	// OneCycleLR and CyclicLR set in group["momentum"] or group["betas"][0]
	// at each step (onecycle_momentum, cyclic_momentum); "" for none.
	momentum   float64
	momentumKw string
	// maximize negates each gradient first (torch's maximize=True).
	maximize bool
	// shared names numbers of the state, after step, that every leaf's
	// rule reads: torch keeps them as equal 0-d tensors per parameter
	// (asgd's eta). init gives them the values in first (none: set by
	// the first update); begin, given their values (NaN for none), the
	// step number and lr, gives the rule of this update and their next
	// values.
	shared []string
	first  []eval.Value
	begin  func(t int, r rates, cur []float64) (stepRule, []eval.Value)
}

// rates are an update's learning rate and momentum (see optimizer's
// momentum): the optimizer's own unless update's arguments override them.
type rates struct{ lr, momentum float64 }

// stepRule is an optimizer's update of one leaf (see optimizer).
type stepRule func(o *arith, p, g *refs.Ref, slots []*refs.Ref, t int, r rates) (*refs.Ref, []*refs.Ref)

// arith submits the elementwise ops of an update, keeping the first error.
type arith struct {
	th  *eval.Thread
	err error
}

func (a *arith) op(op ops.Op, x, y *refs.Ref) *refs.Ref { return a.do(op, nil, x, y) }

func (a *arith) sqrt(x *refs.Ref) *refs.Ref { return a.do(ops.Sqrt, nil, x) }

// do submits op on xs (nil when one is: an earlier op failed).
func (a *arith) do(op ops.Op, attrs any, xs ...*refs.Ref) *refs.Ref {
	if a.err != nil || slices.Contains(xs, nil) {
		return nil
	}
	r, err := a.th.RT.Submit(a.th.Site(), op, attrs, xs...)
	if err != nil {
		a.err = err
		return nil
	}
	return r
}

// scalar is a 0-d constant of x's dtype (a Python number in torch: it
// never promotes the tensor; nil when x is).
func (a *arith) scalar(v float64, x *refs.Ref) *refs.Ref {
	if x == nil {
		return nil
	}
	return a.th.RT.Constant(a.th.Site(), ops.FloatScalar(v, x.DType()))
}

// mulS is x·v; addS x + y·v (torch's add with alpha).
func (a *arith) mulS(x *refs.Ref, v float64) *refs.Ref {
	s := a.scalar(v, x)
	if s == nil {
		return nil
	}
	defer a.th.RT.Release(s)
	return a.op(ops.Mul, x, s)
}

func (a *arith) addS(x, y *refs.Ref, v float64) *refs.Ref {
	t := a.mulS(y, v)
	if t == nil {
		return nil
	}
	defer a.th.RT.Release(t)
	return a.op(ops.Add, x, t)
}

// keep adds a reference to r, a result of the ops above: nil (an op
// failed) stays nil.
func (a *arith) keep(r *refs.Ref) {
	if r != nil {
		a.th.RT.Retain(r)
	}
}

// free releases temporaries.
func (a *arith) free(rs ...*refs.Ref) {
	for _, r := range rs {
		if r != nil {
			a.th.RT.Release(r)
		}
	}
}

func builtinSGD(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lr, momentum, dampening, wd float64
	var nesterov, maximize bool
	if err := eval.UnpackArgs(th, "sgd", args, kwargs, "lr", &lr, "momentum?", &momentum, "dampening?", &dampening, "weight_decay?", &wd, "nesterov?", &nesterov, "maximize?", &maximize); err != nil {
		return nil, err
	}
	if lr < 0 || momentum < 0 || wd < 0 {
		return nil, fmt.Errorf("sgd: lr, momentum and weight_decay must be non-negative (got %v, %v, %v)", lr, momentum, wd)
	}
	if nesterov && (momentum <= 0 || dampening != 0) {
		return nil, fmt.Errorf("sgd: nesterov momentum requires a momentum and zero dampening")
	}
	var slots []string
	if momentum != 0 {
		slots = []string{"momentum_buffer"}
	}
	return newOptimizer(optimizer{name: "sgd", lr: lr, slots: slots, maximize: maximize, momentum: momentum, momentumKw: "momentum", step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, _ int, r rates) (*refs.Ref, []*refs.Ref) {
		d := g
		o.th.RT.Retain(d)
		if wd != 0 {
			n := o.addS(d, p, wd)
			o.free(d)
			d = n
		}
		if len(s) == 1 && r.momentum == 0 {
			// a momentum scheduled to 0 leaves the buffer as it is (torch's
			// step skips it)
			o.keep(s[0])
		} else if len(s) == 1 {
			var buf *refs.Ref
			if s[0] == nil {
				buf = d
				o.keep(buf)
			} else {
				m := o.mulS(s[0], r.momentum)
				buf = o.addS(m, d, 1-dampening)
				o.free(m)
			}
			if nesterov {
				n := o.addS(d, buf, r.momentum)
				o.free(d)
				d = n
			} else {
				o.free(d)
				d = buf
				o.keep(d)
			}
			s = []*refs.Ref{buf}
		}
		np := o.addS(p, d, -r.lr)
		o.free(d)
		return np, s
	}}), nil
}

func builtinAdam(decoupled bool) eval.BuiltinFunc {
	name, wdDefault := "adam", 0.0
	if decoupled {
		name, wdDefault = "adamw", 0.01
	}
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		lr, eps, wd := 1e-3, 1e-8, wdDefault
		var betas []eval.Value
		var amsgrad, maximize bool
		if err := eval.UnpackArgs(th, name, args, kwargs, "lr?", &lr, "betas?", &betas, "eps?", &eps, "weight_decay?", &wd, "amsgrad?", &amsgrad, "maximize?", &maximize); err != nil {
			return nil, err
		}
		b1, b2 := 0.9, 0.999
		if err := numberPair(th, name, "betas", betas, &b1, &b2); err != nil {
			return nil, err
		}
		if lr < 0 || eps < 0 || wd < 0 || b1 < 0 || b1 >= 1 || b2 < 0 || b2 >= 1 {
			return nil, fmt.Errorf("%s: invalid hyperparameters (lr %v, betas [%v, %v], eps %v, weight_decay %v)", name, lr, b1, b2, eps, wd)
		}
		slots := []string{"exp_avg", "exp_avg_sq"}
		if amsgrad {
			slots = append(slots, "max_exp_avg_sq")
		}
		return newOptimizer(optimizer{name: name, lr: lr, slots: slots, maximize: maximize, momentum: b1, momentumKw: "beta1", step: func(o *arith, p, g *refs.Ref, s []*refs.Ref, t int, r rates) (*refs.Ref, []*refs.Ref) {
			lr, b1 := r.lr, r.momentum
			o.th.RT.Retain(g)
			o.th.RT.Retain(p)
			if wd != 0 {
				if decoupled {
					n := o.mulS(p, 1-lr*wd)
					o.free(p)
					p = n
				} else {
					n := o.addS(g, p, wd)
					o.free(g)
					g = n
				}
			}
			m, v := s[0], s[1]
			if m == nil {
				m = o.mulS(g, 0)
				v = o.mulS(g, 0)
			} else {
				o.th.RT.Retain(m)
				o.th.RT.Retain(v)
			}
			// exp_avg.lerp_(grad, 1 - beta1): m + (g - m)·(1 - beta1).
			diff := o.op(ops.Sub, g, m)
			m2 := o.addS(m, diff, 1-b1)
			// exp_avg_sq·beta2 + (1 - beta2)·g·g.
			gg := o.op(ops.Mul, g, g)
			vb := o.mulS(v, b2)
			v2 := o.addS(vb, gg, 1-b2)
			o.free(diff, gg, vb, m, v, g)
			bc1 := 1 - math.Pow(b1, float64(t))
			bc2 := 1 - math.Pow(b2, float64(t))
			out := []*refs.Ref{m2, v2}
			if amsgrad {
				// torch.maximum(max_exp_avg_sq, exp_avg_sq): the max starts at 0
				vmax := v2
				if s[2] == nil {
					o.keep(vmax)
				} else {
					vmax = o.op(ops.Maximum, s[2], v2)
				}
				out = append(out, vmax)
				v2 = vmax
			}
			root := o.sqrt(v2)
			scaled := o.mulS(root, 1/math.Sqrt(bc2))
			e := o.scalar(eps, scaled)
			denom := o.op(ops.Add, scaled, e)
			ratio := o.op(ops.Div, m2, denom)
			np := o.addS(p, ratio, -lr/bc1)
			o.free(root, scaled, e, denom, ratio, p)
			return np, out
		}}), nil
	}
}

// packed is the update of one leaf while a tree is rebuilt: the new
// parameter and state slots (owned), split into trees by unpack.
type packed []eval.Value

func (packed) Type() string { return "packed" }

// newOptimizer makes the script's record {init, update} for o.
func newOptimizer(o optimizer) eval.Value {
	initFn := eval.NewBound(o.name+".init", func(th *eval.Thread, _, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var params eval.Value
		if err := eval.UnpackArgs(th, o.name+".init", args, kwargs, "params", &params); err != nil {
			return nil, err
		}
		keys := append([]string{"step"}, o.shared...)
		vals := append([]eval.Value{eval.Int(0)}, o.first...)
		for _, slot := range o.slots {
			tree, err := zipTrees(th, []eval.Value{params}, "", func(string, []eval.Value) (eval.Value, error) { return eval.None, nil })
			if err != nil {
				eval.Release(th.RT, eval.NewRecord(keys, vals))
				return nil, err
			}
			keys, vals = append(keys, slot), append(vals, tree)
		}
		return eval.NewRecord(keys, vals), nil
	}, nil)
	update := eval.NewBound(o.name+".update", func(th *eval.Thread, _, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return o.update(th, args, kwargs)
	}, nil)
	return eval.NewRecord([]string{"init", "update"}, []eval.Value{initFn, update})
}

func (o optimizer) update(th *eval.Thread, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	name := o.name + ".update"
	var params, grads, state eval.Value
	r := rates{lr: o.lr, momentum: o.momentum}
	pairs := []any{"params", &params, "grads", &grads, "state", &state, "lr?", &r.lr}
	if o.momentumKw != "" {
		pairs = append(pairs, o.momentumKw+"?", &r.momentum)
	}
	if err := eval.UnpackArgs(th, name, args, kwargs, pairs...); err != nil {
		return nil, err
	}
	if err := o.checkRates(r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	st, ok := state.(*eval.Record)
	stepV, hasStep := eval.Value(nil), false
	if ok {
		stepV, hasStep = st.Get("step")
	}
	step, isInt := th.AsInt(stepV)
	if !ok || !hasStep || !isInt {
		return nil, fmt.Errorf("%s: state must be the record init gave (with a step), not %s", name, eval.Describe(state))
	}
	cur := make([]float64, len(o.shared))
	for i, k := range o.shared {
		v, ok := st.Get(k)
		f, isNum := math.NaN(), false
		if ok {
			_, isNum = v.(eval.NoneType)
			if !isNum {
				f, isNum = th.AsFloat(v)
			}
		}
		if !isNum {
			return nil, fmt.Errorf("%s: the state's %q must be a number (or none before the first step), as %s.init made it", name, k, o.name)
		}
		cur[i] = f
	}
	trees := []eval.Value{params, grads}
	for _, slot := range o.slots {
		v, ok := st.Get(slot)
		if !ok {
			return nil, fmt.Errorf("%s: the state has no %q (was it made by %s.init?)", name, slot, o.name)
		}
		trees = append(trees, v)
	}
	t := step + 1
	var next []eval.Value
	if o.begin != nil {
		o.step, next = o.begin(t, r, cur)
	}
	ar := &arith{th: th}
	var made []packed // Release does not see into them: freed here on failure
	all, err := zipTrees(th, trees, "", func(path string, xs []eval.Value) (eval.Value, error) {
		v, err := o.leaf(ar, path, t, r, xs)
		if err == nil {
			made = append(made, v.(packed))
		}
		return v, err
	})
	if err != nil {
		for _, p := range made {
			for _, v := range p {
				eval.Release(th.RT, v)
			}
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	outs := make([]eval.Value, 1+len(o.slots))
	for i := range outs {
		outs[i], _ = zipTrees(th, []eval.Value{all}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
			return xs[0].(packed)[i], nil
		})
	}
	eval.Release(th.RT, all) // its packed leaves were handed over above
	keys := append(append([]string{"step"}, o.shared...), o.slots...)
	newState := eval.NewRecord(keys, append(append([]eval.Value{eval.Int(t)}, next...), outs[1:]...))
	return eval.NewRecord([]string{"params", "state"}, []eval.Value{outs[0], newState}), nil
}

// checkRates checks an update's rates as torch's constructors check
// them: a momentum scheduled above 0 needs the buffer that only a
// momentum given at construction keeps in the state.
func (o optimizer) checkRates(r rates) error {
	switch {
	case r.lr < 0 || math.IsNaN(r.lr):
		return fmt.Errorf("lr must be non-negative, got %v", r.lr)
	case o.momentumKw == "beta1" && !(r.momentum >= 0 && r.momentum < 1):
		return fmt.Errorf("invalid beta1 %v (torch requires 0 <= beta1 < 1)", r.momentum)
	case o.momentumKw == "momentum" && !(r.momentum >= 0):
		return fmt.Errorf("momentum must be non-negative, got %v", r.momentum)
	case o.momentumKw == "momentum" && r.momentum != 0 && o.momentum == 0:
		return fmt.Errorf("momentum=%s needs %s made with a momentum (%s(..., momentum=0.9)): without one its state keeps no momentum_buffer", scriptNumber(r.momentum), o.name, o.name)
	}
	return nil
}

// scriptNumber prints v as the script wrote it: a float32 literal with
// its float32 digits (0.9, not 0.8999999761581421).
func scriptNumber(v float64) string {
	if float64(float32(v)) == v {
		return eval.FormatFloat(v, 32)
	}
	return eval.FormatFloat(v, 64)
}

// leaf updates one parameter (xs: the parameter, its gradient, its
// slots); a leaf without a float gradient is kept.
func (o optimizer) leaf(ar *arith, path string, t int, r rates, xs []eval.Value) (eval.Value, error) {
	th := ar.th
	keep := func() (eval.Value, error) {
		out := make(packed, 0, len(xs)-1)
		out = append(out, xs[0])
		out = append(out, xs[2:]...)
		for _, v := range out {
			eval.Retain(th.RT, v)
		}
		return out, nil
	}
	p, pok := xs[0].(eval.Tensor)
	switch x := xs[0].(type) {
	case eval.Float32, eval.Float64: // a float number is a 0-d parameter
		p, pok = eval.Tensor{Ref: th.RT.FromHost(th.Site(), eval.ScalarDense(x))}, true
		defer th.RT.Release(p.Ref)
	}
	if _, none := xs[1].(eval.NoneType); none || !pok || !p.Ref.DType().IsFloat() {
		return keep()
	}
	g, gok := xs[1].(eval.Tensor)
	if !gok || !g.Ref.Shape().Equal(p.Ref.Shape()) {
		return nil, fmt.Errorf("the gradient at %s is %s, the parameter %s", orRoot(path), eval.Describe(xs[1]), eval.Describe(xs[0]))
	}
	slots := make([]*refs.Ref, len(o.slots))
	for i, v := range xs[2:] {
		switch v := v.(type) {
		case eval.Tensor:
			slots[i] = v.Ref
		case eval.NoneType:
		default:
			return nil, fmt.Errorf("the state's %s at %s is %s", o.slots[i], orRoot(path), eval.Describe(v))
		}
	}
	gr := g.Ref
	if o.maximize {
		if gr = ar.do(ops.Neg, nil, gr); gr == nil {
			return nil, ar.err
		}
		defer th.RT.Release(gr)
	}
	np, ns := o.step(ar, p.Ref, gr, slots, t, r)
	if ar.err != nil {
		for _, r := range append(ns, np) {
			if r != nil {
				th.RT.Release(r)
			}
		}
		return nil, ar.err
	}
	out := packed{eval.Tensor{Ref: np}}
	for _, r := range ns {
		if r == nil { // a slot the rule left none
			out = append(out, eval.None)
		} else {
			out = append(out, eval.Tensor{Ref: r})
		}
	}
	return out, nil
}

func builtinTreeMap(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if err := noKwargs("tree_map", kwargs); err != nil {
		return nil, err
	}
	if len(args) < 2 || args[0].Type() != "function" {
		return nil, fmt.Errorf("tree_map takes a function and at least one tree")
	}
	v, err := zipTrees(th, args[1:], "", func(_ string, xs []eval.Value) (eval.Value, error) {
		return th.Call(args[0], xs, nil)
	})
	if err != nil {
		if _, ok := err.(*eval.Error); ok {
			return nil, err
		}
		return nil, fmt.Errorf("tree_map: %v", err)
	}
	return v, nil
}

func builtinTreeFlatten(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var tree eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tree", &tree); err != nil {
		return nil, err
	}
	var keys []string
	var vals []eval.Value
	v, err := zipTrees(th, []eval.Value{tree}, "", func(path string, xs []eval.Value) (eval.Value, error) {
		if _, none := xs[0].(eval.NoneType); !none {
			eval.Retain(th.RT, xs[0])
			keys, vals = append(keys, orRoot(path)), append(vals, xs[0])
		}
		return eval.None, nil
	})
	if err != nil {
		eval.Release(th.RT, eval.NewRecord(keys, vals))
		return nil, err
	}
	eval.Release(th.RT, v)
	return eval.NewRecord(keys, vals), nil
}

func builtinTreeUnflatten(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var flat, like eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "flat", &flat, "like", &like); err != nil {
		return nil, err
	}
	r, ok := flat.(*eval.Record)
	if !ok {
		return nil, fmt.Errorf("tree_unflatten: flat must be a record (what tree_flatten gave, or load read), not %s", eval.Describe(flat))
	}
	used := 0
	v, err := zipTrees(th, []eval.Value{like}, "", func(path string, xs []eval.Value) (eval.Value, error) {
		x := xs[0]
		if f, ok := r.Get(orRoot(path)); ok {
			x = f
			used++
		}
		eval.Retain(th.RT, x)
		return x, nil
	})
	if err != nil {
		return nil, err
	}
	if used != len(r.Keys) {
		eval.Release(th.RT, v)
		return nil, fmt.Errorf("tree_unflatten: %d of flat's %d fields have no place in like's tree", len(r.Keys)-used, len(r.Keys))
	}
	return v, nil
}
