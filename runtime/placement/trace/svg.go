package trace

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// SVG draws the bytes resident on each device over time as step lines,
// one panel per device with its own scale over a shared time axis, with
// labelled axes in readable units, the accelerator's budget as a dashed
// line, and a legend.
type SVG struct {
	w   io.Writer
	mem []memDelta
	n   int
}

// NewSVG makes an svg sink writing to w when the trace closes.
func NewSVG(w io.Writer) *SVG { return &SVG{w: w} }

// Event keeps the allocations.
func (s *SVG) Event(e *Event) error {
	if e.Kind != Alloc && e.Kind != Free {
		return nil
	}
	d := e.Bytes
	if e.Kind == Free {
		d = -d
	}
	s.n++
	s.mem = append(s.mem, memDelta{device: e.Device, t: e.T, delta: d, order: s.n})
	return nil
}

// Counter keeps an absolute sample.
func (s *SVG) Counter(device string, t, bytes int64) error {
	s.n++
	s.mem = append(s.mem, memDelta{device: device, t: t, delta: bytes, abs: true, order: s.n})
	return nil
}

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf"}

// niceStep picks a tick step of 1, 2 or 5 times a power of ten that
// splits span into at most about n intervals.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// timeUnit picks the unit for an axis that ends at ns.
func timeUnit(ns int64) (string, float64) {
	switch {
	case ns >= 1e9:
		return "s", 1e9
	case ns >= 1e6:
		return "ms", 1e6
	case ns >= 1e3:
		return "µs", 1e3
	}
	return "ns", 1
}

// byteUnit picks the unit for an axis that ends at n bytes.
func byteUnit(n int64) (string, float64) {
	for _, u := range []struct {
		name string
		size float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if float64(n) >= u.size {
			return u.name, u.size
		}
	}
	return "B", 1
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Close draws the chart: one panel per device, stacked over one time
// axis, each scaled to its own peak (and the accelerator's to its budget),
// so that a device holding a MiB is not drawn flat under a host holding
// hundreds.
func (s *SVG) Close(t *Totals) error {
	const (
		width                   = 960
		left, right, top, under = 90, 190, 50, 60
		plotW                   = width - left - right
		panelH, gap             = 170, 34
	)
	points := memoryCurves(s.mem)
	var devices []string
	budget := t.Budget
	if FormatBudget(budget) == "unbounded" {
		budget = 0 // no line to draw, and no scale to stretch
	}
	end := t.TimeNs
	peaks := map[string]int64{}
	for _, p := range points {
		if !slices.Contains(devices, p.device) {
			devices = append(devices, p.device)
		}
		end = max(end, p.t)
		peaks[p.device] = max(peaks[p.device], p.bytes)
	}
	if budget > 0 && !slices.Contains(devices, t.Device) {
		devices = append(devices, t.Device)
	}
	// The accelerator first, then the host, then any other device.
	slices.SortStableFunc(devices, func(a, b string) int {
		rank := func(d string) int {
			switch {
			case d == t.Device:
				return 0
			case d == "cpu":
				return 1
			}
			return 2
		}
		return rank(a) - rank(b)
	})
	if end <= 0 {
		end = 1
	}
	n := max(len(devices), 1)
	height := top + n*panelH + (n-1)*gap + under
	tName, tScale := timeUnit(end)
	xStep := niceStep(float64(end)/tScale, 8)
	xMax := math.Ceil(float64(end)/tScale/xStep) * xStep
	x := func(ns int64) float64 { return left + float64(ns)/tScale/xMax*plotW }

	w := bufio.NewWriter(s.w)
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	title := fmt.Sprintf("Resident bytes per device — %s, strategy %s, budget %s", t.Device, t.Strategy, FormatBudget(t.Budget))
	fmt.Fprintf(w, `<text x="%d" y="28" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	legend := []struct{ label, color, dash string }{}
	for i, d := range devices {
		ptop := top + i*(panelH+gap)
		color := palette[i%len(palette)]
		peak := peaks[d]
		if d == t.Device {
			peak = max(peak, budget)
		}
		if peak <= 0 {
			peak = 1
		}
		bName, bScale := byteUnit(peak)
		yStep := niceStep(float64(peak)/bScale, 4)
		yMax := math.Ceil(float64(peak)/bScale/yStep) * yStep
		if float64(peak)/bScale >= yMax {
			yMax += yStep
		}
		y := func(b int64) float64 { return float64(ptop+panelH) - float64(b)/bScale/yMax*panelH }
		fmt.Fprintf(w, `<g data-device="%s">`+"\n", html.EscapeString(d))
		// Grid, ticks and tick labels; the time labels under the last panel.
		for v := 0.0; v <= xMax+xStep/2; v += xStep {
			px := left + v/xMax*plotW
			fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e5e5e5"/>`+"\n", px, ptop, px, ptop+panelH)
			if i == n-1 {
				fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px, ptop+panelH+18, trimFloat(v))
			}
		}
		for v := 0.0; v <= yMax+yStep/2; v += yStep {
			py := float64(ptop+panelH) - v/yMax*panelH
			fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, py, left+plotW, py)
			fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-8, py, trimFloat(v))
		}
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", left, ptop, plotW, panelH)
		fmt.Fprintf(w, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left+6, ptop-6, html.EscapeString(d))
		fmt.Fprintf(w, `<text transform="translate(24 %d) rotate(-90)" text-anchor="middle">resident (%s)</text>`+"\n", ptop+panelH/2, bName)
		if d == t.Device && budget > 0 {
			by := y(budget)
			fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d62728" stroke-dasharray="6 4" stroke-width="1.5"/>`+"\n", left, by, left+plotW, by)
			legend = append(legend, struct{ label, color, dash string }{t.Device + " budget", "#d62728", "6 4"})
		}
		// The device's step line.
		var b strings.Builder
		level := int64(0)
		fmt.Fprintf(&b, "%.1f,%.1f", x(0), y(0))
		for _, p := range points {
			if p.device != d {
				continue
			}
			fmt.Fprintf(&b, " %.1f,%.1f %.1f,%.1f", x(p.t), y(level), x(p.t), y(p.bytes))
			level = p.bytes
		}
		fmt.Fprintf(&b, " %.1f,%.1f", x(end), y(level))
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>`+"\n", color, b.String())
		fmt.Fprintln(w, "</g>")
		legend = append(legend, struct{ label, color, dash string }{d + " resident", color, ""})
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">time (%s, %s)</text>`+"\n", left+plotW/2, height-14, tName, clockOf(t))
	for i, l := range legend {
		ly := top + 14 + i*22
		dash := ""
		if l.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, l.dash)
		}
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", left+plotW+14, ly, left+plotW+40, ly, l.color, dash)
		fmt.Fprintf(w, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", left+plotW+46, ly, html.EscapeString(l.label))
	}
	notes := []string{
		"peak " + FormatBytes(t.PeakBytes[t.Device]),
		"moved " + FormatBytes(t.BytesH2D+t.BytesD2H),
		"time " + FormatNs(t.TimeNs),
	}
	for i, n := range notes {
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="11" fill="#555">%s</text>`+"\n",
			left+plotW+14, top+14+len(legend)*22+10+i*16, html.EscapeString(n))
	}
	fmt.Fprintln(w, "</svg>")
	return w.Flush()
}

// clockOf names the clock of t's times.
func clockOf(t *Totals) string {
	if t.Clock == "" {
		return "wall"
	}
	return t.Clock
}
