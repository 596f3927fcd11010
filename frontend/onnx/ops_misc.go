package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The unary math that is one runtime op each, and ops composed from the
// runtime's: masks made on the host (Trilu, EyeLike, OneHot), one-hot
// selections (Hardmax, GatherElements, ScatterElements, the losses),
// rearrangements (DepthToSpace, SpaceToDepth) and the shape arithmetic of
// Range.

func init() {
	direct := map[string]ops.Op{"Erf": ops.Erf, "Tan": ops.Tan, "Asin": ops.Asin, "Acos": ops.Acos, "Atan": ops.Atan, "Sinh": ops.Sinh, "Cosh": ops.Cosh, "Asinh": ops.Asinh, "Acosh": ops.Acosh, "Atanh": ops.Atanh, "Round": ops.Round, "IsNaN": ops.Isnan, "Floor": ops.Floor, "Ceil": ops.Ceil, "Sign": ops.Sign, "Det": ops.Det}
	for onnxName, op := range direct {
		lower([]string{onnxName}, func(c *ctx, ins []*value) ([]*value, error) {
			if err := need(ins, 0); err != nil {
				return nil, err
			}
			var attrs any
			if op == ops.Round {
				attrs = ops.RoundAttrs{}
			}
			return one(c.op(op, attrs, ins[0]))
		})
	}
	lower([]string{"IsInf"}, lowerIsInf)
	lower([]string{"Trilu"}, lowerTrilu)
	lower([]string{"EyeLike"}, lowerEyeLike)
	lower([]string{"Range"}, lowerRange)
	lower([]string{"OneHot"}, lowerOneHot)
	lower([]string{"Hardmax"}, lowerHardmax)
	lower([]string{"GatherElements"}, lowerGatherElements)
	lower([]string{"ScatterElements"}, lowerScatterElements)
	lower([]string{"DepthToSpace", "SpaceToDepth"}, lowerDepthSpace)
	lower([]string{"BitShift"}, lowerBitShift)
	lower([]string{"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}, lowerLoss)
	lower([]string{"CumSum"}, lowerCumSum)
	lower([]string{"TopK"}, lowerTopK)
	lower([]string{"Scatter"}, lowerScatterElements)
}

func lowerIsInf(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	inf, err := c.op(ops.Isinf, nil, x)
	if err != nil {
		return nil, err
	}
	pos, neg := c.attrInt("detect_positive", 1) != 0, c.attrInt("detect_negative", 1) != 0
	if pos && neg {
		return []*value{inf}, nil
	}
	if !pos && !neg {
		return one(c.op(ops.Where, nil, inf, c.scalar(tensor.Bool, 0), inf))
	}
	cmp := ops.Gt
	if neg {
		cmp = ops.Lt
	}
	side, err := c.op(cmp, nil, x, c.scalar(x.meta.DType, 0))
	if err != nil {
		return nil, err
	}
	return one(c.and(inf, side))
}

// mask2d is a host bool constant [rows, cols] true where keep(i, j).
func (c *ctx) mask2d(rows, cols int, keep func(i, j int) bool) (*value, error) {
	if _, err := tensor.CheckedNumel(tensor.Shape{rows, cols}); err != nil {
		return nil, err
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{rows, cols}, DType: tensor.Bool})
	for i := range rows {
		for j := range cols {
			if keep(i, j) {
				d.Buf[i*cols+j] = 1
			}
		}
	}
	return c.keep(&value{meta: d.Meta, c: d}), nil
}

func lowerTrilu(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	if r < 2 {
		return nil, fmt.Errorf("needs a tensor of rank 2 or more, got %v", x.meta.Shape)
	}
	k := int64(0)
	if v := input(ins, 1); v != nil {
		kv, err := c.ints(v, "k")
		if err != nil {
			return nil, err
		}
		if len(kv) != 1 {
			return nil, fmt.Errorf("k must have one element")
		}
		k = kv[0]
	}
	upper := c.attrInt("upper", 1) != 0
	rows, cols := x.meta.Shape[r-2], x.meta.Shape[r-1]
	mask, err := c.mask2d(rows, cols, func(i, j int) bool {
		if upper {
			return int64(j-i) >= k
		}
		return int64(j-i) <= k
	})
	if err != nil {
		return nil, err
	}
	return one(c.op(ops.Where, nil, mask, x, c.scalar(x.meta.DType, 0)))
}

func lowerEyeLike(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	if len(x.meta.Shape) != 2 {
		return nil, fmt.Errorf("needs a 2-d input, got %v", x.meta.Shape)
	}
	dt := x.meta.DType
	if a := c.attr("dtype"); a != nil {
		var ok bool
		if dt, ok = DataType(a.I).DType(); !ok {
			return nil, fmt.Errorf("tref has no %s tensors", DataType(a.I))
		}
	}
	k := int(c.attrInt("k", 0))
	mask, err := c.mask2d(x.meta.Shape[0], x.meta.Shape[1], func(i, j int) bool { return j-i == k })
	if err != nil {
		return nil, err
	}
	return one(c.cast(mask, dt))
}

// lowerRange computes start, start+delta, ... below limit on the host; its
// inputs must be known (they are, in exported graphs: shapes and
// constants).
func lowerRange(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	var v [3]float64
	for i, name := range []string{"start", "limit", "delta"} {
		x, err := c.scalarOf(ins[i], name)
		if err != nil {
			return nil, err
		}
		v[i] = x
	}
	start, limit, delta := v[0], v[1], v[2]
	if delta == 0 {
		return nil, fmt.Errorf("delta is 0")
	}
	n := 0
	if q := (limit - start) / delta; q > 0 {
		n = int(q)
		if float64(n) < q {
			n++
		}
	}
	if n > tensor.MaxElements {
		return nil, fmt.Errorf("%d elements", n)
	}
	dt := ins[0].meta.DType
	if err := c.rt.HostPool().Check(int64(n) * int64(dt.Size())); err != nil {
		return nil, err
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: dt})
	for i := range n {
		if dt.IsFloat() {
			d.Set(i, start+float64(i)*delta)
		} else {
			d.SetInt(i, int64(start)+int64(i)*int64(delta))
		}
	}
	return []*value{c.keep(&value{meta: d.Meta, c: d})}, nil
}

// iota is the host constant [0, 1, ..., n-1] of dtype int64, shaped to
// lie along axis ax of a rank-r tensor.
func (c *ctx) iota(n, ax, r int) *value {
	d := tensor.NewDense(tensor.Meta{Shape: alongAxis(r, ax, n), DType: tensor.Int64})
	for i := range n {
		d.I64()[i] = int64(i)
	}
	return c.keep(&value{meta: d.Meta, c: d})
}

// oneHot is the bool mask [.., n at ax, ..] true where the position along
// ax equals idx (idx has a dimension of 1 at ax; negative indices count
// from the end).
func (c *ctx) oneHot(idx *value, n, ax int) (*value, error) {
	idx, err := c.wrapIndex(idx, n)
	if err != nil {
		return nil, err
	}
	return c.op(ops.Eq, nil, idx, c.iota(n, ax, len(idx.meta.Shape)))
}

// wrapIndex maps negative indices i to i + n, as int64.
func (c *ctx) wrapIndex(idx *value, n int) (*value, error) {
	idx, err := c.cast(idx, tensor.Int64)
	if err != nil {
		return nil, err
	}
	zero := c.scalar(tensor.Int64, 0)
	neg, err := c.op(ops.Lt, nil, idx, zero)
	if err != nil {
		return nil, err
	}
	w, err := c.op(ops.Add, nil, idx, c.scalar(tensor.Int64, float64(n)))
	if err != nil {
		return nil, err
	}
	return c.op(ops.Where, nil, neg, w, idx)
}

// unsqueeze inserts a dimension of 1 at ax.
func (c *ctx) unsqueeze(v *value, ax int) (*value, error) {
	s := append(append(v.meta.Shape[:ax].Clone(), 1), v.meta.Shape[ax:]...)
	return c.reshape(v, s)
}

func lowerOneHot(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	idx, depthV, vals := ins[0], ins[1], ins[2]
	depth, err := c.scalarOf(depthV, "depth")
	if err != nil {
		return nil, err
	}
	if depth < 1 || depth > float64(tensor.MaxElements) {
		return nil, fmt.Errorf("depth %v", depth)
	}
	n := int(depth)
	r := len(idx.meta.Shape) + 1
	ax, err := axis(c.attrInt("axis", -1), r)
	if err != nil {
		return nil, err
	}
	if idx.meta.DType.IsFloat() {
		if idx, err = c.op(ops.Trunc, nil, idx); err != nil {
			return nil, err
		}
	}
	u, err := c.unsqueeze(idx, ax)
	if err != nil {
		return nil, err
	}
	mask, err := c.oneHot(u, n, ax)
	if err != nil {
		return nil, err
	}
	if vals.meta.Shape.Numel() != 2 {
		return nil, fmt.Errorf("values must have two elements")
	}
	off, err := c.slice(vals, 0, 0, 1, 1)
	if err != nil {
		return nil, err
	}
	on, err := c.slice(vals, 0, 1, 2, 1)
	if err != nil {
		return nil, err
	}
	return one(c.op(ops.Where, nil, mask, on, off))
}

func lowerHardmax(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	if c.opset < 13 {
		// Before 13: over the input flattened to 2-d at axis.
		ax, err := axis(c.attrInt("axis", 1), r)
		if err != nil {
			return nil, err
		}
		outer := 1
		for _, d := range x.meta.Shape[:ax] {
			outer *= d
		}
		x2, err := c.reshape(x, tensor.Shape{outer, x.meta.Shape.Numel() / max(outer, 1)})
		if err != nil {
			return nil, err
		}
		y, err := c.hardmax(x2, 1)
		if err != nil {
			return nil, err
		}
		return one(c.reshape(y, x.meta.Shape))
	}
	ax, err := axis(c.attrInt("axis", -1), r)
	if err != nil {
		return nil, err
	}
	return one(c.hardmax(x, ax))
}

// hardmax is 1 at the first maximum along ax, 0 elsewhere.
func (c *ctx) hardmax(x *value, ax int) (*value, error) {
	i, err := c.op(ops.Argmax, ops.ReduceAttrs{Dims: []int{ax}, Keepdim: true}, x)
	if err != nil {
		return nil, err
	}
	mask, err := c.oneHot(i, x.meta.Shape[ax], ax)
	if err != nil {
		return nil, err
	}
	return c.cast(mask, x.meta.DType)
}

// lowerGatherElements: out[.., i, ..] = data[.., idx[.., i, ..], ..]
// along axis: the runtime's gather after negative indices are wrapped.
func lowerGatherElements(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	data := ins[0]
	if len(ins[1].meta.Shape) != len(data.meta.Shape) {
		return nil, fmt.Errorf("indices of rank %d for data of rank %d", len(ins[1].meta.Shape), len(data.meta.Shape))
	}
	ax, idx, err := c.elementIndex(data, ins[1])
	if err != nil {
		return nil, err
	}
	return one(c.op(ops.Gather, ops.DimAttrs{Dim: ax}, data, idx))
}

// elementIndex reads the axis attribute of GatherElements and
// ScatterElements and checks and wraps their indices along it.
func (c *ctx) elementIndex(data, idx *value) (int, *value, error) {
	ax, err := axis(c.attrInt("axis", 0), len(data.meta.Shape))
	if err != nil {
		return 0, nil, err
	}
	n := data.meta.Shape[ax]
	if err := c.checkIndices(idx, n); err != nil {
		return 0, nil, err
	}
	idx, err = c.wrapIndex(idx, n)
	return ax, idx, err
}

// checkIndices rejects known indices outside [-n, n).
func (c *ctx) checkIndices(idx *value, n int) error {
	if idx.meta.DType.IsFloat() || idx.meta.DType == tensor.Bool {
		return fmt.Errorf("indices must be integers, got %s", idx.meta)
	}
	if idx.c == nil {
		return nil
	}
	for i := range idx.c.Numel() {
		if v := idx.c.IntAt(i); v < -int64(n) || v >= int64(n) {
			return fmt.Errorf("index %d out of range for a dimension of %d", v, n)
		}
	}
	return nil
}

// lowerScatterElements: data with data[.., idx[.., i, ..], ..] =
// updates[.., i, ..] along axis (reduction none, add, mul, max or min):
// the runtime's scatter, scatter_add or scatter_reduce after negative
// indices are wrapped.
func lowerScatterElements(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	data, upd := ins[0], ins[2]
	ax, idx, err := c.elementIndex(data, ins[1])
	if err != nil {
		return nil, err
	}
	return one(c.scatter(ax, data, idx, upd))
}

// scatterReductions maps ONNX's reduction attribute of ScatterElements
// and ScatterND to scatter_reduce's (the element's own value included).
var scatterReductions = map[string]string{"mul": "prod", "max": "amax", "min": "amin"}

// scatter is ScatterElements along ax by the node's reduction (none, add,
// mul, max, min): the runtime's scatter, scatter_add or scatter_reduce.
func (c *ctx) scatter(ax int, data, idx, upd *value) (*value, error) {
	switch red := c.attrString("reduction", "none"); red {
	case "none":
		return c.op(ops.Scatter, ops.DimAttrs{Dim: ax}, data, idx, upd)
	case "add":
		return c.op(ops.ScatterAdd, ops.DimAttrs{Dim: ax}, data, idx, upd)
	default:
		r, ok := scatterReductions[red]
		if !ok {
			return nil, fmt.Errorf("reduction %q is not supported", red)
		}
		return c.op(ops.ScatterReduce, ops.ScatterReduceAttrs{Dim: ax, Reduce: r, IncludeSelf: true}, data, idx, upd)
	}
}

func lowerDepthSpace(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	if len(x.meta.Shape) != 4 {
		return nil, fmt.Errorf("needs a 4-d input, got %v", x.meta.Shape)
	}
	b := int(c.attrInt("blocksize", 0))
	if b < 1 {
		return nil, fmt.Errorf("blocksize %d", b)
	}
	n, ch, h, w := x.meta.Shape[0], x.meta.Shape[1], x.meta.Shape[2], x.meta.Shape[3]
	var view tensor.Shape
	var perm []int
	var out tensor.Shape
	if c.node.OpType == "DepthToSpace" {
		if ch%(b*b) != 0 {
			return nil, fmt.Errorf("channels %d not divisible by blocksize² %d", ch, b*b)
		}
		out = tensor.Shape{n, ch / (b * b), h * b, w * b}
		if c.attrString("mode", "DCR") == "CRD" {
			view, perm = tensor.Shape{n, ch / (b * b), b, b, h, w}, []int{0, 1, 4, 2, 5, 3}
		} else {
			view, perm = tensor.Shape{n, b, b, ch / (b * b), h, w}, []int{0, 3, 4, 1, 5, 2}
		}
	} else {
		if h%b != 0 || w%b != 0 {
			return nil, fmt.Errorf("spatial size %dx%d not divisible by blocksize %d", h, w, b)
		}
		out = tensor.Shape{n, ch * b * b, h / b, w / b}
		view, perm = tensor.Shape{n, ch, h / b, b, w / b, b}, []int{0, 3, 5, 1, 2, 4}
	}
	v, err := c.reshape(x, view)
	if err != nil {
		return nil, err
	}
	if v, err = c.permute(v, perm); err != nil {
		return nil, err
	}
	return one(c.reshape(v, out))
}

// lowerBitShift shifts unsigned integers with the shift ops (a count
// past the width gives 0).
func lowerBitShift(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	switch dir := c.attrString("direction", ""); dir {
	case "LEFT":
		return one(c.op(ops.BitwiseLeftShift, nil, ins[0], ins[1]))
	case "RIGHT":
		return one(c.op(ops.BitwiseRightShift, nil, ins[0], ins[1]))
	default:
		return nil, fmt.Errorf("BitShift: direction must be \"LEFT\" or \"RIGHT\", got %q", dir)
	}
}

// lowerLoss is NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss as
// log_softmax over the classes followed by it (its optional second output
// is the log-probabilities).
func lowerLoss(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, target, weight := ins[0], ins[1], input(ins, 2)
	r := len(x.meta.Shape)
	if r < 2 || len(target.meta.Shape) != r-1 {
		return nil, fmt.Errorf("input %v and target %v do not fit", x.meta.Shape, target.meta.Shape)
	}
	var logp *value
	if c.node.OpType == "SoftmaxCrossEntropyLoss" {
		var err error
		if logp, err = c.op(ops.LogSoftmax, ops.SoftmaxAttrs{Dim: 1}, x); err != nil {
			return nil, err
		}
		x = logp
	}
	n := x.meta.Shape[1]
	tu, err := c.unsqueeze(target, 1)
	if err != nil {
		return nil, err
	}
	mask, err := c.op(ops.Eq, nil, tu, c.iota(n, 1, r)) // out-of-range targets (ignore_index) match nothing
	if err != nil {
		return nil, err
	}
	if a := c.attr("ignore_index"); a != nil {
		keep, err := c.op(ops.Ne, nil, tu, c.scalar(tu.meta.DType, float64(a.I)))
		if err != nil {
			return nil, err
		}
		if mask, err = c.and(mask, keep); err != nil {
			return nil, err
		}
	}
	zero := c.scalar(x.meta.DType, 0)
	picked, err := c.op(ops.Where, nil, mask, x, zero)
	if err != nil {
		return nil, err
	}
	loss, err := c.op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}}, picked)
	if err != nil {
		return nil, err
	}
	if loss, err = c.op(ops.Neg, nil, loss); err != nil {
		return nil, err
	}
	// w[target] per element (1, or 0 where ignored).
	var wcol *value
	if weight != nil {
		if wcol, err = c.reshape(weight, append(tensor.Shape{1, n}, ones(r-2)...)); err != nil {
			return nil, err
		}
	} else {
		wcol = c.scalar(x.meta.DType, 1)
	}
	wm, err := c.op(ops.Where, nil, mask, wcol, zero)
	if err != nil {
		return nil, err
	}
	w, err := c.op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}}, wm)
	if err != nil {
		return nil, err
	}
	if weight != nil {
		if loss, err = c.op(ops.Mul, nil, loss, w); err != nil {
			return nil, err
		}
	}
	var out *value
	switch red := c.attrString("reduction", "mean"); red {
	case "none":
		out = loss
	case "sum":
		out, err = c.op(ops.Sum, ops.ReduceAttrs{}, loss)
	case "mean":
		s, err1 := c.op(ops.Sum, ops.ReduceAttrs{}, loss)
		if err1 != nil {
			return nil, err1
		}
		ws, err1 := c.op(ops.Sum, ops.ReduceAttrs{}, w)
		if err1 != nil {
			return nil, err1
		}
		out, err = c.op(ops.Div, nil, s, ws)
	default:
		return nil, fmt.Errorf("reduction %q is not supported", red)
	}
	if err != nil {
		return nil, err
	}
	if logp != nil && len(c.node.Outputs) > 1 {
		return []*value{out, logp}, nil
	}
	return []*value{out}, nil
}

// lowerCumSum is the runtime's cumsum; reverse sums from the end (the
// axis read backwards), exclusive leaves each element out of its own sum.
func lowerCumSum(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	a, err := c.ints(ins[1], "axis")
	if err != nil {
		return nil, err
	}
	if len(a) != 1 {
		return nil, fmt.Errorf("axis must have one element")
	}
	ax, err := axis(a[0], len(x.meta.Shape))
	if err != nil {
		return nil, err
	}
	n := x.meta.Shape[ax]
	rev := c.attrInt("reverse", 0) != 0
	v := x
	if rev {
		if v, err = c.slice(v, ax, n-1, -1, -1); err != nil {
			return nil, err
		}
	}
	s, err := c.op(ops.Cumsum, ops.ScanAttrs{Dim: ax}, v)
	if err != nil {
		return nil, err
	}
	if s, err = c.cast(s, x.meta.DType); err != nil {
		return nil, err
	}
	if c.attrInt("exclusive", 0) != 0 {
		if s, err = c.op(ops.Sub, nil, s, v); err != nil {
			return nil, err
		}
	}
	if rev {
		return one(c.slice(s, ax, n-1, -1, -1))
	}
	return []*value{s}, nil
}

// lowerTopK sorts along axis (stably, so ties keep the smaller index
// first) and keeps the first k: values and int64 indices.
func lowerTopK(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	var k int64
	if c.opset < 10 {
		k = c.attrInt("k", 0)
	} else {
		if err := need(ins, 1); err != nil {
			return nil, err
		}
		kv, err := c.ints(ins[1], "K")
		if err != nil {
			return nil, err
		}
		if len(kv) != 1 {
			return nil, fmt.Errorf("K must have one element")
		}
		k = kv[0]
	}
	ax, err := axis(c.attrInt("axis", -1), len(x.meta.Shape))
	if err != nil {
		return nil, err
	}
	if k < 0 || k > int64(x.meta.Shape[ax]) {
		return nil, fmt.Errorf("k %d for an axis of %d", k, x.meta.Shape[ax])
	}
	order, err := c.op(ops.Argsort, ops.SortAttrs{Dim: ax, Descending: c.attrInt("largest", 1) != 0}, x)
	if err != nil {
		return nil, err
	}
	idx, err := c.slice(order, ax, 0, int(k), 1)
	if err != nil {
		return nil, err
	}
	vals, err := c.op(ops.Gather, ops.DimAttrs{Dim: ax}, x, idx)
	if err != nil {
		return nil, err
	}
	return []*value{vals, idx}, nil
}
