package eval_test

import (
	"testing"
)

// TestIndexAssignInPlace: `x[i] = v` on a tensor nothing else holds
// takes x's buffer (index_assign runs in place), so filling a 4 MiB
// buffer row by row never holds two copies of it; when another name
// holds the old value, that value is copied and stays as it was.
func TestIndexAssignInPlace(t *testing.T) {
	const mib4 = 1024 * 1024 * 4
	for _, tc := range []struct {
		name     string
		src      string
		out      string
		peakOver int64 // the peak's bound above one 4 MiB buffer
	}{
		{"alone", `
let x = zeros([1024, 1024])
for i in range(8) {
    x[i * 100] = ones([1024]) * i
}
print(x.sum())
`, "28672.0\n", 64 << 10},
		{"shared", `
let x = zeros([1024, 1024])
let old = x
x[5] = 1
print(x.sum(), old.sum())
`, "1024.0 0.0\n", mib4 + 64<<10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, 8)
			if err := s.in.RunFile(file(t, "t.tr", tc.src)); err != nil {
				t.Fatal(err)
			}
			if got := s.out.String(); got != tc.out {
				t.Errorf("output %q, want %q", got, tc.out)
			}
			peak := s.rt.HostPool().Stats().PeakBytes
			s.in.Close()
			if peak > mib4+tc.peakOver {
				t.Errorf("peak %d bytes, want at most %d", peak, mib4+tc.peakOver)
			}
			if tc.name == "shared" && peak < 2*mib4 {
				t.Errorf("peak %d bytes: the shared value was not copied", peak)
			}
			if n := s.rt.LiveRefs(); n != 0 {
				t.Errorf("%d refs alive after the run", n)
			}
		})
	}
}

// TestIndexAssignLists: lists are values; assigning a list into itself
// puts its old value there (no cycle), and another holder keeps the old
// value.
func TestIndexAssignLists(t *testing.T) {
	out, err := run(t, `
let l = [[1], [2]]
let m = l
l[0] = l
print(len(l), len(l[0]), m)
let c = [0]
c[0] = c
print(c)
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "2 2 [[1], [2]]\n[[0]]\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
}
