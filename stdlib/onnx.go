package stdlib

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/frontend/onnx"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
)

// load_onnx: ONNX models as callable values whose graphs run as ordinary
// runtime ops (frontend/onnx).
func init() {
	register("load_onnx", `load_onnx(path): load an ONNX model; m(x, ...) runs it with inputs given in order or by name (keywords, or one record m({"onnx::x": x}) for names that are not identifiers) and gives its output (a list when it has several); m.inputs and m.outputs describe them ({name, dtype, shape}, symbolic dimensions as strings). Weights are read from the file on first use. A relative path is resolved against the calling script's directory`, builtinLoadONNX)
}

func builtinLoadONNX(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var path string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	full := scriptPath(th, path)
	if err := th.Sandbox.Check(full); err != nil {
		return nil, fmt.Errorf("load_onnx: %w", err)
	}
	f, err := onnx.Open(full, &onnx.Options{Check: th.RT.HostPool().Check})
	if err != nil {
		return nil, fmt.Errorf("load_onnx: %w", err)
	}
	p, err := onnx.Compile(th.RT, th.Site(), f)
	if err != nil {
		return nil, fmt.Errorf("load_onnx: %w", err)
	}
	return &onnxModel{prog: p, name: filepath.Base(path), rc: 1}, nil
}

// onnxModel is the value load_onnx returns.
type onnxModel struct {
	prog *onnx.Program
	name string
	rc   int32
}

func (m *onnxModel) Type() string   { return "model" }
func (m *onnxModel) String() string { return "<onnx model " + m.name + ">" }

func (m *onnxModel) IncRef() { m.rc++ }

func (m *onnxModel) DecRef(rt *refs.Runtime) {
	if m.rc--; m.rc == 0 {
		m.prog.Release(rt)
		m.prog = nil
	}
}

func (m *onnxModel) FieldNames() []string { return []string{"inputs", "outputs", "opset"} }

func (m *onnxModel) Field(th *eval.Thread, name string) (eval.Value, bool, error) {
	switch name {
	case "inputs":
		return describePorts(m.prog.Inputs), true, nil
	case "outputs":
		return describePorts(m.prog.Outputs), true, nil
	case "opset":
		return eval.Int(m.prog.Opset), true, nil
	}
	return nil, false, nil
}

// describePorts lists inputs or outputs as {name, dtype, shape} records.
func describePorts(ports []*onnx.ValueInfo) eval.Value {
	vals := make([]eval.Value, len(ports))
	for i, p := range ports {
		dtype := p.Type.Elem.String()
		if dt, ok := p.Type.Elem.DType(); ok {
			dtype = dt.String()
		}
		var shape eval.Value = eval.None
		if p.Type.HasShape {
			dims := make([]eval.Value, len(p.Type.Shape))
			for j, d := range p.Type.Shape {
				switch {
				case d.HasValue:
					dims[j] = eval.Int(d.Value)
				case d.Param != "":
					dims[j] = eval.String(d.Param)
				default:
					dims[j] = eval.String("?")
				}
			}
			shape = eval.NewList(dims)
		}
		vals[i] = eval.NewRecord([]string{"name", "dtype", "shape"}, []eval.Value{eval.String(p.Name), eval.String(dtype), shape})
	}
	return eval.NewList(vals)
}

// Call runs the model: inputs by position, then by name; every input is
// required. One record argument gives inputs by name too, for the names
// exporters write that are not identifiers: m({"onnx::Flatten_0": x}).
func (m *onnxModel) Call(th *eval.Thread, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	ins := m.prog.Inputs
	if r, ok := soleRecord(args); ok {
		named := make([]eval.Kwarg, 0, len(r.Keys)+len(kwargs))
		for i, k := range r.Keys {
			named = append(named, eval.Kwarg{Name: k, Value: r.Values[i]})
		}
		args, kwargs = nil, append(named, kwargs...)
	}
	given := make([]eval.Value, len(ins))
	if len(args) > len(ins) {
		return nil, fmt.Errorf("%s takes %d inputs, got %d", m, len(ins), len(args))
	}
	copy(given, args)
	for _, kw := range kwargs {
		i := -1
		for j, in := range ins {
			if in.Name == kw.Name {
				i = j
			}
		}
		switch {
		case i < 0:
			if len(ins) == 0 {
				return nil, fmt.Errorf("%s has no input %q (it takes none)", m, kw.Name)
			}
			names := make([]string, len(ins))
			for j, in := range ins {
				names[j] = strconv.Quote(in.Name)
			}
			return nil, fmt.Errorf("%s has no input %q (its inputs: %s; a name that is not an identifier goes in a record, m({%s: x}))",
				m, kw.Name, strings.Join(names, ", "), names[0])
		case given[i] != nil:
			return nil, fmt.Errorf("%s: input %q given twice", m, kw.Name)
		}
		given[i] = kw.Value
	}
	rs := make([]*refs.Ref, len(ins))
	for i, v := range given {
		if v == nil {
			return nil, fmt.Errorf("%s: missing input %q", m, ins[i].Name)
		}
		r, err := th.ToRef(v)
		if err != nil {
			return nil, fmt.Errorf("%s: input %q: %w", m, ins[i].Name, err)
		}
		rs[i] = r
	}
	outs, err := m.prog.Run(th.RT, th.Site(), rs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	if len(outs) == 1 {
		return eval.Tensor{Ref: outs[0]}, nil
	}
	vals := make([]eval.Value, len(outs))
	for i, r := range outs {
		vals[i] = eval.Tensor{Ref: r}
	}
	return eval.NewList(vals), nil
}

// soleRecord is args' one argument when it is a record of named values
// (not an op's positional result).
func soleRecord(args []eval.Value) (*eval.Record, bool) {
	if len(args) != 1 {
		return nil, false
	}
	r, ok := args[0].(*eval.Record)
	return r, ok && !r.Positional
}
