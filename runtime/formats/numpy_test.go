package formats

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// readBack is run by Debian's python3 with numpy: it loads the files tref
// wrote (npy and npz with numpy itself, safetensors by the format's
// definition) and prints every array as JSON.
const readBack = `
import json, struct, sys
import numpy as np
out = {}
d = sys.argv[1]
a = np.load(d + "/x.npy")
out["x.npy"] = {"": [str(a.dtype), list(a.shape), a.astype("f8").ravel().tolist()]}
for n in ("s.npz", "c.npz"):
    z = np.load(d + "/" + n)
    out[n] = {k: [str(z[k].dtype), list(z[k].shape), z[k].astype("f8").ravel().tolist()] for k in z.files}
raw = open(d + "/m.safetensors", "rb").read()
hl = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + hl])
types = {"F32": "<f4", "F64": "<f8", "I64": "<i8", "U8": "u1", "BOOL": "?", "F16": "<f2"}
st = {}
for k, v in h.items():
    if k == "__metadata__":
        st[k] = v
        continue
    b, e = v["data_offsets"]
    arr = np.frombuffer(raw[8 + hl + b:8 + hl + e], dtype=types[v["dtype"]]).reshape(v["shape"])
    st[k] = [v["dtype"], list(arr.shape), arr.astype("f8").ravel().tolist()]
out["m.safetensors"] = st
print(json.dumps(out))
`

func TestNumpyReadsTrefFiles(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with numpy")
	}
	dir := t.TempDir()
	names := []string{"f32", "f64", "i64", "u8", "b", "h", "scalar"}
	ts := []*tensor.Dense{sample(tensor.Float32, 2, 3), sample(tensor.Float64, 4), sample(tensor.Int64, 3, 1),
		sample(tensor.Uint8, 5), sample(tensor.Bool, 2, 2), sample(tensor.Float16, 3), sample(tensor.Float32)}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(WriteNpy(filepath.Join(dir, "x.npy"), ts[0]))
	must(WriteNpz(filepath.Join(dir, "s.npz"), names, ts, false))
	must(WriteNpz(filepath.Join(dir, "c.npz"), names, ts, true))
	must(WriteSafetensors(filepath.Join(dir, "m.safetensors"), names, ts, map[string]string{"format": "pt"}))
	out, err := exec.Command("/usr/bin/python3", "-c", readBack, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	check := func(file, name string, d *tensor.Dense) {
		t.Helper()
		v, ok := got[file][name].([]any)
		if !ok || len(v) != 3 {
			t.Fatalf("%s: %q missing from numpy's view: %v", file, name, got[file])
		}
		shape, vals := v[1].([]any), v[2].([]any)
		if len(shape) != len(d.Shape) || len(vals) != d.Numel() {
			t.Fatalf("%s %q: numpy sees shape %v with %d values, tref wrote %v", file, name, shape, len(vals), d.Meta)
		}
		for i, s := range shape {
			if int(s.(float64)) != d.Shape[i] {
				t.Fatalf("%s %q: numpy sees shape %v, tref wrote %v", file, name, shape, d.Shape)
			}
		}
		for i := range vals {
			if vals[i].(float64) != d.At(i) {
				t.Fatalf("%s %q element %d: numpy reads %v, tref wrote %v", file, name, i, vals[i], d.At(i))
			}
		}
	}
	check("x.npy", "", ts[0])
	for i, n := range names {
		check("s.npz", n, ts[i])
		check("c.npz", n, ts[i])
		check("m.safetensors", n, ts[i])
	}
	if md, _ := got["m.safetensors"]["__metadata__"].(map[string]any); md["format"] != "pt" {
		t.Fatalf("metadata as numpy reads it: %v", got["m.safetensors"]["__metadata__"])
	}
}
