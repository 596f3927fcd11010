package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tref-lang/tref/runtime/placement/optimal"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// optimumStrategies are the strategies compared with the optimum.
var optimumStrategies = []string{"flow", "lru", "genoa"}

// optimumTable prints each strategy's time against the offline optimum of
// its own trace (package optimal) for every workload at 1/8, 1/4 and 1/2
// of its weights.
func optimumTable(dir, only string, lookahead int, flops float64, nodes int) error {
	fmt.Printf("sim: 25 GB/s each way, %.1f TFLOP/s, 2 TB/s memory, 5 µs latency; lookahead %d; search limit %d nodes\n\n", flops/1e12, lookahead, nodes)
	fmt.Println("| workload | budget | ops | opt_ns | opt_lower_ns | solved | flow / opt | lru / opt | genoa / opt |")
	fmt.Println("|---|---:|---:|---:|---:|---|---:|---:|---:|")
	for _, w := range workloads {
		if only != "" && !slices.Contains(strings.Split(only, ","), w.id) {
			continue
		}
		for _, frac := range []int64{8, 4, 2} {
			mem := w.weights / frac
			var ratios []string
			var first *optimal.Result
			for _, st := range optimumStrategies {
				start := time.Now()
				tot, rec, err := runTraced(filepath.Join(dir, w.file), mem, st, lookahead, flops)
				if err != nil {
					return fmt.Errorf("%s under %s: %v", w.file, st, err)
				}
				res, err := optimal.Solve(optimal.Problem{Steps: rec.Steps(), Capacity: mem, Cost: benchCost(flops)},
					optimal.Options{MaxNodes: nodes, MaxOps: 1000})
				if err != nil {
					return fmt.Errorf("%s under %s: the optimum: %v", w.file, st, err)
				}
				if tot.TimeNs < res.LowerNs {
					return fmt.Errorf("%s under %s at %d bytes: %d ns, below the optimum's lower bound %d", w.file, st, mem, tot.TimeNs, res.LowerNs)
				}
				if first == nil {
					first = res
				}
				ratios = append(ratios, fmt.Sprintf("%.2f", trace.Ratio(tot.TimeNs, res.OptNs)))
				fmt.Fprintf(os.Stderr, "(%s) 1/%d %s: %d ns (%d fallbacks, %s h2d, %s d2h, %d evictions); optimum %d..%d (%s; best: %d host ops %v, %d prefetches, %d evictions, %s h2d, %s d2h), %.1fs\n",
					w.id, frac, st, tot.TimeNs, tot.Fallbacks, trace.FormatBytes(tot.BytesH2D), trace.FormatBytes(tot.BytesD2H), tot.Evictions,
					res.LowerNs, res.OptNs, res.Status(), res.Best.HostOps, res.HostOps, res.Best.Prefetches, res.Best.Evictions,
					trace.FormatBytes(res.Best.H2D), trace.FormatBytes(res.Best.D2H), time.Since(start).Seconds())
			}
			solved := "yes"
			if !first.Solved {
				solved = fmt.Sprintf("no (gap %.2fx)", trace.Ratio(first.OptNs, first.LowerNs))
			}
			fmt.Printf("| (%s) %s | 1/%d = %s | %d | %d | %d | %s | %s |\n", w.id, w.file, frac, trace.FormatBytes(mem),
				first.Ops, first.OptNs, first.LowerNs, solved, strings.Join(ratios, " | "))
		}
	}
	return nil
}
