package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Sequences of tensors inside a graph: a sequence value holds its
// elements (each element keeps one use, so it lives while a sequence
// holds it). Graph inputs and outputs stay tensors.

func init() {
	lower([]string{"SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase"}, lowerSeqBuild)
	lower([]string{"SequenceAt", "SequenceLength"}, lowerSeqRead)
	lower([]string{"SplitToSequence"}, lowerSplitToSequence)
	lower([]string{"ConcatFromSequence"}, lowerConcatFromSequence)
}

// newSeq is a sequence of elems, each taking a use.
func (c *ctx) newSeq(dt tensor.DType, elems []*value) *value {
	for _, e := range elems {
		e.uses++
	}
	return c.keep(&value{isSeq: true, seq: elems, seqDT: dt})
}

// seqOf checks that v is a sequence.
func seqOf(v *value) ([]*value, error) {
	if v == nil || !v.isSeq {
		return nil, fmt.Errorf("expected a sequence")
	}
	return v.seq, nil
}

// position reads a position input (negative from the end) for a sequence
// of n; at end, n itself is allowed (insert at the back).
func (c *ctx) position(v *value, n int, end bool) (int, error) {
	p, err := c.ints(v, "position")
	if err != nil {
		return 0, err
	}
	if len(p) != 1 {
		return 0, fmt.Errorf("position must have one element")
	}
	i := p[0]
	if i < 0 {
		i += int64(n)
	}
	hi := int64(n) - 1
	if end {
		hi = int64(n)
	}
	if i < 0 || i > hi {
		return 0, fmt.Errorf("position %d out of range for a sequence of %d", p[0], n)
	}
	return int(i), nil
}

func lowerSeqBuild(c *ctx, ins []*value) ([]*value, error) {
	switch c.node.OpType {
	case "SequenceConstruct":
		if len(ins) == 0 {
			return nil, fmt.Errorf("needs inputs")
		}
		for _, in := range ins {
			if in == nil || in.isSeq || in.meta.DType != ins[0].meta.DType {
				return nil, fmt.Errorf("needs tensors of one dtype")
			}
		}
		return []*value{c.newSeq(ins[0].meta.DType, append([]*value(nil), ins...))}, nil
	case "SequenceEmpty":
		dt := tensor.Float32
		if a := c.attr("dtype"); a != nil {
			var ok bool
			if dt, ok = DataType(a.I).DType(); !ok {
				return nil, fmt.Errorf("tref has no %s tensors", DataType(a.I))
			}
		}
		return []*value{c.newSeq(dt, nil)}, nil
	}
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	s, err := seqOf(ins[0])
	if err != nil {
		return nil, err
	}
	elems := append([]*value(nil), s...)
	if c.node.OpType == "SequenceInsert" {
		if err := need(ins, 1); err != nil {
			return nil, err
		}
		at := len(elems)
		if p := input(ins, 2); p != nil {
			if at, err = c.position(p, len(elems), true); err != nil {
				return nil, err
			}
		}
		elems = append(elems[:at], append([]*value{ins[1]}, elems[at:]...)...)
		return []*value{c.newSeq(ins[0].seqDT, elems)}, nil
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("erase from an empty sequence")
	}
	at := len(elems) - 1
	if p := input(ins, 1); p != nil {
		if at, err = c.position(p, len(elems), false); err != nil {
			return nil, err
		}
	}
	elems = append(elems[:at], elems[at+1:]...)
	return []*value{c.newSeq(ins[0].seqDT, elems)}, nil
}

func lowerSeqRead(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	s, err := seqOf(ins[0])
	if err != nil {
		return nil, err
	}
	if c.node.OpType == "SequenceLength" {
		return []*value{c.keep(constOf(tensor.Int64, nil, float64(len(s))))}, nil
	}
	if err := need(ins, 1); err != nil {
		return nil, err
	}
	at, err := c.position(ins[1], len(s), false)
	if err != nil {
		return nil, err
	}
	return []*value{s[at]}, nil
}

func lowerSplitToSequence(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	ax, err := axis(c.attrInt("axis", 0), len(x.meta.Shape))
	if err != nil {
		return nil, err
	}
	n := x.meta.Shape[ax]
	var sizes []int64
	if v := input(ins, 1); v != nil {
		if sizes, err = c.ints(v, "split"); err != nil {
			return nil, err
		}
		if len(v.meta.Shape) == 0 {
			// One size: pieces of it, the last maybe smaller.
			k := sizes[0]
			if k < 1 {
				return nil, fmt.Errorf("split %d", k)
			}
			sizes = nil
			for left := int64(n); left > 0; left -= k {
				sizes = append(sizes, min(k, left))
			}
		}
	}
	keep := c.attrInt("keepdims", 1) != 0
	var elems []*value
	if sizes == nil {
		for i := range n {
			var e *value
			if keep {
				e, err = c.slice(x, ax, i, i+1, 1)
			} else {
				e, err = c.plane(x, ax, i)
			}
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		return []*value{c.newSeq(x.meta.DType, elems)}, nil
	}
	at := 0
	for _, s := range sizes {
		if s < 0 || at+int(s) > n {
			return nil, fmt.Errorf("split %v does not fit dimension %d of size %d", sizes, ax, n)
		}
		e, err := c.slice(x, ax, at, at+int(s), 1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
		at += int(s)
	}
	if at != n {
		return nil, fmt.Errorf("split %v does not add up to %d", sizes, n)
	}
	return []*value{c.newSeq(x.meta.DType, elems)}, nil
}

func lowerConcatFromSequence(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	s, err := seqOf(ins[0])
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("concatenation of an empty sequence")
	}
	r := len(s[0].meta.Shape)
	if c.attrInt("new_axis", 0) != 0 {
		ax, err := axis(c.attrInt("axis", 0), r+1)
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Stack, ops.CatAttrs{Dim: ax}, s...))
	}
	ax, err := axis(c.attrInt("axis", 0), r)
	if err != nil {
		return nil, err
	}
	if len(s) == 1 {
		return []*value{s[0]}, nil
	}
	return one(c.op(ops.Cat, ops.CatAttrs{Dim: ax}, s...))
}
