package placement

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
)

// fakeScript stands for a policy file: Go functions under hook names.
type fakeScript struct {
	fns   map[string]func(rec map[string]any) (any, error)
	calls map[string]int
}

func (f *fakeScript) Has(name string) bool { _, ok := f.fns[name]; return ok }

func (f *fakeScript) Call(name string, fields []HookField) (any, error) {
	rec := map[string]any{}
	for _, fl := range fields {
		rec[fl.Name] = fl.Value
	}
	f.calls[name]++
	return f.fns[name](rec)
}

func TestScriptHooksSteer(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "lru", 2*1024+256, 4, log)
	pinned := ""
	script := &fakeScript{calls: map[string]int{}, fns: map[string]func(map[string]any) (any, error){
		// Never evict what was made at the pinned position.
		HookEvict: func(ev map[string]any) (any, error) {
			for _, f := range []string{"ref", "bytes", "shape", "dtype", "made_at", "next_use", "dirty", "reason"} {
				if _, ok := ev[f]; !ok {
					return nil, errors.New("on_evict record lacks " + f)
				}
			}
			return ev["made_at"] != pinned, nil
		},
		HookMove:  func(map[string]any) (any, error) { return nil, nil },
		HookAlloc: func(map[string]any) (any, error) { return nil, nil },
		HookFree:  func(map[string]any) (any, error) { return nil, nil },
		HookOp:    func(map[string]any) (any, error) { return nil, nil },
	}}
	h.eng.chain = append(h.eng.chain, NewHooks(script))
	pinned = "t.tr:1:1" // the first host tensor: the first weight
	ws, _ := sweep(h, 4)
	if slices.Contains(log.refs(trace.Evict), ws[0].ID()) {
		t.Fatal("on_evict returned false for the pinned weight, but it was evicted")
	}
	for _, name := range []string{HookEvict, HookMove, HookAlloc, HookFree, HookOp} {
		if script.calls[name] == 0 {
			t.Fatalf("%s was never called: %v", name, script.calls)
		}
	}
}

func TestScriptHookErrors(t *testing.T) {
	h := newHarness(t, "flow", 1<<20, 4)
	script := &fakeScript{calls: map[string]int{}, fns: map[string]func(map[string]any) (any, error){
		HookOp: func(map[string]any) (any, error) { return "gpu:7", nil },
	}}
	h.eng.chain = append(h.eng.chain, NewHooks(script))
	x := h.host(0, 4, 4)
	y := h.op("ptest_relu", x)
	if _, err := h.rt.Read(y); err == nil || !strings.Contains(err.Error(), `on_op returned gpu:7: want "cpu", "sim:0" or none`) {
		t.Fatalf("got %v", err)
	}
	h.finish(x, y)
}

func TestScriptHookMovesOpToHost(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "flow", 1<<20, 4, log)
	script := &fakeScript{calls: map[string]int{}, fns: map[string]func(map[string]any) (any, error){
		HookOp: func(ev map[string]any) (any, error) {
			if ev["op"] == "ptest_relu" {
				return "cpu", nil
			}
			return nil, nil
		},
	}}
	h.eng.chain = append(h.eng.chain, NewHooks(script))
	x := h.host(0, 4, 4)
	y := h.op("ptest_relu", x)
	h.read(y)
	h.finish(x, y)
	if ends := log.find(trace.OpEnd); len(ends) != 1 || ends[0].Device != "cpu" {
		t.Fatalf("op ends %+v", ends)
	}
}
