package onnx

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// eventLog is the cpu device and an observer that write down what the
// runtime sees of a run: each ref made (its op, attributes, inputs and
// meta; a host value's bytes by hash), each program read, each op run and
// each ref dropped. Refs are numbered from the first one the run makes
// (earlier ones by their id, "x" before it); drops in a row are sorted,
// as a run drops its last values in map order.
type eventLog struct {
	cpu.Device
	base   uint64
	events []string
	drops  []string
}

var addrRE = regexp.MustCompile(`0x[0-9a-f]+`)

func (l *eventLog) name(r *refs.Ref) string {
	if r.ID() > l.base {
		return fmt.Sprint(r.ID() - l.base)
	}
	return fmt.Sprintf("x%d", r.ID())
}

func (l *eventLog) add(e string) {
	sort.Strings(l.drops)
	l.events = append(l.events, l.drops...)
	l.drops = l.drops[:0]
	l.events = append(l.events, e)
}

func (l *eventLog) Created(r *refs.Ref, op *refs.Op) {
	if op == nil {
		h := fnv.New64a()
		if d := r.Host(); d != nil {
			h.Write(d.Buf)
		}
		l.add(fmt.Sprintf("host %s %v %x", l.name(r), r.Meta(), h.Sum64()))
		return
	}
	ins := make([]string, len(op.Inputs))
	for i, in := range op.Inputs {
		ins[i] = l.name(in)
	}
	attrs := addrRE.ReplaceAllString(fmt.Sprintf("%+v", op.Attrs), "ptr")
	l.add(fmt.Sprintf("op %s = %s%v %s %v", l.name(r), op.Op, ins, attrs, r.Meta()))
}

func (l *eventLog) Read(r *refs.Ref) { l.add("read " + l.name(r)) }

func (l *eventLog) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	l.add("run " + l.name(op.Out))
	return l.Device.Execute(rt, op, ahead)
}

func (l *eventLog) Drop(rt *refs.Runtime, r *refs.Ref) {
	l.drops = append(l.drops, "drop "+l.name(r))
	l.Device.Drop(rt, r)
}

// start begins a new log, numbering the refs made from now on.
func (l *eventLog) start(rt *refs.Runtime) {
	probe := rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{DType: tensor.Float32}))
	rt.Release(probe)
	l.base, l.events, l.drops = probe.ID(), nil, nil
}

func (l *eventLog) stop() []string {
	l.add("end")
	return l.events
}

// loadModel compiles the model at path on rt.
func loadModel(t testing.TB, rt *refs.Runtime, path string) *Program {
	t.Helper()
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(rt, refs.Site{}, f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runValues runs p over ins and returns copies of its outputs.
func runValues(t testing.TB, rt *refs.Runtime, p *Program, ins []*refs.Ref) ([]*tensor.Dense, error) {
	outs, err := p.Run(rt, refs.Site{}, ins)
	if err != nil {
		return nil, err
	}
	var res []*tensor.Dense
	for _, r := range outs {
		d, err := rt.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, d.Clone())
	}
	for _, r := range outs {
		rt.Release(r)
	}
	return res, nil
}

// checkReplay runs the model at path over inputs three times: once to
// warm the program's caches, once lowered node by node (recording a
// plan), once replaying the plan. The replay must show the runtime the
// same refs, ops, attributes, reads, runs and drops in the same order,
// and compute the same outputs bit for bit; nothing may leak.
func checkReplay(t *testing.T, path string, inputs ...*tensor.Dense) {
	log := &eventLog{}
	rt := refs.New(log, refs.Options{Lookahead: 16, TrackRefs: true})
	rt.SetObserver(log)
	p := loadModel(t, rt, path)
	var ins []*refs.Ref
	for _, d := range inputs {
		ins = append(ins, rt.FromHost(refs.Site{}, d.Clone()))
	}
	run := func() ([]string, []*tensor.Dense) {
		log.start(rt)
		res, err := runValues(t, rt, p, ins)
		if err != nil {
			t.Fatal(err)
		}
		return log.stop(), res
	}
	run()
	p.plans = nil
	lowered, want := run()
	if len(p.plans) != 1 || p.plans[0].dynamic {
		t.Fatalf("the run left no plan to replay (%d plans)", len(p.plans))
	}
	replayed, got := run()
	if a, b := strings.Join(lowered, "\n"), strings.Join(replayed, "\n"); a != b {
		for i := range min(len(lowered), len(replayed)) {
			if lowered[i] != replayed[i] {
				t.Fatalf("event %d of %d/%d: lowered %q, replayed %q", i, len(lowered), len(replayed), lowered[i], replayed[i])
			}
		}
		t.Fatalf("lowered %d events, replayed %d", len(lowered), len(replayed))
	}
	for i := range want {
		if want[i].Meta.String() != got[i].Meta.String() || string(want[i].Buf) != string(got[i].Buf) {
			t.Errorf("output %d: replayed %v, lowered %v", i, got[i], want[i])
		}
	}
	for _, r := range ins {
		rt.Release(r)
	}
	p.Release(rt)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

func denseF32(shape tensor.Shape, vals ...float32) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float32})
	copy(d.F32(), vals)
	return d
}

func TestPlanReplaysTheLowering(t *testing.T) {
	checkReplay(t, writeModel(t, t.TempDir(), mlpModel()), denseF32(tensor.Shape{2, 3}, 1, 2, 3, -5, 0, 0), denseF32(nil, 0.5))
}

// TestPlanPerSignature runs the mlp with batches of 2, 4 and 2 rows: each
// shape gets its own plan, and every result equals a fresh program's.
func TestPlanPerSignature(t *testing.T) {
	path := writeModel(t, t.TempDir(), mlpModel())
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	p := loadModel(t, rt, path)
	scale := rt.FromHost(refs.Site{}, denseF32(nil, 0.5))
	for k, rows := range []int{2, 4, 2, 4} {
		x := patternInput([]int{rows, 3})
		in := rt.FromHost(refs.Site{}, x.Clone())
		got, err := runValues(t, rt, p, []*refs.Ref{in, scale})
		if err != nil {
			t.Fatal(err)
		}
		fresh := loadModel(t, rt, path)
		want, err := runValues(t, rt, fresh, []*refs.Ref{in, scale})
		if err != nil {
			t.Fatal(err)
		}
		fresh.Release(rt)
		rt.Release(in)
		for i := range want {
			if want[i].Meta.String() != got[i].Meta.String() || string(want[i].Buf) != string(got[i].Buf) {
				t.Errorf("run %d, output %d: got %v, want %v", k, i, got[i], want[i])
			}
		}
		if n := min(k+1, 2); len(p.plans) != n {
			t.Errorf("after run %d: %d plans, want %d", k, len(p.plans), n)
		}
	}
	rt.Release(scale)
	p.Release(rt)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

// TestPlanNotForDataDependentGraphs: a Reshape whose shape is a graph
// input depends on the input's values, not only its meta; such a graph is
// lowered on every run.
func TestPlanNotForDataDependentGraphs(t *testing.T) {
	nodes := [][]byte{encNode("Reshape", []string{"x", "s"}, []string{"y"})}
	model := encModel(13, encGraph(nodes, nil,
		[][]byte{encValue("x", Float, 2, 3), encValue("s", Int64, 2)},
		[][]byte{encValue("y", Float)}))
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	p := loadModel(t, rt, writeModel(t, t.TempDir(), model))
	x := rt.FromHost(refs.Site{}, patternInput([]int{2, 3}))
	for _, shape := range [][]int64{{3, 2}, {6, 1}, {1, 6}} {
		s := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Int64})
		copy(s.I64(), shape)
		sr := rt.FromHost(refs.Site{}, s)
		got, err := runValues(t, rt, p, []*refs.Ref{x, sr})
		rt.Release(sr)
		if err != nil {
			t.Fatal(err)
		}
		if want := (tensor.Shape{int(shape[0]), int(shape[1])}); !got[0].Shape.Equal(want) {
			t.Errorf("shape %v: got %v", want, got[0].Shape)
		}
	}
	if len(p.plans) != 1 || !p.plans[0].dynamic {
		t.Errorf("plans %v: want one marking the signature as lowered on every run", p.plans)
	}
	rt.Release(x)
	p.Release(rt)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

// TestPlanReplayFailure: a replay that the runtime refuses (a freed input)
// gives back what it made and fails as lowering does, naming the node.
func TestPlanReplayFailure(t *testing.T) {
	path := writeModel(t, t.TempDir(), mlpModel())
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	scale := rt.FromHost(refs.Site{}, denseF32(nil, 0.5))
	errOf := func(p *Program) string {
		x := rt.FromHost(refs.Site{}, patternInput([]int{2, 3}))
		rt.Release(x)
		_, err := runValues(t, rt, p, []*refs.Ref{x, scale})
		if err == nil {
			t.Fatal("a freed input ran")
		}
		return err.Error()
	}
	fresh := loadModel(t, rt, path)
	want := errOf(fresh)
	fresh.Release(rt)
	p := loadModel(t, rt, path)
	x := rt.FromHost(refs.Site{}, patternInput([]int{2, 3}))
	if _, err := runValues(t, rt, p, []*refs.Ref{x, scale}); err != nil {
		t.Fatal(err)
	}
	rt.Release(x)
	live := rt.LiveRefs()
	got := errOf(p)
	// The ref ids differ; the rest must not.
	idRE := regexp.MustCompile(`ref#\d+`)
	if idRE.ReplaceAllString(got, "ref#") != idRE.ReplaceAllString(want, "ref#") || !strings.Contains(got, `node "`) {
		t.Errorf("replay failed with %q, lowering with %q", got, want)
	}
	if n := rt.LiveRefs(); n != live {
		t.Errorf("%d refs live after the failed run, %d before", n, live)
	}
	rt.Release(scale)
	p.Release(rt)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}
