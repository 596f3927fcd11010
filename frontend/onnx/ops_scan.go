package onnx

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Scan: the body run once per element along each scan input's axis
// (forward or reverse), the state values carried from one run to the
// next, the body's scan outputs stacked along their axes; opset 8's
// batched form is one such scan per batch element.

func init() {
	lower([]string{"Scan"}, lowerScan)
}

func lowerScan(c *ctx, ins []*value) ([]*value, error) {
	// Opset 8: sequence_lens first, every value with a batch axis first.
	batched := c.opset < 9
	var seqLens *value
	dirsName := "scan_input_directions"
	if batched {
		if len(ins) == 0 {
			return nil, fmt.Errorf("no inputs")
		}
		seqLens, ins, dirsName = ins[0], ins[1:], "directions"
	}
	a := c.attr("body")
	if a == nil || a.G == nil {
		return nil, fmt.Errorf("no body")
	}
	body := a.G
	m := int(c.attrInt("num_scan_inputs", 0))
	if m < 1 || m > len(ins) {
		return nil, fmt.Errorf("num_scan_inputs %d for %d inputs", m, len(ins))
	}
	n := len(ins) - m
	for _, v := range ins {
		if v == nil {
			return nil, fmt.Errorf("inputs may not be omitted")
		}
	}
	k := len(body.Outputs) - n
	if len(body.Inputs) != n+m || k < 0 {
		return nil, fmt.Errorf("the body takes %d inputs and gives %d outputs for %d states and %d scan inputs", len(body.Inputs), len(body.Outputs), n, m)
	}
	list := func(name string, count int, rank func(int) int) ([]int, error) {
		v, ok := c.attrInts(name)
		out := make([]int, count)
		if !ok {
			return out, nil
		}
		if len(v) != len(out) {
			return nil, fmt.Errorf("%s %v for %d values", name, v, len(out))
		}
		for i, x := range v {
			if rank == nil {
				out[i] = int(x)
				continue
			}
			ax, err := axis(x, rank(i))
			if err != nil {
				return nil, err
			}
			out[i] = ax
		}
		return out, nil
	}
	scanIns := ins[n:]
	inAxes, err := list("scan_input_axes", m, func(i int) int { return len(scanIns[i].meta.Shape) })
	if err != nil {
		return nil, err
	}
	inDirs, err := list(dirsName, m, nil)
	if err != nil {
		return nil, err
	}
	outDirs, err := list("scan_output_directions", k, nil)
	if err != nil {
		return nil, err
	}
	// output axes are normalized against the stacked rank in scan
	outAxes, err := list("scan_output_axes", k, nil)
	if err != nil {
		return nil, err
	}
	if !batched {
		return c.scan(body, ins[:n], scanIns, inAxes, inDirs, outAxes, outDirs)
	}
	return c.scanBatches(body, ins[:n], scanIns, seqLens, inDirs)
}

// scanBatches is opset 8's Scan: one scan per batch element (axis 0 of
// every value, the steps along axis 1 of the scan inputs), the results
// stacked along a new batch axis. sequence_lens must give every batch
// element all the steps.
func (c *ctx) scanBatches(body *Graph, states, scanIns []*value, seqLens *value, dirs []int) ([]*value, error) {
	all := append(slices.Clone(states), scanIns...)
	batch := -1
	for _, v := range all {
		if len(v.meta.Shape) < 1 || batch >= 0 && v.meta.Shape[0] != batch {
			return nil, fmt.Errorf("every value needs the batch axis first, got %v", v.meta.Shape)
		}
		batch = v.meta.Shape[0]
	}
	if seqLens != nil {
		lens, err := c.ints(seqLens, "sequence_lens")
		if err != nil {
			return nil, err
		}
		for _, l := range lens {
			if len(scanIns[0].meta.Shape) < 2 || int(l) != scanIns[0].meta.Shape[1] {
				return nil, fmt.Errorf("sequence_lens %v shorter than the sequences is not supported", lens)
			}
		}
	}
	zeros := func(n int) []int { return make([]int, n) }
	k := len(body.Outputs) - len(states)
	var per [][]*value
	for b := range batch {
		at := make([]*value, len(all))
		for i, v := range all {
			s, err := c.slice(v, 0, b, b+1, 1)
			if err != nil {
				return nil, err
			}
			if at[i], err = c.reshape(s, v.meta.Shape[1:]); err != nil {
				return nil, err
			}
		}
		outs, err := c.scan(body, at[:len(states)], at[len(states):], zeros(len(scanIns)), dirs, zeros(k), zeros(k))
		if err != nil {
			return nil, fmt.Errorf("batch %d: %w", b, err)
		}
		per = append(per, outs)
	}
	res := make([]*value, len(body.Outputs))
	for i := range res {
		col := make([]*value, len(per))
		for b, outs := range per {
			col[b] = outs[i]
		}
		v, err := c.op(ops.Stack, ops.CatAttrs{Dim: 0}, col...)
		if err != nil {
			return nil, err
		}
		res[i] = v
	}
	return res, nil
}

// scan runs body over the steps of scanIns (along inAxes, reversed where
// inDirs is nonzero) carrying states, and stacks the scan outputs along
// outAxes (reversed where outDirs is nonzero).
func (c *ctx) scan(body *Graph, states, scanIns []*value, inAxes, inDirs, outAxes, outDirs []int) ([]*value, error) {
	steps := -1
	for j, v := range scanIns {
		if len(v.meta.Shape) == 0 {
			return nil, fmt.Errorf("scan input %d is 0-d", j)
		}
		l := v.meta.Shape[inAxes[j]]
		if steps >= 0 && l != steps {
			return nil, fmt.Errorf("scan inputs of %d and %d steps", steps, l)
		}
		steps = l
	}
	n, k := len(states), len(body.Outputs)-len(states)
	carried := append([]*value(nil), states...)
	scans := make([][]*value, k)
	holdAll(carried)
	defer func() { dropLoop(c.rt, carried, scans) }()
	for t := range steps {
		bound := map[string]*value{}
		for j, v := range carried {
			bound[body.Inputs[j].Name] = v
		}
		for j, v := range scanIns {
			at := t
			if inDirs[j] != 0 {
				at = steps - 1 - t
			}
			s, err := c.slice(v, inAxes[j], at, at+1, 1)
			if err != nil {
				return nil, err
			}
			shape := slices.Delete(slices.Clone(v.meta.Shape), inAxes[j], inAxes[j]+1)
			if s, err = c.reshape(s, tensor.Shape(shape)); err != nil {
				return nil, err
			}
			bound[body.Inputs[n+j].Name] = s
		}
		outs, err := c.runSubgraph(body, c.env, bound)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", t, err)
		}
		holdAll(outs)
		dropAll(c.rt, carried)
		carried = outs[:n]
		for q := range scans {
			scans[q] = append(scans[q], outs[n+q])
		}
	}
	res := append([]*value(nil), carried...)
	for q, s := range scans {
		if len(s) == 0 {
			return nil, fmt.Errorf("scan output %d of a scan of no steps", q)
		}
		ax, err := axis(int64(outAxes[q]), len(s[0].meta.Shape)+1)
		if err != nil {
			return nil, err
		}
		in := s
		if outDirs[q] != 0 {
			in = slices.Clone(s)
			slices.Reverse(in)
		}
		v, err := c.op(ops.Stack, ops.CatAttrs{Dim: ax}, in...)
		if err != nil {
			return nil, err
		}
		res = append(res, v)
	}
	leaveLoop(c.rt, res, carried, scans)
	carried, scans = nil, nil // left: the deferred drop has nothing to do
	return res, nil
}
