package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sample records a small, hand-made trace: two copies, an op, an
// eviction with write-back, a host read; and the op log behind them.
func sample(sinks ...Sink) (*Recorder, *Totals, error) {
	r := NewRecorder(sinks...)
	r.Emit(Event{T: 0, Kind: Miss, Device: "sim:0", Ref: 1, Bytes: 1024, Op: "matmul", Pos: "m.tr:3:5", Reason: "not on sim:0"})
	r.Emit(Event{T: 0, Kind: Alloc, Device: "sim:0", Ref: 1, Bytes: 1024, Op: "matmul", Pos: "m.tr:3:5"})
	r.Emit(Event{T: 0, Dur: 1000, Kind: H2D, Device: "sim:0", Stream: StreamH2D, Ref: 1, Bytes: 1024, Op: "matmul", Pos: "m.tr:3:5", Reason: "on demand"})
	r.Emit(Event{T: 1000, Kind: Alloc, Device: "sim:0", Ref: 2, Bytes: 256, Op: "matmul", Pos: "m.tr:3:5"})
	r.Emit(Event{T: 0, Dur: 1000, Kind: Stall, Device: "sim:0", Stream: StreamCompute, Reason: "waiting for the copy of ref#1"})
	r.Emit(Event{T: 1000, Kind: OpStart, Device: "sim:0", Stream: StreamCompute, Ref: 2, Bytes: 256, Op: "matmul", Pos: "m.tr:3:5"})
	r.Emit(Event{T: 1000, Dur: 500, Kind: OpEnd, Device: "sim:0", Stream: StreamCompute, Ref: 2, Bytes: 256, Op: "matmul", Pos: "m.tr:3:5"})
	r.Emit(Event{T: 1500, Kind: Writeback, Device: "sim:0", Ref: 2, Bytes: 256, Reason: "no valid host copy"})
	r.Emit(Event{T: 1500, Dur: 300, Kind: D2H, Device: "sim:0", Stream: StreamD2H, Ref: 2, Bytes: 256, Reason: "write-back"})
	r.Emit(Event{T: 1500, Kind: Evict, Device: "sim:0", Ref: 2, Bytes: 256, Reason: "room"})
	r.Emit(Event{T: 1800, Kind: Free, Device: "sim:0", Ref: 2, Bytes: 256, Reason: "evicted"})
	r.Emit(Event{T: 1800, Kind: Free, Device: "sim:0", Ref: 1, Bytes: 1024, Reason: "ref died"})
	r.Counter("cpu", 1800, 4096)
	r.LogOp([]Use{{1, 1024}}, Use{2, 256}, -1, OpCost{})
	r.LogRead(Use{2, 256})
	r.LogDeath(1)
	r.LogDeath(2)
	t, err := r.Finish(Final{Device: "sim:0", Strategy: "flow", Clock: "virtual", Budget: 4096, Bandwidth: 1e9, TimeNs: 1800,
		PeakBytes: map[string]int64{"sim:0": 1280, "cpu": 4096}})
	return r, t, err
}

func TestTotals(t *testing.T) {
	_, tot, err := sample()
	if err != nil {
		t.Fatal(err)
	}
	want := Totals{Ops: 1, BytesH2D: 1024, BytesD2H: 256, StallNs: 1000, TimeNs: 1800, ComputeNs: 500,
		PrefetchMisses: 1, BeladyBytes: 1024 + 256, BoundNs: 1280, Evictions: 1,
		Device: "sim:0", Strategy: "flow", Budget: 4096, Clock: "virtual", PeakBytes: map[string]int64{"sim:0": 1280, "cpu": 4096}}
	if !reflect.DeepEqual(*tot, want) {
		t.Fatalf("totals\n got %+v\nwant %+v", *tot, want)
	}
}

// docTable returns the first column of every table row in docs/trace.md
// under the heading that contains section, up to the next heading.
func docTable(t *testing.T, doc, section string) []string {
	t.Helper()
	i := strings.Index(doc, section)
	if i < 0 {
		t.Fatalf("docs/trace.md has no section %q", section)
	}
	var names []string
	started := false
	for _, line := range strings.Split(doc[i+len(section):], "\n") {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		if m := regexp.MustCompile("^\\| `([a-z_0-9]+)` \\|").FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

func jsonTags(v any) []string {
	var tags []string
	ty := reflect.TypeOf(v)
	for i := range ty.NumField() {
		f := ty.Field(i)
		if f.Anonymous {
			continue
		}
		tags = append(tags, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	return tags
}

// TestJSONLSchema checks the writer's output against docs/trace.md: every
// documented field is present with its type on every line, the kinds are
// the documented ones, and the last line is the summary with every total.
func TestJSONLSchema(t *testing.T) {
	docBytes, err := os.ReadFile("../../../docs/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(docBytes)
	common := docTable(t, doc, "## The jsonl schema")
	timed := docTable(t, doc, "Events of work that takes time also have:")
	kinds := docTable(t, doc, "### Kinds")
	totals := docTable(t, doc, "### The summary line")
	if got := jsonTags(JSONLine{}); !slices.Equal(got, append(append([]string(nil), common...), timed...)) {
		t.Fatalf("event fields %v, documented %v + %v", got, common, timed)
	}
	if got := jsonTags(SummaryFields{}); !slices.Equal(got, totals) {
		t.Fatalf("summary fields %v, documented %v", got, totals)
	}
	var kindNames []string
	for _, k := range Kinds() {
		if k != Summary {
			kindNames = append(kindNames, k.String())
		}
	}
	if !slices.Equal(kindNames, kinds) {
		t.Fatalf("kinds %v, documented %v", kindNames, kinds)
	}

	var buf bytes.Buffer
	if _, _, err := sample(NewJSONL(&buf)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 12 events and the summary", len(lines))
	}
	types := map[string]string{"seq": "int", "t_ns": "int", "kind": "string", "device": "string", "ref": "int",
		"bytes": "int", "op": "string", "pos": "string", "reason": "string"}
	for i, line := range lines {
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
		for _, f := range common {
			v, ok := obj[f]
			if !ok {
				t.Fatalf("line %d lacks %q: %s", i+1, f, line)
			}
			if !hasType(v, types[f]) {
				t.Fatalf("line %d: %q is %T, want %s", i+1, f, v, types[f])
			}
		}
		if seq, _ := obj["seq"].(json.Number).Int64(); seq != int64(i+1) {
			t.Fatalf("line %d has seq %d", i+1, seq)
		}
		kind := obj["kind"].(string)
		if i == len(lines)-1 {
			if kind != "summary" {
				t.Fatalf("last line is %q, want the summary", kind)
			}
			for _, f := range totals {
				if strings.HasPrefix(f, "opt_") {
					continue // --optimal's only: TestOptimizer
				}
				if _, ok := obj[f]; !ok {
					t.Fatalf("summary lacks %q", f)
				}
			}
			if _, ok := obj["peak_bytes"].(map[string]any); !ok {
				t.Fatalf("peak_bytes is %T, want an object", obj["peak_bytes"])
			}
			if tn, _ := obj["time_ns"].(json.Number).Int64(); tn != 1800 {
				t.Fatalf("time_ns %d", tn)
			}
			continue
		}
		if !slices.Contains(kinds, kind) {
			t.Fatalf("line %d has undocumented kind %q", i+1, kind)
		}
	}
}

func hasType(v any, want string) bool {
	switch want {
	case "int":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "string":
		_, ok := v.(string)
		return ok
	}
	return false
}

func TestText(t *testing.T) {
	var plain, coloured bytes.Buffer
	if _, _, err := sample(NewText(&plain, false)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sample(NewText(&coloured, true)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Fatal("plain text has colour codes")
	}
	if !strings.Contains(coloured.String(), "\x1b[") {
		t.Fatal("coloured text has no colour codes")
	}
	text := plain.String()
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Scan()
	header := sc.Text()
	kindCol := strings.Index(header, "kind")
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "summary:") {
			break
		}
		// Every event's kind starts in the header's kind column.
		if len(line) <= kindCol || line[kindCol-1] != ' ' || line[kindCol] == ' ' {
			t.Fatalf("misaligned line:\n%s\n%s", header, line)
		}
	}
	for _, want := range []string{"summary: 1 ops on sim:0, strategy flow, budget 4.0KiB", "time", "belady 1.2KiB", "peak           cpu 4.0KiB, sim:0 1.2KiB"} {
		if !strings.Contains(text, want) {
			t.Fatalf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestChrome(t *testing.T) {
	var buf bytes.Buffer
	if _, _, err := sample(NewChrome(&buf)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	threads := map[int]string{}
	var counters []float64
	var opTid, copyTid int
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			threads[e.Tid] = e.Args["name"].(string)
		case e.Ph == "X" && e.Name == "matmul":
			opTid = e.Tid
			if e.Ts != 1 || e.Dur != 0.5 {
				t.Fatalf("op at %vµs for %vµs, want 1 and 0.5", e.Ts, e.Dur)
			}
		case e.Ph == "X" && strings.HasPrefix(e.Name, "h2d"):
			copyTid = e.Tid
		case e.Ph == "C" && e.Pid == 1:
			counters = append(counters, e.Ts)
		}
	}
	if threads[opTid] != "compute (ops)" || threads[copyTid] != "copy h2d" {
		t.Fatalf("ops on %q, copies on %q", threads[opTid], threads[copyTid])
	}
	if len(counters) == 0 || !sort.Float64sAreSorted(counters) {
		t.Fatalf("memory counters %v, want some, in time order", counters)
	}
	// otherData has the totals under the jsonl summary's names, every one
	// of them, and no others.
	var jbuf bytes.Buffer
	if _, _, err := sample(NewJSONL(&jbuf)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(jbuf.String()), "\n")
	var summary map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"seq", "t_ns", "kind", "ref", "bytes", "op", "pos", "reason"} {
		delete(summary, k) // the event fields of the summary line
	}
	if !reflect.DeepEqual(doc.OtherData, summary) {
		t.Fatalf("otherData\n%v\nwant the jsonl summary's fields\n%v", doc.OtherData, summary)
	}
}

func TestSVG(t *testing.T) {
	var buf bytes.Buffer
	if _, _, err := sample(NewSVG(&buf)); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	var texts []string
	lines := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "polyline" {
				lines++
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(el)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"time (µs, virtual)", "resident (KiB)", "sim:0 resident", "cpu resident", "sim:0 budget"} {
		if !strings.Contains(all, want) {
			t.Fatalf("svg lacks %q: %s", want, all)
		}
	}
	if lines != 2 {
		t.Fatalf("%d polylines, want one per device", lines)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{FormatBytes(0), "0B"}, {FormatBytes(1536), "1.5KiB"}, {FormatBytes(3 << 30), "3.0GiB"},
		{FormatNs(999), "999ns"}, {FormatNs(12345), "12.345us"}, {FormatNs(1500000), "1.500ms"}, {FormatNs(2e9), "2.000s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if k, ok := ParseKind("writeback"); !ok || k != Writeback {
		t.Error("ParseKind(writeback)")
	}
}

func TestFormatBudget(t *testing.T) {
	if got := FormatBudget(16 << 20); got != "16.0MiB" {
		t.Errorf("16 MiB: %q", got)
	}
	if got := FormatBudget(1 << 62); got != "unbounded" {
		t.Errorf("1<<62: %q", got)
	}
}

// TestSVGPanelPerDevice: each device is drawn in its own panel, scaled to
// its own peak, so a device line of 1 MiB under 200 MiB of host memory
// rises over most of its panel instead of lying flat on one shared axis.
func TestSVGPanelPerDevice(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(NewSVG(&buf))
	r.Emit(Event{T: 0, Kind: Alloc, Device: "sim:0", Ref: 1, Bytes: 1 << 20})
	r.Counter("cpu", 0, 200<<20)
	r.Emit(Event{T: 1000, Kind: Free, Device: "sim:0", Ref: 1, Bytes: 1 << 20})
	r.Counter("cpu", 2000, 0)
	if _, err := r.Finish(Final{Device: "sim:0", Strategy: "flow", Clock: "virtual", Budget: 2 << 20, TimeNs: 2000}); err != nil {
		t.Fatal(err)
	}
	type panel struct {
		device     string
		top, h     float64
		lo, hi     float64 // the polyline's extent in y
		hasPolygon bool
	}
	var panels []*panel
	var cur *panel
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	attr := func(el xml.StartElement, name string) string {
		for _, a := range el.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case el.Name.Local == "g":
			cur = &panel{device: attr(el, "data-device"), lo: 1e9, hi: -1e9}
			panels = append(panels, cur)
		case el.Name.Local == "rect" && cur != nil && attr(el, "stroke") == "black":
			cur.top, cur.h = num(attr(el, "y")), num(attr(el, "height"))
		case el.Name.Local == "polyline" && cur != nil:
			cur.hasPolygon = true
			for _, pt := range strings.Fields(attr(el, "points")) {
				_, ys, _ := strings.Cut(pt, ",")
				cur.lo, cur.hi = min(cur.lo, num(ys)), max(cur.hi, num(ys))
			}
		}
	}
	if len(panels) != 2 || panels[0].device != "sim:0" || panels[1].device != "cpu" {
		t.Fatalf("panels %+v, want sim:0 then cpu", panels)
	}
	for _, p := range panels {
		if !p.hasPolygon || p.h <= 0 {
			t.Fatalf("panel %+v lacks its frame or line", p)
		}
		if p.lo < p.top || p.hi > p.top+p.h+0.1 {
			t.Errorf("%s: line spans y %.1f..%.1f outside its panel %.1f..%.1f", p.device, p.lo, p.hi, p.top, p.top+p.h)
		}
		// sim:0's 1 MiB against its 2 MiB budget, the host's 200 MiB against
		// its own peak: each rises over at least 40% of its panel.
		if rise := (p.hi - p.lo) / p.h; rise < 0.4 {
			t.Errorf("%s: the line rises over %.0f%% of its panel, want >= 40%%", p.device, rise*100)
		}
	}
	if panels[0].top+panels[0].h > panels[1].top {
		t.Errorf("panels overlap: %+v", panels)
	}
}

// TestOptimizer: with an optimizer the totals carry its optimum, the
// steps it is given are the log's less a host op's operand reads, and
// every format shows it; with no budget it is not asked.
func TestOptimizer(t *testing.T) {
	var text, jsonl bytes.Buffer
	r := NewRecorder(NewText(&text, false), NewJSONL(&jsonl))
	r.LogOp([]Use{{1, 1024}}, Use{2, 256}, -1, OpCost{Flops: 7, Bytes: 1280})
	r.LogOperandRead(Use{2, 256})
	r.LogRead(Use{2, 256})
	r.LogDeath(2)
	var got []Step
	r.SetOptimizer(func(steps []Step, budget int64) (Optimum, error) {
		got = steps
		return Optimum{BestNs: 900, LowerNs: 800, Status: "not proven optimal"}, nil
	})
	tot, err := r.Finish(Final{Device: "sim:0", Strategy: "flow", Clock: "virtual", Budget: 4096, Bandwidth: 1e9, TimeNs: 1800})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Kind != StepOp || got[0].Cost.Flops != 7 || got[1].Kind != StepRead || got[2].Kind != StepDeath {
		t.Fatalf("steps %+v", got)
	}
	if tot.OptNs != 900 || tot.OptLowerNs != 800 || tot.OptStatus != "not proven optimal" {
		t.Fatalf("totals %+v", tot)
	}
	if !strings.Contains(text.String(), "optimum        900ns, lower bound 800ns (time 2.00x the optimum's best): not proven optimal\n") {
		t.Fatalf("text summary:\n%s", text.String())
	}
	if !strings.Contains(jsonl.String(), `"opt_ns":900,"opt_lower_ns":800,"opt_status":"not proven optimal"`) {
		t.Fatalf("jsonl summary:\n%s", jsonl.String())
	}
	r = NewRecorder()
	r.SetOptimizer(func([]Step, int64) (Optimum, error) {
		t.Fatal("asked with no budget")
		return Optimum{}, nil
	})
	if tot := r.Totals(Final{}); tot.OptStatus != "no accelerator: nothing to place" {
		t.Fatalf("no budget: %q", tot.OptStatus)
	}
}
