// Command placement runs the offload workloads of examples/offload under
// every placement strategy on the simulated device and prints the table
// of bench/RESULTS.md: virtual time, bytes moved, stalls, and the ratios
// to the Belady reference. Times are the sim's virtual clock: they do not
// depend on the machine (the kernels do run, on the host, so results are
// real).
//
//	go run ./bench/placement [-only a,c] [-strategies flow,lru] [-lookahead 64]
//	go run ./bench/placement -optimal [-only a] [-nodes 300000]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tref-lang/tref/lang/eval"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/optimal"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// workload is one script and the budget it runs under.
type workload struct {
	id, file, what string
	mem            int64
	// weights is the bytes of the workload's weights.
	weights int64
}

var workloads = []workload{
	{"a", "mlp.tr", "MLP, 16 layers, weights 4x the budget", 16 << 20, 64 << 20},
	{"b", "transformer.tr", "8 transformer blocks, weights 3x the budget", 32 << 20, 96 << 20},
	{"c", "embedding.tr", "(b) + 16 MiB embedding table, 2 steps", 32 << 20, 112 << 20},
	{"d", "loop.tr", "(b), 3 forward passes", 32 << 20, 96 << 20},
}

// The device of the benchmark: the sim defaults (25 GB/s each way, 2 TB/s,
// 5 µs per launch or copy) with a compute rate of 4 TFLOP/s, at which the
// workloads' batches make compute about as long as the weights' copies.
const benchFlops = 4e12

func main() {
	dir := flag.String("dir", "examples/offload", "directory of the workload scripts")
	only := flag.String("only", "", "comma-separated workload ids to run (default all)")
	strategies := flag.String("strategies", "flow,lru,genoa,none", "comma-separated strategies")
	lookahead := flag.Int("lookahead", refs.DefaultLookahead, "window of pending ops")
	flops := flag.Float64("flops", benchFlops, "sim compute rate, FLOP/s")
	opt := flag.Bool("optimal", false, "instead: each strategy against the offline optimum at 1/8, 1/4 and 1/2 of the weights")
	nodes := flag.Int("nodes", optimal.DefaultMaxNodes, "with -optimal: the search's node limit")
	flag.Parse()
	if *opt {
		if err := optimumTable(*dir, *only, *lookahead, *flops, *nodes); err != nil {
			fmt.Fprintf(os.Stderr, "placement bench: %v\n", err)
			os.Exit(1)
		}
		return
	}
	sts := strings.Split(*strategies, ",")
	fmt.Printf("sim: %.0f GB/s each way, %.1f TFLOP/s, %.0f TB/s memory, %d µs latency; lookahead %d\n\n",
		device.DefaultBandwidth/1e9, *flops/1e12, device.DefaultMemBandwidth/1e12, device.DefaultLatencyNs/1000, *lookahead)
	fmt.Println("| workload | strategy | time_ns | bytes_h2d+d2h | stall_ns | time/bound | bytes/belady |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	results := map[string]map[string]*trace.Totals{}
	for _, w := range workloads {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), w.id) {
			continue
		}
		results[w.id] = map[string]*trace.Totals{}
		for _, st := range sts {
			start := time.Now()
			t, err := run(filepath.Join(*dir, w.file), w.mem, st, *lookahead, *flops)
			if err != nil {
				fmt.Fprintf(os.Stderr, "placement bench: %s under %s: %v\n", w.file, st, err)
				os.Exit(1)
			}
			results[w.id][st] = t
			fmt.Printf("| (%s) %s | %s | %d | %d | %d | %.2f | %.2f |\n", w.id, w.what, st, t.TimeNs,
				t.BytesH2D+t.BytesD2H, t.StallNs, trace.Ratio(t.TimeNs, t.BoundNs), trace.Ratio(t.BytesH2D+t.BytesD2H, t.BeladyBytes))
			fmt.Fprintf(os.Stderr, "(%s) %s: %.1fs of host time\n", w.id, st, time.Since(start).Seconds())
		}
	}
	fmt.Println()
	goals(results)
}

// run executes one script under one strategy and returns its totals.
func run(path string, mem int64, strategy string, lookahead int, flops float64) (*trace.Totals, error) {
	t, _, err := runTraced(path, mem, strategy, lookahead, flops)
	return t, err
}

// runTraced is run that also returns the recorder, for its op log.
func runTraced(path string, mem int64, strategy string, lookahead int, flops float64) (*trace.Totals, *trace.Recorder, error) {
	rec := trace.NewRecorder()
	ex, err := placement.NewExecutor(placement.Config{Device: "sim:0", Mem: mem, Strategy: strategy,
		Lookahead: lookahead, Cost: benchCost(flops), Trace: rec})
	if err != nil {
		return nil, nil, err
	}
	rt := refs.New(ex, refs.Options{Lookahead: lookahead})
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: io.Discard})
	err = in.RunFile(path)
	in.Close()
	if ferr := rt.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, nil, err
	}
	if n := rt.LiveRefs(); n != 0 {
		return nil, nil, fmt.Errorf("%d refs alive at the end", n)
	}
	for _, s := range rt.MemStats() {
		if s.Device != "cpu" && s.LiveBytes != 0 {
			return nil, nil, fmt.Errorf("%s holds %d bytes at the end", s.Device, s.LiveBytes)
		}
	}
	t, err := ex.(*placement.Engine).Finish()
	return t, rec, err
}

// goals prints the targets with the measured numbers.
func goals(res map[string]map[string]*trace.Totals) {
	fmt.Println("| goal | measured | met |")
	fmt.Println("|---|---|---|")
	check := func(goal string, v, limit float64, below bool) {
		ok := v <= limit
		if !below {
			ok = v >= limit
		}
		mark := "yes"
		if !ok {
			mark = "**no**"
		}
		fmt.Printf("| %s | %.2f | %s |\n", goal, v, mark)
	}
	ids := make([]string, 0, len(res))
	for id := range res {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		f := res[id]["flow"]
		if f == nil {
			continue
		}
		check(fmt.Sprintf("(%s) flow time / bound_ns <= 1.10", id), trace.Ratio(f.TimeNs, f.BoundNs), 1.10, true)
		check(fmt.Sprintf("(%s) flow bytes / belady_bytes <= 1.05", id), trace.Ratio(f.BytesH2D+f.BytesD2H, f.BeladyBytes), 1.05, true)
	}
	if a := res["a"]; a != nil && a["flow"] != nil {
		if l := a["lru"]; l != nil {
			check("(a) lru time / flow time >= 1.5", trace.Ratio(l.TimeNs, a["flow"].TimeNs), 1.5, false)
		}
		if g := a["genoa"]; g != nil {
			check("(a) genoa time / flow time >= 3", trace.Ratio(g.TimeNs, a["flow"].TimeNs), 3, false)
		}
	}
}

// benchCost is the benchmark's cost model: the sim defaults with a
// compute rate of flops.
func benchCost(flops float64) device.Cost { return device.Cost{Flops: flops} }
