package trace

import (
	"bufio"
	"encoding/json"
	"io"
)

// JSONLine is one line of the jsonl format: an event, or (kind "summary",
// always the last line) the totals. The field names are a public interface
// documented in docs/trace.md; add fields, never rename or remove them.
type JSONLine struct {
	Seq    int64  `json:"seq"`
	TNs    int64  `json:"t_ns"`
	Kind   string `json:"kind"`
	Device string `json:"device"`
	Ref    uint64 `json:"ref"`
	Bytes  int64  `json:"bytes"`
	Op     string `json:"op"`
	Pos    string `json:"pos"`
	Reason string `json:"reason"`
	Stream string `json:"stream,omitempty"`
	DurNs  int64  `json:"dur_ns,omitempty"`
	*SummaryFields
}

// SummaryFields are the totals on the summary line.
type SummaryFields struct {
	Ops              int64            `json:"ops"`
	BytesH2D         int64            `json:"bytes_h2d"`
	BytesD2H         int64            `json:"bytes_d2h"`
	PeakBytes        map[string]int64 `json:"peak_bytes"`
	StallNs          int64            `json:"stall_ns"`
	TimeNs           int64            `json:"time_ns"`
	ComputeNs        int64            `json:"compute_ns"`
	PrefetchHits     int64            `json:"prefetch_hits"`
	PrefetchMisses   int64            `json:"prefetch_misses"`
	BeladyBytes      int64            `json:"belady_bytes"`
	BoundNs          int64            `json:"bound_ns"`
	WastedPrefetches int64            `json:"wasted_prefetches"`
	WastedBytes      int64            `json:"wasted_bytes"`
	Fallbacks        int64            `json:"fallbacks"`
	Evictions        int64            `json:"evictions"`
	Strategy         string           `json:"strategy"`
	Budget           int64            `json:"budget"`
	BytesDisk        int64            `json:"bytes_disk"`
	Clock            string           `json:"clock"`
	OptNs            int64            `json:"opt_ns,omitempty"`
	OptLowerNs       int64            `json:"opt_lower_ns,omitempty"`
	OptStatus        string           `json:"opt_status,omitempty"`
}

// JSONL writes one JSON object per line.
type JSONL struct {
	w   *bufio.Writer
	enc *json.Encoder
	seq int64
}

// NewJSONL makes a jsonl sink writing to w.
func NewJSONL(w io.Writer) *JSONL {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONL{w: bw, enc: enc}
}

// Event writes e as one line.
func (j *JSONL) Event(e *Event) error {
	j.seq = e.Seq
	return j.enc.Encode(JSONLine{
		Seq: e.Seq, TNs: e.T, Kind: e.Kind.String(), Device: e.Device, Ref: e.Ref,
		Bytes: e.Bytes, Op: e.Op, Pos: e.Pos, Reason: e.Reason, Stream: e.Stream, DurNs: e.Dur,
	})
}

// Flush writes the buffered lines.
func (j *JSONL) Flush() error { return j.w.Flush() }

// Counter is not part of the jsonl format: host memory appears in the
// summary's peak_bytes.
func (j *JSONL) Counter(string, int64, int64) error { return nil }

// Close writes the summary line and flushes.
func (j *JSONL) Close(t *Totals) error {
	line := JSONLine{Seq: j.seq + 1, TNs: t.TimeNs, Kind: Summary.String(), Device: t.Device, SummaryFields: summaryFields(t)}
	if err := j.enc.Encode(line); err != nil {
		return err
	}
	return j.w.Flush()
}

// summaryFields are t's counters under their public names: the jsonl
// summary line's, and the chrome trace's otherData.
func summaryFields(t *Totals) *SummaryFields {
	return &SummaryFields{
		Ops: t.Ops, BytesH2D: t.BytesH2D, BytesD2H: t.BytesD2H, PeakBytes: t.PeakBytes,
		StallNs: t.StallNs, TimeNs: t.TimeNs, ComputeNs: t.ComputeNs,
		PrefetchHits: t.PrefetchHits, PrefetchMisses: t.PrefetchMisses,
		BeladyBytes: t.BeladyBytes, BoundNs: t.BoundNs,
		WastedPrefetches: t.WastedPrefetches, WastedBytes: t.WastedBytes,
		Fallbacks: t.Fallbacks, Evictions: t.Evictions, Strategy: t.Strategy, Budget: t.Budget,
		BytesDisk: t.BytesDisk, Clock: t.Clock,
		OptNs: t.OptNs, OptLowerNs: t.OptLowerNs, OptStatus: t.OptStatus,
	}
}
