package cuda

import (
	"bytes"
	"runtime"
	"testing"
)

func TestHostCopy(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 16} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 63, hostCopyChunk + 1, hostCopyParallel - 1, hostCopyParallel,
			hostCopyParallel + 17, 3*hostCopyParallel + 5, 16*hostCopyChunk + 3} {
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(i*7 + i>>9)
			}
			// Guard bytes past dst's end must stay untouched.
			buf := bytes.Repeat([]byte{0xAA}, n+64)
			hostCopy(buf[:n], src)
			if !bytes.Equal(buf[:n], src) {
				t.Fatalf("GOMAXPROCS=%d, %d bytes: copy differs", procs, n)
			}
			for i, b := range buf[n:] {
				if b != 0xAA {
					t.Fatalf("GOMAXPROCS=%d, %d bytes: wrote past the end at +%d", procs, n, i)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

func BenchmarkHostCopy(b *testing.B) {
	src := make([]byte, 64<<20)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		hostCopy(dst, src)
	}
}
