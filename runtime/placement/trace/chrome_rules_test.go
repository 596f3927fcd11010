package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// The rules below are those of Perfetto's JSON importer, read in its
// source (docs/trace.md, "The chrome format", says which files and
// commits): what it accepts, and what it drops or misreads silently.

// chromeFile is a trace-event JSON document, each event kept raw so that
// the types of its fields can be checked, not just their values.
type chromeFile struct {
	TraceEvents []map[string]json.RawMessage `json:"traceEvents"`
}

// chromeSlice is a complete event, in whole nanoseconds as Perfetto
// reads it (llround(µs * 1000)) and in float64 µs as DevTools reads it.
type chromeSlice struct {
	name, cat     string
	ts, dur       int64
	tsUs, durUs   float64
	pid, tid, seq int64
}

// chromeStats is what checkChrome found, for tests to assert on.
type chromeStats struct {
	// processes maps pid to process_name; threads maps tid to its pid and
	// thread_name.
	processes map[int64]string
	threads   map[int64]chromeThread
	// slices lists the complete events per tid; counters the counter
	// tracks as Perfetto names them ("resident bytes") per pid, with
	// their number of samples.
	slices   map[int64][]chromeSlice
	counters map[int64]map[string]int
	instants int
}

type chromeThread struct {
	pid  int64
	name string
}

// maxInstantStack is how many instants one thread may hold at one
// timestamp: Perfetto stacks instants at the same ts on top of each
// other, and its slice depth was a uint8 (older versions drop the slice
// at depth 255).
const maxInstantStack = 255

// checkChrome checks data against the rules of Perfetto's JSON importer
// and returns what it found, or every broken rule.
func checkChrome(data []byte) (*chromeStats, error) {
	var f chromeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a trace-event JSON object: %v", err)
	}
	if len(f.TraceEvents) == 0 {
		return nil, errors.New("traceEvents is empty")
	}
	st := &chromeStats{processes: map[int64]string{}, threads: map[int64]chromeThread{},
		slices: map[int64][]chromeSlice{}, counters: map[int64]map[string]int{}}
	var errs []error
	bad := func(i int, format string, a ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf("event %d: %s", i, fmt.Sprintf(format, a...)))
		}
	}
	usedTids := map[int64]int64{} // tid -> pid, for X and i events
	instantsAt := map[[2]int64]int{}
	for i, raw := range f.TraceEvents {
		var ph, name, cat string
		str := func(key string, dst *string, required bool) {
			v, ok := raw[key]
			if !ok {
				if required {
					bad(i, "no %q", key)
				}
				return
			}
			if err := json.Unmarshal(v, dst); err != nil {
				bad(i, "%q is %s, want a string", key, v)
			}
		}
		// An array as the value of a field made Perfetto's older tokenizer
		// reject the whole file.
		for k, v := range raw {
			if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
				bad(i, "field %q is an array", k)
			}
		}
		str("ph", &ph, true)
		str("name", &name, true)
		str("cat", &cat, false)
		// pid and tid: integers that fit a uint32. Perfetto takes a string
		// as an interned name (not part of the format) and drops a negative
		// or too large number to 0.
		id := func(key string, required bool) (int64, bool) {
			v, ok := raw[key]
			if !ok {
				if required {
					bad(i, "no %q", key)
				}
				return 0, false
			}
			var n int64
			if err := json.Unmarshal(v, &n); err != nil || n < 0 || n > math.MaxUint32 {
				bad(i, "%q is %s, want an integer from 0 to 2^32-1", key, v)
				return 0, false
			}
			return n, true
		}
		pid, _ := id("pid", true)
		tid, hasTid := id("tid", false)
		// ts and dur: numbers of microseconds; Perfetto reads them as
		// llround(x * 1000) nanoseconds. ts is required but for metadata.
		num := func(key string, required bool) (float64, bool) {
			v, ok := raw[key]
			if !ok {
				if required {
					bad(i, "no %q", key)
				}
				return 0, false
			}
			var x float64
			if err := json.Unmarshal(v, &x); err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				bad(i, "%q is %s, want a number of microseconds", key, v)
				return 0, false
			}
			return x, true
		}
		ts, _ := num("ts", ph != "M")
		if ts < 0 {
			bad(i, "ts %v is negative (Perfetto drops negative timestamps)", ts)
		}
		var args map[string]json.RawMessage
		if v, ok := raw["args"]; ok {
			if err := json.Unmarshal(v, &args); err != nil {
				bad(i, "args is %s, want an object", v)
			}
		}
		switch ph {
		case "M":
			var n string
			if v, ok := args["name"]; !ok || json.Unmarshal(v, &n) != nil || n == "" {
				bad(i, "metadata %q without a non-empty string args.name", name)
			}
			switch name {
			case "process_name":
				if _, dup := st.processes[pid]; dup {
					bad(i, "process %d named twice", pid)
				}
				st.processes[pid] = n
			case "thread_name":
				if !hasTid || tid == 0 || tid == pid {
					bad(i, "thread_name for tid %d of pid %d: want a tid of its own", tid, pid)
				}
				if th, dup := st.threads[tid]; dup {
					bad(i, "tid %d named twice (pid %d, then pid %d): Perfetto may find a thread by tid alone", tid, th.pid, pid)
				}
				st.threads[tid] = chromeThread{pid, n}
			default:
				bad(i, "metadata %q: Perfetto reads only process_name and thread_name", name)
			}
		case "X":
			d, ok := num("dur", true)
			if !ok {
				continue
			}
			if d < 0 {
				bad(i, "dur %v is negative (Perfetto drops the slice)", d)
			}
			if !hasTid || tid == 0 || tid == pid {
				bad(i, "slice %q on tid %d of pid %d: want a thread of its own", name, tid, pid)
			}
			var seq int64
			if v, ok := args["seq"]; ok {
				json.Unmarshal(v, &seq)
			}
			st.slices[tid] = append(st.slices[tid], chromeSlice{name: name, cat: cat,
				ts: int64(math.Round(ts * 1000)), dur: int64(math.Round(d * 1000)),
				tsUs: ts, durUs: d, pid: pid, tid: tid, seq: seq})
			usedTids[tid] = pid
		case "i", "I":
			// Scope t (or none) puts the instant on its thread, which
			// needs a tid; p and g are process-wide and global.
			var s string
			str("s", &s, false)
			if s != "" && s != "t" && s != "p" && s != "g" {
				bad(i, "instant scope %q, want t, p or g", s)
			}
			if s == "" || s == "t" {
				if !hasTid || tid == 0 {
					bad(i, "thread instant %q without a tid", name)
				}
				usedTids[tid] = pid
				k := [2]int64{tid, int64(math.Round(ts * 1000))}
				instantsAt[k]++
				if instantsAt[k] == maxInstantStack {
					bad(i, "%d instants at %vµs on tid %d: Perfetto stacks them past its depth limit", maxInstantStack, ts, tid)
				}
			}
			st.instants++
		case "C":
			// One counter track per key of args, named "name key"; each
			// value a number (Perfetto also takes a numeric string).
			if len(args) == 0 {
				bad(i, "counter %q without args", name)
			}
			if st.counters[pid] == nil {
				st.counters[pid] = map[string]int{}
			}
			for k, v := range args {
				var x float64
				if err := json.Unmarshal(v, &x); err != nil {
					bad(i, "counter %q: args.%s is %s, want a number", name, k, v)
					continue
				}
				st.counters[pid][name+" "+k]++
			}
		default:
			bad(i, "phase %q: this writer emits only X, i, C and M", ph)
		}
	}
	for tid, pid := range usedTids {
		th, ok := st.threads[tid]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("tid %d of pid %d has events but no thread_name", tid, pid))
		case th.pid != pid:
			errs = append(errs, fmt.Errorf("tid %d named in pid %d but used in pid %d", tid, th.pid, pid))
		}
	}
	for pid := range st.counters {
		if _, ok := st.processes[pid]; !ok {
			errs = append(errs, fmt.Errorf("pid %d has counters but no process_name", pid))
		}
	}
	for _, th := range st.threads {
		if _, ok := st.processes[th.pid]; !ok {
			errs = append(errs, fmt.Errorf("pid %d has threads but no process_name", th.pid))
		}
	}
	for tid, ss := range st.slices {
		if err := checkNesting(ss); err != nil {
			errs = append(errs, fmt.Errorf("tid %d (%s): %w", tid, st.threads[tid].name, err))
		}
	}
	return st, errors.Join(errs...)
}

// checkNesting checks that the slices of one thread nest: each one is
// inside or after every earlier one, never partly over one. Perfetto drops
// a complete slice that starts inside an open one and ends after it
// (slice_drop_overlapping_complete_event); DevTools, adding ts + dur in
// float64, nests it wrongly. So the check runs on both readings.
func checkNesting(ss []chromeSlice) error {
	type reading struct {
		name       string
		start, end func(s chromeSlice) float64
	}
	for _, r := range []reading{
		{"Perfetto's whole nanoseconds",
			func(s chromeSlice) float64 { return float64(s.ts) },
			func(s chromeSlice) float64 { return float64(s.ts + s.dur) }},
		{"float64 microseconds",
			func(s chromeSlice) float64 { return s.tsUs },
			func(s chromeSlice) float64 { return s.tsUs + s.durUs }},
	} {
		ss = append([]chromeSlice(nil), ss...)
		sort.SliceStable(ss, func(i, j int) bool {
			if a, b := r.start(ss[i]), r.start(ss[j]); a != b {
				return a < b
			}
			return r.end(ss[i]) > r.end(ss[j])
		})
		var open []chromeSlice
		for _, s := range ss {
			for len(open) > 0 && r.end(open[len(open)-1]) <= r.start(s) {
				open = open[:len(open)-1]
			}
			if n := len(open); n > 0 && r.end(s) > r.end(open[n-1]) {
				p := open[n-1]
				return fmt.Errorf("in %s, %q (seq %d) [%v, %v) overlaps %q (seq %d) [%v, %v) without nesting",
					r.name, s.name, s.seq, r.start(s), r.end(s), p.name, p.seq, r.start(p), r.end(p))
			}
			open = append(open, s)
		}
	}
	return nil
}

// CheckChromeRun is checkChromeRun for the tests of package trace_test,
// which trace real runs.
var CheckChromeRun = checkChromeRun

// checkChromeRun checks a whole run's chrome trace: the importer's rules,
// then the layout this writer promises. Ops, each copy direction, stalls
// and disk reads are on threads of their own; each engine does one thing
// at a time, so no slice nests in another; every device with memory
// events has its "resident bytes" counter. It returns, per thread name,
// the number of slices, for the caller to assert on.
func checkChromeRun(data []byte) (map[string]int, error) {
	st, err := checkChrome(data)
	if err != nil {
		return nil, err
	}
	perThread := map[string]int{}
	var errs []error
	for tid, ss := range st.slices {
		th := st.threads[tid]
		perThread[st.processes[th.pid]+"/"+th.name] += len(ss)
		kinds := map[string]bool{}
		for _, s := range ss {
			k := s.cat
			if s.cat == "copy" {
				k, _, _ = strings.Cut(s.name, " #")
			}
			kinds[k] = true
		}
		if len(kinds) != 1 {
			errs = append(errs, fmt.Errorf("thread %q holds %v: want one kind of work per thread", th.name, kinds))
		}
		byStart := append([]chromeSlice(nil), ss...)
		sort.Slice(byStart, func(i, j int) bool { return byStart[i].ts < byStart[j].ts })
		for i := 1; i < len(byStart); i++ {
			if p, s := byStart[i-1], byStart[i]; s.ts < p.ts+p.dur || s.tsUs < p.tsUs+p.durUs {
				errs = append(errs, fmt.Errorf("thread %q: %q (seq %d) starts inside %q (seq %d): one engine does one thing at a time",
					th.name, s.name, s.seq, p.name, p.seq))
				break
			}
		}
	}
	for pid, name := range st.processes {
		if st.counters[pid]["resident bytes"] == 0 {
			errs = append(errs, fmt.Errorf("process %q has no resident bytes counter", name))
		}
	}
	return perThread, errors.Join(errs...)
}

// overlapSample records what the engine emits when work on one engine
// overlaps: disk reads that all sit at the host's virtual time, and
// copies whose float64 ends pass the next copy's start.
func overlapSample(sinks ...Sink) error {
	r := NewRecorder(sinks...)
	for i, d := range []int64{51589, 49220, 45590} {
		r.Emit(Event{T: 0, Dur: d, Kind: DiskRead, Device: "cpu", Stream: StreamDisk, Ref: uint64(i + 1), Bytes: 65536})
	}
	// 2190.717 + 172.773 > 2363.49 in float64.
	r.Emit(Event{T: 2190717, Dur: 172773, Kind: H2D, Device: "sim:0", Stream: StreamH2D, Ref: 4, Bytes: 4 << 20})
	r.Emit(Event{T: 2363490, Dur: 5001, Kind: H2D, Device: "sim:0", Stream: StreamH2D, Ref: 5, Bytes: 4})
	r.Emit(Event{T: 594681, Dur: 6311, Kind: OpEnd, Device: "sim:0", Stream: StreamCompute, Op: "mul", Ref: 6})
	r.Emit(Event{T: 600992, Dur: 172773, Kind: OpEnd, Device: "sim:0", Stream: StreamCompute, Op: "matmul", Ref: 7})
	_, err := r.Finish(Final{Device: "sim:0", Strategy: "flow", Clock: "virtual", Budget: 1 << 30, Bandwidth: 1e9, TimeNs: 2368491})
	return err
}

func TestChromeOverlaps(t *testing.T) {
	var buf bytes.Buffer
	if err := overlapSample(NewChrome(&buf)); err != nil {
		t.Fatal(err)
	}
	st, err := checkChrome(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	disk := map[string]bool{}
	for tid, ss := range st.slices {
		if strings.HasPrefix(ss[0].name, "disk read") {
			disk[st.threads[tid].name] = true
		}
	}
	if len(disk) != 3 || !disk["disk reads"] || !disk["disk reads 3"] {
		t.Fatalf("three disk reads at the same time on threads %v, want disk reads, disk reads 2 and 3", disk)
	}
	for tid, ss := range st.slices {
		if st.threads[tid].name == "copy h2d" && len(ss) != 2 {
			t.Fatalf("copy h2d holds %d copies, want both (one after the other)", len(ss))
		}
	}
	for _, s := range st.slices {
		for _, x := range s {
			if x.name == "h2d #4" && x.dur != 172773 {
				t.Fatalf("h2d #4 lasts %d ns as Perfetto reads it, want 172773", x.dur)
			}
		}
	}
}

// TestCheckChrome makes sure the checker catches what it is for.
func TestCheckChrome(t *testing.T) {
	head := `{"name":"process_name","ph":"M","pid":1,"args":{"name":"sim:0"}},
{"name":"thread_name","ph":"M","pid":1,"tid":11,"args":{"name":"copy h2d"}},`
	for _, tc := range []struct{ events, want string }{
		{`{"name":"a","ph":"X","ts":0,"dur":2,"pid":1,"tid":11},{"name":"b","ph":"X","ts":1,"dur":2,"pid":1,"tid":11}`, "without nesting"},
		{`{"name":"a","ph":"X","ts":2190.717,"dur":172.773,"pid":1,"tid":11},{"name":"b","ph":"X","ts":2363.49,"dur":5,"pid":1,"tid":11}`, "float64 microseconds"},
		{`{"name":"a","ph":"X","ts":0,"dur":-1,"pid":1,"tid":11}`, "negative"},
		{`{"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":12}`, "no thread_name"},
		{`{"name":"a","ph":"X","ts":0,"dur":1,"pid":"sim","tid":11}`, "want an integer"},
		{`{"name":"m","ph":"C","ts":0,"pid":1,"args":{"bytes":"many"}}`, "want a number"},
		{`{"name":"a","ph":"B","ts":0,"pid":1,"tid":11}`, "phase"},
		{`{"name":"a","ph":"i","s":"t","ts":0,"pid":1}`, "without a tid"},
		{`{"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":11,"args":{"l":[1]}},{"name":"b","ph":"X","ts":1,"dur":1,"pid":1,"tid":11,"x":[1]}`, "is an array"},
	} {
		_, err := checkChrome([]byte(`{"traceEvents":[` + head + tc.events + `]}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.events, err, tc.want)
		}
	}
	// Nested and touching slices are fine.
	ok := `{"name":"a","ph":"X","ts":0,"dur":4,"pid":1,"tid":11},{"name":"b","ph":"X","ts":1,"dur":2,"pid":1,"tid":11},{"name":"c","ph":"X","ts":4,"dur":1,"pid":1,"tid":11}`
	if _, err := checkChrome([]byte(`{"traceEvents":[` + head + ok + `]}`)); err != nil {
		t.Errorf("nested slices: %v", err)
	}
}
