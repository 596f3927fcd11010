package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Slicing, splitting, gathering, tiling and padding, as index, cat,
// embedding and expand ops.

func init() {
	lower([]string{"Slice"}, lowerSlice)
	lower([]string{"Split"}, lowerSplit)
	lower([]string{"Gather"}, lowerGather)
	lower([]string{"Tile"}, lowerTile)
	lower([]string{"Pad"}, lowerPad)
}

// slice takes positions [start, stop) step apart along axis ax, with the
// bounds already clamped (stop -1 with a negative step: down to 0).
func (c *ctx) slice(x *value, ax, start, stop, step int) (*value, error) {
	items := ops.FullSlices(ax + 1)
	items[ax] = ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: stop, Step: step, HasStart: true, HasStop: stop >= 0}
	return c.op(ops.Index, ops.IndexAttrs{Items: items}, x)
}

// clampSlice resolves an ONNX Slice's start and end on a dimension of n.
func clampSlice(start, end, step int64, n int) (int, int) {
	N := int64(n)
	if start < 0 {
		start += N
	}
	if end < 0 {
		end += N
	}
	if step > 0 {
		start, end = min(max(start, 0), N), min(max(end, 0), N)
	} else {
		start, end = min(max(start, 0), N-1), min(max(end, -1), N-1)
	}
	return int(start), int(end)
}

func lowerSlice(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	var starts, ends, axes, steps []int64
	var err error
	if c.opset < 10 {
		starts, _ = c.attrInts("starts")
		ends, _ = c.attrInts("ends")
		axes, _ = c.attrInts("axes")
	} else {
		if err := need(ins, 1, 2); err != nil {
			return nil, err
		}
		if starts, err = c.ints(ins[1], "starts"); err != nil {
			return nil, err
		}
		if ends, err = c.ints(ins[2], "ends"); err != nil {
			return nil, err
		}
		if v := input(ins, 3); v != nil {
			if axes, err = c.ints(v, "axes"); err != nil {
				return nil, err
			}
		}
		if v := input(ins, 4); v != nil {
			if steps, err = c.ints(v, "steps"); err != nil {
				return nil, err
			}
		}
	}
	if len(ends) != len(starts) {
		return nil, fmt.Errorf("%d starts and %d ends", len(starts), len(ends))
	}
	if axes == nil {
		axes = make([]int64, len(starts))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	if steps == nil {
		steps = make([]int64, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, fmt.Errorf("starts, ends, axes and steps differ in length")
	}
	items := ops.FullSlices(r)
	seen := make([]bool, r)
	for i, a := range axes {
		ax, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		if seen[ax] {
			return nil, fmt.Errorf("axis %d given twice", a)
		}
		seen[ax] = true
		if steps[i] == 0 {
			return nil, fmt.Errorf("step 0 on axis %d", a)
		}
		if steps[i] > math.MaxInt32 || steps[i] < -math.MaxInt32 {
			steps[i] = int64(x.meta.Shape[ax]+1) * sign64(steps[i])
		}
		s, e := clampSlice(starts[i], ends[i], steps[i], x.meta.Shape[ax])
		items[ax] = ops.IndexItem{Kind: ops.IndexSlice, Start: s, Stop: e, Step: int(steps[i]), HasStart: true, HasStop: e >= 0}
	}
	return one(c.op(ops.Index, ops.IndexAttrs{Items: items}, x))
}

func sign64(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

func lowerSplit(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	ax, err := axis(c.attrInt("axis", 0), len(x.meta.Shape))
	if err != nil {
		return nil, err
	}
	n := x.meta.Shape[ax]
	outs := len(c.node.Outputs)
	sizes, given := c.attrInts("split")
	if v := input(ins, 1); v != nil && !given {
		if sizes, err = c.ints(v, "split"); err != nil {
			return nil, err
		}
		given = true
	}
	if !given {
		if k := c.attrInt("num_outputs", 0); k > 0 {
			outs = int(k)
		}
		if outs == 0 {
			return nil, fmt.Errorf("no outputs")
		}
		each := (n + outs - 1) / outs
		if c.opset < 18 && n%outs != 0 {
			return nil, fmt.Errorf("cannot split %d evenly into %d parts", n, outs)
		}
		sizes = make([]int64, outs)
		left := n
		for i := range sizes {
			sizes[i] = int64(min(each, left))
			left -= int(sizes[i])
		}
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("negative split %v", sizes)
		}
		total += s
	}
	if total != int64(n) {
		return nil, fmt.Errorf("split %v does not add up to dimension %d of size %d", sizes, ax, n)
	}
	res := make([]*value, len(sizes))
	at := 0
	for i, s := range sizes {
		if res[i], err = c.slice(x, ax, at, at+int(s), 1); err != nil {
			return nil, err
		}
		at += int(s)
	}
	return res, nil
}

// lowerGather takes the rows of data along axis at indices (negative
// counts from the end): the axis is moved first, the rest flattened, and
// the runtime's embedding op reads the rows.
func lowerGather(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	data, idx := ins[0], ins[1]
	r := len(data.meta.Shape)
	ax, err := axis(c.attrInt("axis", 0), r)
	if err != nil {
		return nil, err
	}
	if idx.meta.DType.IsFloat() || idx.meta.DType == tensor.Bool {
		return nil, fmt.Errorf("indices must be integers, got %s", idx.meta)
	}
	n := data.meta.Shape[ax]
	if idx, err = c.cast(idx, tensor.Int64); err != nil {
		return nil, err
	}
	if idx.c != nil {
		for _, i := range idx.c.I64() {
			if i < -int64(n) || i >= int64(n) {
				return nil, fmt.Errorf("index %d out of range for axis %d of size %d", i, ax, n)
			}
		}
	}
	if idx, err = c.wrapIndex(idx, n); err != nil {
		return nil, err
	}
	return one(c.gather(data, idx, ax))
}

// gather takes data's slices at idx (int64, in range) along axis ax: the
// result has idx's dimensions in place of ax (index_select of the indices
// flattened).
func (c *ctx) gather(data, idx *value, ax int) (*value, error) {
	ds := data.meta.Shape
	flat, err := c.reshape(idx, tensor.Shape{idx.meta.Shape.Numel()})
	if err != nil {
		return nil, err
	}
	sel, err := c.op(ops.IndexSelect, ops.DimAttrs{Dim: ax}, data, flat)
	if err != nil {
		return nil, err
	}
	out := append(append(ds[:ax].Clone(), idx.meta.Shape...), ds[ax+1:]...)
	return c.reshape(sel, out)
}

// lowerTile repeats x: x is viewed as [1, d0, 1, d1, ...], expanded to
// [r0, d0, r1, d1, ...] and flattened pairwise.
func lowerTile(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	reps, err := c.ints(ins[1], "repeats")
	if err != nil {
		return nil, err
	}
	s := x.meta.Shape
	if len(reps) != len(s) {
		return nil, fmt.Errorf("%d repeats for rank %d", len(reps), len(s))
	}
	view := make(tensor.Shape, 0, 2*len(s))
	big := make(tensor.Shape, 0, 2*len(s))
	out := make(tensor.Shape, len(s))
	for i, d := range s {
		if reps[i] < 0 {
			return nil, fmt.Errorf("negative repeat %d", reps[i])
		}
		view = append(view, 1, d)
		big = append(big, int(reps[i]), d)
		out[i] = int(reps[i]) * d
	}
	if _, err := tensor.CheckedNumel(big); err != nil {
		return nil, err
	}
	v, err := c.reshape(x, view)
	if err != nil {
		return nil, err
	}
	e, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: big}, v)
	if err != nil {
		return nil, err
	}
	return one(c.reshape(e, out))
}

// padModes are the Pad modes tref runs.
var padModes = map[string]bool{"constant": true, "reflect": true, "edge": true, "wrap": true}

func lowerPad(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	mode := c.attrString("mode", "constant")
	if !padModes[mode] {
		return nil, fmt.Errorf("mode %q is not supported", mode)
	}
	var pads []int64
	fill := 0.0
	var err error
	if c.opset < 11 {
		var ok bool
		if pads, ok = c.attrInts("pads"); !ok {
			pads, _ = c.attrInts("paddings")
		}
		fill = c.attrFloat("value", 0)
	} else {
		if err := need(ins, 1); err != nil {
			return nil, err
		}
		if pads, err = c.ints(ins[1], "pads"); err != nil {
			return nil, err
		}
		if v := input(ins, 2); v != nil && v.meta.Shape.Numel() > 0 {
			if fill, err = c.scalarOf(v, "constant_value"); err != nil {
				return nil, err
			}
		}
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if v := input(ins, 3); v != nil {
		a, err := c.ints(v, "axes")
		if err != nil {
			return nil, err
		}
		if axes, err = normAxes(a, r); err != nil {
			return nil, err
		}
	}
	if len(pads) != 2*len(axes) {
		return nil, fmt.Errorf("%d pads for %d axes", len(pads), len(axes))
	}
	lo, hi := make([]int, r), make([]int, r)
	for i, ax := range axes {
		lo[ax], hi[ax] = int(pads[i]), int(pads[len(axes)+i])
	}
	return one(c.pad(x, lo, hi, mode, fill))
}

// padOpModes maps ONNX pad modes to the runtime pad op's.
var padOpModes = map[string]ops.PadMode{"constant": ops.PadConstant, "reflect": ops.PadReflect, "edge": ops.PadReplicate, "wrap": ops.PadCircular}

// pad pads (negative: crops) every axis of x by lo before and hi after,
// with fill (constant mode), a mirror without the edge (reflect), the
// edge repeated (edge) or the other end (wrap): one runtime pad op where
// its rules allow (torch's: the non-constant modes pad the last 1 to 3
// dimensions), else slices and joins per axis.
func (c *ctx) pad(x *value, lo, hi []int, mode string, fill float64) (*value, error) {
	k := 0
	for d := range lo {
		if lo[d] != 0 || hi[d] != 0 {
			k = len(lo) - d
			break
		}
	}
	if k == 0 {
		return x, nil
	}
	a := ops.PadAttrs{Mode: padOpModes[mode], Value: fill}
	for i := range k {
		d := len(lo) - 1 - i
		a.Pads = append(a.Pads, lo[d], hi[d])
	}
	if _, _, _, err := ops.PadLayout(x.meta.Shape, a); err == nil {
		return c.op(ops.Pad, a, x)
	}
	var err error
	for ax := range lo {
		l, h := lo[ax], hi[ax]
		if l < 0 || h < 0 {
			n := x.meta.Shape[ax]
			if x, err = c.slice(x, ax, max(-l, 0), n-max(-h, 0), 1); err != nil {
				return nil, err
			}
			l, h = max(l, 0), max(h, 0)
		}
		if l == 0 && h == 0 {
			continue
		}
		n := x.meta.Shape[ax]
		part := func(count int, before bool) (*value, error) {
			switch mode {
			case "constant":
				s := x.meta.Shape.Clone()
				s[ax] = count
				return c.op(ops.Expand, ops.ExpandAttrs{Shape: s}, c.scalar(x.meta.DType, fill))
			case "edge":
				at := 0
				if !before {
					at = n - 1
				}
				e, err := c.slice(x, ax, at, at+1, 1)
				if err != nil {
					return nil, err
				}
				s := x.meta.Shape.Clone()
				s[ax] = count
				return c.op(ops.Expand, ops.ExpandAttrs{Shape: s}, e)
			case "reflect":
				if count >= n {
					return nil, fmt.Errorf("reflect padding of %d on a dimension of %d", count, n)
				}
				if before {
					return c.slice(x, ax, count, 0, -1)
				}
				return c.slice(x, ax, n-2, n-2-count, -1)
			default: // wrap
				if count > n {
					return nil, fmt.Errorf("wrap padding of %d on a dimension of %d", count, n)
				}
				if before {
					return c.slice(x, ax, n-count, n, 1)
				}
				return c.slice(x, ax, 0, count, 1)
			}
		}
		parts := []*value{}
		if l > 0 {
			p, err := part(l, true)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
		parts = append(parts, x)
		if h > 0 {
			p, err := part(h, false)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
		if x, err = c.op(ops.Cat, ops.CatAttrs{Dim: ax}, parts...); err != nil {
			return nil, err
		}
	}
	return x, nil
}
