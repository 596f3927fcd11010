package stdlib

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/formats"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// File builtins: load and save, over runtime/formats. Loading is lazy:
// load parses headers only and returns refs whose data stays on disk until
// first use (refs.Runtime.LazyWithDone), so a model larger than host memory
// can stream through the placement engine.
func init() {
	register("load", `load(path): read a tensor file, choosing the format by name: .safetensors and .npz give a record of tensors keyed as in the file (m["fc1.weight"]); so do PyTorch checkpoints written by torch.save (.pt, .pth, and a .bin that is a zip archive), whose pickle is read without running any code: a state_dict's tensors keep its keys, tensors in nested dicts and lists get dotted keys ({"model": sd, "epoch": 3} gives m["model.fc1.weight"]) and other values are left out; .npy, IDX (*-ubyte, *-ubyte.gz) and .csv give one tensor. Data is read on first use. A relative path is resolved against the calling script's directory`, builtinLoad)
	register("save", `save(path, value, metadata=none, compress=false): write a record of tensors as .safetensors or .npz (nested records become dotted keys, "fc1.weight"), or one tensor as .npy; metadata (a record of strings) goes into the safetensors header, compress deflates npz members. The write is atomic`, builtinSave)
}

// noteOut receives the notes loaders make about conversions (float16 data
// loaded as float32), each printed once per process.
var (
	noteOut  io.Writer = os.Stderr
	notesMu  sync.Mutex
	notesOut = map[string]bool{}
)

func printNote(msg string) {
	notesMu.Lock()
	defer notesMu.Unlock()
	if notesOut[msg] {
		return
	}
	notesOut[msg] = true
	fmt.Fprintf(noteOut, "note: %s\n", msg)
}

// scriptPath resolves a relative path against the directory of the script
// that is calling (from the call site's "file:line:col"); the REPL and
// calls without a script position use the working directory.
func scriptPath(th *eval.Thread, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	site := th.Site().Pos
	if !site.IsValid() || strings.HasPrefix(site.File, "<") {
		return path
	}
	return filepath.Join(filepath.Dir(site.File), path)
}

func builtinLoad(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var path string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	full := scriptPath(th, path)
	if err := th.Sandbox.Check(full); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	host := th.RT.HostPool()
	f, err := formats.Open(full, &formats.Options{Check: host.Check, KeepHalf: true})
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	defer f.Close()
	for _, n := range f.Notes {
		printNote(f.Path + ": " + n)
	}
	site := th.Site()
	vals := make([]eval.Value, 0, len(f.Entries))
	keys := make([]string, 0, len(f.Entries))
	for i := range f.Entries {
		e := &f.Entries[i]
		var r *refs.Ref
		if f.Kind == formats.CSV {
			// CSV is parsed at open; its data is already in memory.
			d, err := e.Load()
			if err != nil {
				releaseAll(th, vals)
				return nil, fmt.Errorf("load: %w", err)
			}
			r = th.RT.FromHost(site, d)
		} else {
			f.Retain()
			r = th.RT.LazyWithDone(site, e.Meta, e.Load, func() { f.Release() })
		}
		vals = append(vals, eval.Tensor{Ref: r})
		keys = append(keys, e.Name)
	}
	if f.Single() {
		return vals[0], nil
	}
	return eval.NewRecord(keys, vals), nil
}

func releaseAll(th *eval.Thread, vals []eval.Value) {
	for _, v := range vals {
		eval.Release(th.RT, v)
	}
}

func builtinSave(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var (
		path     string
		value    eval.Value
		metadata eval.Value = eval.None
		compress bool
	)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "path", &path, "value", &value, "metadata?", &metadata, "compress?", &compress); err != nil {
		return nil, err
	}
	full := scriptPath(th, path)
	if err := th.Sandbox.Check(full); err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	kind := formats.KindOf(full)
	rec, isRec := value.(*eval.Record)
	switch kind {
	case formats.Safetensors, formats.Npz:
		if !isRec {
			return nil, fmt.Errorf("save: %s stores a record of tensors, not %s; write save(%q, {name: x})", kind, eval.Describe(value), path)
		}
	case formats.Npy:
		if isRec {
			return nil, fmt.Errorf("save: .npy stores one tensor, not a record; use .safetensors or .npz for records")
		}
	default:
		return nil, fmt.Errorf("save: cannot write %q: the name must end in .safetensors, .npz (records) or .npy (one tensor)", path)
	}
	if compress && kind != formats.Npz {
		return nil, fmt.Errorf("save: compress= applies to .npz only")
	}
	meta, err := saveMetadata(metadata, kind)
	if err != nil {
		return nil, err
	}
	if !isRec {
		d, err := forceValue(th, "value", value)
		if err != nil {
			return nil, err
		}
		if err := formats.WriteNpy(full, d); err != nil {
			return nil, fmt.Errorf("save: %w", err)
		}
		return eval.None, nil
	}
	var names []string
	var ts []*tensor.Dense
	if err := flattenRecord(th, "", rec, &names, &ts); err != nil {
		return nil, err
	}
	if kind == formats.Safetensors {
		err = formats.WriteSafetensors(full, names, ts, meta)
	} else {
		err = formats.WriteNpz(full, names, ts, compress)
	}
	if err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	return eval.None, nil
}

// saveMetadata reads the metadata argument: none, or a record of strings
// (safetensors only).
func saveMetadata(v eval.Value, kind formats.Kind) (map[string]string, error) {
	if _, none := v.(eval.NoneType); none {
		return nil, nil
	}
	rec, ok := v.(*eval.Record)
	if !ok {
		return nil, fmt.Errorf("save: metadata must be a record of strings, not %s", eval.Describe(v))
	}
	if kind != formats.Safetensors {
		return nil, fmt.Errorf("save: metadata= applies to .safetensors only")
	}
	meta := make(map[string]string, len(rec.Keys))
	for i, k := range rec.Keys {
		s, ok := rec.Values[i].(eval.String)
		if !ok {
			return nil, fmt.Errorf("save: metadata field %q must be a string, not %s", k, eval.Describe(rec.Values[i]))
		}
		meta[k] = string(s)
	}
	return meta, nil
}

// flattenRecord collects a record's tensors in order, naming those of
// nested records with dotted keys.
func flattenRecord(th *eval.Thread, prefix string, rec *eval.Record, names *[]string, ts *[]*tensor.Dense) error {
	for i, k := range rec.Keys {
		name := prefix + k
		if sub, ok := rec.Values[i].(*eval.Record); ok {
			if err := flattenRecord(th, name+".", sub, names, ts); err != nil {
				return err
			}
			continue
		}
		d, err := forceValue(th, name, rec.Values[i])
		if err != nil {
			return err
		}
		*names = append(*names, name)
		*ts = append(*ts, d)
	}
	return nil
}

// forceValue computes a tensor (or number) and returns its host copy,
// borrowed from the ref for the duration of the call.
func forceValue(th *eval.Thread, name string, v eval.Value) (*tensor.Dense, error) {
	r, err := th.ToRef(v)
	if err != nil {
		return nil, fmt.Errorf("save: %q is %s; only tensors can be saved", name, eval.Describe(v))
	}
	d, err := th.RT.Read(r)
	if err != nil {
		return nil, fmt.Errorf("save: computing %q: %w", name, err)
	}
	return d, nil
}
