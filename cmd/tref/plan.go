package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// `tref plan --gpu NAME model.tr`: will the script fit that card, and how
// fast will it run there? The script runs on the simulated device with
// the card's memory as the budget and its datasheet rates as the cost
// model (device.Profiles); the report is the run's peak against the
// card's memory, the predicted time against its bound, the bytes moved
// and the tensors whose copies took the longest.

// planFlags are plan's own flags.
var planFlags = []flagDef{
	{"gpu", "NAME", "the card to plan for; list names the known cards", "plan (tref plan)",
		setString(func(c *Config) *string { return &c.GPU }, func(s string) (string, error) {
			if s == "" {
				return "", errors.New("want a card's name (tref plan --gpu list)")
			}
			return s, nil
		})},
}

// planTop is how many tensors the plan names as costing the most
// transfer time.
const planTop = 3

// plan is `tref plan`.
func (c *cli) plan(cfg *Config, args []string) int {
	if cfg.GPU == "list" {
		writeProfiles(c.stdout)
		return 0
	}
	if cfg.GPU == "" {
		return usageError(c.stderr, c.cmd, "missing --gpu NAME (tref plan --gpu list names the cards)")
	}
	prof, err := device.LookupProfile(cfg.GPU)
	if err != nil {
		fmt.Fprintf(c.stderr, "tref plan: %v\n", err)
		return 2
	}
	if len(args) == 0 {
		return usageError(c.stderr, c.cmd, "missing script file")
	}
	if cfg.Device != "auto" || cfg.Sim.Bandwidth != 0 || cfg.Sim.Flops != 0 || cfg.Sim.MemBandwidth != 0 {
		return usageError(c.stderr, c.cmd, "--gpu sets the device and its rates: leave out --device, --sim-bw, --sim-flops and --sim-membw")
	}
	if cfg.Mem > prof.Memory {
		return usageError(c.stderr, c.cmd, "--mem %s is more than the %s's %s", trace.FormatBytes(cfg.Mem), prof.Name, trace.FormatBytes(prof.Memory))
	}
	path := args[0]
	if err := cfg.confine(path); err != nil {
		return c.fail(err)
	}
	defer exitOnSignal(c.stderr)()

	// The card: the sim device with its memory (or the part --mem
	// grants) and its rates.
	cfg.Device = "sim:0"
	if cfg.Mem == 0 {
		cfg.Mem = prof.Memory
	}
	cfg.Sim.Bandwidth, cfg.Sim.Flops, cfg.Sim.MemBandwidth = prof.PCIe, prof.Flops, prof.MemBandwidth
	cfg.trackRefs, cfg.asCUDA, cfg.budgetName = true, true, prof.Name
	sink := &transferSink{byRef: map[uint64]*transfer{}, sites: map[uint64]string{}}
	ex, err := buildExecutor(cfg, trace.NewRecorder(sink), true)
	if err != nil {
		return c.fail(err)
	}
	eng, ok := ex.(*placement.Engine)
	if !ok {
		return c.fail(fmt.Errorf("plan: the sim device did not start"))
	}
	// The script's own output goes to stderr: stdout is the plan's.
	s := c.newSessionWith(cfg, ex, c.stderr)
	sink.rt = s.rt
	eng.Attach(s.rt)
	code := s.runFile(path)
	tot, err := eng.Finish()
	if err != nil {
		fmt.Fprintf(c.stderr, "tref plan: %v\n", err)
		return 1
	}
	if !s.closeDevice() {
		return 1
	}
	if code != 0 {
		fmt.Fprintf(c.stderr, "tref plan: %s failed on %s: no plan\n", path, prof.Name)
		return code
	}
	writePlan(c.stdout, path, prof, tot, sink.top(planTop))
	return 0
}

// writePlan prints the plan of a run on prof's card.
func writePlan(w io.Writer, path string, prof device.Profile, t *trace.Totals, top []*transfer) {
	fmt.Fprintf(w, "plan: %s on %s (%s), strategy %s, sim clock\n", path, prof.Title, prof.Name, t.Strategy)
	fmt.Fprintf(w, "  %-14s %s memory, PCIe %s each way, %sFLOP/s fp32, memory %s\n", "card",
		trace.FormatBytes(prof.Memory), rate(prof.PCIe), si(prof.Flops), rate(prof.MemBandwidth))
	peak := t.PeakBytes[t.Device]
	of := trace.FormatBytes(t.Budget)
	if t.Budget < prof.Memory {
		of += " granted by --mem"
	}
	verdict := "fits"
	if t.Evictions > 0 || t.Fallbacks > 0 {
		verdict = "offloads"
	}
	fmt.Fprintf(w, "  %-14s %s: peak %s of %s (%.1f%%), %d evictions, %d fallbacks\n", "verdict", verdict,
		trace.FormatBytes(peak), of, 100*trace.Ratio(peak, t.Budget), t.Evictions, t.Fallbacks)
	fmt.Fprintf(w, "  %-14s %s (bound %s, %.2fx), compute %s, stall %s\n", "time",
		trace.FormatNs(t.TimeNs), trace.FormatNs(t.BoundNs), trace.Ratio(t.TimeNs, t.BoundNs),
		trace.FormatNs(t.ComputeNs), trace.FormatNs(t.StallNs))
	fmt.Fprintf(w, "  %-14s %s h2d, %s d2h\n", "moved", trace.FormatBytes(t.BytesH2D), trace.FormatBytes(t.BytesD2H))
	label := "transfers"
	if len(top) == 0 {
		fmt.Fprintf(w, "  %-14s none\n", label)
	}
	for _, x := range top {
		copies := "copies"
		if x.copies == 1 {
			copies = "copy"
		}
		fmt.Fprintf(w, "  %-14s ref#%d %s made at %s: %s in %d %s (%s h2d, %s d2h)\n", label,
			x.ref, trace.FormatBytes(x.bytes), x.at, trace.FormatNs(x.ns), x.copies, copies,
			trace.FormatBytes(x.h2d), trace.FormatBytes(x.d2h))
		label = ""
	}
}

// writeProfiles prints the cards --gpu knows and their sources.
func writeProfiles(w io.Writer) {
	width := len("name")
	for _, p := range device.Profiles {
		width = max(width, len(p.Name))
	}
	fmt.Fprintf(w, "%-*s  %8s  %12s  %14s  %12s  %s\n", width, "name", "memory", "pcie", "fp32", "memory bw", "card")
	for _, p := range device.Profiles {
		fmt.Fprintf(w, "%-*s  %8s  %12s  %14s  %12s  %s\n", width, p.Name, trace.FormatBytes(p.Memory),
			rate(p.PCIe), si(p.Flops)+"FLOP/s", rate(p.MemBandwidth), p.Title)
	}
	fmt.Fprintln(w, "\nsources (pcie is per direction):")
	for _, p := range device.Profiles {
		fmt.Fprintf(w, "  %-*s  %s\n", width, p.Name, p.Source)
	}
}

// transfer is one tensor's copies between host and card.
type transfer struct {
	ref      uint64
	bytes    int64
	at       string // where the script made it
	ns       int64  // time its copies took
	copies   int
	h2d, d2h int64 // bytes each way
}

// transferSink is a trace sink that sums the copy time of each ref and
// finds where the script made it.
type transferSink struct {
	rt    *refs.Runtime
	byRef map[uint64]*transfer
	// sites caches the script positions of refs by id.
	sites map[uint64]string
}

// Event adds a copy to its ref's total.
func (s *transferSink) Event(e *trace.Event) error {
	if (e.Kind != trace.H2D && e.Kind != trace.D2H) || e.Ref == 0 {
		return nil
	}
	x := s.byRef[e.Ref]
	if x == nil {
		x = &transfer{ref: e.Ref, bytes: e.Bytes, at: s.site(e.Ref)}
		s.byRef[e.Ref] = x
	}
	x.ns += e.Dur
	x.copies++
	if e.Kind == trace.H2D {
		x.h2d += e.Bytes
	} else {
		x.d2h += e.Bytes
	}
	return nil
}

// site is where the script made ref id, "-" when unknown. A ref being
// copied is alive, so the runtime's tracked refs hold it; they are read
// once for every ref not seen before.
func (s *transferSink) site(id uint64) string {
	if at, ok := s.sites[id]; ok {
		return at
	}
	if s.rt != nil {
		for _, r := range s.rt.Leaks() {
			if _, ok := s.sites[r.ID()]; !ok {
				s.sites[r.ID()] = r.Site().Pos.String()
			}
		}
	}
	at := s.sites[id]
	if at == "" {
		at = "-"
	}
	s.sites[id] = at
	return at
}

// Counter ignores memory samples.
func (s *transferSink) Counter(string, int64, int64) error { return nil }

// Close has nothing to write.
func (s *transferSink) Close(*trace.Totals) error { return nil }

// top is the n refs whose copies took the longest, longest first (the
// older ref first on a tie).
func (s *transferSink) top(n int) []*transfer {
	all := make([]*transfer, 0, len(s.byRef))
	for _, x := range s.byRef {
		all = append(all, x)
	}
	slices.SortFunc(all, func(a, b *transfer) int {
		return cmp.Or(cmp.Compare(b.ns, a.ns), cmp.Compare(a.ref, b.ref))
	})
	return all[:min(n, len(all))]
}
