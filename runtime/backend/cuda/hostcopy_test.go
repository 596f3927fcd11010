package cuda

import (
	"bytes"
	"runtime"
	"testing"
)

// TestHostCopy: every copier (the default split, and every copy of 100
// bytes or more split in pieces of 64 or more) copies every byte, whole
// or in pieces, and writes nothing past the end.
func TestHostCopy(t *testing.T) {
	for _, c := range []hostCopier{{}, {split: 100, piece: 64}} {
		for _, procs := range []int{1, 2, 3, 16} {
			prev := runtime.GOMAXPROCS(procs)
			testHostCopier(t, c, procs)
			runtime.GOMAXPROCS(prev)
		}
	}
}

func testHostCopier(t *testing.T, c hostCopier, procs int) {
	t.Helper()
	for _, n := range []int{0, 1, 63, 99, 100, 101, 129, 1000, hostCopyChunk + 1, hostCopyParallel - 1, hostCopyParallel,
		hostCopyParallel + 17, 3*hostCopyParallel + 5, 16*hostCopyChunk + 3} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		// Guard bytes past dst's end must stay untouched.
		buf := bytes.Repeat([]byte{0xAA}, n+64)
		c.copy(buf[:n], src)
		if !bytes.Equal(buf[:n], src) {
			t.Fatalf("%+v, GOMAXPROCS=%d, %d bytes: copy differs", c, procs, n)
		}
		for i, b := range buf[n:] {
			if b != 0xAA {
				t.Fatalf("%+v, GOMAXPROCS=%d, %d bytes: wrote past the end at +%d", c, procs, n, i)
			}
		}
	}
}

func BenchmarkHostCopy(b *testing.B) {
	src := make([]byte, 64<<20)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		hostCopier{}.copy(dst, src)
	}
}
