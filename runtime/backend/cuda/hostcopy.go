package cuda

import (
	"runtime"
	"sync"
)

// A host copy of at least hostCopyParallel bytes is split among
// goroutines, each copying hostCopyChunk bytes or more.
const (
	hostCopyParallel = 8 << 20
	hostCopyChunk    = 1 << 20
)

// hostCopier copies host memory: a copy of at least split bytes (0:
// hostCopyParallel) runs on up to GOMAXPROCS goroutines, each copying
// piece bytes or more (0: hostCopyChunk). Every copy in or out of the
// device also crosses host memory once, between a tensor's buffer and its
// pinned staging buffer, and one core's memmove moved about 7.6 GB/s on
// the H200 machine, a seventh of the link's 55 (bench/RESULTS.md). Split,
// a 64 MiB copy in ran at 17-24 GB/s end to end instead of 4.8. Copies of
// a few MiB gained nothing split (the offload examples ran no faster, and
// the copy engine slowed to 16-20 GB/s from 35-43 while the next copy's
// goroutines took the host's memory bandwidth), so by default they stay
// on one core. A 16 MiB chunk goes to 16 goroutines of 1 MiB: with 8 of
// 2 MiB the first copy of 1 GiB of weights took 65 ms against 58
// (bench/RESULTS.md, session 17), as PyTorch's copy_ reached 81 GB/s on
// 16 threads there. Config.CopySplit and CopyPiece set the two, for
// measuring other splits on a GPU machine.
type hostCopier struct{ split, piece int }

// copy copies src into dst, which is as long.
func (c hostCopier) copy(dst, src []byte) {
	split, piece := c.split, c.piece
	if split <= 0 {
		split = hostCopyParallel
	}
	if piece <= 0 {
		piece = hostCopyChunk
	}
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), n/piece)
	if n < split || workers <= 1 {
		copy(dst, src)
		return
	}
	// Pieces of whole cache lines, the first one copied here.
	per := ((n+workers-1)/workers + 63) &^ 63
	var wg sync.WaitGroup
	for lo := per; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	copy(dst[:per], src[:per])
	wg.Wait()
}
