package cpu

import "testing"

func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4097} {
		s := make([]float32, n+2)
		s[0], s[n+1] = -1, -1
		fill(s[1:n+1], 2.5)
		for i, v := range s {
			want := float32(2.5)
			if i == 0 || i == n+1 {
				want = -1
			}
			if v != want {
				t.Fatalf("n = %d: s[%d] = %v, want %v", n, i-1, v, want)
			}
		}
	}
}
