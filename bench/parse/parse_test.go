// Package parse measures the parser on the example models and on a
// generated 2000-line script (bench/RESULTS.md, "Parsing").
package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/parser"
)

// examples reads every example script.
func examples(tb testing.TB) map[string][]byte {
	paths, err := filepath.Glob("../../examples/*.tr")
	if err != nil {
		tb.Fatal(err)
	}
	more, _ := filepath.Glob("../../examples/*/*.tr")
	out := map[string][]byte{}
	for _, p := range append(paths, more...) {
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out[p] = src
	}
	if len(out) == 0 {
		tb.Fatal("no examples")
	}
	return out
}

// script generates a script of n lines that uses every statement and
// most expression forms: functions with defaults, lambdas, loops,
// conditions, records, lists, slices, keyword arguments, methods.
func script(n int) []byte {
	var b strings.Builder
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `# block %[1]d
fn layer%[1]d(x, w, b=none, scale=1.0) {
    let h = x @ w.T + b
    if h.ndim > 2 and not flag { h = h.reshape([-1, %[1]d]) } else if h.ndim == 1 { h = -h ** 2 } else { h = h * scale }
    for i in range(%[1]d) {
        h += f(h[i, 1:3, ::-1], dim=1) / (1 + i)
        if i %% 2 == 0 { continue }
    }
    let act = fn(v) => relu(v) * 0.5 + sigmoid(v // 2)
    while h.sum() > 1e-3 { h = act(h) - {out: h, "n": [1, 2.5, 1e-3]}.out }
    assert h.shape[0] == w.shape[1], "shape"
    return {out: h, n: [1, 2.5, 1e-3], s: "layer %[1]d"}
}
let y%[1]d = layer%[1]d(randn([4, 3]), ones([3, 2]), scale=0.5)
print(y%[1]d.out.mean(dim=0), y%[1]d.n[-1])
`, i)
	}
	return []byte(b.String())
}

// TestScriptParses keeps the benchmark's inputs correct.
func TestScriptParses(t *testing.T) {
	src := script(2000)
	if n := strings.Count(string(src), "\n"); n < 2000 || n > 2020 {
		t.Fatalf("script has %d lines", n)
	}
	if _, err := parser.ParseFile("gen.tr", src); err != nil {
		t.Fatal(err)
	}
	for p, src := range examples(t) {
		if _, err := parser.ParseFile(p, src); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkParse parses every example script once per iteration, and a
// generated script of 2000 lines.
func BenchmarkParse(b *testing.B) {
	ex := examples(b)
	b.Run("examples", func(b *testing.B) {
		var size int64
		for _, src := range ex {
			size += int64(len(src))
		}
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for p, src := range ex {
				if _, err := parser.ParseFile(p, src); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("lines=2000", func(b *testing.B) {
		src := script(2000)
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := parser.ParseFile("gen.tr", src); err != nil {
				b.Fatal(err)
			}
		}
	})
}
