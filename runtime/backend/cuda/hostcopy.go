package cuda

import (
	"runtime"
	"sync"
)

// hostCopyChunk is the least one goroutine of hostCopy copies: below it,
// starting the goroutine costs about what it saves.
const hostCopyChunk = 512 << 10

// hostCopy copies src into dst, which is as long, on up to GOMAXPROCS
// goroutines. Every copy in or out of the device also crosses host
// memory once, between a tensor's buffer and its pinned staging buffer:
// one core's memmove moves about 8 GB/s (measured on the H200 machine,
// bench/RESULTS.md), a seventh of what the link carries, so on one core
// that copy, not the link, would bound every transfer.
func hostCopy(dst, src []byte) {
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), n/hostCopyChunk)
	if workers <= 1 {
		copy(dst, src)
		return
	}
	// Chunks of whole cache lines, the first one copied here.
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
