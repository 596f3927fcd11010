//go:build ignore

// This program runs a script (by default the small-op chain,
// bench/ops/smallops.tr) on the cpu executor with the CLI's default
// window, several times in one process, and reports CPU time per op,
// allocations per op and GC cycles; it can write CPU and allocation
// profiles. The script is taken to run 100000 ops (-ops to change).
//
//	go run bench/ops/prof/main.go [-n runs] [-cpu file] [-mem file] [script]
//	go tool pprof -top file
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

func main() {
	cpuProf := flag.String("cpu", "", "write a CPU profile to `file`")
	memProf := flag.String("mem", "", "write an allocation profile (every allocation) to `file`")
	runs := flag.Int("n", 5, "runs of the script")
	nops := flag.Float64("ops", 1e5, "ops per run, for the per-op figures")
	flag.Parse()
	path := "bench/ops/smallops.tr"
	if flag.NArg() > 0 {
		path = flag.Arg(0)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if *memProf != "" {
		runtime.MemProfileRate = 1
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	var ms0, ms1 runtime.MemStats
	var ru0, ru1 syscall.Rusage
	runtime.ReadMemStats(&ms0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	for range *runs {
		rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: refs.DefaultLookahead})
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: os.Stderr})
		if err := in.RunSource(path, src); err != nil {
			log.Fatal(err)
		}
		in.Close()
		if err := rt.Flush(); err != nil {
			log.Fatal(err)
		}
	}
	wall := time.Since(t0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	runtime.ReadMemStats(&ms1)
	ops := float64(*runs) * *nops
	cpuNs := float64(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	fmt.Printf("%.0f ns CPU and %.0f ns wall per op, %.2f allocations and %.0f bytes per op, %d GC cycles in %d runs\n",
		cpuNs/ops, float64(wall.Nanoseconds())/ops, float64(ms1.Mallocs-ms0.Mallocs)/ops,
		float64(ms1.TotalAlloc-ms0.TotalAlloc)/ops, ms1.NumGC-ms0.NumGC, *runs)
	if *memProf != "" {
		f, err := os.Create(*memProf)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
}
