package eval

import (
	"fmt"

	"github.com/tref-lang/tref/lang/ast"
)

// Binary applies the script operator sym ("+", "*", "<", ...) to a and b,
// both borrowed, exactly as the expression a sym b does (the same dtype
// rules, the same ops), for builtins that fold values the way Python's
// sum and max do. The result is owned; errors are positioned at the
// builtin's call.
func (th *Thread) Binary(sym string, a, b Value) (Value, error) {
	op, ok := binaryOps[sym]
	if !ok {
		return nil, fmt.Errorf("unknown operator %q", sym)
	}
	fr, site, done := th.operandFrame()
	defer done()
	Retain(th.RT, a)
	Retain(th.RT, b)
	return fr.binop(op, a, b, site)
}

// Truth reads v, borrowed, as an if condition does: a number, or a tensor
// of one element (forced).
func (th *Thread) Truth(v Value) (bool, error) {
	fr, site, done := th.operandFrame()
	defer done()
	Retain(th.RT, v)
	return fr.truth(v, site.pos)
}

// operandFrame is the frame and call site that Binary, Truth and Call
// evaluate in: the running builtin's, or a root frame on a thread outside
// any script. done restores the thread's site and pops that root frame.
func (th *Thread) operandFrame() (fr *frame, site *callSite, done func()) {
	site = th.curSite
	if site == nil {
		site = newSite(ast.Pos{})
	}
	savedPos, savedSite := th.sitePos, th.curSite
	if th.cur != nil {
		return th.cur, site, func() { th.sitePos, th.curSite = savedPos, savedSite }
	}
	fr = th.push(nil, nil, nil, nil, nil, 0)
	return fr, site, func() {
		th.pop(fr)
		th.sitePos, th.curSite = savedPos, savedSite
	}
}
