package device_test

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/sim"
	"github.com/tref-lang/tref/runtime/device"
)

// TestCalibrateSim measures the simulated device (whose data plane is
// host memory and the cpu kernels) at small sizes: every rate comes out
// positive and finite, and the cost model is the measurements'.
func TestCalibrateSim(t *testing.T) {
	dev := sim.New("sim:0", true)
	cal, err := device.Calibrate(dev, device.CalibrationSizes{Copy: 1 << 20, Matmul: 64, Add: 1 << 16, Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := cal.Cost.Validate(); err != nil {
		t.Fatal(err)
	}
	if cal.Cost.H2D != cal.H2D || cal.Cost.D2H != cal.D2H || cal.Cost.Flops != cal.Flops ||
		cal.Cost.MemBandwidth != cal.MemBandwidth || cal.Cost.LatencyNs != max(cal.LaunchNs, 1) {
		t.Fatalf("cost %+v from %+v", cal.Cost, cal)
	}
	if err := dev.Close(); err != nil {
		t.Fatalf("calibration left memory on the device: %v", err)
	}
	if _, err := device.Calibrate(dev, device.CalibrationSizes{Copy: 1, Matmul: 1, Add: 1, Reps: 1}); err == nil {
		t.Fatal("a copy of 1 byte was accepted")
	}
}
