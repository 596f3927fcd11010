package eval

import (
	"github.com/tref-lang/tref/lang/ast"
)

// call compiles a call: the callee is evaluated first (for x.m(...), the
// receiver x), then the positional arguments, then the keyword arguments,
// in source order.
func (c *compiler) call(e *ast.CallExpr) exprFn {
	site := newSite(e.At)
	var pos []exprFn
	var kwNames []string
	var kwVals []exprFn
	for _, a := range e.Args {
		if a.Name == "" {
			pos = append(pos, c.expr(a.Value))
		} else {
			kwNames = append(kwNames, a.Name)
			kwVals = append(kwVals, c.expr(a.Value))
		}
	}
	// evalArgs pushes the positional arguments (after any already pushed)
	// on the thread's argument stack and makes the keyword list.
	evalArgs := func(fr *frame, base int) ([]Kwarg, error) {
		th := fr.th
		for _, f := range pos {
			v, err := f(fr)
			if err != nil {
				th.popArgs(base)
				return nil, err
			}
			th.args = append(th.args, v)
		}
		if len(kwVals) == 0 {
			return nil, nil
		}
		kw := make([]Kwarg, len(kwVals))
		for i, f := range kwVals {
			v, err := f(fr)
			if err != nil {
				releaseKw(th, kw[:i])
				th.popArgs(base)
				return nil, err
			}
			kw[i] = Kwarg{Name: kwNames[i], Value: v}
		}
		return kw, nil
	}
	if m, ok := e.Fn.(*ast.FieldExpr); ok {
		return c.methodCall(m, site, evalArgs)
	}
	callee := c.expr(e.Fn)
	if len(kwVals) == 0 {
		return positionalCall(callee, pos, site)
	}
	return func(fr *frame) (Value, error) {
		fn, err := callee(fr)
		if err != nil {
			return nil, err
		}
		th := fr.th
		base := len(th.args)
		kw, err := evalArgs(fr, base)
		if err != nil {
			Release(th.RT, fn)
			return nil, err
		}
		v, err := th.callValue(fr, fn, th.args[base:len(th.args):len(th.args)], kw, site)
		th.popArgsTaken(base)
		Release(th.RT, fn)
		return v, err
	}
}

// positionalCall is call for a call without keyword arguments: a
// closure taking exactly these arguments, none of them captured, is
// entered directly (callSimple); anything else goes through callValue.
func positionalCall(callee exprFn, pos []exprFn, site *callSite) exprFn {
	return func(fr *frame) (Value, error) {
		fn, err := callee(fr)
		if err != nil {
			return nil, err
		}
		th := fr.th
		base := len(th.args)
		for _, f := range pos {
			v, err := f(fr)
			if err != nil {
				th.popArgs(base)
				Release(th.RT, fn)
				return nil, err
			}
			th.args = append(th.args, v)
		}
		args := th.args[base:len(th.args):len(th.args)]
		var v Value
		if cl, ok := fn.(*Closure); ok && cl.code.simple && len(args) == len(cl.code.params) {
			v, err = th.callSimple(fr, cl, args, site)
		} else {
			v, err = th.callValue(fr, fn, args, nil, site)
		}
		th.popArgsTaken(base)
		Release(th.RT, fn)
		return v, err
	}
}

// methodCall compiles x.name(args): a field of x holding a function is
// called with args; otherwise the builtin called name is called with x as
// its first argument (uniform call syntax).
func (c *compiler) methodCall(m *ast.FieldExpr, site *callSite, evalArgs func(*frame, int) ([]Kwarg, error)) exprFn {
	recv := c.expr(m.X)
	name := m.Name
	builtin := c.in.cfg.Universe[name]
	return func(fr *frame) (Value, error) {
		x, err := recv(fr)
		if err != nil {
			return nil, err
		}
		th := fr.th
		f, found, err := fr.getField(x, name, site)
		if err != nil {
			Release(th.RT, x)
			return nil, err
		}
		base := len(th.args)
		if found {
			Release(th.RT, x)
		} else {
			if builtin == nil {
				err := fr.noMethod(x, name, site.pos)
				Release(th.RT, x)
				return nil, err
			}
			f = builtin
			th.args = append(th.args, x)
		}
		kw, err := evalArgs(fr, base)
		if err != nil {
			Release(th.RT, f)
			return nil, err
		}
		v, err := th.callValue(fr, f, th.args[base:len(th.args):len(th.args)], kw, site)
		th.popArgsTaken(base)
		Release(th.RT, f)
		return v, err
	}
}

// popArgs releases and pops the argument stack down to base.
func (th *Thread) popArgs(base int) {
	for i := base; i < len(th.args); i++ {
		Release(th.RT, th.args[i])
		th.args[i] = nil
	}
	th.args = th.args[:base]
}

// popArgsTaken pops arguments whose ownership the call consumed.
func (th *Thread) popArgsTaken(base int) {
	// A loop: clear would call memclrHasPointers for the few words.
	for i := base; i < len(th.args); i++ {
		th.args[i] = nil
	}
	th.args = th.args[:base]
}
