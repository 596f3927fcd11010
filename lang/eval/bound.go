package eval

import "github.com/tref-lang/tref/runtime/refs"

// BoundFunc implements a Bound function: held are the values the function
// was made with (borrowed), args and kwargs its call's (borrowed); it
// returns an owned result.
type BoundFunc func(th *Thread, held []Value, args []Value, kwargs []Kwarg) (Value, error)

// Bound is a function implemented in Go that holds script values: what a
// function transform returns (grad(f) holds f). It is reference counted
// like a closure, and releases what it holds when it dies.
type Bound struct {
	// Name is how the function prints ("grad(loss)").
	Name string
	Fn   BoundFunc
	held []Value
	rc   int32
	gc   gcHeader
}

// NewBound makes an owned function over fn that takes over the references
// in held.
func NewBound(name string, fn BoundFunc, held []Value) *Bound {
	b := &Bound{Name: name, Fn: fn, held: held, rc: 1}
	b.gc.col = cyclicIn(held)
	return b
}

// Type is "function".
func (*Bound) Type() string { return "function" }

func (th *Thread) callBound(caller *frame, b *Bound, args []Value, kw []Kwarg, site *callSite) (Value, error) {
	return th.callGo(caller, args, kw, site, func() (Value, error) {
		mark := len(th.temps)
		b.rc++ // the call holds it: the function may drop its last binding
		v, err := b.Fn(th, b.held, args, kw)
		Release(th.RT, b)
		th.releaseTemps(mark)
		return v, err
	})
}

func (b *Bound) header() *gcHeader { return &b.gc }
func (b *Bound) count() *int32     { return &b.rc }
func (b *Bound) children(f func(gcNode)) {
	for _, e := range b.held {
		if n := gcOf(e); n != nil {
			f(n)
		}
	}
}
func (b *Bound) freeWhite(rt *refs.Runtime) {
	held := b.held
	b.held = nil
	for _, e := range held {
		if e != nil && gcOf(e) == nil {
			Release(rt, e)
		}
	}
}
