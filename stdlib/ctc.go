package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The connectionist temporal classification loss, composed of tref's ops:
// the forward (alpha) recursion of Graves et al. in log space, vectorised
// over the batch and over the positions of the extended targets, one
// handful of ops per time step. Its gradient is autograd's through those
// ops, plus torch's extra term (below), so it is torch's.
func init() {
	register("ctc_loss", "ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=\"mean\", zero_infinity=false): "+
		"-log of each target's probability summed over its alignments (blanks anywhere, and between repeated labels) to "+
		"log_probs [T, N, C] (log-softmaxed over C; or unbatched [T, C]), float32 or float64, as torch's F.ctc_loss. "+
		"targets is [N, S] padded (the first target_lengths[n] of row n count) or 1-d, the targets concatenated; the lengths are "+
		"lists of ints or integer tensors of N values, input_lengths at most T. reduction \"none\" gives the [N] losses "+
		"(0-d unbatched), \"sum\" their sum, \"mean\" the mean of each loss divided by its target length (at least 1). "+
		"An impossible alignment gives inf and a NaN gradient over that sample's input steps (zero_infinity: 0 and a zero gradient). "+
		"The gradient with respect to log_probs is torch's: the derivative plus exp(log_probs) over each sample's input steps "+
		"(a term that a log_softmax before it cancels). Departures: targets must be integers in [0, C) other than blank, and the "+
		"lengths integers (one int is one length); an input length of 0 gives 0 for an empty target and inf otherwise (torch's kernel "+
		"reads outside the sample); where log_probs holds -inf, gradients torch makes NaN are finite here", builtinCTCLoss)
}

// ctcLengths reads input_lengths or target_lengths: a list of ints, one
// int, or an integer tensor of at most one dimension.
func ctcLengths(th *eval.Thread, fname, param string, v eval.Value) ([]int64, error) {
	switch v := v.(type) {
	case eval.Tensor:
		r := v.Ref
		if !r.DType().IsInt() || len(r.Shape()) > 1 {
			return nil, fmt.Errorf("%s: %s must be a list of ints or a 0-d or 1-d integer tensor, got %v", fname, param, r.Meta())
		}
		return readInts(th, r)
	case *eval.List:
		out := make([]int64, len(v.Elems))
		for i, e := range v.Elems {
			n, ok := th.AsInt(e)
			if !ok {
				return nil, fmt.Errorf("%s: element %d of %s must be an int, not %s", fname, i, param, eval.Describe(e))
			}
			out[i] = int64(n)
		}
		return out, nil
	}
	if n, ok := th.AsInt(v); ok {
		return []int64{int64(n)}, nil
	}
	return nil, fmt.Errorf("%s: %s must be a list of ints or an integer tensor, not %s", fname, param, eval.Describe(v))
}

// ctcProblem is a checked ctc_loss call: the shapes, the lengths and each
// sample's target labels, read on the host.
type ctcProblem struct {
	t, n, c, blank int
	inLen, tgtLen  []int
	labels         [][]int64
	maxS           int
}

func checkCTC(th *eval.Thread, fname string, lp, targets *refs.Ref, ilV, tlV eval.Value, blank int) (*ctcProblem, error) {
	if dt := lp.DType(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("%s: log_probs must be float32 or float64, got %s", fname, dt)
	}
	ls := lp.Shape()
	if len(ls) != 2 && len(ls) != 3 {
		return nil, fmt.Errorf("%s: log_probs must be [T, N, C] or unbatched [T, C], got shape %v", fname, ls)
	}
	p := &ctcProblem{t: ls[0], n: 1, c: ls[len(ls)-1], blank: blank}
	if len(ls) == 3 {
		p.n = ls[1]
	}
	if blank < 0 || blank >= p.c {
		return nil, fmt.Errorf("%s: blank must be in label range [0, %d), got %d", fname, p.c, blank)
	}
	if !targets.DType().IsInt() {
		return nil, fmt.Errorf("%s: targets must be an integer tensor of class indices, got %v", fname, targets.Meta())
	}
	ts := targets.Shape()
	if len(ts) != 1 && len(ts) != 2 {
		return nil, fmt.Errorf("%s: targets must be [N, S] padded or 1-d concatenated, got shape %v", fname, ts)
	}
	il, err := ctcLengths(th, fname, "input_lengths", ilV)
	if err != nil {
		return nil, err
	}
	tl, err := ctcLengths(th, fname, "target_lengths", tlV)
	if err != nil {
		return nil, err
	}
	if len(il) != p.n {
		return nil, fmt.Errorf("%s: input_lengths must be of size batch_size (%d), got %d values", fname, p.n, len(il))
	}
	if len(tl) != p.n {
		return nil, fmt.Errorf("%s: target_lengths must be of size batch_size (%d), got %d values", fname, p.n, len(tl))
	}
	p.inLen, p.tgtLen = make([]int, p.n), make([]int, p.n)
	total := int64(0)
	for i := range p.n {
		if il[i] < 0 || il[i] > int64(p.t) {
			return nil, fmt.Errorf("%s: input_lengths[%d] is %d; it must be in [0, T] = [0, %d]", fname, i, il[i], p.t)
		}
		if tl[i] < 0 || tl[i] > int64(ts.Numel()) {
			return nil, fmt.Errorf("%s: target_lengths[%d] is %d; it must be in [0, %d], the number of targets", fname, i, tl[i], ts.Numel())
		}
		p.inLen[i], p.tgtLen[i] = int(il[i]), int(tl[i])
		p.maxS = max(p.maxS, int(tl[i]))
		total += tl[i]
	}
	if len(ts) == 2 {
		if ts[0] != p.n {
			return nil, fmt.Errorf("%s: padded targets must have one row per sample: expected size %d at dimension 0, got shape %v", fname, p.n, ts)
		}
		if ts[1] < p.maxS {
			return nil, fmt.Errorf("%s: padded targets must have size at least max(target_lengths) = %d at dimension 1, got shape %v", fname, p.maxS, ts)
		}
	} else if int64(ts[0]) != total {
		return nil, fmt.Errorf("%s: concatenated targets must have sum(target_lengths) = %d elements, got shape %v", fname, total, ts)
	}
	vals, err := readInts(th, targets)
	if err != nil {
		return nil, err
	}
	p.labels = make([][]int64, p.n)
	off := 0
	for i := range p.n {
		if len(ts) == 2 {
			off = i * ts[1]
		}
		p.labels[i] = vals[off : off+p.tgtLen[i]]
		for j, v := range p.labels[i] {
			switch {
			case v < 0 || v >= int64(p.c):
				return nil, fmt.Errorf("%s: target %d of sample %d is %d, outside the classes [0, %d)", fname, j, i, v, p.c)
			case v == int64(blank):
				return nil, fmt.Errorf("%s: target %d of sample %d is the blank (%d); targets must not hold it", fname, j, i, v)
			}
		}
		off += p.tgtLen[i]
	}
	return p, nil
}

func builtinCTCLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lp, targets *refs.Ref
	var ilV, tlV eval.Value
	blank := 0
	reduction := "mean"
	zeroInf := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "log_probs", &lp, "targets", &targets, "input_lengths", &ilV,
		"target_lengths", &tlV, "blank?", &blank, "reduction?", &reduction, "zero_infinity?", &zeroInf); err != nil {
		return nil, err
	}
	r, err := parseReduction(b.Name, reduction)
	if err != nil {
		return nil, err
	}
	p, err := checkCTC(th, b.Name, lp, targets, ilV, tlV, blank)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	dt := lp.DType()
	lp3 := c.Reshape(lp, tensor.Shape{p.t, p.n, p.c})
	maxT, anyEmpty := 0, false
	for _, l := range p.inLen {
		maxT = max(maxT, l)
		anyEmpty = anyEmpty || l == 0
	}
	var nll, extra *refs.Ref // [N]
	if maxT == 0 {
		// No sample has an input step (or there is no sample): every loss
		// is set below; this keeps the result's link to log_probs.
		nll = c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{0, 2}}, lp3)
	} else {
		lpu := lp3
		if maxT < p.t {
			lpu = c.Op(ops.Index, ops.IndexAttrs{Items: ops.SliceAlong(0, 0, maxT)}, lp3)
		}
		nll = c.ctcForward(p, lpu, maxT)
		extra = c.ctcTorchTerm(p, lpu, maxT)
	}
	if anyEmpty {
		// An input of length 0 aligns only with an empty target.
		empty, fixed := make([]float64, p.n), make([]float64, p.n)
		for i := range p.n {
			if p.inLen[i] == 0 {
				empty[i] = 1
				if p.tgtLen[i] > 0 {
					fixed[i] = math.Inf(1)
				}
			}
		}
		nll = c.Op(ops.Where, nil, c.hostDense(empty, tensor.Shape{p.n}, tensor.Bool), c.hostDense(fixed, tensor.Shape{p.n}, dt), nll)
	}
	loss := nll
	if extra != nil {
		loss = c.Op(ops.Add, nil, nll, extra)
	}
	inf := c.Op(ops.Eq, nil, nll, c.scalar(math.Inf(1), dt))
	if zeroInf {
		loss = c.Op(ops.Where, nil, inf, c.scalar(0, dt), loss)
	} else if extra != nil {
		// torch's gradient of an infinite loss is NaN over the sample's
		// input steps: -log(0·extra) is inf, and its gradient 0·(1/0)
		// reaches every log_probs[t, n, c] with t < input_lengths[n].
		zero := c.Op(ops.Mul, nil, extra, c.scalar(0, dt))
		nan := c.Op(ops.Neg, nil, c.Op(ops.Log, nil, c.Op(ops.Where, nil, inf, zero, c.scalar(1, dt))))
		loss = c.Op(ops.Where, nil, inf, nan, loss)
	}
	switch r {
	case ops.ReduceMean:
		div := make([]float64, p.n)
		for i, l := range p.tgtLen {
			div[i] = float64(max(l, 1))
		}
		loss = c.Op(ops.Mean, ops.ReduceAttrs{}, c.Op(ops.Div, nil, loss, c.hostDense(div, tensor.Shape{p.n}, dt)))
	case ops.ReduceSum:
		loss = c.Op(ops.Sum, ops.ReduceAttrs{}, loss)
	default:
		if len(lp.Shape()) == 2 {
			loss = c.Reshape(loss, tensor.Shape{})
		}
	}
	return named(b.Name)(c.Result(loss))
}

// hostDense is a ref of shape s and dtype dt holding vs.
func (c *chain) hostDense(vs []float64, s tensor.Shape, dt tensor.DType) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	d := tensor.NewDense(tensor.Meta{Shape: s.Clone(), DType: dt})
	for i, v := range vs {
		d.Set(i, v)
	}
	return c.Host(d)
}

// ctcForward is each sample's -log p(target | input) [N] from the
// log-probabilities lp [T', N, C] of the first T' = maxT steps.
//
// The extended target l' of sample n (blanks around and between its
// labels) has 2·S_n + 1 positions; alpha_t(s) = log of the summed
// probability of the paths through l'(0..s) over steps 0..t. alpha lives
// in a [N, L+1, 1] tensor, L = 2·max(S_n) + 1: column s+1 holds position
// s, column 0 stays -inf (it stands for every predecessor that does not
// exist). One gather picks each position's three predecessors (itself,
// s-1, and s-2 where l'(s) is a label other than l'(s-2); column 0
// otherwise), and a guarded log-sum-exp combines them; a sample past its
// input length keeps its alphas.
func (c *chain) ctcForward(p *ctcProblem, lp *refs.Ref, maxT int) *refs.Ref {
	th := c.Thread()
	n, width := p.n, 2*p.maxS+2 // width: L+1 columns
	dt := lp.DType()
	label := func(i, s int) int64 { // l'(s) of sample i
		if s%2 == 0 || (s-1)/2 >= p.tgtLen[i] {
			return int64(p.blank)
		}
		return p.labels[i][(s-1)/2]
	}
	// The host tables below (emit, pred, init: 5 words a column) and the
	// device's alphas and emissions per step, checked before any is made.
	if err := th.RT.HostPool().Check(int64(n) * int64(width) * 8 * 8); err != nil {
		c.Fail(fmt.Errorf("ctc_loss: %v", err))
		return nil
	}
	emit := make([]int64, n*width)   // the class of each column
	pred := make([]int64, n*width*3) // the columns of its predecessors
	init := make([]float64, n*width) // the columns alpha_0 may reach
	readout := make([]int64, n*2)    // the columns of positions 2S_n and 2S_n - 1
	minT := maxT
	for i := range n {
		minT = min(minT, p.inLen[i])
		for col := range width {
			emit[i*width+col] = int64(p.blank)
			if col == 0 {
				continue
			}
			s := col - 1
			emit[i*width+col] = label(i, s)
			q := pred[(i*width+col)*3:]
			q[0] = int64(col)
			if s >= 1 {
				q[1] = int64(col - 1)
			}
			if s%2 == 1 && s >= 3 && (s-1)/2 < p.tgtLen[i] && label(i, s) != label(i, s-2) {
				q[2] = int64(col - 2)
			}
			if s <= 1 {
				init[i*width+col] = 1
			}
		}
		readout[i*2] = int64(2*p.tgtLen[i] + 1)
		if p.tgtLen[i] > 0 {
			readout[i*2+1] = int64(2 * p.tgtLen[i])
		}
	}
	negInf := c.scalar(math.Inf(-1), dt)
	// em[t] is log_probs[t, n, l'(s)] at column s+1 (the blank's at column
	// 0, whose sum stays -inf).
	idx := c.Expand(c.hostInts(emit, tensor.Shape{1, n, width}), tensor.Shape{maxT, n, width})
	em := c.Reshape(c.Op(ops.Gather, ops.DimAttrs{Dim: 2}, lp, idx), tensor.Shape{maxT, n, width, 1})
	at := func(x *refs.Ref, t int) *refs.Ref {
		return c.Op(ops.Index, ops.IndexAttrs{Items: ops.AtAlong(0, t)}, x)
	}
	alpha := c.Op(ops.Where, nil, c.hostDense(init, tensor.Shape{n, width, 1}, tensor.Bool), at(em, 0), negInf)
	predIdx := c.hostInts(pred, tensor.Shape{n, width * 3, 1})
	var active *refs.Ref // [T', N, 1, 1]: t < input_lengths[n]
	if minT < maxT {
		act := make([]float64, maxT*n)
		for t := range maxT {
			for i := range n {
				if t < p.inLen[i] {
					act[t*n+i] = 1
				}
			}
		}
		active = c.hostDense(act, tensor.Shape{maxT, n, 1, 1}, tensor.Bool)
	}
	if c.Err() != nil {
		return nil
	}
	// Each step's intermediates are released once the next alpha exists;
	// the ones the gradient needs stay on the tape.
	th.RT.Retain(alpha)
	for t := 1; t < maxT; t++ {
		s := newChain(th)
		cand := s.Reshape(s.Op(ops.Gather, ops.DimAttrs{Dim: 1}, alpha, predIdx), tensor.Shape{n, width, 3})
		next := s.Op(ops.Add, nil, s.logSumExp(cand, negInf), s.Op(ops.Index, ops.IndexAttrs{Items: ops.AtAlong(0, t)}, em))
		if t >= minT {
			next = s.Op(ops.Where, nil, s.Op(ops.Index, ops.IndexAttrs{Items: ops.AtAlong(0, t)}, active), next, alpha)
		}
		th.RT.Release(alpha)
		if s.Err() != nil {
			c.Fail(s.Err())
			s.Release()
			return nil
		}
		th.RT.Retain(next)
		s.Release()
		alpha = next
	}
	c.Keep(alpha)
	ends := c.Op(ops.Gather, ops.DimAttrs{Dim: 1}, c.Reshape(alpha, tensor.Shape{n, width}), c.hostInts(readout, tensor.Shape{n, 2}))
	return c.Op(ops.Neg, nil, c.Reshape(c.logSumExp(ends, negInf), tensor.Shape{n}))
}

// logSumExp is log(sum(exp(x))) over x's last dimension (kept, of size
// 1), where all -inf gives -inf with a zero gradient: the shift m, the
// largest element clamped to be finite, is a constant, and a zero sum
// takes neither the log nor its gradient.
func (c *chain) logSumExp(x, negInf *refs.Ref) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	last := len(x.Shape()) - 1
	dt := x.DType()
	lowest := -math.MaxFloat64
	if dt == tensor.Float32 {
		lowest = -math.MaxFloat32
	}
	m := c.detached(func() *refs.Ref {
		return c.Op(ops.Clamp, ops.ClampAttrs{Min: lowest, HasMin: true, MinFloat: true},
			c.Op(ops.Max, ops.ReduceAttrs{Dims: []int{last}, Keepdim: true}, x))
	})
	sum := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{last}, Keepdim: true}, c.Op(ops.Exp, nil, c.Op(ops.Sub, nil, x, m)))
	some := c.Op(ops.Gt, nil, sum, c.scalar(0, dt))
	safe := c.Op(ops.Where, nil, some, sum, c.scalar(1, dt))
	return c.Op(ops.Where, nil, some, c.Op(ops.Add, nil, c.Op(ops.Log, nil, safe), m), negInf)
}

// ctcTorchTerm is the [N] term whose value is 0 and whose gradient is
// exp(log_probs[t, n, c]) for t < input_lengths[n], which torch's ctc
// kernel adds to the derivative (it assumes a log_softmax before it,
// which removes any such term): exp(x) - exp(x) with the second detached.
func (c *chain) ctcTorchTerm(p *ctcProblem, lp *refs.Ref, maxT int) *refs.Ref {
	mask := make([]float64, maxT*p.n)
	for t := range maxT {
		for i := range p.n {
			if t < p.inLen[i] {
				mask[t*p.n+i] = 1
			}
		}
	}
	dt := lp.DType()
	e := c.Op(ops.Exp, nil, c.Op(ops.Where, nil, c.hostDense(mask, tensor.Shape{maxT, p.n, 1}, tensor.Bool), lp, c.scalar(math.Inf(-1), dt)))
	if c.Err() != nil {
		return nil
	}
	same := c.detached(func() *refs.Ref { return c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: e.Shape()}, e) })
	return c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{0, 2}}, c.Op(ops.Sub, nil, e, same))
}
