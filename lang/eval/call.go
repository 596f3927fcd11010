package eval

import (
	"github.com/tref-lang/tref/lang/ast"
)

// call compiles a call: the callee is evaluated first (for x.m(...), the
// receiver x), then the positional arguments, then the keyword arguments,
// in source order.
func (c *compiler) call(e *ast.CallExpr) exprFn {
	site := newSite(e.At)
	evalArgs, pos, plain := c.callArgs(e)
	if m, ok := e.Fn.(*ast.FieldExpr); ok {
		return c.methodCall(m, site, evalArgs)
	}
	callee := c.expr(e.Fn)
	if plain {
		return c.positionalCall(e.Fn, callee, pos, site)
	}
	return argsCall(callee, evalArgs, site)
}

// argsFn pushes a call's positional arguments on the thread's argument
// stack (above base) and makes its keyword list; on error the stack is
// popped to base.
type argsFn func(fr *frame, base int) ([]Kwarg, error)

// callArgs compiles e's arguments. plain says there are only positional
// ones, no spread, compiled in pos (for positionalCall).
func (c *compiler) callArgs(e *ast.CallExpr) (evalArgs argsFn, pos []exprFn, plain bool) {
	for _, a := range e.Args {
		if _, ok := a.Value.(*ast.StarExpr); ok && a.Name == "" {
			return c.spreadArgs(e), nil, false
		}
	}
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
	evalArgs = func(fr *frame, base int) ([]Kwarg, error) {
		th := fr.th
		if err := pushArgs(fr, pos, base); err != nil {
			return nil, err
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
	return evalArgs, pos, len(kwVals) == 0
}

// argsCall is the general call: the callee, then the arguments evalArgs
// pushes and the keyword list it makes, then callValue.
func argsCall(callee exprFn, evalArgs argsFn, site *callSite) exprFn {
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

// positionalCall is call for a call without keyword arguments. A
// closure taking exactly these arguments, none of them captured
// (funcCode.simple), is entered directly (callSimple), with up to
// maxFastArgs arguments evaluated into an array on the Go stack; anything
// else goes through callValue. A callee that is a global is read without
// a call.
func (c *compiler) positionalCall(fnExpr ast.Expr, callee exprFn, pos []exprFn, site *callSite) exprFn {
	global := -1
	if id, ok := fnExpr.(*ast.Ident); ok && !id.Builtin && id.Binding != nil && !id.LastUse {
		if l := c.loc(id.Binding); l.kind == locGlobal {
			global = l.idx
		}
	}
	n := len(pos)
	return func(fr *frame) (Value, error) {
		var fn Value
		if global >= 0 && fr.mod.globals[global] != nil {
			fn = fr.mod.globals[global]
			if cl, ok := fn.(*Closure); ok {
				cl.incref()
			} else {
				Retain(fr.th.RT, fn)
			}
		} else {
			var err error
			if fn, err = callee(fr); err != nil {
				return nil, err
			}
		}
		th := fr.th
		if cl, ok := fn.(*Closure); ok && int(cl.fast) == n+1 {
			var buf [maxFastArgs]Value
			for i, f := range pos {
				v, err := f(fr)
				if err != nil {
					releaseAll(th.RT, buf[:i])
					cl.decref(th.RT)
					return nil, err
				}
				buf[i] = v
			}
			v, err := th.callSimple(fr, cl, buf[:n], site)
			cl.decref(th.RT)
			return v, err
		}
		base := len(th.args)
		if err := pushArgs(fr, pos, base); err != nil {
			Release(th.RT, fn)
			return nil, err
		}
		args := th.args[base:len(th.args):len(th.args)]
		var v Value
		var err error
		if cl, ok := fn.(*Closure); ok && cl.code.simple && n == len(cl.code.params) {
			v, err = th.callSimple(fr, cl, args, site)
		} else {
			v, err = th.callValue(fr, fn, args, nil, site)
		}
		th.popArgsTaken(base)
		Release(th.RT, fn)
		return v, err
	}
}

// maxFastArgs is the most arguments positionalCall evaluates into an
// array on the Go stack.
const maxFastArgs = 4

// pushArgs evaluates the positional arguments pos onto the thread's
// argument stack; on an error it pops the stack back to base.
func pushArgs(fr *frame, pos []exprFn, base int) error {
	th := fr.th
	for _, f := range pos {
		v, err := f(fr)
		if err != nil {
			th.popArgs(base)
			return err
		}
		th.args = append(th.args, v)
	}
	return nil
}

// methodCall compiles x.name(args): a field of x holding a function is
// called with args; otherwise the builtin called name is called with x as
// its first argument (uniform call syntax).
func (c *compiler) methodCall(m *ast.FieldExpr, site *callSite, evalArgs argsFn) exprFn {
	recv := c.expr(m.X)
	mc := c.method(m.Name)
	return func(fr *frame) (Value, error) {
		x, err := recv(fr)
		if err != nil {
			return nil, err
		}
		return fr.callMethod(x, mc, site, evalArgs)
	}
}

// methodRef is what x.name(...) may call besides a field of x: the
// builtin name (called with x first) and the type methods of that name
// (str.format, tensor.where), looked up once at compile time.
type methodRef struct {
	name    string
	builtin *Builtin
	str     *Builtin // on a string
	list    *Builtin // on a list
	tensor  *Builtin // on a tensor
}

func (c *compiler) method(name string) methodRef {
	m := methodRef{name: name, builtin: c.in.cfg.Universe[name]}
	if b := c.in.cfg.Universe["str"]; b != nil {
		m.str = b.Methods[name]
	}
	if b := c.in.cfg.Universe["list"]; b != nil {
		m.list = b.Methods[name]
	}
	if b := c.in.cfg.Universe["tensor"]; b != nil {
		m.tensor = b.Methods[name]
	}
	return m
}

// callMethod calls x.name(args), consuming x: a type method of x's type,
// else x's field name, else the builtin name with x as its first
// argument.
func (fr *frame) callMethod(x Value, m methodRef, site *callSite, evalArgs argsFn) (Value, error) {
	th := fr.th
	var typeMethod *Builtin
	switch x.(type) {
	case String:
		typeMethod = m.str
	case *List:
		typeMethod = m.list
	case Tensor:
		typeMethod = m.tensor
	}
	var f Value
	base := len(th.args)
	if typeMethod != nil {
		f = typeMethod
		th.args = append(th.args, x)
	} else {
		field, found, err := fr.getField(x, m.name, site)
		if err != nil {
			Release(th.RT, x)
			return nil, err
		}
		if found {
			f = field
			Release(th.RT, x)
		} else {
			if m.builtin == nil {
				err := fr.noMethod(x, m.name, site.pos)
				Release(th.RT, x)
				return nil, err
			}
			f = m.builtin
			th.args = append(th.args, x)
		}
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

// spreadArgs compiles the arguments of a call with *x or **r among them:
// the positional arguments (each value of a *x in turn), then the keyword
// ones in order (each field of a **r in turn).
func (c *compiler) spreadArgs(e *ast.CallExpr) argsFn {
	var pos []ast.Expr
	type kwItem struct {
		name   string
		f      exprFn
		spread bool
		at     ast.Pos
	}
	var kws []kwItem
	for _, a := range e.Args {
		switch s, star := a.Value.(*ast.StarExpr); {
		case a.Name != "":
			kws = append(kws, kwItem{name: a.Name, f: c.expr(a.Value), at: a.At})
		case star && s.Double:
			kws = append(kws, kwItem{f: c.expr(s.X), spread: true, at: s.At})
		default:
			pos = append(pos, a.Value)
		}
	}
	items := c.spreadItems(pos)
	return func(fr *frame, base int) ([]Kwarg, error) {
		th := fr.th
		if err := fr.pushSpread(items, base); err != nil {
			return nil, err
		}
		var kw []Kwarg
		for _, k := range kws {
			v, err := k.f(fr)
			if err == nil && k.spread {
				kw, err = fr.spreadKwargs(kw, v, k.at)
			} else if err == nil {
				kw = append(kw, Kwarg{Name: k.name, Value: v})
			}
			if err != nil {
				releaseKw(th, kw)
				th.popArgs(base)
				return nil, err
			}
		}
		return kw, nil
	}
}
