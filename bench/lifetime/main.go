// Command lifetime measures how close tref's memory comes to the
// theoretical minimum: it runs each script on the cpu device, records the
// op stream in program order (refs.Liveness) and compares the measured
// peak of tensor storage (memstats()["cpu"].peak_bytes) with the largest
// set of tensors live at once, each live from its creation to its last use
// as an op input or a read. Each script runs with liveness (variables die
// at their last use) and without it (--no-liveness), and the table shows
// the host allocator's hit rate and its size-class slack at the peak.
//
//	go run ./bench/lifetime examples/mlp.tr examples/transformer.tr
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

type result struct {
	script    string
	liveness  bool
	peak      int64
	min       refs.MinPeak
	tensors   int
	stats     refs.PoolStats
	liveAtEnd int64
}

func main() {
	lookahead := flag.Int("lookahead", refs.DefaultLookahead, "window of pending ops")
	noInplace := flag.Bool("no-inplace", false, "turn off writing results into dying operands")
	verbose := flag.Bool("v", false, "print the scripts' output and the tensors live at each minimum")
	diag := flag.Int("diag", 0, "print the N program points of most measured live bytes, with the minimum there (exact with -lookahead 0)")
	markdown := flag.Bool("md", false, "print a Markdown table")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: lifetime [flags] script.tr...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var results []result
	for _, path := range flag.Args() {
		for _, live := range []bool{true, false} {
			r, err := measure(path, live, *lookahead, *noInplace, *verbose, *diag)
			if err != nil {
				fmt.Fprintf(os.Stderr, "lifetime: %s: %v\n", path, err)
				os.Exit(1)
			}
			results = append(results, r)
		}
	}
	if *markdown {
		printMarkdown(os.Stdout, results)
	} else {
		printText(os.Stdout, results)
	}
	if *verbose {
		for _, r := range results {
			if r.liveness {
				printLiveSet(os.Stdout, r)
			}
		}
	}
	for _, r := range results {
		if r.liveAtEnd != 0 {
			fmt.Fprintf(os.Stderr, "lifetime: %s: %d refs alive at the end\n", r.script, r.liveAtEnd)
			os.Exit(1)
		}
	}
}

// measure runs one script on a fresh cpu runtime.
func measure(path string, liveness bool, lookahead int, noInplace, verbose bool, diag int) (result, error) {
	l := refs.NewLiveness()
	sampler := &sampler{Liveness: l, Device: cpu.Device{NoInplace: noInplace},
		point: map[uint64]int64{}, measured: map[int64]int64{}, sites: map[int64]string{}}
	rt := refs.New(sampler, refs.Options{Lookahead: lookahead})
	rt.HostPool().Limit = 0
	sampler.pool = rt.HostPool()
	rt.SetObserver(sampler)
	var out io.Writer = io.Discard
	var buf bytes.Buffer
	if verbose {
		out = &buf
	}
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: out, NoLiveness: !liveness})
	err := in.RunFile(path)
	in.Close()
	if ferr := rt.Flush(); err == nil {
		err = ferr
	}
	if verbose {
		fmt.Fprintf(os.Stdout, "== %s (liveness %v)\n%s", path, liveness, buf.String())
	}
	if err != nil {
		return result{}, err
	}
	if diag > 0 {
		sampler.report(os.Stdout, path, liveness, diag)
	}
	st := rt.HostPool().Stats()
	return result{
		script:    filepath.Base(path),
		liveness:  liveness,
		peak:      st.PeakBytes,
		min:       l.MinPeak(),
		tensors:   l.Tensors(),
		stats:     st,
		liveAtEnd: rt.LiveRefs(),
	}, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func ratio(r result) float64 {
	if r.min.Bytes == 0 {
		return 0
	}
	return float64(r.peak) / float64(r.min.Bytes)
}

func printText(w io.Writer, rs []result) {
	fmt.Fprintf(w, "%-22s %8s %14s %14s %7s %8s %8s %8s %9s %8s %10s\n",
		"script", "liveness", "peak_bytes", "min_bytes", "ratio", "tensors", "hits", "misses", "hit_rate", "adopted", "peak_slack")
	for _, r := range rs {
		fmt.Fprintf(w, "%-22s %8s %14d %14d %7.3f %8d %8d %8d %8.1f%% %8d %10d\n",
			r.script, onOff(r.liveness), r.peak, r.min.Bytes, ratio(r), r.tensors,
			r.stats.Hits, r.stats.Misses, 100*r.stats.HitRate(), r.stats.Adopted, r.stats.PeakSlackBytes)
	}
}

func printMarkdown(w io.Writer, rs []result) {
	fmt.Fprintln(w, "| script | liveness | peak_bytes | minimum | peak / minimum | tensors | allocator hits | misses | hit rate | adopted buffers | slack at peak |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %d (%s) | %d (%s) | %.3f | %d | %d | %d | %.1f%% | %d | %d |\n",
			r.script, onOff(r.liveness), r.peak, refs.FormatBytes(r.peak), r.min.Bytes, refs.FormatBytes(r.min.Bytes),
			ratio(r), r.tensors, r.stats.Hits, r.stats.Misses, 100*r.stats.HitRate(), r.stats.Adopted, r.stats.PeakSlackBytes)
	}
}

// printLiveSet lists the tensors of the minimum's live set, grouped by the
// script position that made them.
func printLiveSet(w io.Writer, r result) {
	fmt.Fprintf(w, "\n%s: minimum %s at program point %d, %d tensors live:\n",
		r.script, refs.FormatBytes(r.min.Bytes), r.min.At, len(r.min.Live))
	type group struct {
		n     int
		bytes int64
	}
	groups := map[string]*group{}
	var order []string
	for _, t := range r.min.Live {
		g := groups[t.Site.Pos.String()]
		if g == nil {
			g = &group{}
			groups[t.Site.Pos.String()] = g
			order = append(order, t.Site.Pos.String())
		}
		g.n++
		g.bytes += t.Bytes
	}
	for _, pos := range order {
		g := groups[pos]
		fmt.Fprintf(w, "  %-28s %4d x  %s\n", strings.TrimSpace(pos), g.n, refs.FormatBytes(g.bytes))
	}
}

// sampler records the minimum (its Liveness) and, as an executor over
// the cpu device, the host pool's live bytes right after each kernel ran,
// while the op's inputs and result are both held: the measured memory at
// that op's program point. With -lookahead 0 this is exact; with a window,
// creation builtins run ahead of the ops that are still pending, and
// their tensors show up at earlier points.
type sampler struct {
	*refs.Liveness
	cpu.Device
	pool *refs.HostPool
	// point maps a ref to the program point that made it.
	point    map[uint64]int64
	now      int64
	measured map[int64]int64
	sites    map[int64]string
}

func (s *sampler) Created(r *refs.Ref, op *refs.Op) {
	s.now++
	s.point[r.ID()] = s.now
	s.sites[s.now] = r.Site().Pos.String()
	s.Liveness.Created(r, op)
}

func (s *sampler) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	err := s.Device.Execute(rt, op, ahead)
	s.measured[s.point[op.Out.ID()]] = s.pool.Stats().LiveBytes
	return err
}

func (s *sampler) report(w io.Writer, path string, liveness bool, n int) {
	lo := s.Timeline()
	pts := make([]int64, 0, len(s.measured))
	for t := range s.measured {
		pts = append(pts, t)
	}
	slices.SortFunc(pts, func(a, b int64) int {
		if c := cmp.Compare(s.measured[b], s.measured[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	fmt.Fprintf(w, "%s (liveness %v): the ops with the most measured live bytes\n", path, liveness)
	for _, t := range pts[:min(n, len(pts))] {
		fmt.Fprintf(w, "  point %5d %-30s measured %10s  minimum %10s  excess %10s\n", t, s.sites[t],
			refs.FormatBytes(s.measured[t]), refs.FormatBytes(lo[t-1]), refs.FormatBytes(s.measured[t]-lo[t-1]))
	}
}
