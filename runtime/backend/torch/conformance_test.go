package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// opCase is one row of the backend conformance table: an op over inputs
// of the given metas (filled with random data) and attributes.
type opCase struct {
	op    ops.Op
	in    []tensor.Meta
	attrs any
	// positive fills float inputs with positive values (log, sqrt, pow).
	positive bool
}

func m(dt tensor.DType, s ...int) tensor.Meta { return tensor.Meta{Shape: s, DType: dt} }

const (
	f32 = tensor.Float32
	f64 = tensor.Float64
	i64 = tensor.Int64
	bl  = tensor.Bool
)

// conformanceTable covers every op family with broadcasting, dtypes and
// attribute variants. Every registered op with a cpu kernel must appear:
// TestConformanceCoversRegistry checks it.
func conformanceTable() []opCase {
	var t []opCase
	for _, op := range ops.BinaryArith {
		pos := op == ops.Pow || op == ops.Div || op == ops.FloorDiv || op == ops.Mod || op == ops.Fmod
		t = append(t,
			opCase{op: op, in: []tensor.Meta{m(f32, 3, 4), m(f32, 4)}, positive: pos},
			opCase{op: op, in: []tensor.Meta{m(f64, 2, 1, 3), m(f32, 4, 1)}, positive: pos},
			opCase{op: op, in: []tensor.Meta{m(f32, 5), m(f32)}, positive: pos})
		if op != ops.Pow && op != ops.Hypot { // hypot takes floats only
			t = append(t, opCase{op: op, in: []tensor.Meta{m(i64, 2, 3), m(i64, 3)}, positive: pos})
		}
	}
	for _, op := range ops.Comparisons {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 3, 4), m(f32, 3, 1)}},
			opCase{op: op, in: []tensor.Meta{m(i64, 4), m(i64)}})
	}
	t = append(t, scalarOperandCases()...)
	// full: no input; every dtype width, an empty and a 0-d result, an
	// int64 beyond 2^53
	t = append(t, opCase{op: ops.Full, attrs: ops.FullAttrs{Shape: tensor.Shape{3, 5}, Value: ops.FloatScalar(0.25, f32)}},
		opCase{op: ops.Full, attrs: ops.FullAttrs{Shape: tensor.Shape{2, 0, 3}, Value: ops.FloatScalar(1, f64)}},
		opCase{op: ops.Full, attrs: ops.FullAttrs{Shape: tensor.Shape{4}, Value: ops.IntScalar(1<<60 + 3)}},
		opCase{op: ops.Full, attrs: ops.FullAttrs{Value: ops.FloatScalar(1, bl)}},
		opCase{op: ops.Full, attrs: ops.FullAttrs{Shape: tensor.Shape{7}, Value: ops.FloatScalar(200, tensor.Uint8)}})
	for _, op := range append(append([]ops.Op{}, ops.FloatUnary...), ops.KeepUnary...) {
		pos := op == ops.Log || op == ops.Sqrt || op == ops.Rsqrt
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 4, 5)}, positive: pos},
			opCase{op: op, in: []tensor.Meta{m(f64, 7)}, positive: pos})
	}
	t = append(t,
		opCase{op: ops.LogicalNot, in: []tensor.Meta{m(bl, 6)}},
		opCase{op: ops.Clamp, in: []tensor.Meta{m(f32, 3, 3)}, attrs: ops.ClampAttrs{Min: -0.5, Max: 0.5, HasMin: true, HasMax: true, MinFloat: true, MaxFloat: true}},
		opCase{op: ops.Clamp, in: []tensor.Meta{m(f32, 8)}, attrs: ops.ClampAttrs{Min: 0, HasMin: true}},
		opCase{op: ops.Astype, in: []tensor.Meta{m(f32, 5)}, attrs: ops.CastAttrs{To: i64}},
		opCase{op: ops.Astype, in: []tensor.Meta{m(i64, 5)}, attrs: ops.CastAttrs{To: f64}},
		opCase{op: ops.Where, in: []tensor.Meta{m(bl, 3, 1), m(f32, 3, 4), m(f32, 4)}},
	)
	for _, op := range ops.Reductions {
		src := m(f32, 3, 4, 5)
		if op == ops.Any || op == ops.All {
			src = m(bl, 3, 4, 5)
		}
		t = append(t, opCase{op: op, in: []tensor.Meta{src}, attrs: ops.ReduceAttrs{Correction: 1}})
		t = append(t, opCase{op: op, in: []tensor.Meta{src}, attrs: ops.ReduceAttrs{Dims: []int{-1}, Keepdim: true, Correction: 1}})
		if op != ops.Argmax && op != ops.Argmin {
			t = append(t, opCase{op: op, in: []tensor.Meta{src}, attrs: ops.ReduceAttrs{Dims: []int{0, 2}, Correction: 1}})
		}
	}
	t = append(t,
		opCase{op: ops.Matmul, in: []tensor.Meta{m(f32, 5, 7), m(f32, 7, 3)}},
		opCase{op: ops.Matmul, in: []tensor.Meta{m(f32, 2, 1, 5, 7), m(f32, 3, 7, 4)}},
		opCase{op: ops.Matmul, in: []tensor.Meta{m(f32, 7), m(f32, 7, 2)}},
		opCase{op: ops.Matmul, in: []tensor.Meta{m(f64, 4, 4), m(f64, 4)}},
		opCase{op: ops.Linear, in: []tensor.Meta{m(f32, 6, 8), m(f32, 5, 8), m(f32, 5)}},
		opCase{op: ops.Linear, in: []tensor.Meta{m(f32, 2, 3, 8), m(f32, 5, 8)}},
		opCase{op: ops.Outer, in: []tensor.Meta{m(f32, 4), m(f32, 3)}},
		// random normal matrices: far from singular at this seed
		opCase{op: ops.Solve, in: []tensor.Meta{m(f32, 4, 4), m(f32, 4, 3)}},
		opCase{op: ops.Solve, in: []tensor.Meta{m(f64, 2, 5, 5), m(f64, 2, 5, 1)}},
		opCase{op: ops.Solve, in: []tensor.Meta{m(tensor.BFloat16, 3, 3), m(tensor.BFloat16, 3, 2)}},
		opCase{op: ops.Det, in: []tensor.Meta{m(f32, 3, 3)}},
		opCase{op: ops.Det, in: []tensor.Meta{m(f64, 2, 3, 6, 6)}},
		opCase{op: ops.Det, in: []tensor.Meta{m(f32, 0, 0)}},
		opCase{op: ops.Slogdet, in: []tensor.Meta{m(f32, 3, 3)}},
		opCase{op: ops.Slogdet, in: []tensor.Meta{m(f64, 2, 3, 6, 6)}},
		opCase{op: ops.Slogdet, in: []tensor.Meta{m(f32, 0, 0)}},
		opCase{op: ops.Index, in: []tensor.Meta{m(f32, 4, 5, 6)}, attrs: ops.IndexAttrs{Items: []ops.IndexItem{
			{Kind: ops.IndexAt, At: -1}, {Kind: ops.IndexSlice, Start: 1, Stop: 4, HasStart: true, HasStop: true, Step: 2}}}},
		opCase{op: ops.Index, in: []tensor.Meta{m(f32, 4, 5)}, attrs: ops.IndexAttrs{Items: []ops.IndexItem{
			{Kind: ops.IndexSlice, Step: -1}, {Kind: ops.IndexSlice, Start: -2, HasStart: true, Step: -2}}}},
		opCase{op: ops.IndexAssign, in: []tensor.Meta{m(f32, 4, 5, 6), m(f32, 2, 6)}, attrs: ops.IndexAttrs{Items: []ops.IndexItem{
			{Kind: ops.IndexAt, At: -1}, {Kind: ops.IndexSlice, Start: 1, Stop: 4, HasStart: true, HasStop: true, Step: 2}}}},
		opCase{op: ops.IndexAssign, in: []tensor.Meta{m(f32, 4, 5), m(f32, 1, 3)}, attrs: ops.IndexAttrs{Items: []ops.IndexItem{
			{Kind: ops.IndexSlice, Step: -1}, {Kind: ops.IndexSlice, Start: -1, HasStart: true, Step: -2}}}},
		opCase{op: ops.IndexAssign, in: []tensor.Meta{m(i64, 3, 4), m(i64)}, attrs: ops.IndexAttrs{Items: []ops.IndexItem{
			{Kind: ops.IndexSlice, Start: 1, HasStart: true, Step: 1}}}},
		opCase{op: ops.Reshape, in: []tensor.Meta{m(f32, 4, 6)}, attrs: ops.ReshapeAttrs{Shape: tensor.Shape{3, -1, 2}}},
		opCase{op: ops.Permute, in: []tensor.Meta{m(f32, 2, 3, 4)}, attrs: ops.PermuteAttrs{Dims: []int{2, 0, 1}}},
		opCase{op: ops.Expand, in: []tensor.Meta{m(f32, 3, 1)}, attrs: ops.ExpandAttrs{Shape: tensor.Shape{2, 3, 4}}},
		opCase{op: ops.Cat, in: []tensor.Meta{m(f32, 2, 3), m(f32, 4, 3)}, attrs: ops.CatAttrs{Dim: 0}},
		opCase{op: ops.Stack, in: []tensor.Meta{m(f32, 2, 3), m(f32, 2, 3), m(f32, 2, 3)}, attrs: ops.CatAttrs{Dim: -1}},
		opCase{op: ops.Softmax, in: []tensor.Meta{m(f32, 4, 9)}, attrs: ops.SoftmaxAttrs{Dim: -1}},
		opCase{op: ops.LogSoftmax, in: []tensor.Meta{m(f32, 4, 9)}, attrs: ops.SoftmaxAttrs{Dim: 0}},
		opCase{op: ops.LayerNorm, in: []tensor.Meta{m(f32, 3, 8), m(f32, 8), m(f32, 8)}, attrs: ops.NormAttrs{Eps: 1e-5, HasWeight: true, HasBias: true}},
		opCase{op: ops.LayerNorm, in: []tensor.Meta{m(f32, 2, 3, 8)}, attrs: ops.NormAttrs{Eps: 1e-5}},
		opCase{op: ops.RMSNorm, in: []tensor.Meta{m(f32, 3, 8), m(f32, 8)}, attrs: ops.NormAttrs{Eps: 1e-6, HasWeight: true}},
		opCase{op: ops.MSE, in: []tensor.Meta{m(f32, 4, 5), m(f32, 4, 5)}},
		opCase{op: ops.Conv2d, in: []tensor.Meta{m(f32, 2, 3, 9, 9), m(f32, 4, 3, 3, 3), m(f32, 4)},
			attrs: ops.Conv2dAttrs{Stride: [2]int{1, 1}, PadLo: [2]int{1, 1}, PadHi: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1}},
		opCase{op: ops.Conv2d, in: []tensor.Meta{m(f32, 1, 4, 8, 8), m(f32, 4, 2, 2, 2)},
			attrs: ops.Conv2dAttrs{Stride: [2]int{2, 2}, PadLo: [2]int{0, 0}, PadHi: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 2}},
		opCase{op: ops.MaxPool2d, in: []tensor.Meta{m(f32, 2, 3, 8, 8)},
			attrs: ops.Pool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, Dilation: [2]int{1, 1}}},
		opCase{op: ops.Attention, in: []tensor.Meta{m(f32, 2, 5, 8), m(f32, 2, 6, 8), m(f32, 2, 6, 4)}, attrs: ops.AttentionAttrs{}},
		opCase{op: ops.Attention, in: []tensor.Meta{m(f32, 1, 2, 5, 8), m(f32, 1, 2, 5, 8), m(f32, 1, 2, 5, 8)}, attrs: ops.AttentionAttrs{Causal: true}},
	)
	t = append(t, pointwiseCases()...)
	t = append(t, nnConformanceRows()...)
	t = append(t, backwardRows()...)
	return t
}

// backwardRows are the backward kernels of gradient rules, which the
// plugin runs so that training on a GPU stays there
// (cross_entropy_backward, which needs targets in range, is in
// TestConformanceIndexedOps).
func backwardRows() []opCase {
	slice := func(start, stop, step int) ops.IndexItem {
		return ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: stop, HasStart: true, HasStop: true, Step: step}
	}
	t := []opCase{
		{op: ops.MatmulTN, in: []tensor.Meta{m(f32, 7, 3), m(f32, 7, 5)}},
		{op: ops.MatmulTN, in: []tensor.Meta{m(f64, 4, 2), m(f32, 4, 6)}},
		{op: ops.MatmulTN, in: []tensor.Meta{m(f32, 0, 3), m(f32, 0, 2)}},
		{op: ops.GeluBackward, in: []tensor.Meta{m(f32, 3, 4), m(f32, 3, 4)}},
		{op: ops.GeluBackward, in: []tensor.Meta{m(f64, 6), m(f64, 6)}},
		{op: ops.IndexBackward, in: []tensor.Meta{m(f32, 2, 6)}, attrs: ops.IndexBackwardAttrs{
			Items: []ops.IndexItem{{Kind: ops.IndexAt, At: -1}, slice(1, 4, 2)}, Shape: tensor.Shape{4, 5, 6}}},
		{op: ops.IndexBackward, in: []tensor.Meta{m(f32, 4, 2)}, attrs: ops.IndexBackwardAttrs{
			Items: []ops.IndexItem{{Kind: ops.IndexSlice, Step: -1}, {Kind: ops.IndexSlice, Start: -2, HasStart: true, Step: -2}}, Shape: tensor.Shape{4, 5}}},
		{op: ops.IndexBackward, in: []tensor.Meta{m(i64, 2, 3)}, attrs: ops.IndexBackwardAttrs{
			Items: []ops.IndexItem{{Kind: ops.IndexSlice, Step: 1}, slice(0, 3, 1)}, Shape: tensor.Shape{2, 8}}},
		{op: ops.IndexBackward, in: []tensor.Meta{m(f32, 0, 3)}, attrs: ops.IndexBackwardAttrs{
			Items: []ops.IndexItem{slice(2, 2, 1)}, Shape: tensor.Shape{4, 3}}},
	}
	t = append(t, convPoolBackwardRows()...)
	return append(t, padBackwardRows()...)
}

// convPoolBackwardRows are the backward kernels of conv2d and the pools:
// even and uneven padding, strides that leave input rows unread, groups,
// dilation, unbatched inputs, ceil mode.
func convPoolBackwardRows() []opCase {
	conv := func(stride, lo, hi, dil, groups int) ops.Conv2dAttrs {
		return ops.Conv2dAttrs{Stride: [2]int{stride, stride}, PadLo: [2]int{lo, lo}, PadHi: [2]int{hi, hi}, Dilation: [2]int{dil, dil}, Groups: groups}
	}
	cb := func(c ops.Conv2dAttrs, shape ...int) ops.Conv2dBackwardAttrs {
		return ops.Conv2dBackwardAttrs{Conv: c, Shape: shape}
	}
	even, uneven := conv(1, 1, 1, 1, 1), conv(2, 0, 1, 1, 2)
	strided, dilated := conv(2, 1, 1, 1, 1), conv(1, 2, 2, 2, 1)
	pool := func(k, stride, pad int, ceil bool) ops.Pool2dAttrs {
		return ops.Pool2dAttrs{Kernel: [2]int{k, k}, Stride: [2]int{stride, stride}, Padding: [2]int{pad, pad}, Dilation: [2]int{1, 1}, CeilMode: ceil}
	}
	avg := func(k, stride, pad int, ceil, include bool, div int, shape ...int) ops.PoolBackwardAttrs {
		return ops.PoolBackwardAttrs{Pool: ops.AvgPool2dAttrs{Kernel: [2]int{k, k}, Stride: [2]int{stride, stride}, Padding: [2]int{pad, pad},
			CeilMode: ceil, CountIncludePad: include, DivisorOverride: div}, Shape: shape}
	}
	adaptive := func(oh, ow int, shape ...int) ops.PoolBackwardAttrs {
		return ops.PoolBackwardAttrs{Pool: ops.AdaptivePool2dAttrs{Out: [2]int{oh, ow}}, Shape: shape}
	}
	return []opCase{
		{op: ops.Conv2dBackwardInput, attrs: cb(even, 1, 2, 4, 4), in: []tensor.Meta{m(f32, 1, 3, 4, 4), m(f32, 3, 2, 3, 3)}},
		{op: ops.Conv2dBackwardInput, attrs: cb(uneven, 1, 4, 8, 8), in: []tensor.Meta{m(f32, 1, 4, 4, 4), m(f32, 4, 2, 2, 2)}},
		{op: ops.Conv2dBackwardInput, attrs: cb(strided, 2, 3, 10, 10), in: []tensor.Meta{m(f32, 2, 4, 5, 5), m(f32, 4, 3, 3, 3)}},
		{op: ops.Conv2dBackwardInput, attrs: cb(dilated, 2, 5, 5), in: []tensor.Meta{m(f64, 3, 5, 5), m(f64, 3, 2, 3, 3)}},
		{op: ops.Conv2dBackwardWeight, attrs: cb(even, 3, 2, 3, 3), in: []tensor.Meta{m(f32, 1, 2, 4, 4), m(f32, 1, 3, 4, 4)}},
		{op: ops.Conv2dBackwardWeight, attrs: cb(uneven, 4, 2, 2, 2), in: []tensor.Meta{m(f32, 1, 4, 8, 8), m(f32, 1, 4, 4, 4)}},
		{op: ops.Conv2dBackwardWeight, attrs: cb(strided, 4, 3, 3, 3), in: []tensor.Meta{m(f32, 2, 3, 10, 10), m(f32, 2, 4, 5, 5)}},
		{op: ops.Conv2dBackwardWeight, attrs: cb(dilated, 3, 2, 3, 3), in: []tensor.Meta{m(f64, 2, 5, 5), m(f64, 3, 5, 5)}},
		{op: ops.MaxPool2dBackward, attrs: pool(2, 2, 0, false), in: []tensor.Meta{m(f32, 1, 1, 4, 4), m(f32, 1, 1, 2, 2)}},
		{op: ops.MaxPool2dBackward, attrs: pool(3, 2, 1, true), in: []tensor.Meta{m(f32, 2, 3, 8, 8), m(f32, 2, 3, 5, 5)}},
		{op: ops.MaxPool2dBackward, attrs: pool(3, 1, 1, false), in: []tensor.Meta{m(f64, 2, 4, 4), m(f64, 2, 4, 4)}},
		{op: ops.AvgPool2dBackward, attrs: avg(2, 2, 0, false, true, 0, 1, 4, 4), in: []tensor.Meta{m(f32, 1, 2, 2)}},
		{op: ops.AvgPool2dBackward, attrs: avg(3, 2, 1, true, false, 0, 1, 2, 8, 8), in: []tensor.Meta{m(f32, 1, 2, 5, 5)}},
		{op: ops.AvgPool2dBackward, attrs: avg(3, 2, 1, false, true, 5, 2, 7, 7), in: []tensor.Meta{m(f32, 2, 4, 4)}},
		{op: ops.AdaptiveAvgPool2dBackward, attrs: adaptive(2, 3, 1, 1, 5, 5), in: []tensor.Meta{m(f32, 1, 1, 2, 3)}},
		{op: ops.AdaptiveAvgPool2dBackward, attrs: adaptive(3, 2, 2, 6, 7), in: []tensor.Meta{m(f64, 2, 3, 2)}},
		// windows that overlap (7 into 3, 5 into 4) and that an output
		// larger than the input repeats (2 into 5)
		{op: ops.AdaptiveAvgPool2dBackward, attrs: adaptive(3, 4, 2, 3, 7, 5), in: []tensor.Meta{m(f32, 2, 3, 3, 4)}},
		{op: ops.AdaptiveAvgPool2dBackward, attrs: adaptive(5, 1, 3, 2, 6), in: []tensor.Meta{m(f32, 3, 5, 1)}},
	}
}

// padBackwardRows are pad's backward kernel in every mode; a negative
// constant pad crops.
func padBackwardRows() []opCase {
	pb := func(mode ops.PadMode, pads []int, shape ...int) ops.PadBackwardAttrs {
		return ops.PadBackwardAttrs{Pad: ops.PadAttrs{Pads: pads, Mode: mode, Value: 0.5}, Shape: shape}
	}
	return []opCase{
		{op: ops.PadBackward, attrs: pb(ops.PadReflect, []int{2, 1}, 2, 4), in: []tensor.Meta{m(f32, 2, 7)}},
		{op: ops.PadBackward, attrs: pb(ops.PadReplicate, []int{1, 2, 0, 1}, 1, 2, 3, 4), in: []tensor.Meta{m(f32, 1, 2, 4, 7)}},
		{op: ops.PadBackward, attrs: pb(ops.PadCircular, []int{1, 2}, 1, 2, 5), in: []tensor.Meta{m(f32, 1, 2, 8)}},
		{op: ops.PadBackward, attrs: pb(ops.PadConstant, []int{-1, 2}, 3, 4), in: []tensor.Meta{m(f64, 3, 5)}},
		// Borders that overlap (reflect: 2 and 2 of 3), pads the size of
		// the dimension (circular), several dimensions of each mode.
		{op: ops.PadBackward, attrs: pb(ops.PadReflect, []int{2, 2, 1, 2}, 2, 3, 3), in: []tensor.Meta{m(f32, 2, 6, 7)}},
		{op: ops.PadBackward, attrs: pb(ops.PadReflect, []int{1, 0, 0, 1, 2, 1}, 1, 2, 4, 3, 3), in: []tensor.Meta{m(f64, 1, 2, 7, 4, 4)}},
		{op: ops.PadBackward, attrs: pb(ops.PadReplicate, []int{3, 0, 2, 2, 1, 1}, 2, 3, 1, 2), in: []tensor.Meta{m(f32, 2, 5, 5, 5)}},
		{op: ops.PadBackward, attrs: pb(ops.PadCircular, []int{3, 3, 0, 2}, 2, 1, 4, 3), in: []tensor.Meta{m(f32, 2, 1, 6, 9)}},
		{op: ops.PadBackward, attrs: pb(ops.PadCircular, []int{0, 1, 2, 0, 1, 1}, 1, 2, 3, 2, 2), in: []tensor.Meta{m(f64, 1, 2, 5, 4, 3)}},
		{op: ops.PadBackward, attrs: pb(ops.PadConstant, []int{1, 2, -1, 0, 2, 0}, 4, 3, 2), in: []tensor.Meta{m(f32, 6, 2, 5)}},
	}
}

// scalarOperandCases are the binary ops with a number for one operand
// (ops.ScalarOperand), on either side, with the promotions a number
// causes: a float with an int tensor gives float32, an int with a bool
// tensor int64, a float64 number with a float32 tensor stays float32.
func scalarOperandCases() []opCase {
	var t []opCase
	sc := func(v ops.Scalar, left bool) ops.ScalarOperand { return ops.ScalarOperand{Value: v, Left: left} }
	for _, op := range ops.BinaryArith {
		pos := op == ops.Pow || op == ops.Div || op == ops.FloorDiv || op == ops.Mod || op == ops.Fmod
		t = append(t,
			opCase{op: op, in: []tensor.Meta{m(f32, 3, 4)}, attrs: sc(ops.FloatScalar(0.75, f32), false), positive: pos},
			opCase{op: op, in: []tensor.Meta{m(f32, 5)}, attrs: sc(ops.FloatScalar(1.3, f64), true), positive: pos},
			opCase{op: op, in: []tensor.Meta{m(f64, 2, 3)}, attrs: sc(ops.FloatScalar(0.05, f32), false), positive: pos},
			opCase{op: op, in: []tensor.Meta{m(i64, 6)}, attrs: sc(ops.FloatScalar(2.5, f32), true), positive: pos})
		if op != ops.Hypot { // hypot takes floats only
			t = append(t, opCase{op: op, in: []tensor.Meta{m(i64, 2, 3)}, attrs: sc(ops.IntScalar(3), false), positive: pos})
		}
		if op == ops.Add || op == ops.Mul || op == ops.Maximum {
			t = append(t, opCase{op: op, in: []tensor.Meta{m(bl, 4)}, attrs: sc(ops.IntScalar(2), true)},
				opCase{op: op, in: []tensor.Meta{m(bl, 4)}, attrs: sc(ops.FloatScalar(1, bl), false)})
		}
	}
	for _, op := range ops.Comparisons {
		t = append(t, opCase{op: op, in: []tensor.Meta{m(f32, 3, 4)}, attrs: sc(ops.FloatScalar(0.1, f32), false)},
			opCase{op: op, in: []tensor.Meta{m(i64, 5)}, attrs: sc(ops.FloatScalar(0.5, f32), true)},
			opCase{op: op, in: []tensor.Meta{m(i64, 5)}, attrs: sc(ops.IntScalar(1), false)})
	}
	// where(c, x, s) and where(c, s, x), broadcasting and promoting
	t = append(t, opCase{op: ops.Where, in: []tensor.Meta{m(bl, 3, 4), m(f32, 3, 4)}, attrs: sc(ops.FloatScalar(0, f32), false)},
		opCase{op: ops.Where, in: []tensor.Meta{m(bl, 3, 1), m(f64, 4)}, attrs: sc(ops.FloatScalar(-1.5, f32), true)},
		opCase{op: ops.Where, in: []tensor.Meta{m(bl, 5), m(i64, 5)}, attrs: sc(ops.FloatScalar(0.5, f32), false)},
		opCase{op: ops.Where, in: []tensor.Meta{m(bl, 2, 3), m(i64, 3)}, attrs: sc(ops.IntScalar(7), true)})
	return t
}

// fill makes deterministic inputs for a case.
func fill(r *rand.Rand, mt tensor.Meta, positive bool) *tensor.Dense {
	d := tensor.NewDense(mt)
	for i := range d.Numel() {
		v := r.NormFloat64()
		switch {
		case mt.DType == bl:
			v = float64(r.IntN(2))
		case mt.DType == i64:
			v = float64(r.IntN(9) - 4)
			if positive {
				v = float64(r.IntN(5) + 1)
			}
		case positive:
			v = math.Abs(v) + 0.1
		}
		d.Set(i, v)
	}
	return d
}

// runCase runs one case on exec and returns the host result.
func runCase(t *testing.T, exec refs.Executor, c opCase, inputs []*tensor.Dense) (*tensor.Dense, error) {
	rt := refs.New(exec, refs.Options{Lookahead: 8})
	var ins []*refs.Ref
	for _, d := range inputs {
		ins = append(ins, rt.FromHost(refs.Site{}, d.Clone()))
	}
	out, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "conformance"}}, c.op, c.attrs, ins...)
	for _, r := range ins {
		rt.Release(r)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		rt.Release(out)
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%d refs alive after the case", n)
		}
	}()
	d, err := rt.Read(out)
	if err != nil {
		return nil, err
	}
	return d.Clone(), nil
}

func TestConformanceCPUvsTorch(t *testing.T) { kernelPaths(t, conformanceCPUvsTorch) }

func conformanceCPUvsTorch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i, c := range conformanceTable() {
		name := fmt.Sprintf("%d-%s", i, c.op)
		inputs := make([]*tensor.Dense, len(c.in))
		for j, mt := range c.in {
			inputs[j] = fill(r, mt, c.positive)
		}
		t.Run(name, func(t *testing.T) {
			want, err := runCase(t, &cpu.Device{}, c, inputs)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			dev, stats := onTorch(t, 0, "", nil)
			got, err := runCase(t, dev, c, inputs)
			if err != nil {
				t.Fatalf("torch:cpu: %v", err)
			}
			if stats.Count[trace.Fallback] != 0 {
				t.Errorf("%s ran on the host, not in libtorch (a plugin built before the op was added? rebuild it: scripts/build-torch.sh)", c.op)
			}
			if msg := agree(got, want); msg != "" {
				t.Errorf("%s over %v: %s", c.op, c.in, msg)
			}
		})
	}
}

// TestConformanceCoversRegistry fails when an op gains a cpu kernel but
// no row in the table, so the torch backend cannot silently fall behind.
func TestConformanceCoversRegistry(t *testing.T) {
	covered := map[ops.Op]bool{}
	for _, c := range conformanceTable() {
		covered[c.op] = true
	}
	// These take inputs the table cannot make at random: embedding and
	// cross_entropy (and its backward) need in-range indices, dropout a
	// mask, cholesky positive-definite matrices; they have their own tests.
	for _, op := range append([]ops.Op{ops.Embedding, ops.CrossEntropy, ops.CrossEntropyBackward, ops.Dropout, ops.Cholesky}, indexedOps...) {
		covered[op] = true
	}
	for _, op := range cpu.Ops() {
		if !covered[op] {
			t.Errorf("op %q has a cpu kernel but no row in the conformance table", op)
		}
	}
}

func TestConformanceIndexedOps(t *testing.T) { kernelPaths(t, conformanceIndexedOps) }

func conformanceIndexedOps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := tensor.NewDense(m(i64, 2, 3))
	for i := range ids.I64() {
		ids.I64()[i] = int64(r.IntN(10))
	}
	targets := tensor.NewDense(m(i64, 4))
	for i := range targets.I64() {
		targets.I64()[i] = int64(r.IntN(6))
	}
	mask := fill(r, m(bl, 3, 4), false)
	cases := []struct {
		c      opCase
		inputs []*tensor.Dense
	}{
		{opCase{op: ops.Embedding}, []*tensor.Dense{ids, fill(r, m(f32, 10, 4), false)}},
		{opCase{op: ops.CrossEntropy, attrs: ops.CrossEntropyAttrs{IgnoreIndex: ops.DefaultIgnoreIndex}},
			[]*tensor.Dense{fill(r, m(f32, 4, 6), false), targets}},
		{opCase{op: ops.Dropout, attrs: ops.DropoutAttrs{P: 0.25}}, []*tensor.Dense{fill(r, m(f32, 3, 4), false), mask}},
	}
	// cross_entropy_backward over [N, C], one ignored target; [C]; [N, C,
	// d] with the other ignore index; every target ignored (zeros).
	ignored := targets.Clone()
	ignored.I64()[2] = ops.DefaultIgnoreIndex
	perPixel := tensor.NewDense(m(i64, 2, 3))
	for i := range perPixel.I64() {
		perPixel.I64()[i] = int64(r.IntN(4))
	}
	perPixel.I64()[4] = 7
	none := tensor.NewDense(m(i64, 3))
	for i := range none.I64() {
		none.I64()[i] = -1
	}
	ceb := func(ignore int, logits tensor.Meta, t *tensor.Dense) struct {
		c      opCase
		inputs []*tensor.Dense
	} {
		return struct {
			c      opCase
			inputs []*tensor.Dense
		}{opCase{op: ops.CrossEntropyBackward, attrs: ops.CrossEntropyAttrs{IgnoreIndex: ignore}},
			[]*tensor.Dense{fill(r, logits, false), t, fill(r, m(logits.DType), false)}}
	}
	one := tensor.NewDense(m(i64))
	one.I64()[0] = 4
	cases = append(cases,
		ceb(ops.DefaultIgnoreIndex, m(f32, 4, 6), ignored),
		ceb(ops.DefaultIgnoreIndex, m(f64, 6), one),
		ceb(7, m(f32, 2, 4, 3), perPixel),
		ceb(-1, m(f32, 3, 5), none))
	cases = append(cases, struct {
		c      opCase
		inputs []*tensor.Dense
	}{opCase{op: ops.CrossEntropy, attrs: ops.CrossEntropyAttrs{IgnoreIndex: 7}}, []*tensor.Dense{fill(r, m(f32, 2, 4, 3), false), perPixel}})
	cases = append(cases, gatherCases(r)...)
	for _, tc := range cases {
		t.Run(tc.c.op.Name(), func(t *testing.T) {
			want, err := runCase(t, &cpu.Device{}, tc.c, tc.inputs)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			dev, stats := onTorch(t, 0, "", nil)
			got, err := runCase(t, dev, tc.c, tc.inputs)
			if err != nil {
				t.Fatalf("torch:cpu: %v", err)
			}
			if stats.Count[trace.Fallback] != 0 {
				t.Errorf("%s ran on the host", tc.c.op)
			}
			if msg := agree(got, want); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestScatterIndexOutOfRange: scatter, scatter_add and scatter_reduce
// with an index outside [0, size), negative or past the end, are errors
// on torch as on cpu (the plugin writes through index_put_, which would
// wrap a negative index).
func TestScatterIndexOutOfRange(t *testing.T) { kernelPaths(t, scatterIndexOutOfRange) }

func scatterIndexOutOfRange(t *testing.T) {
	for _, c := range []opCase{
		{op: ops.ScatterAdd, attrs: ops.DimAttrs{Dim: 0}},
		{op: ops.Scatter, attrs: ops.DimAttrs{Dim: 0}},
		{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "sum"}},
		{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "mean", IncludeSelf: true}},
		{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod", IncludeSelf: true}},
		{op: ops.ScatterReduce, attrs: ops.ScatterReduceAttrs{Dim: 0, Reduce: "prod"}},
	} {
		for _, bad := range []int64{-1, -4, 4, 9} {
			inputs := []*tensor.Dense{tensor.NewDense(m(f32, 4, 2)), tensorI64([]int64{0, 1, bad, 3, 2, 1}, 3, 2), tensor.NewDense(m(f32, 3, 2))}
			if _, err := runCase(t, &cpu.Device{}, c, inputs); err == nil {
				t.Errorf("%s, index %d: cpu ran", c.op, bad)
			}
			dev, _ := onTorch(t, 0, "", nil)
			if got, err := runCase(t, dev, c, inputs); err == nil {
				t.Errorf("%s, index %d: torch:cpu ran, giving %v", c.op, bad, got.F32())
			} else if !strings.Contains(err.Error(), "out of bounds") {
				t.Errorf("%s, index %d: %v", c.op, bad, err)
			}
		}
	}
}

// TestLongCumprod: a float cumprod whose elements all lie along dim is
// scanned in rows by the plugin (scan_blocked), as cumsum's rows in the
// conformance table; it agrees with cpu's. Factors near 1 keep the
// products of a million in range.
func TestLongCumprod(t *testing.T) { kernelPaths(t, longCumprod) }

func longCumprod(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, mt := range []tensor.Meta{m(f32, 1, 700), m(f64, 2000, 1), m(f32, 1100*1024+37)} {
		x := tensor.NewDense(mt)
		for i := range x.Numel() {
			x.Set(i, 1+1e-4*r.NormFloat64())
		}
		c := opCase{op: ops.Cumprod, attrs: ops.ScanAttrs{Dim: -1}}
		if mt.Shape[len(mt.Shape)-1] == 1 {
			c.attrs = ops.ScanAttrs{Dim: 0}
		}
		want, err := runCase(t, &cpu.Device{}, c, []*tensor.Dense{x})
		if err != nil {
			t.Fatalf("%v: cpu: %v", mt, err)
		}
		dev, _ := onTorch(t, 0, "", nil)
		got, err := runCase(t, dev, c, []*tensor.Dense{x})
		if err != nil {
			t.Fatalf("%v: torch:cpu: %v", mt, err)
		}
		if msg := agree(got, want); msg != "" {
			t.Errorf("%v: %s", mt, msg)
		}
	}
}

// kernelPaths runs f with torch's kernels on the CPU, then with the
// plugin's ordered builds of the ops whose CUDA kernels run in no fixed
// order, which CUDA always takes (Lib.SetOrderedKernels).
func kernelPaths(t *testing.T, f func(t *testing.T)) {
	lib := plugin(t)
	for _, ordered := range []bool{false, true} {
		name := "torch"
		if ordered {
			name = "ordered"
		}
		t.Run(name, func(t *testing.T) {
			was := lib.SetOrderedKernels(ordered)
			defer lib.SetOrderedKernels(was)
			f(t)
		})
	}
}

// agree compares within float32 tolerance (matmul-class ops sum in a
// different order on each backend).
func agree(got, want *tensor.Dense) string {
	if got.DType != want.DType || !got.Shape.Equal(want.Shape) {
		return fmt.Sprintf("got %v, want %v", got.Meta, want.Meta)
	}
	for i := range want.Numel() {
		g, w := got.At(i), want.At(i)
		if math.IsNaN(g) && math.IsNaN(w) || g == w {
			continue
		}
		if math.Abs(g-w) > 1e-4*math.Abs(w)+1e-5 {
			return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
		}
	}
	return ""
}

// TestNarrowIntsFallBack checks that ops on the integer widths the C ABI
// has no code for run on the host, with the reason, and agree with cpu.
func TestNarrowIntsFallBack(t *testing.T) {
	plugin(t)
	a := tensor.NewDense(m(tensor.Int32, 3))
	b := tensor.NewDense(m(tensor.Int32, 3))
	for i := range 3 {
		a.SetInt(i, int64(i)+2147483646)
		b.SetInt(i, 1)
	}
	for _, c := range []opCase{
		{op: ops.Add, in: []tensor.Meta{a.Meta, b.Meta}},
		{op: ops.Astype, attrs: ops.CastAttrs{To: tensor.Float32}, in: []tensor.Meta{a.Meta}},
	} {
		inputs := []*tensor.Dense{a, b}[:len(c.in)]
		want, got, reasons := runFallingBack(t, c, inputs)
		if len(reasons.r) != 1 || !strings.Contains(reasons.r[0], "no int32 tensors") {
			t.Errorf("%s: fallbacks %q", c.op, reasons.r)
		}
		if msg := agree(got, want); msg != "" {
			t.Errorf("%s: %s", c.op, msg)
		}
	}
}

// runFallingBack runs c on cpu and on torch:cpu under the placement
// engine, and returns both results and the reasons of the fallbacks the
// engine recorded on torch:cpu.
func runFallingBack(t *testing.T, c opCase, inputs []*tensor.Dense) (want, got *tensor.Dense, reasons *fallbackReasons) {
	t.Helper()
	want, err := runCase(t, &cpu.Device{}, c, inputs)
	if err != nil {
		t.Fatal(err)
	}
	reasons = &fallbackReasons{}
	ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Middleware: []placement.Middleware{reasons}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = runCase(t, ex, c, inputs); err != nil {
		t.Fatal(err)
	}
	return want, got, reasons
}

// fallbackReasons collects the reasons of fallback events.
type fallbackReasons struct {
	placement.Base
	r []string
}

func (f *fallbackReasons) OnEvent(_ *placement.Engine, ev *trace.Event) {
	if ev.Kind == trace.Fallback {
		f.r = append(f.r, ev.Reason)
	}
}
