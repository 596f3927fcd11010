package placement

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// Script-level middleware: `tref run --hooks policy.tr model.tr` loads
// functions with these names from policy.tr and calls each with one event
// record (fields below, host numbers and strings). A hook that is not
// defined is not called. docs/trace.md documents the records.
const (
	// HookOp is on_op(ev) before an op is placed: ev has op, pos, seq,
	// device, working_set, inputs (ref ids), result. Returning a device
	// name ("cpu" or the accelerator's) moves the op there; none keeps it.
	HookOp = "on_op"
	// HookEvict is on_evict(ev) before an eviction: ev has ref, bytes,
	// shape, dtype, made_at, next_use (ops, -1 unknown), dirty, reason.
	// Returning false vetoes it; returning a ref id evicts that resident
	// ref instead; true or none lets it happen.
	HookEvict = "on_evict"
	// HookMove is on_move(ev) after a copy is issued: ev has ref, bytes,
	// kind ("h2d" or "d2h"), from, to, start_ns, end_ns, reason.
	HookMove = "on_move"
	// HookAlloc and HookFree are on_alloc(ev) and on_free(ev): ev has
	// ref, bytes, device, t_ns, used, capacity.
	HookAlloc = "on_alloc"
	HookFree  = "on_free"
	// HookOOM is on_oom(ev) when nothing can make room: ev has op, need,
	// used, capacity. Returning true retries once (after the hook
	// changed something, e.g. through another hook's state).
	HookOOM = "on_oom"
)

// HookNames lists the hooks a policy file may define.
var HookNames = []string{HookOp, HookEvict, HookMove, HookAlloc, HookFree, HookOOM}

// HookField is one field of an event record. Values are int64, string,
// bool or []int64.
type HookField struct {
	Name  string
	Value any
}

// HookCaller calls script functions; the evaluator's adapter implements
// it over a policy file.
type HookCaller interface {
	// Has reports whether the script defines a function name.
	Has(name string) bool
	// Call calls it with one record made of fields and returns its result
	// as nil (none), bool, int64, float64 or string.
	Call(name string, fields []HookField) (any, error)
}

// Hooks is the middleware that calls a script's hooks.
type Hooks struct {
	Base
	c HookCaller
	// err keeps a failure from a hook whose caller cannot fail (on_move,
	// on_free, on_oom); the next op fails with it.
	err error
}

// NewHooks makes the middleware over c.
func NewHooks(c HookCaller) *Hooks { return &Hooks{c: c} }

func (h *Hooks) call(name string, fields []HookField) (any, error) {
	if !h.c.Has(name) {
		return nil, nil
	}
	v, err := h.c.Call(name, fields)
	if err != nil {
		return nil, fmt.Errorf("placement hook %s: %w", name, err)
	}
	return v, nil
}

// keep records an error from a hook that cannot fail its caller.
func (h *Hooks) keep(err error) {
	if err != nil && h.err == nil {
		h.err = err
	}
}

func ids(rs []*refs.Ref) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = int64(r.ID())
	}
	return out
}

// BeforeOp calls on_op.
func (h *Hooks) BeforeOp(e *Engine, ev *OpEvent) error {
	if err := h.err; err != nil {
		h.err = nil
		return err
	}
	v, err := h.call(HookOp, []HookField{
		{"op", ev.Op.Op.Name()}, {"pos", ev.Op.Site.Pos.String()}, {"seq", int64(ev.Op.Seq)}, {"device", ev.Device},
		{"working_set", ev.WorkingSet}, {"inputs", ids(ev.Op.Inputs)}, {"result", int64(ev.Op.Out.ID())},
	})
	if err != nil || v == nil {
		return err
	}
	dev, ok := v.(string)
	if !ok || (dev != HostDevice && dev != e.Device()) {
		return fmt.Errorf("placement hook on_op returned %v: want %q, %q or none", v, HostDevice, e.Device())
	}
	ev.Device = dev
	return nil
}

// BeforeEvict calls on_evict.
func (h *Hooks) BeforeEvict(e *Engine, ev *EvictEvent) error {
	r := ev.Ref
	shape := make([]int64, len(r.Shape()))
	for i, d := range r.Shape() {
		shape[i] = int64(d)
	}
	v, err := h.call(HookEvict, []HookField{
		{"ref", int64(r.ID())}, {"bytes", r.Bytes()}, {"shape", shape}, {"dtype", r.DType().String()},
		{"made_at", r.Site().Pos.String()}, {"next_use", ev.NextUse}, {"dirty", ev.Dirty}, {"reason", ev.Reason},
	})
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
	case bool:
		ev.Veto = !v
	case int64:
		for s := e.resident.head; s != nil; s = s.next {
			if int64(s.ref.ID()) == v {
				ev.Instead = s.ref
				return nil
			}
		}
		return fmt.Errorf("placement hook on_evict returned ref %d, which is not on %s", v, e.Device())
	default:
		return fmt.Errorf("placement hook on_evict returned %v: want true, false, a ref id or none", v)
	}
	return nil
}

// AfterMove calls on_move.
func (h *Hooks) AfterMove(_ *Engine, ev *MoveEvent) {
	_, err := h.call(HookMove, []HookField{
		{"ref", int64(ev.Ref.ID())}, {"bytes", ev.Ref.Bytes()}, {"kind", ev.Kind.String()}, {"from", ev.From},
		{"to", ev.To}, {"start_ns", ev.Start}, {"end_ns", ev.End}, {"reason", ev.Reason},
	})
	h.keep(err)
}

func memFields(ev *MemEvent) []HookField {
	return []HookField{{"ref", int64(ev.Ref.ID())}, {"bytes", ev.Bytes}, {"device", ev.Device},
		{"t_ns", ev.T}, {"used", ev.Used}, {"capacity", ev.Capacity}}
}

// OnAlloc calls on_alloc.
func (h *Hooks) OnAlloc(_ *Engine, ev *MemEvent) error {
	_, err := h.call(HookAlloc, memFields(ev))
	return err
}

// OnFree calls on_free.
func (h *Hooks) OnFree(_ *Engine, ev *MemEvent) {
	_, err := h.call(HookFree, memFields(ev))
	h.keep(err)
}

// OnOOM calls on_oom.
func (h *Hooks) OnOOM(_ *Engine, ev *OOMEvent) {
	op := ""
	if ev.Op != nil {
		op = ev.Op.Op.Name()
	}
	v, err := h.call(HookOOM, []HookField{{"op", op}, {"need", ev.Need}, {"used", ev.Used}, {"capacity", ev.Capacity}})
	h.keep(err)
	if b, ok := v.(bool); ok && b {
		ev.Retry = true
	}
}

// OnEvent does nothing: scripts see decisions through the hooks above.
func (h *Hooks) OnEvent(*Engine, *trace.Event) {}
