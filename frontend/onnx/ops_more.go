package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Quantization, window functions, LRN, mean-variance normalization,
// ReverseSequence, Compress, GatherND and ScatterND, composed from runtime
// ops; NonZero and Unique, whose result sizes depend on the data, read
// their input on the host.

func init() {
	lower([]string{"QuantizeLinear"}, lowerQuantize)
	lower([]string{"DequantizeLinear"}, lowerDequantize)
	lower([]string{"DynamicQuantizeLinear"}, lowerDynamicQuantize)
	lower([]string{"HannWindow", "HammingWindow", "BlackmanWindow"}, lowerWindow)
	lower([]string{"LRN"}, lowerLRN)
	lower([]string{"MeanVarianceNormalization"}, lowerMVN)
	lower([]string{"ReverseSequence"}, lowerReverseSequence)
	lower([]string{"Compress"}, lowerCompress)
	lower([]string{"GatherND"}, lowerGatherND)
	lower([]string{"ScatterND"}, lowerScatterND)
	lower([]string{"NonZero"}, lowerNonZero)
	lower([]string{"Unique"}, lowerUnique)
}

// perAxis reshapes a per-axis parameter (scale, zero point) of x's size
// along axis to broadcast over x; scalars stay as they are.
func (c *ctx) perAxis(p, x *value) (*value, error) {
	if len(p.meta.Shape) == 0 || p.meta.Shape.Numel() == 1 && len(p.meta.Shape) <= 1 {
		return c.reshape(p, tensor.Shape{})
	}
	r := len(x.meta.Shape)
	ax, err := axis(c.attrInt("axis", 1), r)
	if err != nil {
		return nil, err
	}
	return c.reshape(p, alongAxis(r, ax, p.meta.Shape.Numel()))
}

// saturate clamps v to dt's range and converts it.
func (c *ctx) saturate(v *value, dt tensor.DType) (*value, error) {
	lo, hi := 0.0, 255.0
	switch dt {
	case tensor.Int8:
		lo, hi = -128, 127
	case tensor.Uint16:
		hi = 65535
	case tensor.Int16:
		lo, hi = -32768, 32767
	case tensor.Uint8:
	default:
		return nil, fmt.Errorf("quantizing to %s is not supported", dt)
	}
	cl, err := c.op(ops.Clamp, ops.ClampAttrs{Min: lo, Max: hi, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}, v)
	if err != nil {
		return nil, err
	}
	return c.cast(cl, dt)
}

// lowerQuantize is saturate(round(x / scale) + zero_point), rounding half
// to even; the result has the zero point's type (uint8 without one).
func lowerQuantize(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	scale, err := c.perAxis(ins[1], x)
	if err != nil {
		return nil, err
	}
	q, err := c.op(ops.Div, nil, x, scale)
	if err != nil {
		return nil, err
	}
	if q, err = c.op(ops.Round, ops.RoundAttrs{}, q); err != nil {
		return nil, err
	}
	dt := tensor.Uint8
	if zp := input(ins, 2); zp != nil {
		dt = zp.meta.DType
		z, err := c.perAxis(zp, x)
		if err != nil {
			return nil, err
		}
		if z, err = c.cast(z, q.meta.DType); err != nil {
			return nil, err
		}
		if q, err = c.op(ops.Add, nil, q, z); err != nil {
			return nil, err
		}
	}
	return one(c.saturate(q, dt))
}

// lowerDequantize is (x - zero_point) * scale in the scale's type.
func lowerDequantize(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	scale, err := c.perAxis(ins[1], x)
	if err != nil {
		return nil, err
	}
	xf, err := c.cast(x, scale.meta.DType)
	if err != nil {
		return nil, err
	}
	if zp := input(ins, 2); zp != nil {
		z, err := c.perAxis(zp, x)
		if err != nil {
			return nil, err
		}
		if z, err = c.cast(z, scale.meta.DType); err != nil {
			return nil, err
		}
		if xf, err = c.op(ops.Sub, nil, xf, z); err != nil {
			return nil, err
		}
	}
	return one(c.op(ops.Mul, nil, xf, scale))
}

// lowerDynamicQuantizeLinear quantizes to uint8 with the scale and zero
// point of x's range widened to include 0.
func lowerDynamicQuantize(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	s := func(v float64) *value { return c.scalar(x.meta.DType, v) }
	all := ops.ReduceAttrs{}
	hi, err := c.op(ops.Max, all, x)
	if err != nil {
		return nil, err
	}
	lo, err := c.op(ops.Min, all, x)
	if err != nil {
		return nil, err
	}
	if hi, err = c.op(ops.Maximum, nil, hi, s(0)); err != nil {
		return nil, err
	}
	if lo, err = c.op(ops.Minimum, nil, lo, s(0)); err != nil {
		return nil, err
	}
	span, err := c.op(ops.Sub, nil, hi, lo)
	if err != nil {
		return nil, err
	}
	scale, err := c.op(ops.Div, nil, span, s(255))
	if err != nil {
		return nil, err
	}
	// zero point = saturate(round(0 - lo / scale))
	ls, err := c.op(ops.Div, nil, lo, scale)
	if err != nil {
		return nil, err
	}
	zf, err := c.op(ops.Sub, nil, s(0), ls)
	if err != nil {
		return nil, err
	}
	if zf, err = c.op(ops.Round, ops.RoundAttrs{}, zf); err != nil {
		return nil, err
	}
	zp, err := c.saturate(zf, tensor.Uint8)
	if err != nil {
		return nil, err
	}
	q, err := c.op(ops.Div, nil, x, scale)
	if err != nil {
		return nil, err
	}
	if q, err = c.op(ops.Round, ops.RoundAttrs{}, q); err != nil {
		return nil, err
	}
	zq, err := c.cast(zp, q.meta.DType)
	if err != nil {
		return nil, err
	}
	if q, err = c.op(ops.Add, nil, q, zq); err != nil {
		return nil, err
	}
	y, err := c.saturate(q, tensor.Uint8)
	if err != nil {
		return nil, err
	}
	return []*value{y, scale, zp}, nil
}

// lowerWindow computes the window on the host.
func lowerWindow(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	nv, err := c.scalarOf(ins[0], "size")
	if err != nil {
		return nil, err
	}
	if nv < 0 || nv > 1<<24 {
		return nil, fmt.Errorf("window size %v", nv)
	}
	n := int(nv)
	dt := tensor.Float32
	if a := c.attr("output_datatype"); a != nil {
		var ok bool
		if dt, ok = DataType(a.I).DType(); !ok {
			return nil, fmt.Errorf("tref has no %s tensors", DataType(a.I))
		}
	}
	den := float64(n)
	if c.attrInt("periodic", 1) == 0 {
		den = float64(n - 1)
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: dt})
	for i := range n {
		t := 2 * math.Pi * float64(i) / den
		var w float64
		switch c.node.OpType {
		case "HannWindow":
			w = 0.5 - 0.5*math.Cos(t)
		case "HammingWindow":
			w = 25.0/46 - 21.0/46*math.Cos(t)
		default:
			w = 0.42 - 0.5*math.Cos(t) + 0.08*math.Cos(2*t)
		}
		if dt.IsFloat() {
			d.Set(i, w)
		} else {
			d.SetInt(i, int64(w))
		}
	}
	return []*value{c.keep(&value{meta: d.Meta, c: d})}, nil
}

// lowerLRN is x / (bias + alpha/size * sum of squares over the size
// channels around each)^beta, the window sum a convolution over the
// channel axis.
func lowerLRN(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	xs := x.meta.Shape
	if len(xs) < 3 || !x.meta.DType.IsFloat() {
		return nil, fmt.Errorf("needs a float input [N, C, ...], got %s", x.meta)
	}
	size := int(c.attrInt("size", 0))
	if size < 1 {
		return nil, fmt.Errorf("size %d", size)
	}
	alpha, beta, bias := c.attrFloat("alpha", 1e-4), c.attrFloat("beta", 0.75), c.attrFloat("bias", 1)
	sq, err := c.op(ops.Mul, nil, x, x)
	if err != nil {
		return nil, err
	}
	// [N, 1, C, rest] summed over a window of channels by conv2d.
	inner := xs[2:].Numel()
	v, err := c.reshape(sq, tensor.Shape{xs[0], 1, xs[1], inner})
	if err != nil {
		return nil, err
	}
	k, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: tensor.Shape{1, 1, size, 1}}, c.scalar(x.meta.DType, 1))
	if err != nil {
		return nil, err
	}
	lo := (size - 1) / 2
	a := ops.Conv2dAttrs{Stride: [2]int{1, 1}, Dilation: [2]int{1, 1}, PadLo: [2]int{lo, 0}, PadHi: [2]int{size - 1 - lo, 0}, Groups: 1}
	sum, err := c.op(ops.Conv2d, a, v, k)
	if err != nil {
		return nil, err
	}
	if sum, err = c.reshape(sum, xs); err != nil {
		return nil, err
	}
	s := func(f float64) *value { return c.scalar(x.meta.DType, f) }
	t, err := c.op(ops.Mul, nil, sum, s(alpha/float64(size)))
	if err != nil {
		return nil, err
	}
	if t, err = c.op(ops.Add, nil, t, s(bias)); err != nil {
		return nil, err
	}
	if t, err = c.op(ops.Pow, nil, t, s(beta)); err != nil {
		return nil, err
	}
	return one(c.op(ops.Div, nil, x, t))
}

// lowerMVN normalizes to zero mean and unit variance over axes (default
// 0, 2, 3).
func lowerMVN(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	axes, ok := c.attrInts("axes")
	if !ok {
		axes = []int64{0, 2, 3}
	}
	dims := make([]int, len(axes))
	for i, a := range axes {
		ax, err := axis(a, len(x.meta.Shape))
		if err != nil {
			return nil, err
		}
		dims[i] = ax
	}
	mean, variance, err := c.moments(x, dims)
	if err != nil {
		return nil, err
	}
	d, err := c.op(ops.Sub, nil, x, mean)
	if err != nil {
		return nil, err
	}
	sd, err := c.op(ops.Sqrt, nil, variance)
	if err != nil {
		return nil, err
	}
	if sd, err = c.op(ops.Add, nil, sd, c.scalar(x.meta.DType, 1e-9)); err != nil {
		return nil, err
	}
	return one(c.op(ops.Div, nil, d, sd))
}

// lowerReverseSequence reverses the first seq_lens[b] elements along
// time_axis of each batch entry b: a gather with host-computed indices.
func lowerReverseSequence(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	lens, err := c.ints(ins[1], "sequence_lens")
	if err != nil {
		return nil, err
	}
	r := len(x.meta.Shape)
	tax, err := axis(c.attrInt("time_axis", 0), r)
	if err != nil {
		return nil, err
	}
	bax, err := axis(c.attrInt("batch_axis", 1), r)
	if err != nil {
		return nil, err
	}
	if r < 2 || tax == bax || len(lens) != x.meta.Shape[bax] {
		return nil, fmt.Errorf("sequence_lens of %d for input %v (time axis %d, batch axis %d)", len(lens), x.meta.Shape, tax, bax)
	}
	t := x.meta.Shape[tax]
	// idx has x's shape: along time, position i of batch b reads
	// lens[b]-1-i when i < lens[b], else i.
	d := tensor.NewDense(tensor.Meta{Shape: x.meta.Shape.Clone(), DType: tensor.Int64})
	if err := c.rt.HostPool().Check(d.Meta.Bytes()); err != nil {
		return nil, err
	}
	strides := x.meta.Shape.Strides()
	for flat := range d.Numel() {
		i := flat / strides[tax] % t
		b := flat / strides[bax] % x.meta.Shape[bax]
		l := lens[b]
		if l < 0 || l > int64(t) {
			return nil, fmt.Errorf("sequence length %d for a time axis of %d", l, t)
		}
		j := int64(i)
		if j < l {
			j = l - 1 - j
		}
		d.I64()[flat] = j
	}
	return one(c.op(ops.Gather, ops.DimAttrs{Dim: tax}, x, c.keep(&value{meta: d.Meta, c: d})))
}

// lowerCompress keeps the slices along axis where condition is true (the
// condition is read on the host: the result's size depends on it); no
// axis flattens x first.
func lowerCompress(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x := ins[0]
	cond, err := c.host(ins[1])
	if err != nil {
		return nil, err
	}
	ax := 0
	if a := c.attr("axis"); a != nil {
		if ax, err = axis(a.I, len(x.meta.Shape)); err != nil {
			return nil, err
		}
	} else if x, err = c.reshape(x, tensor.Shape{x.meta.Shape.Numel()}); err != nil {
		return nil, err
	}
	n := x.meta.Shape[ax]
	var keep []int64
	for i := range min(cond.Numel(), n) {
		if cond.At(i) != 0 {
			keep = append(keep, int64(i))
		}
	}
	return one(c.gather(x, c.intsConst(keep), ax))
}

// lowerGatherND gathers slices of data at index tuples (the last axis of
// indices), after batch_dims leading axes shared by both: the tuples
// become flat row numbers of data viewed as [batch, rows, rest].
func lowerGatherND(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	data, idx := ins[0], ins[1]
	ds, is := data.meta.Shape, idx.meta.Shape
	b := int(c.attrInt("batch_dims", 0))
	if len(is) < 1 || b < 0 || b >= len(is) || b >= len(ds) {
		return nil, fmt.Errorf("batch_dims %d for data %v and indices %v", b, ds, is)
	}
	k := is[len(is)-1]
	if k < 1 || b+k > len(ds) {
		return nil, fmt.Errorf("index tuples of %d for data %v with %d batch dims", k, ds, b)
	}
	iv, err := c.ints(idx, "indices")
	if err != nil {
		return nil, err
	}
	batch := ds[:b].Numel()
	rows := ds[b : b+k].Numel()
	flat, err := tupleRows(ds[b:], iv, k)
	if err != nil {
		return nil, err
	}
	// The tuples of batch entry i index its own rows.
	per := max(len(flat)/max(batch, 1), 1)
	for t := range flat {
		flat[t] += int64(t/per) * int64(rows)
	}
	view, err := c.reshape(data, append(tensor.Shape{batch * rows}, ds[b+k:]...))
	if err != nil {
		return nil, err
	}
	g, err := c.gather(view, c.intsConst(flat), 0)
	if err != nil {
		return nil, err
	}
	return one(c.reshape(g, append(is[:len(is)-1].Clone(), ds[b+k:]...)))
}

// ndRows maps the index tuples of GatherND and ScatterND (the last axis
// of idx, k long, over data's leading k dimensions) to flat row numbers
// of data viewed as [rows, rest].
func (c *ctx) ndRows(ds tensor.Shape, idx *value) ([]int64, int, error) {
	is := idx.meta.Shape
	if len(is) < 1 {
		return nil, 0, fmt.Errorf("indices must have a last axis of index tuples")
	}
	k := is[len(is)-1]
	if k < 1 || k > len(ds) {
		return nil, 0, fmt.Errorf("index tuples of %d for data %v", k, ds)
	}
	iv, err := c.ints(idx, "indices")
	if err != nil {
		return nil, 0, err
	}
	rows, err := tupleRows(ds, iv, k)
	return rows, k, err
}

// tupleRows is ndRows on the index values iv.
func tupleRows(ds tensor.Shape, iv []int64, k int) ([]int64, error) {
	rows := make([]int64, len(iv)/k)
	for t := range rows {
		row := int64(0)
		for j := range k {
			n := int64(ds[j])
			v := iv[t*k+j]
			if v < -n || v >= n {
				return nil, fmt.Errorf("index %d out of range for dimension %d of size %d", v, j, n)
			}
			if v < 0 {
				v += n
			}
			row = row*n + v
		}
		rows[t] = row
	}
	return rows, nil
}

// lowerScatterND writes updates at the index tuples of data (reduction
// none, add, mul, max or min): a scatter along the rows of data viewed as
// [rows, rest].
func lowerScatterND(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	data, upd := ins[0], ins[2]
	ds := data.meta.Shape
	rows, k, err := c.ndRows(ds, ins[1])
	if err != nil {
		return nil, err
	}
	rest := ds[k:].Numel()
	if upd.meta.Shape.Numel() != len(rows)*rest {
		return nil, fmt.Errorf("updates %v for %d index tuples of slices %v", upd.meta.Shape, len(rows), ds[k:])
	}
	view, err := c.reshape(data, tensor.Shape{ds[:k].Numel(), rest})
	if err != nil {
		return nil, err
	}
	u, err := c.reshape(upd, tensor.Shape{len(rows), rest})
	if err != nil {
		return nil, err
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(rows), rest}, DType: tensor.Int64})
	for t, r := range rows {
		for j := range rest {
			d.I64()[t*rest+j] = r
		}
	}
	idx := c.keep(&value{meta: d.Meta, c: d})
	out, err := c.scatter(0, view, idx, u)
	if err != nil {
		return nil, err
	}
	return one(c.reshape(out, ds))
}

// lowerNonZero lists the indices of the nonzero elements, [rank, count];
// the count depends on the data, so the input is read on the host.
func lowerNonZero(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x, err := c.host(ins[0])
	if err != nil {
		return nil, err
	}
	r := len(x.Shape)
	strides := x.Shape.Strides()
	var hits []int
	for i := range x.Numel() {
		if x.At(i) != 0 {
			hits = append(hits, i)
		}
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{max(r, 1), len(hits)}, DType: tensor.Int64})
	for k, flat := range hits {
		for a := range r {
			d.I64()[a*len(hits)+k] = int64(flat / strides[a] % x.Shape[a])
		}
	}
	if r == 0 {
		d.Meta.Shape = tensor.Shape{0, len(hits)}
		d.Buf = d.Buf[:0]
	}
	return []*value{c.keep(&value{meta: d.Meta, c: d})}, nil
}

// lowerUnique finds the unique elements (of the flattened input, or the
// unique slices along axis) read on the host, sorted (slices
// lexicographically) or in order of first occurrence, with their first
// indices, the inverse indices and counts.
func lowerUnique(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	d, err := c.host(x)
	if err != nil {
		return nil, err
	}
	// The input as [outer, n, inner]: slice k is d[:, k, :].
	shape := tensor.Shape{d.Numel()}
	ax := 0
	if a := c.attr("axis"); a != nil {
		if ax, err = axis(c.attrInt("axis", 0), len(d.Shape)); err != nil {
			return nil, err
		}
		shape = d.Shape
	}
	n := shape[ax]
	outer, inner := shape[:ax].Numel(), shape[ax+1:].Numel()
	// Elements are told apart by value (every NaN alike, -0 as 0).
	norm := func(v float64) float64 {
		if math.IsNaN(v) {
			return math.NaN()
		}
		return v + 0
	}
	slice := func(k int) []float64 {
		v := make([]float64, 0, outer*inner)
		for o := range outer {
			for i := range inner {
				v = append(v, norm(d.At((o*n+k)*inner+i)))
			}
		}
		return v
	}
	keyOf := func(v []float64) string {
		b := make([]byte, 0, 8*len(v))
		for _, f := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
		return string(b)
	}
	first := map[string]int{}
	counts := map[string]int{}
	keys := make([]string, n)
	var order []int // first occurrences
	for k := range n {
		key := keyOf(slice(k))
		keys[k] = key
		if _, ok := first[key]; !ok {
			first[key] = k
			order = append(order, k)
		}
		counts[key]++
	}
	if c.attrInt("sorted", 1) != 0 {
		less := func(a, b float64) bool { return math.IsNaN(a) && !math.IsNaN(b) || a < b }
		sort.SliceStable(order, func(p, q int) bool {
			a, b := slice(order[p]), slice(order[q])
			for i := range a {
				if less(a[i], b[i]) {
					return true
				}
				if less(b[i], a[i]) {
					return false
				}
			}
			return false
		})
	}
	pos := map[string]int{}
	for i, k := range order {
		pos[keys[k]] = i
	}
	u := len(order)
	ys := append(shape[:ax:ax], u)
	ys = append(ys, shape[ax+1:]...)
	y := tensor.NewDense(tensor.Meta{Shape: ys, DType: d.DType})
	idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{u}, DType: tensor.Int64})
	cnt := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{u}, DType: tensor.Int64})
	inv := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Int64})
	for j, k := range order {
		for o := range outer {
			for i := range inner {
				src, dst := (o*n+k)*inner+i, (o*u+j)*inner+i
				if d.DType.IsFloat() {
					y.Set(dst, d.At(src))
				} else {
					y.SetInt(dst, d.IntAt(src))
				}
			}
		}
		idx.I64()[j] = int64(k)
		cnt.I64()[j] = int64(counts[keys[k]])
	}
	for k := range n {
		inv.I64()[k] = int64(pos[keys[k]])
	}
	outs := make([]*value, 4)
	for i, t := range []*tensor.Dense{y, idx, inv, cnt} {
		outs[i] = c.keep(&value{meta: t.Meta, c: t})
	}
	return outs, nil
}
