package stdlib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// einsum, as torch.einsum: it submits the ops it decomposes into
// (index for repeated subscripts, sum, expand, permute, reshape and a
// batched matmul per pair of operands, left to right), so every backend
// and the placement engine see ordinary ops.
func init() {
	register("einsum", `einsum(equation, a, b, ...): Einstein summation as torch.einsum ("ij,jk->ik" is a @ b, "bij,bkj->bik" a batched a @ b.T, "ii->i" a diagonal, "...ij->...ji" a transpose of the last two dimensions); without "->" the output is the subscripts used once, in ASCII order; the operands may also be one list`, builtinEinsum)
}

// Subscripts are labels: 'A'..'Z' are 0..25 and 'a'..'z' 26..51 (so that
// sorting labels sorts as torch does the implicit output), and the
// dimensions an ellipsis stands for are 52, 53, ..., right-aligned across
// the operands as broadcasting aligns them.
const (
	einsumLetters = 52
	// maxEinsumOperands bounds the operand count, as torch's does (its
	// subscripts are 52 letters too).
	maxEinsumOperands = 64
)

// einsumSpec is a parsed equation checked against the operands' shapes.
type einsumSpec struct {
	ins  [][]int // each operand's labels, one per dimension
	out  []int   // the result's labels
	size []int   // each label's size (the largest of its dimensions)
}

func labelName(l int) string {
	switch {
	case l < 26:
		return string(rune('A' + l))
	case l < einsumLetters:
		return string(rune('a' + l - 26))
	}
	return "..."
}

// parseEinsumTerm reads one comma-separated term: its letters' labels
// in order, and where its ellipsis stands (-1 if it has none).
func parseEinsumTerm(term string) (labels []int, ell int, err error) {
	ell = -1
	for i := 0; i < len(term); i++ {
		c := term[i]
		switch {
		case c >= 'A' && c <= 'Z':
			labels = append(labels, int(c-'A'))
		case c >= 'a' && c <= 'z':
			labels = append(labels, int(c-'a')+26)
		case c == '.':
			if !strings.HasPrefix(term[i:], "...") {
				return nil, 0, fmt.Errorf("%q has a '.' that does not begin an ellipsis (...)", term)
			}
			if ell >= 0 {
				return nil, 0, fmt.Errorf("%q has more than one ellipsis", term)
			}
			ell = len(labels)
			i += 2
		default:
			return nil, 0, fmt.Errorf("%q: %q is not a subscript (letters and one ... per operand)", term, string(rune(c)))
		}
	}
	return labels, ell, nil
}

// parseEinsum parses equation for operands of the given shapes.
func parseEinsum(equation string, shapes []tensor.Shape) (*einsumSpec, error) {
	eq := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' {
			return -1
		}
		return r
	}, equation)
	lhs, rhs, explicit := strings.Cut(eq, "->")
	if strings.Contains(rhs, "->") {
		return nil, fmt.Errorf("the equation %q has more than one ->", equation)
	}
	terms := strings.Split(lhs, ",")
	if len(terms) != len(shapes) {
		return nil, fmt.Errorf("the equation %q has %d operand(s), the call passes %d", equation, len(terms), len(shapes))
	}
	if len(shapes) > maxEinsumOperands {
		return nil, fmt.Errorf("%d operands; at most %d", len(shapes), maxEinsumOperands)
	}
	// Each operand's letters and how many dimensions its ellipsis covers.
	letters := make([][]int, len(terms))
	ells := make([]int, len(terms))
	ellAt := make([]int, len(terms))
	maxEll := 0
	for k, term := range terms {
		ls, at, err := parseEinsumTerm(term)
		if err != nil {
			return nil, err
		}
		rank := len(shapes[k])
		switch {
		case at < 0 && len(ls) != rank:
			return nil, fmt.Errorf("operand %d has %d dimension(s) (shape %v) but %d subscript(s) in %q, and no ellipsis", k, rank, shapes[k], len(ls), term)
		case at >= 0 && len(ls) > rank:
			return nil, fmt.Errorf("operand %d has %d dimension(s) (shape %v), fewer than the %d subscript(s) in %q", k, rank, shapes[k], len(ls), term)
		}
		letters[k], ellAt[k] = ls, at
		if at >= 0 {
			ells[k] = rank - len(ls)
			maxEll = max(maxEll, ells[k])
		}
	}
	sp := &einsumSpec{ins: make([][]int, len(terms)), size: make([]int, einsumLetters+maxEll)}
	for i := range sp.size {
		sp.size[i] = -1
	}
	count := make([]int, einsumLetters)
	for k, ls := range letters {
		for _, l := range ls {
			count[l]++
		}
		labels := spliceEllipsis(ls, ellAt[k], maxEll, ells[k])
		// A subscript repeated within an operand (a diagonal) needs equal sizes.
		for d, l := range labels {
			if e := slices.Index(labels, l); e < d && shapes[k][e] != shapes[k][d] {
				return nil, fmt.Errorf("subscript %s is repeated in operand %d with sizes %d and %d (a diagonal needs equal sizes)", labelName(l), k, shapes[k][e], shapes[k][d])
			}
		}
		for d, l := range labels {
			n := shapes[k][d]
			switch prev := sp.size[l]; {
			case prev < 0 || prev == 1:
				sp.size[l] = n
			case n != 1 && n != prev:
				return nil, fmt.Errorf("subscript %s has size %d in operand %d, which does not broadcast with size %d seen before", labelName(l), n, k, prev)
			}
		}
		sp.ins[k] = labels
	}
	if !explicit {
		sp.out = spliceEllipsis(nil, 0, maxEll, maxEll)
		for l, c := range count {
			if c == 1 {
				sp.out = append(sp.out, l)
			}
		}
		return sp, nil
	}
	ls, at, err := parseEinsumTerm(rhs)
	if err != nil {
		return nil, err
	}
	for i, l := range ls {
		if count[l] == 0 {
			return nil, fmt.Errorf("output subscript %s appears in no operand", labelName(l))
		}
		if slices.Contains(ls[:i], l) {
			return nil, fmt.Errorf("output subscript %s appears more than once", labelName(l))
		}
	}
	sp.out = spliceEllipsis(ls, at, maxEll, maxEll)
	return sp, nil
}

// spliceEllipsis returns a term's letter labels with, where its ellipsis
// stood (at; -1 if it has none), the labels of the last n of the maxEll
// dimensions an ellipsis stands for.
func spliceEllipsis(letters []int, at, maxEll, n int) []int {
	if at < 0 {
		return slices.Clone(letters)
	}
	ell := make([]int, 0, n)
	for j := maxEll - n; j < maxEll; j++ {
		ell = append(ell, einsumLetters+j)
	}
	return slices.Concat(letters[:at], ell, letters[at:])
}

// einsumTerm is an operand or an intermediate result with its labels;
// owned says whether the einsum must release it.
type einsumTerm struct {
	ref    *refs.Ref
	labels []int
	owned  bool
}

// einsumRun submits the ops of one einsum call.
type einsumRun struct {
	th   *eval.Thread
	spec *einsumSpec
}

// apply submits op over t and returns the result, with labels, releasing
// t if it was an intermediate result.
func (r *einsumRun) apply(t einsumTerm, op ops.Op, attrs any, labels []int) (einsumTerm, error) {
	out, err := r.th.RT.Submit(r.th.Site(), op, attrs, t.ref)
	r.drop(t)
	if err != nil {
		return einsumTerm{}, err
	}
	return einsumTerm{ref: out, labels: labels, owned: true}, nil
}

// permute orders t's dimensions as labels (a permutation of t's).
func (r *einsumRun) permute(t einsumTerm, labels []int) (einsumTerm, error) {
	if slices.Equal(t.labels, labels) {
		return t, nil
	}
	perm := make([]int, len(labels))
	for i, l := range labels {
		perm[i] = slices.Index(t.labels, l)
	}
	return r.apply(t, ops.Permute, ops.PermuteAttrs{Dims: perm}, labels)
}

// reshape gives t the shape s (same elements) and the labels labels.
func (r *einsumRun) reshape(t einsumTerm, s tensor.Shape, labels []int) (einsumTerm, error) {
	if t.ref.Shape().Equal(s) {
		t.labels = labels
		return t, nil
	}
	return r.apply(t, ops.Reshape, ops.ReshapeAttrs{Shape: s}, labels)
}

// sum sums t over the labels for which drop is true.
func (r *einsumRun) sum(t einsumTerm, drop func(l int) bool) (einsumTerm, error) {
	var dims, keep []int
	for d, l := range t.labels {
		if drop(l) {
			dims = append(dims, d)
		} else {
			keep = append(keep, l)
		}
	}
	if len(dims) == 0 {
		return t, nil
	}
	return r.apply(t, ops.Sum, ops.ReduceAttrs{Dims: dims}, keep)
}

// broadcast expands t's dimensions of size 1 whose label is larger.
func (r *einsumRun) broadcast(t einsumTerm) (einsumTerm, error) {
	s := t.ref.Shape()
	to := make(tensor.Shape, len(s))
	grow := false
	for d, l := range t.labels {
		to[d] = r.spec.size[l]
		grow = grow || to[d] != s[d]
	}
	if !grow {
		return t, nil
	}
	return r.apply(t, ops.Expand, ops.ExpandAttrs{Shape: to}, t.labels)
}

// diagonal takes, for each label repeated in t, the elements where its
// dimensions' indices agree: those dimensions go last, merge into one of
// n^k elements, and every (n^k - 1)/(n - 1)-th of them is on the diagonal.
func (r *einsumRun) diagonal(t einsumTerm) (einsumTerm, error) {
	for {
		rep := -1
		for d, l := range t.labels {
			if slices.Index(t.labels, l) < d {
				rep = l
				break
			}
		}
		if rep < 0 {
			return t, nil
		}
		var rest []int
		k := 0
		for _, l := range t.labels {
			if l == rep {
				k++
			} else {
				rest = append(rest, l)
			}
		}
		perm := make([]int, 0, len(t.labels))
		for d, l := range t.labels {
			if l != rep {
				perm = append(perm, d)
			}
		}
		for d, l := range t.labels {
			if l == rep {
				perm = append(perm, d)
			}
		}
		var err error
		if t, err = r.apply(t, ops.Permute, ops.PermuteAttrs{Dims: perm}, nil); err != nil {
			return einsumTerm{}, err
		}
		s := t.ref.Shape()
		n := s[len(s)-1]
		flat, step := 1, 0
		for range k {
			flat, step = flat*n, step*n+1
		}
		merged := append(s[:len(rest):len(rest)].Clone(), flat)
		if t, err = r.reshape(t, merged, nil); err != nil {
			return einsumTerm{}, err
		}
		items := ops.FullSlices(len(merged))
		items[len(rest)].Step = max(step, 1)
		if t, err = r.apply(t, ops.Index, ops.IndexAttrs{Items: items}, append(rest, rep)); err != nil {
			return einsumTerm{}, err
		}
	}
}

// arrange orders t's dimensions as labels and gives it shape s.
func (r *einsumRun) arrange(t einsumTerm, labels []int, s tensor.Shape) (einsumTerm, error) {
	t, err := r.permute(t, labels)
	if err != nil {
		return t, err
	}
	return r.reshape(t, s, labels)
}

// drop releases t if it is an intermediate result.
func (r *einsumRun) drop(t einsumTerm) {
	if t.owned {
		r.th.RT.Release(t.ref)
	}
}

// contract multiplies a and b and sums over their shared labels that
// needed leaves out, as one batched matmul: a as [batch, left, shared],
// b as [batch, shared, right] (each group of labels merged into one
// dimension).
func (r *einsumRun) contract(a, b einsumTerm, needed func(l int) bool) (einsumTerm, error) {
	var batch, shared, left, right []int
	for _, l := range a.labels {
		switch {
		case !slices.Contains(b.labels, l):
			left = append(left, l)
		case needed(l):
			batch = append(batch, l)
		default:
			shared = append(shared, l)
		}
	}
	for _, l := range b.labels {
		if !slices.Contains(a.labels, l) {
			right = append(right, l)
		}
	}
	prod := func(ls []int) int {
		n := 1
		for _, l := range ls {
			n *= r.spec.size[l]
		}
		return n
	}
	nb, nl, nc, nr := prod(batch), prod(left), prod(shared), prod(right)
	// Without batch labels, 2-d products: an operand already [rows, cols]
	// is then not reshaped (a copy, while it is alive).
	as, bs := tensor.Shape{nb, nl, nc}, tensor.Shape{nb, nc, nr}
	if len(batch) == 0 {
		as, bs = as[1:], bs[1:]
	}
	var err error
	if a, err = r.arrange(a, slices.Concat(batch, left, shared), as); err != nil {
		r.drop(b)
		return einsumTerm{}, err
	}
	if b, err = r.arrange(b, slices.Concat(batch, shared, right), bs); err != nil {
		r.drop(a)
		return einsumTerm{}, err
	}
	out, err := r.th.RT.Submit(r.th.Site(), ops.Matmul, nil, a.ref, b.ref)
	r.drop(a)
	r.drop(b)
	if err != nil {
		return einsumTerm{}, err
	}
	labels := slices.Concat(batch, left, right)
	shape := make(tensor.Shape, len(labels))
	for i, l := range labels {
		shape[i] = r.spec.size[l]
	}
	return r.reshape(einsumTerm{ref: out, owned: true}, shape, labels)
}

// run computes the einsum of operands, borrowed, into an owned result.
func (r *einsumRun) run(operands []*refs.Ref) (*refs.Ref, error) {
	sp := r.spec
	// uses[l] counts the operands not yet folded in that carry label l,
	// plus one if the output does.
	uses := make([]int, len(sp.size))
	for _, ls := range sp.ins {
		for i, l := range ls {
			if slices.Index(ls, l) == i {
				uses[l]++
			}
		}
	}
	for _, l := range sp.out {
		uses[l]++
	}
	// prepare brings an operand to distinct labels, sums out the labels
	// that neither the operands after it, the output nor acc (the
	// product so far) carry, and broadcasts its size-1 dimensions.
	prepare := func(t einsumTerm, acc []int) (einsumTerm, error) {
		t, err := r.diagonal(t)
		if err != nil {
			return t, err
		}
		for _, l := range t.labels {
			uses[l]--
		}
		if t, err = r.sum(t, func(l int) bool { return uses[l] == 0 && !slices.Contains(acc, l) }); err != nil {
			return t, err
		}
		return r.broadcast(t)
	}
	acc, err := prepare(einsumTerm{ref: operands[0], labels: sp.ins[0]}, nil)
	if err != nil {
		return nil, err
	}
	for k := 1; k < len(operands); k++ {
		next, err := prepare(einsumTerm{ref: operands[k], labels: sp.ins[k]}, acc.labels)
		if err != nil {
			r.drop(acc)
			return nil, err
		}
		if acc, err = r.contract(acc, next, func(l int) bool { return uses[l] > 0 }); err != nil {
			return nil, err
		}
	}
	if acc, err = r.permute(acc, sp.out); err != nil {
		return nil, err
	}
	if !acc.owned {
		r.th.RT.Retain(acc.ref) // einsum("ij", x) is x itself
	}
	return acc.ref, nil
}

func builtinEinsum(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("einsum takes no keyword arguments (got %s=)", kwargs[0].Name)
	}
	if len(args) < 2 {
		return nil, fmt.Errorf("einsum wants an equation and at least one operand, got %d argument(s)", len(args))
	}
	eq, ok := args[0].(eval.String)
	if !ok {
		return nil, fmt.Errorf("einsum: the equation must be a string, not %s", eval.Describe(args[0]))
	}
	vals := args[1:]
	if l, ok := args[1].(*eval.List); ok && len(args) == 2 {
		vals = l.Elems
	}
	operands := make([]*refs.Ref, len(vals))
	shapes := make([]tensor.Shape, len(vals))
	for i, v := range vals {
		x, err := th.ToRef(v)
		if err != nil {
			return nil, fmt.Errorf("einsum: operand %d must be a tensor or a number, not %s", i, eval.Describe(v))
		}
		operands[i], shapes[i] = x, x.Shape()
	}
	sp, err := parseEinsum(string(eq), shapes)
	if err != nil {
		return nil, fmt.Errorf("einsum: %w", err)
	}
	out, err := (&einsumRun{th: th, spec: sp}).run(operands)
	if err != nil {
		return nil, err
	}
	return eval.Tensor{Ref: out}, nil
}
