package parser

import (
	"fmt"
	"strings"
	"testing"
)

// benchUnit is six lines of typical tref, repeated to make long inputs.
const benchUnit = `fn layer(x, w, b=none) {
	let h = x @ w.T + b
	if h.ndim > 2 and not flag { h = h.reshape([-1, 4]) } else { h = -h ** 2 }
	for i in range(10) { h += f(h[i, 1:3, ::-1], dim=1) }
	return {out: h, "n": [1, 2.5, 1e-3]}
}
`

// BenchmarkParse parses N copies of benchUnit (6N lines).
func BenchmarkParse(b *testing.B) {
	for _, N := range []int{10, 40, 333} {
		b.Run(fmt.Sprintf("lines=%d", 6*N), func(b *testing.B) {
			benchParse(b, N)
		})
	}
}

func benchParse(b *testing.B, N int) {
	prog := []byte(strings.Repeat(benchUnit, N))
	b.SetBytes(int64(len(prog)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseFile("b.tr", prog); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	for _, N := range []int{10, 160} {
		b.Run(fmt.Sprint(N), func(b *testing.B) {
			prog := strings.Repeat("let h = x @ w.T + b[1, 2:3] # comment\n", N*6)
			b.SetBytes(int64(len(prog)))
			for i := 0; i < b.N; i++ {
				scan("b.tr", []byte(prog), 1)
			}
		})
	}
}
