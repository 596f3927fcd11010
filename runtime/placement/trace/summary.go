package trace

// Totals is the summary that closes a trace: the run's counters and the
// reference bounds for the same op stream and budget.
type Totals struct {
	// Ops counts executed ops (op_end events).
	Ops int64
	// BytesH2D and BytesD2H sum the h2d and d2h events.
	BytesH2D, BytesD2H int64
	// PeakBytes is the most memory resident at any time, per device.
	PeakBytes map[string]int64
	// StallNs sums the stall events: time the compute engine waited for
	// a copy or for memory.
	StallNs int64
	// TimeNs is when the last engine finished; ComputeNs sums op
	// durations, on the accelerator and on the host.
	TimeNs, ComputeNs int64
	// PrefetchHits counts operands already on the accelerator (or on their
	// way) when an op needed them (hit events); PrefetchMisses counts
	// operands fetched on demand (miss events).
	PrefetchHits, PrefetchMisses int64
	// BeladyBytes is what the offline furthest-next-use policy moves over
	// the same op stream and budget; BoundNs is
	// max(ComputeNs, BeladyBytes / bandwidth).
	BeladyBytes, BoundNs int64

	// WastedPrefetches counts prefetched copies dropped before any use,
	// and WastedBytes their bytes (bandwidth spent on a wrong forecast).
	WastedPrefetches, WastedBytes int64
	// Fallbacks counts ops run on the host because the accelerator could
	// not hold them; Evictions counts evict events.
	Fallbacks, Evictions int64
	// Device, Strategy and Budget describe the run.
	Device   string
	Strategy string
	Budget   int64
	// Clock is where the times come from: "virtual" (the simulated
	// device's cost model) or "wall" (measured on a real device, or on
	// the host alone).
	Clock string
	// BytesDisk sums the disk_read events: lazy refs read from disk.
	BytesDisk int64

	// OptNs and OptLowerNs are the offline optimum's best schedule and a
	// proven lower bound on any schedule of the same op stream and budget
	// (tref trace --optimal; see Recorder.SetOptimizer), equal when it
	// proved the best optimal; OptStatus says which, or why not. They are
	// zero and empty without --optimal.
	OptNs, OptLowerNs int64
	OptStatus         string
}

// Optimum is what an Optimizer found for a trace.
type Optimum struct {
	// BestNs is the best schedule's time, LowerNs a proven lower bound.
	BestNs, LowerNs int64
	// Status says whether BestNs is proven optimal, or why not.
	Status string
}

// Optimizer computes the offline optimum of the logged steps on an
// accelerator of budget bytes (package optimal, which cmd/tref plugs in:
// the trace package cannot import it).
type Optimizer func(steps []Step, budget int64) (Optimum, error)

// Final is what the engine knows at the end of a run, beyond the events.
type Final struct {
	Device   string
	Strategy string
	// Clock is "virtual" or "wall" (Totals.Clock).
	Clock string
	// Budget is the accelerator's memory in bytes; Bandwidth the link's
	// bytes per second used for BoundNs.
	Budget    int64
	Bandwidth float64
	TimeNs    int64
	PeakBytes map[string]int64
	// WastedPrefetches and WastedBytes are prefetches dropped unused.
	WastedPrefetches, WastedBytes int64
}

// FormatBudget prints a budget: its bytes, or "unbounded" for a device
// that keeps every tensor resident (device.Unbounded and above).
func FormatBudget(n int64) string {
	if n >= 1<<62 {
		return "unbounded"
	}
	return FormatBytes(n)
}

// Ratio is a/b, 0 when b is 0.
func Ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
