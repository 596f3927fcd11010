package trace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Text writes aligned, human-readable lines, coloured by kind when Color
// is set (the command sets it only when writing to a terminal).
type Text struct {
	w     *bufio.Writer
	color bool
	seq   int64
	// LineFlush writes every line at once (interactive use: the REPL's
	// :trace, where events interleave with the script's output).
	LineFlush bool
}

// NewText makes a text sink writing to w.
func NewText(w io.Writer, color bool) *Text {
	t := &Text{w: bufio.NewWriter(w), color: color}
	fmt.Fprintf(t.w, "%6s %12s  %-9s %-6s %6s %10s  %-14s %-16s %s\n",
		"seq", "t", "kind", "device", "ref", "bytes", "op", "pos", "reason")
	return t
}

var kindColors = map[Kind]string{
	OpStart: "\x1b[36m", OpEnd: "\x1b[36m", H2D: "\x1b[34m", D2H: "\x1b[35m",
	Prefetch: "\x1b[32m", Evict: "\x1b[33m", Writeback: "\x1b[33m",
	Stall: "\x1b[31m", Miss: "\x1b[31m", Fallback: "\x1b[1;31m", Hit: "\x1b[32m",
	DiskRead: "\x1b[34m",
}

// Event writes one aligned line.
func (t *Text) Event(e *Event) error {
	t.seq = e.Seq
	kind := fmt.Sprintf("%-9s", e.Kind)
	if c, ok := kindColors[e.Kind]; ok && t.color {
		kind = c + kind + "\x1b[0m"
	}
	ref := "-"
	if e.Ref != 0 {
		ref = fmt.Sprintf("#%d", e.Ref)
	}
	bytes := "-"
	if e.Bytes != 0 {
		bytes = FormatBytes(e.Bytes)
	}
	reason := e.Reason
	if e.Dur != 0 {
		reason = strings.TrimSpace("[" + FormatNs(e.Dur) + "] " + reason)
	}
	_, err := fmt.Fprintf(t.w, "%6d %12s  %s %-6s %6s %10s  %-14s %-16s %s\n",
		e.Seq, FormatNs(e.T), kind, e.Device, ref, bytes, orDash(e.Op), orDash(e.Pos), reason)
	if err == nil && t.LineFlush {
		err = t.w.Flush()
	}
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Flush writes the buffered lines.
func (t *Text) Flush() error { return t.w.Flush() }

// Counter is not shown in text.
func (t *Text) Counter(string, int64, int64) error { return nil }

// Close writes the summary block and flushes.
func (t *Text) Close(s *Totals) error {
	WriteSummary(t.w, s)
	return t.w.Flush()
}

// WriteSummary prints the totals as an aligned block.
func WriteSummary(w io.Writer, s *Totals) {
	fmt.Fprintf(w, "summary: %d ops on %s, strategy %s, budget %s, %s clock\n", s.Ops, s.Device, s.Strategy, FormatBudget(s.Budget), s.Clock)
	fmt.Fprintf(w, "  %-14s %s (bound %s, %.2fx)\n", "time", FormatNs(s.TimeNs), FormatNs(s.BoundNs), Ratio(s.TimeNs, s.BoundNs))
	fmt.Fprintf(w, "  %-14s %s\n", "compute", FormatNs(s.ComputeNs))
	fmt.Fprintf(w, "  %-14s %s\n", "stall", FormatNs(s.StallNs))
	fmt.Fprintf(w, "  %-14s %s h2d, %s d2h (belady %s, %.2fx)\n", "moved", FormatBytes(s.BytesH2D), FormatBytes(s.BytesD2H),
		FormatBytes(s.BeladyBytes), Ratio(s.BytesH2D+s.BytesD2H, s.BeladyBytes))
	if s.BytesDisk > 0 {
		fmt.Fprintf(w, "  %-14s %s read from disk\n", "disk->host", FormatBytes(s.BytesDisk))
	}
	devs := make([]string, 0, len(s.PeakBytes))
	for d := range s.PeakBytes {
		devs = append(devs, d)
	}
	slices.Sort(devs)
	var peaks []string
	for _, d := range devs {
		peaks = append(peaks, d+" "+FormatBytes(s.PeakBytes[d]))
	}
	fmt.Fprintf(w, "  %-14s %s\n", "peak", strings.Join(peaks, ", "))
	fmt.Fprintf(w, "  %-14s %d hits, %d misses, %d wasted (%s)\n", "prefetch", s.PrefetchHits, s.PrefetchMisses, s.WastedPrefetches, FormatBytes(s.WastedBytes))
	fmt.Fprintf(w, "  %-14s %d evictions, %d fallbacks\n", "decisions", s.Evictions, s.Fallbacks)
	if s.OptStatus != "" {
		writeOptimum(w, s)
	}
}

// writeOptimum prints the offline optimum's line: its best schedule and
// lower bound against the run's time, and how far the search got.
func writeOptimum(w io.Writer, s *Totals) {
	if s.OptNs == 0 {
		fmt.Fprintf(w, "  %-14s %s\n", "optimum", s.OptStatus)
		return
	}
	fmt.Fprintf(w, "  %-14s %s, lower bound %s (time %.2fx the optimum's best): %s\n", "optimum",
		FormatNs(s.OptNs), FormatNs(s.OptLowerNs), Ratio(s.TimeNs, s.OptNs), s.OptStatus)
}

// FormatBytes prints a byte count with a binary unit ("1.5MiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%dB", n)
	}
	f, i := float64(n), -1
	for (f >= unit || f <= -unit) && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f%ciB", f, "KMGTP"[i])
}

// FormatNs prints a duration in the largest unit that keeps it >= 1
// ("12.345us", "1.500ms", "2.000s").
func FormatNs(ns int64) string {
	switch a := max(ns, -ns); {
	case a >= 1e9:
		return fmt.Sprintf("%.3fs", float64(ns)/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3fms", float64(ns)/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3fus", float64(ns)/1e3)
	}
	return fmt.Sprintf("%dns", ns)
}
