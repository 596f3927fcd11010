package onnx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Einsum by broadcasting: every operand is laid out over all the
// equation's labels (the output's first, then the summed ones; a label an
// operand lacks is a dimension of 1), the operands are multiplied, and the
// summed labels are reduced. Repeated labels in one operand take its
// diagonal first. Memory is the product of every label's size, which is
// fine for the small contractions exported graphs use; large ones want the
// matmul decomposition of the einsum builtin.

func init() {
	lower([]string{"Einsum"}, lowerEinsum)
}

// ellipsisLabels are the labels "..." stands for (never letters).
const ellipsisLabels = "0123456789!#$%&*+;<=>?@^_~"

func lowerEinsum(c *ctx, ins []*value) ([]*value, error) {
	eq := strings.ReplaceAll(c.attrString("equation", ""), " ", "")
	lhs, out, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ins) || len(ins) == 0 {
		return nil, fmt.Errorf("equation %q for %d inputs", eq, len(ins))
	}
	for _, t := range append(append([]string(nil), terms...), out) {
		for _, r := range strings.Replace(t, "...", "", 1) {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return nil, fmt.Errorf("equation %q: labels are letters", eq)
			}
		}
	}
	// Expand "..." into labels, right-aligned across operands.
	ell := 0
	for i, t := range terms {
		if ins[i] == nil {
			return nil, fmt.Errorf("inputs may not be omitted")
		}
		if strings.Contains(t, "...") {
			ell = max(ell, len(ins[i].meta.Shape)-(len(t)-3))
		}
	}
	if ell > len(ellipsisLabels) {
		return nil, fmt.Errorf("an ellipsis of %d dimensions", ell)
	}
	for i, t := range terms {
		if before, after, ok := strings.Cut(t, "..."); ok {
			k := len(ins[i].meta.Shape) - len(before) - len(after)
			if k < 0 {
				return nil, fmt.Errorf("term %q for an input of rank %d", t, len(ins[i].meta.Shape))
			}
			terms[i] = before + ellipsisLabels[ell-k:ell] + after
		}
		if len(terms[i]) != len(ins[i].meta.Shape) {
			return nil, fmt.Errorf("term %q for an input of rank %d", t, len(ins[i].meta.Shape))
		}
	}
	count := map[byte]int{}
	size := map[byte]int{}
	for i, t := range terms {
		for j := range len(t) {
			l := t[j]
			count[l]++
			d := ins[i].meta.Shape[j]
			if s, ok := size[l]; ok && s != d && s != 1 && d != 1 {
				return nil, fmt.Errorf("label %q is %d and %d long", l, s, d)
			}
			size[l] = max(size[l], d)
		}
	}
	if !explicit {
		// Implicit output: the ellipsis, then the labels used once, sorted.
		var once []byte
		for l, n := range count {
			if n == 1 && !strings.ContainsRune(ellipsisLabels, rune(l)) {
				once = append(once, l)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		out = ellipsisLabels[:ell] + string(once)
	} else if before, after, ok := strings.Cut(out, "..."); ok {
		out = before + ellipsisLabels[:ell] + after
	}
	all := out
	for _, t := range terms {
		for j := range len(t) {
			if !strings.ContainsRune(all, rune(t[j])) {
				all += string(t[j])
			}
		}
	}
	var prod *value
	for i, t := range terms {
		v, err := c.einsumOperand(ins[i], t, all)
		if err != nil {
			return nil, err
		}
		if prod == nil {
			prod = v
		} else if prod, err = c.op(ops.Mul, nil, prod, v); err != nil {
			return nil, err
		}
	}
	full := make(tensor.Shape, len(all))
	for i := range len(all) {
		full[i] = size[all[i]]
	}
	var err error
	if !prod.meta.Shape.Equal(full) {
		if prod, err = c.op(ops.Expand, ops.ExpandAttrs{Shape: full}, prod); err != nil {
			return nil, err
		}
	}
	if len(all) == len(out) {
		return []*value{prod}, nil
	}
	dims := make([]int, 0, len(all)-len(out))
	for i := len(out); i < len(all); i++ {
		dims = append(dims, i)
	}
	return one(c.op(ops.Sum, ops.ReduceAttrs{Dims: dims}, prod))
}

// einsumOperand lays x (labelled by term) out over the labels of all: its
// repeated labels reduced to their diagonal, its dimensions permuted into
// all's order, a dimension of 1 for each label it lacks.
func (c *ctx) einsumOperand(x *value, term, all string) (*value, error) {
	var err error
	for {
		// A repeated label: move both to the end and take the diagonal.
		i, j := -1, -1
		for a := range len(term) {
			if b := strings.IndexByte(term[a+1:], term[a]); b >= 0 {
				i, j = a, a+1+b
				break
			}
		}
		if i < 0 {
			break
		}
		n := x.meta.Shape[i]
		if x.meta.Shape[j] != n {
			return nil, fmt.Errorf("label %q is %d and %d long in one operand", term[i], n, x.meta.Shape[j])
		}
		perm := []int{}
		rest := ""
		for k := range len(term) {
			if k != i && k != j {
				perm = append(perm, k)
				rest += string(term[k])
			}
		}
		if x, err = c.permute(x, append(perm, i, j)); err != nil {
			return nil, err
		}
		s := x.meta.Shape
		flat := append(s[:len(s)-2].Clone(), n*n)
		if x, err = c.reshape(x, flat); err != nil {
			return nil, err
		}
		if x, err = c.slice(x, len(flat)-1, 0, n*n, n+1); err != nil {
			return nil, err
		}
		term = rest + string(term[i])
	}
	perm := make([]int, 0, len(term))
	shape := make(tensor.Shape, 0, len(all))
	for k := range len(all) {
		if p := strings.IndexByte(term, all[k]); p >= 0 {
			perm = append(perm, p)
			shape = append(shape, x.meta.Shape[p])
		} else {
			shape = append(shape, 1)
		}
	}
	if x, err = c.permute(x, perm); err != nil {
		return nil, err
	}
	return c.reshape(x, shape)
}
