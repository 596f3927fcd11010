package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// A lowering turns one ONNX node into runtime ops: it reads the node's
// attributes (c.node) and inputs (nil for an omitted optional input) and
// returns one value per node output it computes. Lowerings compose the
// runtime's ops (reshape, conv2d, where, ...), so every backend and the
// placement engine see ordinary ops.
type lowerFunc func(c *ctx, ins []*value) ([]*value, error)

// lowerings maps ONNX op types to their lowering: the op type for the
// default domain, "domain.OpType" for others. Every lowering handles the
// op's forms from opset 7 through 21 (attributes that became inputs,
// changed defaults).
var lowerings = map[string]lowerFunc{}

func lower(names []string, fn lowerFunc) {
	for _, n := range names {
		if lowerings[n] != nil {
			panic("onnx: two lowerings for " + n)
		}
		lowerings[n] = fn
	}
}

// Supported reports whether tref can run nodes of op type op in domain.
func Supported(domain, op string) bool { return lowerings[opKey(domain, op)] != nil }

// opKey is the key of an op in lowerings.
func opKey(domain, op string) string {
	if domain == "" || domain == "ai.onnx" {
		return op
	}
	return domain + "." + op
}

func lowerNode(c *ctx, n *Node, ins []*value) ([]*value, error) {
	fn := lowerings[opKey(n.Domain, n.OpType)]
	if fn == nil {
		return nil, fmt.Errorf("tref cannot run this op")
	}
	return fn(c, ins)
}

// one wraps a single result.
func one(v *value, err error) ([]*value, error) {
	if err != nil {
		return nil, err
	}
	return []*value{v}, nil
}

// attr finds the node's attribute name.
func (c *ctx) attr(name string) *Attr { return attrOf(c.node, name) }

// attrInt is an INT attribute, or def when absent.
func (c *ctx) attrInt(name string, def int64) int64 { return attrIntOf(c.node, name, def) }

// attrFloat is a FLOAT attribute, or def when absent.
func (c *ctx) attrFloat(name string, def float64) float64 {
	if a := c.attr(name); a != nil {
		return float64(a.F)
	}
	return def
}

// attrString is a STRING attribute, or def when absent.
func (c *ctx) attrString(name, def string) string {
	if a := c.attr(name); a != nil {
		return string(a.S)
	}
	return def
}

// attrInts is an INTS attribute; ok is false when absent.
func (c *ctx) attrInts(name string) (v []int64, ok bool) {
	if a := c.attr(name); a != nil {
		return a.Ints, true
	}
	return nil, false
}

// need checks that the inputs at the given positions were given.
func need(ins []*value, idx ...int) error {
	for _, i := range idx {
		if i >= len(ins) || ins[i] == nil {
			return fmt.Errorf("input %d is required", i)
		}
	}
	return nil
}

// input returns input i, or nil when omitted.
func input(ins []*value, i int) *value {
	if i < len(ins) {
		return ins[i]
	}
	return nil
}

// axis normalizes an axis attribute against rank.
func axis(a int64, rank int) (int, error) {
	if a < -int64(rank) || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, rank)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

// normAxes normalizes a list of axes against rank.
func normAxes(a []int64, rank int) ([]int, error) {
	out := make([]int, len(a))
	for i, ai := range a {
		ax, err := axis(ai, rank)
		if err != nil {
			return nil, err
		}
		out[i] = ax
	}
	return out, nil
}

// toInts converts int64s to ints.
func toInts(xs []int64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

// shapeInts converts a shape to int64s.
func shapeInts(s tensor.Shape) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = int64(d)
	}
	return out
}
