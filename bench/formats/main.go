// Command formats measures how long opening a large safetensors file takes
// (lazy: the header only, so it must not grow with the file) and how long
// the first touch of every tensor takes (copying from the mapping), with
// the file's pages cached and evicted, against reading the whole file.
//
//	go run ./bench/formats -mb 500 -tensors 100
//
// The file is generated in a temporary directory and removed afterwards.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/tref-lang/tref/runtime/formats"
	"github.com/tref-lang/tref/runtime/tensor"
)

func main() {
	mb := flag.Int("mb", 500, "file size in MiB")
	count := flag.Int("tensors", 100, "number of tensors (equal sizes)")
	runs := flag.Int("runs", 5, "repetitions; the median is reported")
	dir := flag.String("dir", "", "where to write the file (default: a temporary directory)")
	flag.Parse()
	if err := run(*mb, *count, *runs, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "formats bench:", err)
		os.Exit(1)
	}
}

func run(mb, count, runs int, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "tref-formats-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	path := filepath.Join(dir, "big.safetensors")
	small := filepath.Join(dir, "small.safetensors")
	per := int64(mb) << 20 / int64(count) / 4
	if err := write(path, count, int(per)); err != nil {
		return err
	}
	// The same number of tensors, 1/1000 of the size: open time must match.
	if err := write(small, count, max(int(per)/1000, 1)); err != nil {
		return err
	}
	st, _ := os.Stat(path)
	sst, _ := os.Stat(small)
	fmt.Printf("file: %d tensors of float32[%d], %.1f MiB; small file: %.1f KiB; GOMAXPROCS %d\n",
		count, per, float64(st.Size())/(1<<20), float64(sst.Size())/1024, runtime.GOMAXPROCS(0))

	openBig := median(runs, func() time.Duration { return timeOpen(path) })
	openSmall := median(runs, func() time.Duration { return timeOpen(small) })
	fmt.Printf("open (header parse + mmap), big file:    %10.3f ms\n", ms(openBig))
	fmt.Printf("open (header parse + mmap), small file:  %10.3f ms\n", ms(openSmall))

	warm := median(runs, func() time.Duration { return timeTouch(path, false) })
	fmt.Printf("first touch of all tensors, page cache warm: %8.1f ms  (%.2f GB/s)\n", ms(warm), gbps(st.Size(), warm))
	cold := median(runs, func() time.Duration { return timeTouch(path, true) })
	fmt.Printf("first touch of all tensors, pages evicted:   %8.1f ms  (%.2f GB/s)\n", ms(cold), gbps(st.Size(), cold))
	one := median(runs, func() time.Duration { return timeTouchOne(path) })
	fmt.Printf("first touch of one tensor (%.1f MiB), warm:  %8.2f ms\n", float64(per*4)/(1<<20), ms(one))
	whole := median(runs, func() time.Duration {
		start := time.Now()
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			panic(err)
		}
		return time.Since(start)
	})
	fmt.Printf("reference: os.ReadFile of the whole file, warm: %8.1f ms  (%.2f GB/s)\n", ms(whole), gbps(st.Size(), whole))
	return nil
}

func write(path string, count, numel int) error {
	names := make([]string, count)
	ts := make([]*tensor.Dense, count)
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{numel}, DType: tensor.Float32})
	for i := range d.F32() {
		d.F32()[i] = float32(i % 1000)
	}
	for i := range count {
		names[i] = fmt.Sprintf("layers.%d.weight", i)
		ts[i] = d
	}
	return formats.WriteSafetensors(path, names, ts, map[string]string{"format": "pt"})
}

func timeOpen(path string) time.Duration {
	start := time.Now()
	f, err := formats.Open(path, nil)
	if err != nil {
		panic(err)
	}
	el := time.Since(start)
	f.Close()
	return el
}

// timeTouch opens the file and loads every tensor, as the first use of
// each lazy ref does; evict drops the file's pages from the page cache
// first (posix_fadvise DONTNEED), so the data comes from the disk.
func timeTouch(path string, evict bool) time.Duration {
	if evict {
		fh, err := os.Open(path)
		if err != nil {
			panic(err)
		}
		const fadvDontNeed = 4 // POSIX_FADV_DONTNEED on Linux
		syscall.Syscall6(syscall.SYS_FADVISE64, fh.Fd(), 0, 0, fadvDontNeed, 0, 0)
		fh.Close()
	}
	runtime.GC()
	start := time.Now()
	f, err := formats.Open(path, nil)
	if err != nil {
		panic(err)
	}
	for i := range f.Entries {
		if _, err := f.Entries[i].Load(); err != nil {
			panic(err)
		}
	}
	el := time.Since(start)
	f.Close()
	return el
}

func timeTouchOne(path string) time.Duration {
	f, err := formats.Open(path, nil)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	start := time.Now()
	if _, err := f.Entries[len(f.Entries)/2].Load(); err != nil {
		panic(err)
	}
	return time.Since(start)
}

func median(n int, f func() time.Duration) time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f()
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[n/2]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func gbps(bytes int64, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e9 }
