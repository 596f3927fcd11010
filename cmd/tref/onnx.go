package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tref-lang/tref/frontend/onnx"
)

// onnxCommand runs `tref onnx <subcommand> model.onnx`; the only
// subcommand is inspect.
func (c *cli) onnxCommand(args []string) int {
	if args[0] != "inspect" {
		return usageError(c.stderr, c.cmd, "unknown subcommand %q", args[0])
	}
	f, err := onnx.Open(args[1], nil)
	if err != nil {
		fmt.Fprintf(c.stderr, "tref: %v\n", err)
		return 1
	}
	defer f.Close()
	inspectONNX(c.stdout, f)
	return 0
}

// inspectONNX writes the summary of an opened model.
func inspectONNX(w io.Writer, f *onnx.File) {
	m := f.Model
	var opsets []string
	for dom, v := range m.Opsets {
		if dom == "" {
			dom = "ai.onnx"
		}
		opsets = append(opsets, fmt.Sprintf("%s %d", dom, v))
	}
	sort.Strings(opsets)
	fmt.Fprintf(w, "%s: ONNX IR version %d, opset %s", f.Path, m.IRVersion, strings.Join(opsets, ", "))
	if m.Producer != "" {
		fmt.Fprintf(w, ", from %s", strings.TrimSpace(m.Producer+" "+m.ProducerVer))
	}
	fmt.Fprintln(w)
	g := m.Graph
	inits := map[string]bool{}
	var params, elems, bytes int64
	stored := append([]*onnx.Tensor(nil), g.Initializers...)
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			if n.OpType == "Constant" && a.T != nil {
				stored = append(stored, a.T)
			}
		}
	}
	for _, t := range g.Initializers {
		inits[t.Name] = true
	}
	for _, t := range stored {
		params++
		if s, err := t.Shape(); err == nil {
			elems += int64(s.Numel())
		}
		bytes += t.StoredBytes()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	port := func(vi *onnx.ValueInfo) {
		shape := "(any shape)"
		if vi.Type.HasShape {
			shape = onnx.ShapeString(vi.Type.Shape)
		}
		kind := vi.Type.Elem.String()
		if vi.Type.Kind != onnx.TypeTensor {
			kind = "(not a tensor)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", vi.Name, kind, shape)
	}
	fmt.Fprintln(tw, "inputs:")
	for _, vi := range g.Inputs {
		if !inits[vi.Name] {
			port(vi)
		}
	}
	fmt.Fprintln(tw, "outputs:")
	for _, vi := range g.Outputs {
		port(vi)
	}
	counts := map[string]int{}
	for _, n := range g.Nodes {
		k := n.OpType
		if n.Domain != "" {
			k = n.Domain + "." + k
		}
		counts[k]++
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Fprintf(tw, "ops: %d nodes\n", len(g.Nodes))
	for _, k := range names {
		fmt.Fprintf(tw, "  %s\t%d\n", k, counts[k])
	}
	tw.Flush()
	fmt.Fprintf(w, "parameters (initializers and constants): %d tensors, %d elements, %d bytes\n", params, elems, bytes)
	if bad := onnx.Unsupported(m); len(bad) > 0 {
		fmt.Fprintln(w, "tref cannot run:")
		for _, b := range bad {
			fmt.Fprintf(w, "  %s\n", b)
		}
	} else {
		fmt.Fprintln(w, "tref runs every op")
	}
}
