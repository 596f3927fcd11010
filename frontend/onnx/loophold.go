package onnx

// A Loop's or Scan's values of the current iteration (the carried values
// and the scan outputs so far) hold one use each, so that they outlive
// the body's run that made them; holdAll takes those uses and dropAll
// gives them back.

func holdAll(vs []*value) {
	for _, v := range vs {
		v.uses++
	}
}

func dropAll(rt *runner, vs []*value) {
	for _, v := range vs {
		drop(rt, v)
	}
}

// dropLoop gives back the uses a loop holds on its carried values and
// scan outputs (on an error, or after leaveLoop with nothing left).
func dropLoop(rt *runner, carried []*value, scans [][]*value) {
	dropAll(rt, carried)
	for _, s := range scans {
		dropAll(rt, s)
	}
}

// leaveLoop hands a loop's results res out with the uses they have
// outside it: the loop's holds go (a value may be both carried and
// scanned), the results kept through it. The caller's carried and scans
// are then spent.
func leaveLoop(rt *runner, res, carried []*value, scans [][]*value) {
	holdAll(res)
	dropLoop(rt, carried, scans)
	for _, v := range res {
		v.uses--
	}
}
