package stdlib

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/safefile"
)

// TestSandbox runs scripts under eval.Config.Sandbox: import, load,
// load_onnx and save reach files in the script's tree and nothing outside
// it, whether by "..", an absolute path or a symbolic link.
func TestSandbox(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "lib", "m.tr"), "let k = 3\n")
	write(filepath.Join(base, "secret.tr"), "let k = 4\n")
	write(filepath.Join(base, "secret.csv"), "1,2\n")
	if err := os.Symlink(filepath.Join(base, "secret.csv"), filepath.Join(root, "link.csv")); err != nil {
		t.Fatal(err)
	}
	sb, err := safefile.NewSandbox(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(src string) (string, error) {
		rt := refs.New(&cpu.Device{}, refs.Options{})
		var out bytes.Buffer
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: &out, Sandbox: sb})
		defer in.Close()
		p := filepath.Join(root, "main.tr")
		write(p, src)
		err := in.RunFile(p)
		return out.String(), err
	}
	if out, err := run(`import "lib/m.tr"
save("out/../w.npy", ones([2]))
print(m.k, load("w.npy").sum().item())
`); err != nil || out != "3 2.0\n" {
		t.Fatalf("inside the sandbox: %q, %v", out, err)
	}
	bad := []struct{ src, want string }{
		{`import "../secret.tr"`, "cannot import " + filepath.Join(root, "..", "secret.tr") + ": outside the sandbox " + root},
		{`import "` + filepath.Join(base, "secret.tr") + `"`, "outside the sandbox"},
		{`let x = load("../secret.csv")`, "load: " + filepath.Join(root, "..", "secret.csv") + ": outside the sandbox"},
		{`let x = load("link.csv")`, "load: " + filepath.Join(root, "link.csv") + ": outside the sandbox"},
		{`let x = load("/proc/self/environ")`, "load: /proc/self/environ: outside the sandbox"},
		{`save("../w.npy", ones([2]))`, "save: " + filepath.Join(root, "..", "w.npy") + ": outside the sandbox"},
		{`let m = load_onnx("../m.onnx")`, "load_onnx: " + filepath.Join(root, "..", "m.onnx") + ": outside the sandbox"},
	}
	for _, c := range bad {
		_, err := run(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.src, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "w.npy")); err == nil {
		t.Error("save wrote outside the sandbox")
	}
}
