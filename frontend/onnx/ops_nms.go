package onnx

import (
	"fmt"
	"math"
	"sort"

	"github.com/tref-lang/tref/runtime/tensor"
)

// NonMaxSuppression, computed on the host (its output's length depends on
// the values), as onnxruntime does it: per batch and class, the boxes
// whose score is above score_threshold in decreasing score order (ties:
// the lower index first), each kept unless its IoU with a box already
// kept for the class is above iou_threshold, up to
// max_output_boxes_per_class (0 or absent: none). The result is int64
// [selected, 3] rows of (batch, class, box), in that order.

func init() {
	lower([]string{"NonMaxSuppression"}, lowerNMS)
}

// nmsBox is a box as its corners, lowest first.
type nmsBox struct{ y1, x1, y2, x2 float64 }

func (b nmsBox) area() float64 { return (b.y2 - b.y1) * (b.x2 - b.x1) }

// suppresses says whether a and b overlap by more than threshold (never
// when either has no area).
func (a nmsBox) suppresses(b nmsBox, threshold float64) bool {
	aa, ba := a.area(), b.area()
	if aa <= 0 || ba <= 0 {
		return false
	}
	ih := min(a.y2, b.y2) - max(a.y1, b.y1)
	iw := min(a.x2, b.x2) - max(a.x1, b.x1)
	if ih <= 0 || iw <= 0 {
		return false
	}
	inter := ih * iw
	return inter/(aa+ba-inter) > threshold
}

func lowerNMS(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	bs, ss := ins[0].meta.Shape, ins[1].meta.Shape
	if len(bs) != 3 || bs[2] != 4 || len(ss) != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
		return nil, fmt.Errorf("boxes %v and scores %v do not fit ([batch, boxes, 4] and [batch, classes, boxes])", bs, ss)
	}
	boxes, err := c.host(ins[0])
	if err != nil {
		return nil, err
	}
	scores, err := c.host(ins[1])
	if err != nil {
		return nil, err
	}
	opt := func(i int, what string, def float64) (float64, error) {
		if v := input(ins, i); v != nil && v.meta.Shape.Numel() > 0 {
			return c.scalarOf(v, what)
		}
		return def, nil
	}
	maxOut, err := opt(2, "max_output_boxes_per_class", 0)
	if err != nil {
		return nil, err
	}
	iou, err := opt(3, "iou_threshold", 0)
	if err != nil {
		return nil, err
	}
	minScore, err := opt(4, "score_threshold", math.Inf(-1))
	if err != nil {
		return nil, err
	}
	center := c.attrInt("center_point_box", 0) != 0
	nb, nc, n := bs[0], ss[1], bs[1]
	box := func(b, i int) nmsBox {
		v := func(k int) float64 { return boxes.At((b*n+i)*4 + k) }
		if center {
			x, y, w, h := v(0), v(1), v(2), v(3)
			return nmsBox{y - h/2, x - w/2, y + h/2, x + w/2}
		}
		return nmsBox{min(v(0), v(2)), min(v(1), v(3)), max(v(0), v(2)), max(v(1), v(3))}
	}
	var rows []int64
	for b := range nb {
		for cl := range nc {
			score := func(i int) float64 { return scores.At((b*nc+cl)*n + i) }
			var order []int
			for i := range n {
				if score(i) > minScore {
					order = append(order, i)
				}
			}
			sort.SliceStable(order, func(p, q int) bool { return score(order[p]) > score(order[q]) })
			var kept []nmsBox
			for _, i := range order {
				if float64(len(kept)) >= maxOut {
					break
				}
				bx := box(b, i)
				ok := true
				for _, k := range kept {
					if k.suppresses(bx, iou) {
						ok = false
						break
					}
				}
				if ok {
					kept = append(kept, bx)
					rows = append(rows, int64(b), int64(cl), int64(i))
				}
			}
		}
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(rows) / 3, 3}, DType: tensor.Int64})
	copy(d.I64(), rows)
	return []*value{c.keep(&value{meta: d.Meta, c: d})}, nil
}
