package onnx

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The conformance test runs every case of Debian's libonnx-testdata (the
// ONNX project's backend test data: node, pytorch-converted,
// pytorch-operator, simple) and compares with the stored outputs. The
// results are written to spec/onnx.md; the test fails when that table is
// stale (go test ./frontend/onnx -run Conformance -update rewrites it).

var update = flag.Bool("update", false, "rewrite spec/onnx.md from the conformance run")

// testdataDir is where libonnx-testdata installs the cases.
func testdataDir() string {
	if d := os.Getenv("TREF_ONNX_TESTDATA"); d != "" {
		return d
	}
	return "/usr/share/libonnx-testdata/data"
}

// conformanceSets are the case folders run, in the table's order.
var conformanceSets = []string{"pytorch-converted", "pytorch-operator", "simple", "node"}

type status uint8

const (
	pass status = iota
	fail
	unsupported
)

func (s status) String() string { return [...]string{"pass", "fail", "unsupported"}[s] }

type caseResult struct {
	set, name string
	ops       []string
	status    status
	why       string
}

func TestConformance(t *testing.T) {
	dir := testdataDir()
	if _, err := os.Stat(filepath.Join(dir, "node")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("libonnx-testdata is not installed (%v); CI installs it in .ci/run", err)
		}
		t.Skipf("libonnx-testdata is not installed: %v", err)
	}
	var results []caseResult
	for _, set := range conformanceSets {
		cases, _ := filepath.Glob(filepath.Join(dir, set, "*", "model.onnx"))
		sort.Strings(cases)
		for _, model := range cases {
			r := runCase(t, set, filepath.Dir(model))
			results = append(results, r)
			if testing.Verbose() && r.status != pass {
				t.Logf("%s/%s: %s: %s", set, r.name, r.status, r.why)
			}
		}
	}
	got := conformanceTable(results)
	path := filepath.Join("..", "..", "spec", "onnx.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("spec/onnx.md is stale: run go test ./frontend/onnx -run Conformance -update")
	}
}

// runCase runs one case folder: model.onnx and test_data_set_N/.
func runCase(t *testing.T, set, dir string) (res caseResult) {
	res = caseResult{set: set, name: filepath.Base(dir)}
	defer func() {
		if p := recover(); p != nil {
			res.status, res.why = fail, fmt.Sprintf("panic: %v", p)
			t.Errorf("%s/%s: panic: %v\n%s", set, res.name, p, debug.Stack())
		}
	}()
	f, err := Open(filepath.Join(dir, "model.onnx"), nil)
	if err != nil {
		res.status, res.why = fail, err.Error()
		return res
	}
	res.ops = opTypes(f.Model.Graph)
	if bad := Unsupported(f.Model); len(bad) > 0 {
		f.Close()
		res.status, res.why = unsupported, strings.Join(bad, "; ")
		return res
	}
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	p, err := Compile(rt, refs.Site{}, f)
	if err != nil {
		res.status, res.why = classify(err)
		return res
	}
	defer func() {
		p.Release(rt)
		if n := rt.LiveRefs(); n != 0 && res.status == pass {
			res.status, res.why = fail, fmt.Sprintf("%d refs leaked", n)
		}
	}()
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		res.status, res.why = fail, "no test data"
		return res
	}
	// Each data set runs twice: the second run replays the plan the
	// first recorded (plan.go), and must agree with the stored outputs
	// as well.
	for _, ds := range sets {
		for _, again := range []string{"", " (replayed)"} {
			if st, why := runDataSet(rt, p, ds); st != pass {
				res.status, res.why = st, filepath.Base(ds)+again+": "+why
				return res
			}
		}
	}
	return res
}

// classify puts an error down to a missing feature (unsupported) or a
// wrong result (fail).
func classify(err error) (status, string) {
	msg := err.Error()
	for _, s := range []string{"tref has no", "tref cannot run", "not a tensor input", "tref runs tensor inputs only", "cannot cast to", "is not supported"} {
		if strings.Contains(msg, s) {
			return unsupported, msg
		}
	}
	return fail, msg
}

func runDataSet(rt *refs.Runtime, p *Program, ds string) (status, string) {
	var ins []*refs.Ref
	defer func() {
		for _, r := range ins {
			rt.Release(r)
		}
	}()
	for i, in := range p.Inputs {
		_, d, err := ReadTensor(filepath.Join(ds, fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			return classify(err)
		}
		ins = append(ins, rt.FromHost(refs.Site{}, bf16Bits(d, in.Type.Elem)))
	}
	outs, err := p.Run(rt, refs.Site{}, ins)
	if err != nil {
		return classify(err)
	}
	defer func() {
		for _, r := range outs {
			rt.Release(r)
		}
	}()
	for i, r := range outs {
		wt, want, err := ReadTensor(filepath.Join(ds, fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			return classify(err)
		}
		if p.Outputs[i].Type.Elem == BFloat16 {
			want, wt.DType = bf16Bits(want, BFloat16), BFloat16
		}
		got, err := rt.Read(r)
		if err != nil {
			return fail, err.Error()
		}
		if why := compare(got, want, wt.DType); why != "" {
			return fail, fmt.Sprintf("output %d (%s): %s", i, p.Outputs[i].Name, why)
		}
	}
	return pass, ""
}

// bf16Bits reads the uint16 tensors that ONNX 1.12's test data stores for
// bfloat16 values as the bfloat16 numbers they hold (as float32, tref's
// form of bfloat16 model values).
func bf16Bits(d *tensor.Dense, want DataType) *tensor.Dense {
	if want != BFloat16 || d.DType != tensor.Uint16 {
		return d
	}
	f := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
	for i, h := range d.U16() {
		f.F32()[i] = tensor.BFloatToFloat(h)
	}
	return f
}

// compare checks got against the stored output: the same shape and dtype
// (after tref's mapping of ONNX types), exact integers and bools, floats
// within the ONNX backend tests' tolerance (rtol 1e-3; atol 1e-5, wider
// for half types held in float32).
func compare(got, want *tensor.Dense, stored DataType) string {
	if !got.Shape.Equal(want.Shape) || got.DType != want.DType {
		return fmt.Sprintf("got %s, want %s", got.Meta, want.Meta)
	}
	atol, rtol := 1e-5, 1e-3
	if stored == Float16 || stored == BFloat16 {
		atol, rtol = 1e-3, 1e-2
	}
	for i := range got.Numel() {
		if !got.DType.IsFloat() {
			if g, w := got.IntAt(i), want.IntAt(i); g != w {
				return fmt.Sprintf("element %d: got %d, want %d", i, g, w)
			}
			continue
		}
		g, w := got.At(i), want.At(i)
		if math.IsNaN(w) && math.IsNaN(g) || g == w {
			continue
		}
		if math.IsNaN(g) || math.IsNaN(w) || math.Abs(g-w) > atol+rtol*math.Abs(w) {
			return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
		}
	}
	return ""
}

// opTypes lists the op types of g and its subgraphs, sorted, once each.
func opTypes(g *Graph) []string {
	seen := map[string]bool{}
	var visit func(g *Graph)
	visit = func(g *Graph) {
		for _, n := range g.Nodes {
			seen[n.OpType] = true
			for _, a := range n.Attrs {
				if a.G != nil {
					visit(a.G)
				}
				for _, s := range a.Graphs {
					visit(s)
				}
			}
		}
	}
	visit(g)
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// conformanceTable writes spec/onnx.md: totals per set, then per op type
// the cases that use it by outcome, then the cases that do not pass.
func conformanceTable(results []caseResult) string {
	var b strings.Builder
	b.WriteString("# ONNX conformance\n\n")
	b.WriteString("Generated by `go test ./frontend/onnx -run Conformance -update` from the cases of Debian's\n")
	b.WriteString("`libonnx-testdata` (ONNX 1.12's backend test data); the test fails when this file is stale.\n")
	b.WriteString("A case passes when every output matches the stored one (integers exactly, floats within\n")
	b.WriteString("rtol 1e-3, atol 1e-5); it is unsupported when it uses an op, a dtype or a value kind\n")
	b.WriteString("(sequences, optionals, strings) that tref does not run.\n\n")
	b.WriteString("| set | cases | pass | fail | unsupported | pass rate |\n|---|---|---|---|---|---|\n")
	type tally struct{ n, pass, fail, unsup int }
	count := func(t *tally, s status) {
		t.n++
		switch s {
		case pass:
			t.pass++
		case fail:
			t.fail++
		default:
			t.unsup++
		}
	}
	perSet := map[string]*tally{}
	perOp := map[string]*tally{}
	for _, r := range results {
		if perSet[r.set] == nil {
			perSet[r.set] = &tally{}
		}
		count(perSet[r.set], r.status)
		for _, op := range r.ops {
			if perOp[op] == nil {
				perOp[op] = &tally{}
			}
			count(perOp[op], r.status)
		}
	}
	row := func(name string, t *tally) {
		rate := 0.0
		if t.n > 0 {
			rate = 100 * float64(t.pass) / float64(t.n)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% |\n", name, t.n, t.pass, t.fail, t.unsup, rate)
	}
	three := &tally{}
	for _, set := range conformanceSets {
		t := perSet[set]
		if t == nil {
			t = &tally{}
		}
		row(set, t)
		if set != "node" {
			three.n, three.pass, three.fail, three.unsup = three.n+t.n, three.pass+t.pass, three.fail+t.fail, three.unsup+t.unsup
		}
	}
	row("pytorch-converted + pytorch-operator + simple", three)
	b.WriteString("\n## Per op\n\nCases that use each op, by outcome.\n\n| op | cases | pass | fail | unsupported |\n|---|---|---|---|---|\n")
	ops := make([]string, 0, len(perOp))
	for op := range perOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		t := perOp[op]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", op, t.n, t.pass, t.fail, t.unsup)
	}
	b.WriteString("\n## Cases that do not pass\n\n| case | outcome | why |\n|---|---|---|\n")
	for _, r := range results {
		if r.status == pass {
			continue
		}
		why := strings.ReplaceAll(r.why, "|", "\\|")
		why = strings.ReplaceAll(why, "\n", " ")
		why = strings.ReplaceAll(why, testdataDir()+"/", "")
		if len(why) > 200 {
			why = why[:200] + "..."
		}
		fmt.Fprintf(&b, "| %s/%s | %s | %s |\n", r.set, r.name, r.status, why)
	}
	return b.String()
}
