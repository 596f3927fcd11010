package stdlib

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The golden files are written by stdlib/testdata/golden/gen_<family>.py
// with Debian's python3-torch; see gen_common.py for the format. Each case
// calls one builtin directly (no parser) on a fresh cpu runtime and compares
// the result with torch's, then checks that no ref leaked.

const (
	defaultRtol = 1e-5
	defaultAtol = 1e-6
)

type goldenFile struct {
	Family string       `json:"family"`
	Torch  string       `json:"torch"`
	Cases  []goldenCase `json:"cases"`
}

type goldenCase struct {
	Name   string                     `json:"name"`
	Fn     string                     `json:"fn"`
	Args   []json.RawMessage          `json:"args"`
	Kwargs map[string]json.RawMessage `json:"kwargs"`
	Out    json.RawMessage            `json:"out"`
	Rtol   *float64                   `json:"rtol"`
	Atol   *float64                   `json:"atol"`
}

// goldenArg is one ARG of the format; exactly one field is set.
type goldenArg struct {
	Tensor *goldenTensor      `json:"tensor"`
	Int    *json.Number       `json:"int"`
	Float  json.RawMessage    `json:"float"`
	Bool   *bool              `json:"bool"`
	Str    *string            `json:"str"`
	List   *[]json.RawMessage `json:"list"`
	Record *goldenRecord      `json:"record"`
	None   *bool              `json:"none"`
	Error  *string            `json:"error"`
}

// goldenRecord is a record ARG: its keys in order and their ARGs.
type goldenRecord struct {
	Keys   []string          `json:"keys"`
	Values []json.RawMessage `json:"values"`
}

type goldenTensor struct {
	DType string            `json:"dtype"`
	Shape []int             `json:"shape"`
	Data  []json.RawMessage `json:"data"`
}

// liveGolden regenerates the goldens with torch into a temporary directory
// and checks against those instead of the committed files:
//
//	go test ./stdlib -run TestGolden -golden.live
var liveGolden = flag.Bool("golden.live", false, "regenerate the goldens with /usr/bin/python3 and torch, and compare against them")

func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *liveGolden {
		dir = regenerateGoldens(t)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no golden files in testdata/golden")
	}
	for _, path := range files {
		gf, err := readGolden(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		seen := map[string]bool{}
		for _, c := range gf.Cases {
			if seen[c.Name] {
				t.Errorf("%s: duplicate case name %q", path, c.Name)
			}
			seen[c.Name] = true
			t.Run(gf.Family+"/"+c.Name, func(t *testing.T) { runGolden(t, c) })
		}
	}
}

// regenerateGoldens runs every generator on a copy of the generator
// scripts (so the committed files stay untouched, including files a
// generator writes next to its directory) and returns where the fresh
// JSON files are.
func regenerateGoldens(t *testing.T) string {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Skipf("-golden.live needs torch in %s: %v", python, err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "golden")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "golden", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range scripts {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // sibling output directories (index/)
		if e.IsDir() && e.Name() != "golden" {
			if err := os.MkdirAll(filepath.Join(root, e.Name()), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, src := range scripts {
		name := filepath.Base(src)
		if !strings.HasPrefix(name, "gen_") || name == "gen_common.py" {
			continue
		}
		cmd := exec.Command(python, name)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	return dir
}

func readGolden(path string) (*goldenFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var gf goldenFile
	if err := dec.Decode(&gf); err != nil {
		return nil, err
	}
	if gf.Family == "" {
		return nil, fmt.Errorf("missing \"family\"")
	}
	return &gf, nil
}

func runGolden(t *testing.T, c goldenCase) {
	b, ok := Universe()[c.Fn]
	if !ok {
		t.Fatalf("builtin %q is not registered", c.Fn)
	}
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
	th := eval.NewThread(rt)
	th.SetSite(refs.Site{Pos: pos.Pos{File: "golden:" + c.Name}})

	var owned []eval.Value
	defer func() {
		for _, v := range owned {
			eval.Release(rt, v)
		}
		if err := rt.Flush(); err != nil {
			t.Errorf("flush after the case: %v", err)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%d refs leaked: %v", n, rt.Leaks())
		}
	}()
	args := make([]eval.Value, len(c.Args))
	for i, raw := range c.Args {
		v, err := decodeArg(rt, raw)
		if err != nil {
			t.Fatalf("arg %d: %v", i, err)
		}
		args[i] = v
		owned = append(owned, v)
	}
	names := make([]string, 0, len(c.Kwargs))
	for k := range c.Kwargs {
		names = append(names, k)
	}
	sort.Strings(names)
	var kwargs []eval.Kwarg
	for _, k := range names {
		v, err := decodeArg(rt, c.Kwargs[k])
		if err != nil {
			t.Fatalf("kwarg %s: %v", k, err)
		}
		kwargs = append(kwargs, eval.Kwarg{Name: k, Value: v})
		owned = append(owned, v)
	}

	want, err := decodeExpected(c.Out)
	if err != nil {
		t.Fatalf("out: %v", err)
	}
	got, callErr := eval.CallBuiltin(th, b, args, kwargs)
	if callErr == nil {
		owned = append(owned, got)
	}
	if want.err != nil {
		// An error may surface at inference (the call) or at execution (the read).
		if callErr == nil {
			_, callErr = readResult(rt, got)
		}
		switch {
		case callErr == nil:
			t.Fatalf("got a result, want an error containing %q", *want.err)
		case !strings.Contains(callErr.Error(), *want.err):
			t.Fatalf("got error %q, want one containing %q", callErr, *want.err)
		}
		return
	}
	if callErr != nil {
		t.Fatalf("unexpected error: %v", callErr)
	}
	rtol, atol := defaultRtol, defaultAtol
	if c.Rtol != nil {
		rtol = *c.Rtol
	}
	if c.Atol != nil {
		atol = *c.Atol
	}
	gotT, err := readResult(rt, got)
	if err != nil {
		t.Fatalf("reading the result: %v", err)
	}
	if len(gotT) != len(want.tensors) || want.list != isList(got) {
		t.Fatalf("got %s, want %s", describeResult(got, gotT), describeWant(want))
	}
	for i := range gotT {
		where := ""
		if want.list {
			where = fmt.Sprintf("element %d: ", i)
		}
		if msg := compareDense(gotT[i], want.tensors[i], rtol, atol); msg != "" {
			t.Errorf("%s%s", where, msg)
		}
	}
}

type expected struct {
	tensors []*tensor.Dense
	list    bool
	err     *string
}

func decodeExpected(raw json.RawMessage) (expected, error) {
	var a goldenArg
	if err := unmarshalNumbers(raw, &a); err != nil {
		return expected{}, err
	}
	switch {
	case a.Error != nil:
		return expected{err: a.Error}, nil
	case a.List != nil:
		e := expected{list: true}
		for i, r := range *a.List {
			var gt goldenTensor
			if err := unmarshalNumbers(r, &gt); err != nil {
				return expected{}, fmt.Errorf("element %d: %v", i, err)
			}
			d, err := gt.dense()
			if err != nil {
				return expected{}, fmt.Errorf("element %d: %v", i, err)
			}
			e.tensors = append(e.tensors, d)
		}
		return e, nil
	}
	var gt goldenTensor
	if err := unmarshalNumbers(raw, &gt); err != nil {
		return expected{}, err
	}
	d, err := gt.dense()
	if err != nil {
		return expected{}, err
	}
	return expected{tensors: []*tensor.Dense{d}}, nil
}

func unmarshalNumbers(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// decodeArg builds an owned script value from an ARG.
func decodeArg(rt *refs.Runtime, raw json.RawMessage) (eval.Value, error) {
	var a goldenArg
	if err := unmarshalNumbers(raw, &a); err != nil {
		return nil, err
	}
	switch {
	case a.Tensor != nil:
		d, err := a.Tensor.dense()
		if err != nil {
			return nil, err
		}
		return eval.Tensor{Ref: rt.FromHost(refs.Site{Pos: pos.Pos{File: "golden"}}, d)}, nil
	case a.Int != nil:
		n, err := a.Int.Int64()
		return eval.Int(n), err
	case a.Float != nil:
		f, err := parseFloat(a.Float)
		return eval.Float32(f), err
	case a.Bool != nil:
		return eval.Bool(*a.Bool), nil
	case a.Str != nil:
		return eval.String(*a.Str), nil
	case a.List != nil:
		elems := make([]eval.Value, 0, len(*a.List))
		for i, r := range *a.List {
			v, err := decodeArg(rt, r)
			if err != nil {
				for _, e := range elems {
					eval.Release(rt, e)
				}
				return nil, fmt.Errorf("list element %d: %v", i, err)
			}
			elems = append(elems, v)
		}
		return eval.NewList(elems), nil
	case a.Record != nil:
		if len(a.Record.Keys) != len(a.Record.Values) {
			return nil, fmt.Errorf("a record of %d keys and %d values", len(a.Record.Keys), len(a.Record.Values))
		}
		vals := make([]eval.Value, 0, len(a.Record.Values))
		for i, r := range a.Record.Values {
			v, err := decodeArg(rt, r)
			if err != nil {
				eval.Release(rt, eval.NewList(vals))
				return nil, fmt.Errorf("record field %q: %v", a.Record.Keys[i], err)
			}
			vals = append(vals, v)
		}
		return eval.NewRecord(a.Record.Keys, vals), nil
	case a.None != nil:
		return eval.None, nil
	}
	return nil, fmt.Errorf("unknown argument %s", raw)
}

// dense decodes a TENSOR.
func (gt *goldenTensor) dense() (*tensor.Dense, error) {
	dt, ok := tensor.ParseDType(gt.DType)
	if !ok {
		return nil, fmt.Errorf("unknown dtype %q", gt.DType)
	}
	shape := tensor.Shape(gt.Shape)
	if shape == nil {
		shape = tensor.Shape{}
	}
	n, err := tensor.CheckedNumel(shape)
	if err != nil {
		return nil, err
	}
	if len(gt.Data) != n {
		return nil, fmt.Errorf("shape %v needs %d values, data has %d", shape, n, len(gt.Data))
	}
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i, raw := range gt.Data {
		switch dt {
		case tensor.Bool:
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, fmt.Errorf("value %d: %v", i, err)
			}
			if b {
				d.Buf[i] = 1
			}
		case tensor.Int64:
			var num json.Number
			if err := unmarshalNumbers(raw, &num); err != nil {
				return nil, fmt.Errorf("value %d: %v", i, err)
			}
			v, err := num.Int64()
			if err != nil {
				return nil, fmt.Errorf("value %d: %v", i, err)
			}
			d.I64()[i] = v
		default:
			v, err := parseFloat(raw)
			if err != nil {
				return nil, fmt.Errorf("value %d: %v", i, err)
			}
			d.Set(i, v)
		}
	}
	return d, nil
}

// parseFloat reads a JSON number or one of the strings "nan", "inf", "-inf".
func parseFloat(raw json.RawMessage) (float64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "nan":
			return math.NaN(), nil
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("bad float %q", s)
	}
	var f float64
	err := json.Unmarshal(raw, &f)
	return f, err
}

// readResult forces a builtin's result into host tensors: one for a tensor
// or a number, one per element for a list.
func readResult(rt *refs.Runtime, v eval.Value) ([]*tensor.Dense, error) {
	switch v := v.(type) {
	case eval.Tensor:
		d, err := rt.Read(v.Ref)
		if err != nil {
			return nil, err
		}
		return []*tensor.Dense{d}, nil
	case eval.Bool, eval.Int, eval.Float32, eval.Float64:
		return []*tensor.Dense{eval.ScalarDense(v)}, nil
	case *eval.List, *eval.Record:
		elems, ok := listElems(v)
		if !ok {
			return nil, fmt.Errorf("result is a record, want a tensor")
		}
		var out []*tensor.Dense
		for i, e := range elems {
			ds, err := readResult(rt, e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %v", i, err)
			}
			if _, nested := e.(*eval.List); nested {
				return nil, fmt.Errorf("element %d is a list, want a tensor", i)
			}
			out = append(out, ds...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("result is %s, want a tensor", eval.Describe(v))
}

// isList says whether v is a list or a positional record (a values/indices
// result, which torch gives as a tuple).
func isList(v eval.Value) bool {
	_, ok := listElems(v)
	return ok
}

func describeResult(v eval.Value, ds []*tensor.Dense) string {
	if isList(v) {
		return fmt.Sprintf("a list of %d tensors", len(ds))
	}
	return eval.Describe(v)
}

func describeWant(e expected) string {
	if e.list {
		return fmt.Sprintf("a list of %d tensors", len(e.tensors))
	}
	return "a " + e.tensors[0].Meta.String() + " tensor"
}

// compareDense checks dtype, shape and values (NaN equals NaN; floats within
// atol + rtol*|want|; everything else exact) and describes the first
// mismatch, or returns "".
func compareDense(got, want *tensor.Dense, rtol, atol float64) string {
	if got.DType != want.DType || !got.Shape.Equal(want.Shape) {
		return fmt.Sprintf("got %v, want %v", got.Meta, want.Meta)
	}
	bad, worst, worstErr := 0, -1, 0.0
	for i := range want.Numel() {
		g, w := got.At(i), want.At(i)
		ok := g == w || (math.IsNaN(g) && math.IsNaN(w))
		if !ok && want.DType.IsFloat() && !math.IsInf(w, 0) && !math.IsNaN(g) && !math.IsNaN(w) {
			diff := math.Abs(g - w)
			ok = diff <= atol+rtol*math.Abs(w)
			if e := diff / (atol + rtol*math.Abs(w)); !ok && e > worstErr {
				worst, worstErr = i, e
			}
		}
		if !ok {
			if worst < 0 {
				worst = i
			}
			bad++
		}
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d values differ (rtol %g, atol %g); worst at flat index %d: got %v, want %v",
		bad, want.Numel(), rtol, atol, worst, got.At(worst), want.At(worst))
}
