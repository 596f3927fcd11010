// Command devices measures the offload examples on a real device under
// the placement engine and how far the simulated device, calibrated on
// it, predicts them: for each workload, the device with every tensor
// resident and under --mem at a quarter of the weights, and sim with the
// calibrated cost model under both. It prints a markdown table for
// bench/RESULTS.md.
//
//	go run ./bench/devices                   # torch:cpu, every workload
//	go run ./bench/devices -only mlp -reps 3
//	go run ./bench/devices -device cuda:0 -set large -link 54 -staged
//
// -set large runs large.tr beside this file: 1 GiB of weights in 64 MiB
// layers (-width 4096), once with a batch that makes it compute-bound and once with
// one that makes it transfer-bound (too large for sim, which computes on
// the host: no prediction); -link, the host link's measured GB/s
// (scripts/gpu-link-peak.py), adds the time the moved bytes take on it.
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cuda"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/backend/torch" // registers torch:cpu, cuda
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// workload is a script, its arguments and the bytes of its weights;
// sim predicts it unless noSim.
type workload struct {
	name    string
	path    string // "": the example of that name in -dir
	args    []string
	weights int64
	noSim   bool
	// noSyncStage leaves out -staged's run staged on the engine's
	// thread.
	noSyncStage bool
	// steadyOf names a workload that runs the same passes but fewer
	// (measured before this one): the difference of the two runs is the
	// steady state of the passes this one adds.
	steadyOf string
}

// sets are the workloads -set picks from.
var sets = map[string][]workload{
	"examples": {
		{name: "mlp", weights: 64 << 20},
		{name: "transformer", weights: 96 << 20},
		{name: "embedding", weights: 112 << 20},
		{name: "loop", weights: 96 << 20},
	},
}

// largeSet is -set large at -width: 16 layers of width x width float32
// weights (1 GiB at 4096, 64 MiB a layer, four 16 MiB staging chunks),
// each applied 4 times to a batch of width / 4 rows (compute-bound: at
// 4096, 137 GFLOP per 64 MiB copied) and once to width / 32 rows
// (transfer-bound: 4.3 GFLOP). A quarter of the weights holds four
// layers, so that beside one matmul's working set (a weight, its input
// and output) the next weights can be on their way. large-stream-2 and
// -6 run the transfer-bound stack 2 and 6 times over (weights streamed
// in again each pass, as a model run on many inputs): the first pass
// stages its copies, the second pins the host blocks in place, and
// passes 3 to 6, the difference of the two, stream from pinned memory.
func largeSet(width int) []workload {
	const layers = 16
	l, w := strconv.Itoa(layers), strconv.Itoa(width)
	weights := int64(layers) * int64(width) * int64(width) * 4
	const path = "bench/devices/large.tr"
	stream := func(passes int) workload {
		return workload{name: fmt.Sprintf("large-stream-%d", passes), path: path,
			args: []string{l, w, strconv.Itoa(width / 32), "1", strconv.Itoa(passes)}, weights: weights, noSim: true, noSyncStage: true}
	}
	steady := stream(6)
	steady.steadyOf = "large-stream-2"
	return []workload{
		{name: "large-compute", path: path, args: []string{l, w, strconv.Itoa(width / 4), "4"}, weights: weights, noSim: true},
		{name: "large-transfer", path: path, args: []string{l, w, strconv.Itoa(width / 32), "1"}, weights: weights, noSim: true},
		stream(2), steady,
	}
}

func main() {
	dev := flag.String("device", "torch:cpu", "the device to measure")
	dir := flag.String("dir", "examples/offload", "directory of the workloads")
	set := flag.String("set", "examples", "the workloads: examples (examples/offload) or large (bench/devices/large.tr)")
	only := flag.String("only", "", "comma-separated workloads (default all)")
	link := flag.Float64("link", 0, "the host link's measured GB/s, for the time the moved bytes take on it")
	width := flag.Int("width", 4096, "-set large: the layers' width")
	reps := flag.Int("reps", 1, "runs of each; the fastest counts")
	chrome := flag.String("chrome", "", "directory for a chrome trace of each workload's last run on the device (warm, unlike a fresh process's)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	staged := flag.Bool("staged", false, "also run each offload with every copy staged (--pinned 0), and staged on the engine's thread (TREF_CUDA_STAGE=sync): what copying straight from pinned host tensors and staging on a worker gain on CUDA")
	noIssue := flag.Bool("no-issue", false, "calibrate sim without the host's time to issue an op (device.Cost.IssueNs), as before it was measured")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer func() {
			pprof.StopCPUProfile()
			check(f.Close())
		}()
	}

	sets["large"] = largeSet(*width)
	workloads, ok := sets[*set]
	if !ok {
		check(fmt.Errorf("no workload set %q (examples, large)", *set))
	}
	spec, err := device.Parse(*dev)
	check(err)
	d, err := device.Open(spec, device.Options{})
	check(err)
	cal, err := device.Calibrate(d, device.DefaultCalibrationSizes)
	check(err)
	simInexact = !d.Caps().ExactFallback
	check(d.Close())
	cal.Cost.HostFlops, cal.Cost.HostMemBandwidth = hostRates(3)
	if !*noIssue {
		cal.Cost.IssueNs = issueNs(spec.Name, cal.Cost)
	}
	fmt.Printf("calibrated %s: h2d %.3g GB/s, d2h %.3g GB/s, copy %d ns, op %d ns, matmul %.3g GFLOP/s, add %.3g GB/s; host matmul %.3g GFLOP/s, add %.3g GB/s, staging %.3g GB/s, issuing an op %d ns\n\n",
		spec.Name, cal.H2D/1e9, cal.D2H/1e9, cal.CopyNs, cal.LaunchNs, cal.Flops/1e9, cal.MemBandwidth/1e9,
		cal.Cost.HostFlops/1e9, cal.Cost.HostMemBandwidth/1e9, cal.Cost.StagingBandwidth/1e9, cal.Cost.IssueNs)
	fmt.Println("| workload | budget | measured ms | process CPU ms | sim predicts ms | sim / measured | moved MiB | moved / link ms | speed vs resident | output = resident |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
	var plugin []string           // what the torch plugin counted, per workload
	var pinning []string          // how the CUDA plane copied, per offload run
	var steady []string           // the steady state of workloads with steadyOf
	bests := map[string]*result{} // by workload and mode
	for _, w := range workloads {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), w.name) {
			continue
		}
		ops0 := intoOpStats(spec)
		path := w.path
		if path == "" {
			path = filepath.Join(*dir, w.name+".tr")
		}
		var resident string
		var residentNs int64
		type variant struct {
			mem, pinned  int64
			budget, mode string
			syncStage    bool
		}
		quarter := trace.FormatBytes(w.weights/4) + " (1/4)"
		variants := []variant{{0, 0, "resident", "resident", false}, {w.weights / 4, 0, quarter, "offload", false}}
		if *staged {
			variants = append(variants, variant{w.weights / 4, -1, quarter + ", staged", "offload-staged", false})
			if !w.noSyncStage {
				variants = append(variants, variant{w.weights / 4, -1, quarter + ", staged on the engine's thread", "offload-staged-sync", true})
			}
		}
		for _, v := range variants {
			mem, budget, mode := v.mem, v.budget, v.mode
			var best *result
			for i := range *reps {
				chromePath := ""
				if *chrome != "" && i == *reps-1 {
					chromePath = filepath.Join(*chrome, w.name+"-"+mode+".chrome.json")
				}
				var r *result
				once := func() { r = run(path, w.args, spec.Name, mem, v.pinned, cal.Cost, chromePath) }
				if v.syncStage {
					withEnv("TREF_CUDA_STAGE", "sync", once)
				} else {
					once()
				}
				if best == nil || r.ns < best.ns {
					best = r
				}
			}
			predMs, predRatio := "-", "-"
			if !w.noSim {
				simMem := mem
				if mem == 0 {
					simMem = 1 << 40 // everything fits
				}
				pred := run(path, w.args, "sim:0", simMem, 0, cal.Cost, "")
				predMs, predRatio = fmt.Sprintf("%.1f", float64(pred.ns)/1e6), fmt.Sprintf("%.2f", float64(pred.ns)/float64(best.ns))
			}
			bests[w.name+"/"+mode] = best
			if base := bests[w.steadyOf+"/"+mode]; base != nil {
				var compute int64 // the resident run's steady state
				if res, resBase := bests[w.name+"/resident"], bests[w.steadyOf+"/resident"]; mode != "resident" && res != nil && resBase != nil {
					compute = res.ns - resBase.ns
				}
				steady = append(steady, steadyState(w.name, w.steadyOf, mode, best, base, *link, compute))
			}
			moved := best.tot.BytesH2D + best.tot.BytesD2H
			linkMs := "-"
			if *link > 0 {
				linkMs = fmt.Sprintf("%.1f", float64(moved)/(*link*1e9)*1e3)
			}
			equal, speed := "-", "-"
			if mem == 0 {
				resident, residentNs = best.out, best.ns
			} else {
				equal = fmt.Sprint(best.out == resident)
				speed = fmt.Sprintf("%.2fx", float64(residentNs)/float64(best.ns))
			}
			fmt.Printf("| %s | %s | %.1f | %.1f | %s | %s | %.1f | %s | %s | %s |\n", w.name, budget, float64(best.ns)/1e6,
				float64(best.cpuNs)/1e6, predMs, predRatio, float64(moved)/(1<<20), linkMs, speed, equal)
			if p := best.pins; p != nil && mem > 0 {
				pinning = append(pinning, fmt.Sprintf("%s %s: %d copies straight from (or into) pinned host tensors, %d staged (%d chunks by the worker, %d of them after waiting for a staging buffer; waited for the worker %d times, %.1f ms; %d staging buffers allocated off the engine's thread); %s pinned at most (%d pinned, %d refused, %d over the bound) in %.1f ms of pinning and unpinning (pinning off the engine's thread: %d copies staged while their block was being pinned, %.1f ms waited for pinnings); the host waited for a copy %d times",
					w.name, mode, p.Direct, p.Staged, p.Async, p.Deferred, p.StageWaits, float64(p.StageWaitNs)/1e6, p.Grown, trace.FormatBytes(p.Peak), p.Pinned, p.Refused, p.Full, float64(p.PinNs)/1e6, p.PinStaged, float64(p.PinWaitNs)/1e6, p.Waits))
				if p.DMAIn.Count > 0 {
					pinning = append(pinning, fmt.Sprintf("  the copy engine moved the staged chunks in at %.1f GB/s (%d chunks; %.1f GB/s for the %d of 4 MiB or more): the staging pool's own bandwidth, the memcpy into it apart",
						p.DMAIn.GBps(), p.DMAIn.Count, p.DMAInLarge.GBps(), p.DMAInLarge.Count))
				}
				if p.Memcpy.Count > 0 {
					pinning = append(pinning, fmt.Sprintf("  the worker memcpy'd the chunks into the pool at %.1f GB/s (%d chunks, %.1f ms); a chunk's copy was issued %.0f µs after its memcpy on average",
						p.Memcpy.GBps(), p.Memcpy.Count, float64(p.Memcpy.Ns)/1e6, float64(p.IssueLagNs)/float64(p.Memcpy.Count)/1e3))
				}
				if p.Refusal != "" {
					pinning = append(pinning, "  the first refusal: "+p.Refusal)
				}
			}
		}
		if ops1 := intoOpStats(spec); ops1 != nil {
			d := torch.Total(ops1).Sub(torch.Total(ops0))
			if n := d.Direct + d.Copied; n > 0 {
				plugin = append(plugin, fmt.Sprintf("%s: %d ops, %d written in place, %d copied; issuing an op %.1f µs, a copy %.1f µs (host)%s",
					w.name, n, d.Direct, d.Copied, float64(d.OpNs)/float64(n)/1e3, float64(d.CopyNs)/float64(max(d.Copied, 1))/1e3,
					costliestOps(ops0, ops1, 5)))
			}
		}
	}
	if len(steady) > 0 {
		fmt.Println("\nSteady state (the difference of two runs, the fastest of each):")
		for _, l := range steady {
			fmt.Println("- " + l)
		}
	}
	if len(pinning) > 0 {
		fmt.Println("\nThe CUDA plane's copies (the fastest run of each):")
		for _, l := range pinning {
			fmt.Println("- " + l)
		}
	}
	if len(plugin) > 0 {
		fmt.Println("\nThe torch plugin's ops on the device's memory (every run of the workload):")
		for _, l := range plugin {
			fmt.Println("- " + l)
		}
	}
}

// steadyState describes what run r of workload name in mode added to run
// base of workload of (the same passes, fewer): its time, the bytes it
// moved and, given the link's GB/s, how the time compares with the
// larger of the link's time for those bytes and compute, the resident
// runs' steady state (0: unknown).
func steadyState(name, of, mode string, r, base *result, link float64, compute int64) string {
	ns := r.ns - base.ns
	moved := r.tot.BytesH2D + r.tot.BytesD2H - base.tot.BytesH2D - base.tot.BytesD2H
	s := fmt.Sprintf("%s minus %s, %s: %.1f ms, %.1f MiB moved", name, of, mode, float64(ns)/1e6, float64(moved)/(1<<20))
	if ns > 0 && moved > 0 {
		s += fmt.Sprintf(" (%.1f GB/s)", float64(moved)/float64(ns))
		if link > 0 {
			linkNs := float64(moved) / link
			s += fmt.Sprintf("; the link takes %.1f ms for those bytes, resident %.1f ms: %.2fx of the larger",
				linkNs/1e6, float64(compute)/1e6, float64(ns)/max(linkNs, float64(compute)))
		}
	}
	return s
}

// intoOpStats is what the torch plugin counted, per op, of its ops on
// the CUDA data plane's memory; nil when spec's device is not a CUDA one.
func intoOpStats(spec device.Spec) map[string]torch.IntoStats {
	if !strings.HasPrefix(spec.Name, "cuda") {
		return nil
	}
	lib, err := torch.Load("")
	if err != nil {
		return nil
	}
	return lib.IntoOpStats()
}

// costliestOps lists the n ops that took the host the most time between
// the counts before and after, each with its calls and its mean time per
// call (the op, and the copy of its result where it had no out= variant);
// "" without counts.
func costliestOps(before, after map[string]torch.IntoStats, n int) string {
	type cost struct {
		op string
		d  torch.IntoStats
	}
	var cs []cost
	for op, s := range after {
		if d := s.Sub(before[op]); d.Direct+d.Copied > 0 {
			cs = append(cs, cost{op, d})
		}
	}
	if len(cs) == 0 {
		return ""
	}
	slices.SortFunc(cs, func(a, b cost) int {
		return cmp.Or(cmp.Compare(b.d.OpNs+b.d.CopyNs, a.d.OpNs+a.d.CopyNs), strings.Compare(a.op, b.op))
	})
	var parts []string
	for _, c := range cs[:min(n, len(cs))] {
		calls := c.d.Direct + c.d.Copied
		part := fmt.Sprintf("%s %d x %.1f µs", c.op, calls, float64(c.d.OpNs)/float64(calls)/1e3)
		if c.d.Copied > 0 {
			part += fmt.Sprintf(" + copy %.1f µs", float64(c.d.CopyNs)/float64(c.d.Copied)/1e3)
		}
		parts = append(parts, part)
	}
	return "; the costliest: " + strings.Join(parts, ", ")
}

// result is one run: the time from its first device work to its end, its totals
// and what the script printed.
type result struct {
	ns, cpuNs int64
	tot       *trace.Totals
	out       string
	pins      *cuda.PinStats // nil off CUDA
}

// firstOp notes when the first op or copy started: the weights are made
// on the host, and a resident run copies them all in before its first op
// (prefetching every one in the window) while an offloading run copies
// them between its ops, so timing from the first op alone would leave
// the resident run's copies out.
type firstOp struct {
	placement.Base
	t   int64
	set bool
}

func (f *firstOp) OnEvent(_ *placement.Engine, ev *trace.Event) {
	if !f.set && (ev.Kind == trace.OpStart || ev.Kind == trace.H2D) {
		f.t, f.set = ev.T, true
	}
}

// run executes the script at path with args on dev under mem bytes (0: the
// device's own) and pinned bytes pinned in place (device.Options.Pinned)
// with the cost model c, writing a chrome trace to chromePath unless it
// is "", and closes the device.
func run(path string, args []string, dev string, mem, pinned int64, c device.Cost, chromePath string) *result {
	first := &firstOp{}
	cpu0 := cpuTime()
	var sinks []trace.Sink
	if chromePath != "" {
		f, err := os.Create(chromePath)
		check(err)
		defer func() { check(f.Close()) }()
		sinks = append(sinks, trace.NewChrome(f))
	}
	rec := trace.NewRecorder(sinks...)
	ex, err := placement.NewExecutor(placement.Config{Device: dev, Mem: mem, Pinned: pinned, Cost: c, Trace: rec,
		NoExactFallback: simInexact && strings.HasPrefix(dev, "sim"),
		Middleware:      []placement.Middleware{first}})
	check(err)
	var out bytes.Buffer
	rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead})
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &out, Argv: args})
	err = in.RunFile(path)
	in.Close()
	if ferr := rt.Flush(); err == nil {
		err = ferr
	}
	check(err)
	if n := rt.LiveRefs(); n != 0 {
		check(fmt.Errorf("%s on %s: %d refs alive at the end", path, dev, n))
	}
	eng := ex.(*placement.Engine)
	tot, err := eng.Finish()
	check(err)
	res := &result{ns: tot.TimeNs - first.t, cpuNs: cpuTime() - cpu0, tot: tot, out: out.String()}
	if p, ok := eng.Accelerator().(*cuda.Plane); ok {
		s := p.PinStats()
		res.pins = &s
	}
	// Closed, a CUDA plane gives its pinned memory back before the next
	// run pins its own.
	check(eng.Close())
	return res
}

// withEnv runs f with the environment variable name set to value, then
// gives it back the value it had (scripts/gpu-sweep.sh sets the
// TREF_CUDA_* settings for a whole run).
func withEnv(name, value string, f func()) {
	old, had := os.LookupEnv(name)
	check(os.Setenv(name, value))
	defer func() {
		if had {
			check(os.Setenv(name, old))
		} else {
			check(os.Unsetenv(name))
		}
	}()
	f()
}

// simInexact makes sim decide as the measured device does when that
// device's kernels are not the host's (placement.Config.NoExactFallback).
var simInexact bool

// issueNs is the host's time to issue an op on dev (device.Cost.IssueNs):
// issue.tr's small ops, the faster of two runs (the first loads the
// kernels), per op.
func issueNs(dev string, c device.Cost) int64 {
	const path = "cmd/tref/issue.tr" // tref calibrate's; run from the repository root, as large.tr
	best := int64(0)
	for range 2 {
		r := run(path, nil, dev, 0, 0, c, "")
		if per := r.ns / max(r.tot.Ops, 1); best == 0 || per < best {
			best = per
		}
	}
	return best
}

// cpuTime is the process's user and system time so far, in nanoseconds:
// on a machine shared with other work, it says what the run cost when
// its wall time says mostly how long it waited for a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "devices bench:", err)
		os.Exit(1)
	}
}
