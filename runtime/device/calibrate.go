package device

import (
	"errors"
	"fmt"
	"time"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Calibration is what Calibrate measured on a device, and the cost model
// that makes the model (and the simulated device) predict it.
type Calibration struct {
	// H2D and D2H are the copy bandwidths in bytes per second, CopyNs
	// each copy's fixed cost.
	H2D, D2H float64
	CopyNs   int64
	// LaunchNs is the time of an op on a one-element tensor.
	LaunchNs int64
	// Flops is matmul's rate in FLOP/s; MemBandwidth the bytes an
	// elementwise add reads and writes per second.
	Flops, MemBandwidth float64
	// Staging is the rate at which the host stages a copy in, on a
	// device with Caps.StagedCopies (else 0): a 4 MiB tensor's bytes
	// over the time until CopyIn returns.
	Staging float64
	// Cost is the cost model made of the above.
	Cost Cost
}

// CalibrationSizes are the sizes Calibrate measures with.
type CalibrationSizes struct {
	// Copy is the large copy's bytes (a small one of 4 KiB gives the
	// fixed cost); Matmul the side of the square matmul; Add the elements
	// of the elementwise add.
	Copy   int64
	Matmul int
	Add    int
	// Reps is how often each is repeated; the fastest run counts.
	Reps int
}

// DefaultCalibrationSizes take a few seconds on a CPU: a 64 MiB copy, a
// 1024x1024 matmul, a 16M-element add, 5 runs each.
var DefaultCalibrationSizes = CalibrationSizes{Copy: 64 << 20, Matmul: 1024, Add: 16 << 20, Reps: 5}

// Calibrate measures dev's copy bandwidths, its op latency and its
// compute and memory throughput on float32 tensors, timing each call
// (then Sync) on the host's clock, and returns the cost model that makes
// the engine's model of dev predict them.
func Calibrate(dev Device, sz CalibrationSizes) (Calibration, error) {
	if sz.Reps < 1 || sz.Copy < 8<<10 || sz.Matmul < 1 || sz.Add < 1 {
		return Calibration{}, fmt.Errorf("calibrate: sizes too small: %+v", sz)
	}
	c := &calibrator{dev: dev, reps: sz.Reps, rt: refs.New(noExec{}, refs.Options{Lookahead: 1 << 30})}
	defer c.close()
	var cal Calibration
	small := tensor.Meta{Shape: tensor.Shape{1024}, DType: tensor.Float32} // 4 KiB
	large := tensor.Meta{Shape: tensor.Shape{int(sz.Copy / 4)}, DType: tensor.Float32}
	// Copies in and out of both sizes.
	var t [4]int64
	for i, m := range []tensor.Meta{small, large, small, large} {
		var err error
		if i < 2 {
			t[i], err = c.copyIn(m)
		} else {
			t[i], err = c.copyOut(m)
		}
		if err != nil {
			return cal, err
		}
	}
	inSmall, inLarge, outSmall, outLarge := t[0], t[1], t[2], t[3]
	extra := float64(large.Bytes() - small.Bytes())
	cal.H2D = extra / max(float64(inLarge-inSmall), 1) * 1e9
	cal.D2H = extra / max(float64(outLarge-outSmall), 1) * 1e9
	cal.CopyNs = min(inSmall, outSmall)

	one := tensor.Meta{Shape: tensor.Shape{1}, DType: tensor.Float32}
	var err error
	if cal.LaunchNs, err = c.op(ops.Add, one, one); err != nil {
		return cal, err
	}
	sq := tensor.Meta{Shape: tensor.Shape{sz.Matmul, sz.Matmul}, DType: tensor.Float32}
	mm, err := c.op(ops.Matmul, sq, sq)
	if err != nil {
		return cal, err
	}
	n := float64(sz.Matmul)
	cal.Flops = 2 * n * n * n / max(float64(mm-cal.LaunchNs), 1) * 1e9
	vec := tensor.Meta{Shape: tensor.Shape{sz.Add}, DType: tensor.Float32}
	add, err := c.op(ops.Add, vec, vec)
	if err != nil {
		return cal, err
	}
	cal.MemBandwidth = float64(3*vec.Bytes()) / max(float64(add-cal.LaunchNs), 1) * 1e9

	if dev.Caps().StagedCopies {
		staged := tensor.Meta{Shape: tensor.Shape{1 << 20}, DType: tensor.Float32} // 4 MiB
		ns, err := c.staging(staged)
		if err != nil {
			return cal, err
		}
		cal.Staging = float64(staged.Bytes()) / max(float64(ns), 1) * 1e9
	}

	cal.Cost = Cost{H2D: cal.H2D, D2H: cal.D2H, Flops: cal.Flops, MemBandwidth: cal.MemBandwidth,
		LatencyNs: max(cal.LaunchNs, 1), StagingBandwidth: cal.Staging}.WithDefaults()
	return cal, cal.Cost.Validate()
}

// calibrator times calls into a device.
type calibrator struct {
	dev  Device
	reps int
	rt   *refs.Runtime
	refs []*refs.Ref
}

// fastest runs f reps times (after one run to warm up) and returns its
// shortest time, including a Sync.
func (c *calibrator) fastest(f func() error) (int64, error) {
	return c.shortest(func() (int64, error) {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if err := c.dev.Sync(); err != nil {
			return 0, err
		}
		return int64(time.Since(start)), nil
	})
}

// shortest runs timed reps times (after one run to warm up) and returns
// the shortest of the times it reported.
func (c *calibrator) shortest(timed func() (int64, error)) (int64, error) {
	best := int64(-1)
	for i := range c.reps + 1 {
		t, err := timed()
		if err != nil {
			return 0, err
		}
		if i > 0 && (best < 0 || t < best) {
			best = t
		}
	}
	return best, nil
}

// copyIn times copies of a host tensor of meta m into the device.
func (c *calibrator) copyIn(m tensor.Meta) (int64, error) {
	src := tensor.NewDense(m)
	return c.fastest(func() error {
		mem, err := c.dev.Alloc(m)
		if err != nil {
			return err
		}
		defer c.dev.Free(mem)
		_, err = c.dev.CopyIn(mem, src)
		return err
	})
}

// staging times how long CopyIn of a host tensor of meta m holds the
// host (until it returns, the transfer still running), the fastest of
// reps after one that warms up.
func (c *calibrator) staging(m tensor.Meta) (int64, error) {
	src := tensor.NewDense(m)
	return c.shortest(func() (int64, error) {
		mem, err := c.dev.Alloc(m)
		if err != nil {
			return 0, err
		}
		defer c.dev.Free(mem)
		start := time.Now()
		_, err = c.dev.CopyIn(mem, src)
		t := int64(time.Since(start))
		if err == nil {
			err = c.dev.Sync()
		}
		return t, err
	})
}

// copyOut times copies of a device tensor of meta m to the host.
func (c *calibrator) copyOut(m tensor.Meta) (int64, error) {
	host := tensor.NewDense(m)
	mem, err := c.dev.Alloc(m)
	if err != nil {
		return 0, err
	}
	defer c.dev.Free(mem)
	if _, err := c.dev.CopyIn(mem, host); err != nil {
		return 0, err
	}
	return c.fastest(func() error {
		_, err := c.dev.CopyOut(host, mem)
		return err
	})
}

// op times op on device tensors of metas a and b (ones), excluding the
// copies in.
func (c *calibrator) op(op ops.Op, a, b tensor.Meta) (int64, error) {
	ra, rb := c.host(a), c.host(b)
	out, err := c.rt.Submit(refs.Site{Pos: pos.Pos{File: "<calibrate>"}}, op, nil, ra, rb)
	if err != nil {
		return 0, err
	}
	c.refs = append(c.refs, out)
	o := out.Op()
	var ins []Memory
	defer func() {
		for _, m := range ins {
			c.dev.Free(m)
		}
	}()
	for _, r := range []*refs.Ref{ra, rb} {
		mem, err := c.dev.Alloc(r.Meta())
		if err != nil {
			return 0, err
		}
		ins = append(ins, mem)
		if _, err := c.dev.CopyIn(mem, r.HostBuffer()); err != nil {
			return 0, err
		}
	}
	if why := c.dev.Supports(o); why != "" {
		return 0, errors.New("calibrate: " + why)
	}
	return c.fastest(func() error {
		mem, err := c.dev.Alloc(out.Meta())
		if err != nil {
			return err
		}
		defer c.dev.Free(mem)
		_, err = c.dev.Run(o, mem, ins)
		return err
	})
}

// host makes a host tensor of ones of meta m.
func (c *calibrator) host(m tensor.Meta) *refs.Ref {
	d := tensor.NewDense(m)
	for i := range d.F32() {
		d.F32()[i] = 1
	}
	r := c.rt.FromHost(refs.Site{Pos: pos.Pos{File: "<calibrate>"}}, d)
	c.refs = append(c.refs, r)
	return r
}

// close drops the refs, cancelling the ops that were only timed.
func (c *calibrator) close() {
	for _, r := range c.refs {
		c.rt.Release(r)
	}
}

// noExec is the executor of the runtime whose ops Calibrate only looks
// at: they never run there (its window never fills, and their results
// die first).
type noExec struct{}

func (noExec) Execute(*refs.Runtime, *refs.Op, []*refs.Op) error {
	return errors.New("calibrate: internal: an op ran on the host")
}
func (noExec) ToHost(*refs.Runtime, *refs.Ref) error {
	return errors.New("calibrate: internal: no host copy")
}
func (noExec) Drop(*refs.Runtime, *refs.Ref) {}
func (noExec) Sync(*refs.Runtime) error      { return nil }
func (noExec) Stats() []refs.DeviceStats     { return nil }
