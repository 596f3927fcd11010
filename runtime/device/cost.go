package device

import (
	"fmt"
	"math"
)

// Cost is a device's cost model: the rates and latency the placement
// engine plans with on every device, and the clock of the simulated one.
// Zero fields take the defaults of DefaultCost (see WithDefaults).
type Cost struct {
	// H2D and D2H are the host->device and device->host bandwidths in
	// bytes per second, one copy engine per direction.
	H2D, D2H float64
	// Flops is the compute rate in FLOP/s for ops whose Def has a cost
	// function (matmul, conv, attention).
	Flops float64
	// MemBandwidth is device memory bytes per second: every op on the
	// device takes at least (bytes read + bytes written) / MemBandwidth.
	MemBandwidth float64
	// LatencyNs is the fixed cost of one kernel launch and of one copy,
	// in nanoseconds.
	LatencyNs int64
	// HostFlops and HostMemBandwidth time ops that run on the host (the
	// none strategy and fallbacks), so that every run has one clock.
	HostFlops, HostMemBandwidth float64
	// StagingBandwidth is the rate, in bytes per second, at which a
	// tensor is copied into pinned staging memory before the device
	// copies it in (by a worker, the transfer waiting for it), and out of
	// it after a copy out (by the host thread, blocked meanwhile): a CUDA
	// data plane's copies, but for a refetch of a host copy copied in
	// before, which the plane has pinned in place (Model.CopyIn). Zero
	// (the default) means copies cost nothing beyond the transfer, as on
	// the simulated device.
	StagingBandwidth float64
	// IssueNs is the host thread's time to issue one op, on the device
	// or on the host: the interpreter's statement, the engine's decision
	// and the launch call. Ops are issued no faster, so a stream of
	// small ops is host-bound, as on a GPU. Zero (the default) means
	// issuing costs nothing.
	IssueNs int64
}

// The defaults model a PCIe 4.0 x16 link (25 GB/s each way) to a modern
// data-centre GPU: about 100 TFLOP/s of dense fp32-class math (tensor
// cores at tf32), 2 TB/s of HBM, 5 µs per launch or copy. The host is a
// many-core CPU: 1 TFLOP/s and 50 GB/s of DRAM bandwidth.
const (
	DefaultBandwidth        = 25e9
	DefaultFlops            = 100e12
	DefaultMemBandwidth     = 2e12
	DefaultLatencyNs        = 5000
	DefaultHostFlops        = 1e12
	DefaultHostMemBandwidth = 50e9
)

// DefaultCost returns the documented defaults.
func DefaultCost() Cost {
	return Cost{
		H2D: DefaultBandwidth, D2H: DefaultBandwidth,
		Flops: DefaultFlops, MemBandwidth: DefaultMemBandwidth,
		LatencyNs: DefaultLatencyNs,
		HostFlops: DefaultHostFlops, HostMemBandwidth: DefaultHostMemBandwidth,
	}
}

// WithDefaults fills the zero fields from DefaultCost. A negative
// latency means zero.
func (p Cost) WithDefaults() Cost {
	d := DefaultCost()
	fill := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&p.H2D, d.H2D)
	fill(&p.D2H, d.D2H)
	fill(&p.Flops, d.Flops)
	fill(&p.MemBandwidth, d.MemBandwidth)
	fill(&p.HostFlops, d.HostFlops)
	fill(&p.HostMemBandwidth, d.HostMemBandwidth)
	switch {
	case p.LatencyNs == 0:
		p.LatencyNs = d.LatencyNs
	case p.LatencyNs < 0:
		p.LatencyNs = 0
	}
	return p
}

// Validate reports a rate that is not a positive finite number.
func (p Cost) Validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"h2d bandwidth", p.H2D}, {"d2h bandwidth", p.D2H}, {"flops", p.Flops},
		{"memory bandwidth", p.MemBandwidth}, {"host flops", p.HostFlops},
		{"host memory bandwidth", p.HostMemBandwidth}} {
		if !(r.v > 0) || math.IsInf(r.v, 0) {
			return fmt.Errorf("device: cost model: %s must be a positive number, got %v", r.name, r.v)
		}
	}
	if p.IssueNs < 0 {
		return fmt.Errorf("device: cost model: the issue time of an op must be zero (none) or positive, got %d ns", p.IssueNs)
	}
	if !(p.StagingBandwidth >= 0) || math.IsInf(p.StagingBandwidth, 0) {
		return fmt.Errorf("device: cost model: staging bandwidth must be zero (none) or a positive number, got %v", p.StagingBandwidth)
	}
	return nil
}

// ns converts an amount of work at a rate to whole nanoseconds, rounding
// up so that any work takes time.
func ns(work, rate float64) int64 {
	if work <= 0 {
		return 0
	}
	return int64(math.Ceil(work / rate * 1e9))
}

// CopyNs is the duration of moving n bytes at rate bytes/s, launch
// latency included.
func (p Cost) CopyNs(n int64, rate float64) int64 {
	return p.LatencyNs + ns(float64(n), rate)
}

// OpNs is the duration of a kernel on the device: launch latency plus the
// larger of its compute time and its memory time.
func (p Cost) OpNs(flops, bytes int64) int64 {
	return p.LatencyNs + max(ns(float64(flops), p.Flops), ns(float64(bytes), p.MemBandwidth))
}

// StagingNs is the host thread's time staging n bytes of a copy (0
// without a StagingBandwidth).
func (p Cost) StagingNs(n int64) int64 {
	if p.StagingBandwidth <= 0 {
		return 0
	}
	return ns(float64(n), p.StagingBandwidth)
}

// HostOpNs is the duration of an op run on the host.
func (p Cost) HostOpNs(flops, bytes int64) int64 {
	return max(ns(float64(flops), p.HostFlops), ns(float64(bytes), p.HostMemBandwidth))
}
