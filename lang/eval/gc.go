package eval

import "github.com/tref-lang/tref/runtime/refs"

// Reference cycles can only form through a mutable cell: lists and records
// are immutable once built, and closures hold their module's globals
// without counting (modules live until the interpreter ends). A recursive
// local function, or a closure stored in a variable it captures, makes
// such a cycle. They are broken by synchronous trial deletion (Bacon and
// Rajan's cycle collector): whenever a cell, a closure with cells, or a
// container holding one loses a reference but stays alive, it becomes a
// candidate root; at the next safe point (a function return, a block exit)
// the collector subtracts the references internal to the candidates'
// subgraph, and what no outside reference keeps alive is freed. This is
// deterministic: no finalizers, nothing depends on Go's garbage collector.

// Colours of the trial deletion.
const (
	black  uint8 = iota // in use, or not examined
	gray                // possible member of a garbage cycle
	white               // garbage
	purple              // candidate root
)

// gcHeader is the cycle collector's state on a value that may be part of
// a cycle. col is nil for values that can never be (a list of tensors, a
// closure without captured cells).
type gcHeader struct {
	col      *collector
	color    uint8
	buffered bool
}

// gcNode is a value the collector traverses.
type gcNode interface {
	header() *gcHeader
	count() *int32
	// children calls f on each child that may be part of a cycle.
	children(f func(gcNode))
	// freeWhite frees a garbage node: it releases the children the
	// collector does not traverse and forgets the others.
	freeWhite(rt *refs.Runtime)
}

// collector holds one interpreter's candidate roots.
type collector struct {
	rt    *refs.Runtime
	roots []gcNode
	// work is the number of nodes the latest collection examined, and
	// waited the safe points with roots passed over since (see collect).
	work, waited int
	// visited counts the nodes examined over the collector's life.
	visited int64
}

// collectRatio bounds the collector's work per safe point, amortized:
// after a collection that examined w nodes, the next waits for
// w/collectRatio safe points that have candidate roots. Small graphs,
// the usual case, are thus examined at every safe point and freed as soon
// as they become garbage; a program that keeps offering the same large
// live graph as a root (a long chain of lists of closures in a captured
// variable, extended in a loop) takes linear time instead of quadratic,
// at the price of freeing a garbage cycle in such a graph a little later.
const collectRatio = 64

// possibleRoot records that n lost a reference but is still alive.
func (c *collector) possibleRoot(n gcNode) {
	h := n.header()
	if h.color == purple {
		return
	}
	h.color = purple
	if !h.buffered {
		h.buffered = true
		c.roots = append(c.roots, n)
	}
}

// gcOf returns v as a collector node when it may be part of a cycle.
func gcOf(v Value) gcNode {
	switch v := v.(type) {
	case *List:
		if v.gc.col != nil {
			return v
		}
	case *Record:
		if v.gc.col != nil {
			return v
		}
	case *Closure:
		if v.gc.col != nil {
			return v
		}
	case *Bound:
		if v.gc.col != nil {
			return v
		}
	}
	return nil
}

// cyclicIn returns the collector of the first value of vs that may be part
// of a cycle, or nil.
func cyclicIn(vs []Value) *collector {
	for _, v := range vs {
		if n := gcOf(v); n != nil {
			return n.header().col
		}
	}
	return nil
}

// collect runs trial deletion over the candidate roots at a safe point,
// unless the latest collection was large and too few safe points have
// passed since (see collectRatio).
func (c *collector) collect() {
	if len(c.roots) == 0 {
		return
	}
	if c.work > collectRatio*(c.waited+1) {
		c.waited++
		return
	}
	c.collectNow()
}

// collectNow runs trial deletion over the candidate roots. The graph walks
// use explicit stacks: a value may nest millions of levels deep.
func (c *collector) collectNow() {
	c.waited, c.work = 0, 0
	if len(c.roots) == 0 {
		return
	}
	roots := c.roots[:0:0]
	for _, s := range c.roots {
		h := s.header()
		if h.color == purple && *s.count() > 0 {
			c.work += markGray(s)
			roots = append(roots, s)
		} else {
			h.buffered = false
			if h.color == purple {
				h.color = black
			}
		}
	}
	c.roots = c.roots[:0]
	c.visited += int64(c.work)
	for _, s := range roots {
		scan(s)
	}
	for _, s := range roots {
		s.header().buffered = false
		c.collectWhite(s)
	}
}

// markGray colours gray everything reachable from s that is not gray yet,
// taking away the references internal to that subgraph. It returns the
// number of nodes it coloured.
func markGray(s gcNode) int {
	if s.header().color == gray {
		return 0
	}
	s.header().color = gray
	n := 1
	stack := []gcNode{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x.children(func(t gcNode) {
			*t.count()--
			if h := t.header(); h.color != gray {
				h.color = gray
				n++
				stack = append(stack, t)
			}
		})
	}
	return n
}

// scan colours white the gray nodes that only internal references keep
// alive, and restores (scanBlack) those an outside reference reaches.
func scan(s gcNode) {
	stack := []gcNode{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h := x.header()
		if h.color != gray {
			continue
		}
		if *x.count() > 0 {
			scanBlack(x)
			continue
		}
		h.color = white
		x.children(func(t gcNode) { stack = append(stack, t) })
	}
}

// scanBlack colours black everything reachable from s, putting back the
// internal references markGray took away.
func scanBlack(s gcNode) {
	s.header().color = black
	stack := []gcNode{s}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x.children(func(t gcNode) {
			*t.count()++
			if h := t.header(); h.color != black {
				h.color = black
				stack = append(stack, t)
			}
		})
	}
}

// collectWhite frees the white (garbage) nodes reachable from s, children
// before their parents.
func (c *collector) collectWhite(s gcNode) {
	var order []gcNode
	take := func(t gcNode) {
		if h := t.header(); h.color == white && !h.buffered {
			h.color = black
			order = append(order, t)
		}
	}
	take(s)
	for i := 0; i < len(order); i++ {
		order[i].children(take)
	}
	for i := len(order) - 1; i >= 0; i-- {
		order[i].freeWhite(c.rt)
	}
}

func (l *List) header() *gcHeader { return &l.gc }
func (l *List) count() *int32     { return &l.rc }
func (l *List) children(f func(gcNode)) {
	for _, e := range l.Elems {
		if n := gcOf(e); n != nil {
			f(n)
		}
	}
}
func (l *List) freeWhite(rt *refs.Runtime) {
	elems := l.Elems
	l.Elems = nil
	for _, e := range elems {
		if e != nil && gcOf(e) == nil {
			Release(rt, e)
		}
	}
}

func (r *Record) header() *gcHeader { return &r.gc }
func (r *Record) count() *int32     { return &r.rc }
func (r *Record) children(f func(gcNode)) {
	for _, e := range r.Values {
		if n := gcOf(e); n != nil {
			f(n)
		}
	}
}
func (r *Record) freeWhite(rt *refs.Runtime) {
	vals := r.Values
	r.Values = nil
	for _, e := range vals {
		if e != nil && gcOf(e) == nil {
			Release(rt, e)
		}
	}
}

func (c *Closure) header() *gcHeader { return &c.gc }
func (c *Closure) count() *int32     { return &c.rc }
func (c *Closure) children(f func(gcNode)) {
	for _, x := range c.cells {
		f(x)
	}
	for _, d := range c.defaults {
		if n := gcOf(d); n != nil {
			f(n)
		}
	}
}
func (c *Closure) freeWhite(rt *refs.Runtime) {
	defs := c.defaults
	c.cells, c.defaults = nil, nil
	for _, d := range defs {
		if d != nil && gcOf(d) == nil {
			Release(rt, d)
		}
	}
}

func (x *cell) header() *gcHeader { return &x.gc }
func (x *cell) count() *int32     { return &x.rc }
func (x *cell) children(f func(gcNode)) {
	if n := gcOf(x.v); n != nil {
		f(n)
	}
}
func (x *cell) freeWhite(rt *refs.Runtime) {
	v := x.v
	x.v = nil
	if v != nil && gcOf(v) == nil {
		Release(rt, v)
	}
}
