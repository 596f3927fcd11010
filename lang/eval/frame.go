package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/lang/resolve"
)

// maxDepth bounds nested calls, so that runaway recursion is a script
// error instead of a Go stack overflow.
const maxDepth = 4000

// frame is one activation: of a function, or of a file's top level (cl
// nil). Frames are pooled per depth; their slots come from the thread's
// value stack.
type frame struct {
	th    *Thread
	slots []Value
	cl    *Closure
	mod   *Module
	// parent is the frame that called this one, for tracebacks and call
	// paths (nil for a file's top level); caller is the frame to return
	// to.
	parent, caller *frame
	site           *callSite
	ret            Value
	path           uint32
	pathOK         bool
	chunk, base    int
}

func (fr *frame) name() string {
	if fr.cl != nil {
		return fr.cl.code.name
	}
	return moduleFn
}

// callSite is a call expression's position, kept once per expression so
// that call paths can be keyed by pointer.
type callSite struct {
	pos ast.Pos
}

func newSite(at ast.Pos) *callSite { return &callSite{pos: at} }

type pathKey struct {
	parent uint32
	site   *callSite
}

type pathEntry struct {
	parent uint32
	site   *callSite
	fn     string
}

// pathOf interns fr's call path: the chain of call sites from the top
// level. 0 is the top level itself. Only computed when an op is submitted.
func (th *Thread) pathOf(fr *frame) uint32 {
	if fr.pathOK {
		return fr.path
	}
	var p uint32
	if fr.parent != nil && fr.site != nil {
		k := pathKey{th.pathOf(fr.parent), fr.site}
		id, ok := th.paths[k]
		if !ok {
			if th.paths == nil {
				th.paths = map[pathKey]uint32{}
			}
			th.pathInfo = append(th.pathInfo, pathEntry{parent: k.parent, site: fr.site, fn: fr.name()})
			id = uint32(len(th.pathInfo))
			th.paths[k] = id
		}
		p = id
	}
	fr.path, fr.pathOK = p, true
	return p
}

// pathStack is the traceback of an op submitted at pos along path.
func (th *Thread) pathStack(path uint32, at ast.Pos) []pos.Frame {
	if path == 0 || int(path) > len(th.pathInfo) {
		return nil
	}
	var st []pos.Frame
	for path != 0 && int(path) <= len(th.pathInfo) {
		e := th.pathInfo[path-1]
		st = append(st, pos.Frame{Fn: e.fn, Pos: at})
		at = e.site.pos
		path = e.parent
	}
	if !at.IsValid() {
		// The path began in a function called from outside any script.
		return collapse(st)
	}
	return collapse(append(st, pos.Frame{Fn: moduleFn, Pos: at}))
}

// push makes the frame for a call.
func (th *Thread) push(parent, caller *frame, cl *Closure, mod *Module, site *callSite, nslots int) *frame {
	d := th.depth
	if d == len(th.frames) {
		th.frames = append(th.frames, &frame{th: th})
	}
	fr := th.frames[d]
	th.depth = d + 1
	fr.parent, fr.caller, fr.cl, fr.mod, fr.site = parent, caller, cl, mod, site
	fr.pathOK, fr.ret = false, nil
	// pop returns the stack to where it was before the frame's slots,
	// in the chunk before a new one was started for them.
	sp := th.sp
	fr.chunk, fr.base = th.chunk, sp
	if sp+nslots > len(th.top) {
		th.growStack(nslots)
		sp = 0
	}
	fr.slots = th.top[sp : sp+nslots : sp+nslots]
	th.sp = sp + nslots
	th.cur = fr
	return fr
}

// pop releases every slot of fr and returns to its caller. The frame
// keeps its other fields until it is pushed again: they are not read
// meanwhile.
func (th *Thread) pop(fr *frame) {
	for i, v := range fr.slots {
		if v != nil {
			fr.slots[i] = nil
			Release(th.RT, v)
		}
	}
	if fr.chunk != th.chunk {
		th.chunk = fr.chunk
		th.top = th.stack[fr.chunk]
	}
	th.sp = fr.base
	th.depth--
	th.cur = fr.caller
}

// The value stack is a list of chunks (th.top is the current one); a
// frame's slots never move, so a new chunk is started when the current
// one is full.
func (th *Thread) growStack(n int) {
	if len(th.stack) > 0 {
		th.chunk++
	}
	if th.chunk == len(th.stack) {
		size := 1024
		if th.chunk > 0 {
			size = 2 * len(th.stack[th.chunk-1])
		}
		th.stack = append(th.stack, make([]Value, max(size, n)))
	} else if len(th.stack[th.chunk]) < n {
		th.stack[th.chunk] = make([]Value, n)
	}
	th.top = th.stack[th.chunk]
	th.sp = 0
}

// resetStack empties the call stack (after an internal error).
func (th *Thread) resetStack() {
	th.cur, th.depth, th.sp, th.chunk, th.top = nil, 0, 0, 0, nil
	if len(th.stack) > 0 {
		th.top = th.stack[0]
	}
}

// maybeCollect breaks garbage cycles when some value that may be part of
// one lost a reference. Called at safe points: every reference is counted.
// Where a run, a test or a REPL input ends, collectNow runs instead, with
// no deferral (see collectRatio).
func (th *Thread) maybeCollect() {
	if len(th.col.roots) > 0 {
		th.col.collect()
	}
}

// callValue calls fn from frame caller at site. It consumes args and the
// values of kw, and returns an owned result.
func (th *Thread) callValue(caller *frame, fn Value, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	switch f := fn.(type) {
	case *Closure:
		return th.callClosure(caller, f, args, kw, site)
	case *Builtin:
		return th.callBuiltin(caller, f, args, kw, site)
	case Object:
		return th.callObject(caller, f, args, kw, site)
	case *Bound:
		return th.callBound(caller, f, args, kw, site)
	}
	releaseAll(th.RT, args)
	releaseKw(th, kw)
	return nil, caller.errorf(site.pos, "%s is not a function", Describe(fn))
}

func releaseKw(th *Thread, kw []Kwarg) {
	for _, k := range kw {
		if k.Value != nil {
			Release(th.RT, k.Value)
		}
	}
}

func (th *Thread) callBuiltin(caller *frame, b *Builtin, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	return th.callGo(caller, args, kw, site, func() (Value, error) { return CallBuiltin(th, b, args, kw) })
}

// callGo runs call, a function implemented in Go, at site: it consumes
// args and the values of kw, positions call's error at site, and returns
// an owned result.
func (th *Thread) callGo(caller *frame, args []Value, kw []Kwarg, site *callSite, call func() (Value, error)) (Value, error) {
	if th.intr.Load() {
		releaseAll(th.RT, args)
		releaseKw(th, kw)
		return nil, caller.errorf(site.pos, "interrupted")
	}
	savedPos, savedSite := th.sitePos, th.curSite
	th.sitePos, th.curSite = site.pos, site
	v, err := call()
	th.sitePos, th.curSite = savedPos, savedSite
	releaseAll(th.RT, args)
	releaseKw(th, kw)
	if err != nil {
		if v != nil {
			Release(th.RT, v)
		}
		return nil, caller.wrap(site.pos, err)
	}
	if v == nil {
		v = None
	}
	return v, nil
}

func (th *Thread) callClosure(caller *frame, cl *Closure, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	code := cl.code
	if th.intr.Load() || len(args) > code.npos && code.rest < 0 || th.depth >= maxDepth {
		err := th.checkCall(caller, code, len(args), site)
		releaseAll(th.RT, args)
		releaseKw(th, kw)
		return nil, err
	}
	fr := th.push(caller, caller, cl, code.mod, site, code.nslots)
	if len(args) > code.npos {
		extra := append([]Value(nil), args[code.npos:]...)
		fr.slots[code.params[code.rest].slot] = NewList(extra)
		args = args[:code.npos]
	}
	for i, a := range args {
		fr.slots[code.params[i].slot] = a
	}
	args = nil
	var extraKw *Record
	for i, k := range kw {
		j := code.paramIndex(k.Name)
		var err error
		switch {
		case j < 0 && code.kwrest >= 0 && extraKw != nil && slices.Contains(extraKw.Keys, k.Name):
			err = caller.errorf(site.pos, "%s: got multiple values for keyword argument %q", code.name, k.Name)
		case j < 0 && code.kwrest >= 0:
			if extraKw == nil {
				extraKw = NewRecord(nil, nil)
				fr.slots[code.params[code.kwrest].slot] = extraKw
			}
			extraKw.Put(th.RT, k.Name, k.Value)
			continue
		case j < 0:
			err = caller.errorf(site.pos, "%s: unexpected keyword argument %q%s", code.name, k.Name, code.paramHint(k.Name, fr.slots))
		case fr.slots[code.params[j].slot] != nil:
			err = caller.errorf(site.pos, "%s: got multiple values for argument %q", code.name, k.Name)
		}
		if err != nil {
			releaseKw(th, kw[i:])
			th.pop(fr)
			return nil, err
		}
		fr.slots[code.params[j].slot] = k.Value
	}
	for j, p := range code.params {
		v := fr.slots[p.slot]
		if v == nil {
			switch {
			case p.kind == ast.VarArgs:
				v = NewList(nil)
			case p.kind == ast.VarKeywords:
				v = NewRecord(nil, nil)
			case j >= len(cl.defaults) || cl.defaults[j] == nil:
				th.pop(fr)
				what := "argument"
				if p.kind == ast.KeywordOnly {
					what = "keyword-only argument"
				}
				return nil, caller.errorf(site.pos, "%s: missing %s %q", code.name, what, p.name)
			default:
				v = cl.defaults[j]
				Retain(th.RT, v)
			}
			fr.slots[p.slot] = v
		}
		if p.cell {
			fr.slots[p.slot] = newCell(v, th.col)
		}
	}
	return th.run(fr)
}

// checkCall is the error, if any, of calling code with nargs positional
// arguments from caller: an interrupt, too many arguments, or a call
// nested too deep.
func (th *Thread) checkCall(caller *frame, code *funcCode, nargs int, site *callSite) error {
	switch {
	case th.intr.Load():
		return caller.errorf(site.pos, "interrupted")
	case nargs > code.npos && code.rest < 0 && code.npos == 0 && len(code.params) > 0:
		return caller.errorf(site.pos, "%s: takes no positional arguments, got %d (pass its parameters by keyword)", code.name, nargs)
	case nargs > code.npos && code.rest < 0:
		return caller.errorf(site.pos, "%s: %s", code.name, tooManyArgs(nargs, code.npos))
	case th.depth >= maxDepth:
		return caller.errorf(site.pos, "%s: maximum call depth (%d) exceeded; is the recursion missing a base case?", code.name, maxDepth)
	}
	return nil
}

// callSimple is callClosure for a call of a simple function (no
// parameter captured) with one positional argument per parameter: no
// keywords to match, no defaults to fill, no cells to make.
func (th *Thread) callSimple(caller *frame, cl *Closure, args []Value, site *callSite) (Value, error) {
	code := cl.code
	if th.depth >= maxDepth || th.intr.Load() {
		err := th.checkCall(caller, code, len(args), site)
		releaseAll(th.RT, args)
		return nil, err
	}
	// push, inlined for the common case (a pooled frame and room in the
	// current chunk): the call of push cost 6% of fib(30)'s time.
	var fr *frame
	d, sp, n := th.depth, th.sp, code.nslots
	if d < len(th.frames) && sp+n <= len(th.top) {
		fr = th.frames[d]
		th.depth = d + 1
		fr.parent, fr.caller, fr.cl, fr.mod, fr.site = caller, caller, cl, code.mod, site
		fr.pathOK, fr.ret = false, nil
		fr.chunk, fr.base = th.chunk, sp
		fr.slots = th.top[sp : sp+n : sp+n]
		th.sp = sp + n
		th.cur = fr
	} else {
		fr = th.push(caller, caller, cl, code.mod, site, n)
	}
	slots := fr.slots[:len(args)]
	for i, a := range args {
		slots[i] = a
	}
	_, err := code.body(fr)
	ret := fr.ret
	fr.ret = nil
	th.pop(fr)
	if err != nil || ret == nil || len(th.col.roots) > 0 {
		return th.finish(ret, err)
	}
	return ret, nil
}

// finish is the end of run after the frame was popped.
func (th *Thread) finish(ret Value, err error) (Value, error) {
	if err != nil {
		if ret != nil {
			Release(th.RT, ret)
		}
		return nil, err
	}
	th.maybeCollect()
	if ret == nil {
		return None, nil
	}
	return ret, nil
}

// run runs the body of the function whose frame fr was just pushed, pops
// the frame and returns the function's owned result.
func (th *Thread) run(fr *frame) (Value, error) {
	_, err := fr.cl.code.body(fr)
	ret := fr.ret
	fr.ret = nil
	th.pop(fr)
	return th.finish(ret, err)
}

// Call calls a function value (a closure or a builtin) from a builtin,
// with borrowed arguments, and returns an owned result. Errors come back
// as *Error, positioned inside the called function.
func (th *Thread) Call(fn Value, args []Value, kwargs []Kwarg) (Value, error) {
	owned := make([]Value, len(args))
	for i, a := range args {
		Retain(th.RT, a)
		owned[i] = a
	}
	var kw []Kwarg
	if len(kwargs) > 0 {
		kw = make([]Kwarg, len(kwargs))
		for i, k := range kwargs {
			Retain(th.RT, k.Value)
			kw[i] = k
		}
	}
	caller, site, done := th.operandFrame()
	defer done()
	return th.callValue(caller, fn, owned, kw, site)
}

// paramIndex is the index of the parameter that keyword name binds, or
// -1: *args and **kwargs take no keyword of their own name.
func (c *funcCode) paramIndex(name string) int {
	for i, p := range c.params {
		if p.name == name && p.named() {
			return i
		}
	}
	return -1
}

// paramHint suggests, for an unknown keyword argument, a parameter the
// call has not bound yet (slots holds the frame's bound values), or lists
// the parameters.
func (c *funcCode) paramHint(name string, slots []Value) string {
	var names, free []string
	for _, p := range c.params {
		if !p.named() {
			continue
		}
		names = append(names, p.name)
		if slots[p.slot] == nil {
			free = append(free, p.name)
		}
	}
	if s := resolve.Suggest(name, free); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	if len(names) == 0 {
		return " (it takes no keyword arguments)"
	}
	return fmt.Sprintf(" (parameters: %s)", strings.Join(names, ", "))
}
