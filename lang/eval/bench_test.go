package eval_test

import (
	"os"
	"testing"
)

// BenchmarkLoop and BenchmarkFib time the scalar fast paths (bench/scalar).
func BenchmarkLoop(b *testing.B) {
	src, _ := os.ReadFile("../../bench/scalar/loop.tr")
	for i := 0; i < b.N; i++ {
		s := newSession(b, 64)
		if err := s.in.RunSource("loop.tr", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFib(b *testing.B) {
	src, _ := os.ReadFile("../../bench/scalar/fib.tr")
	for i := 0; i < b.N; i++ {
		s := newSession(b, 64)
		if err := s.in.RunSource("fib.tr", src); err != nil {
			b.Fatal(err)
		}
	}
}
