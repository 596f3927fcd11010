package stdlib

import (
	"fmt"
	"time"

	"github.com/tref-lang/tref/lang/eval"
)

// time is the part of Python's time module that training scripts use to
// time epochs, predeclared as math is: time.time() (seconds since the
// Unix epoch), time.perf_counter() and time.monotonic() (monotonic
// seconds, as clock()), all float64.
func init() {
	members := map[string]eval.Value{}
	add := func(name, doc string, now func() float64) {
		full := "time." + name
		members[name] = &eval.Builtin{Name: full, Doc: doc, Fn: func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
			if err := eval.UnpackArgs(th, full, args, kwargs); err != nil {
				return nil, err
			}
			return eval.Float64(now()), nil
		}}
	}
	add("time", "seconds since the Unix epoch (float64), as Python's time.time()", func() float64 {
		return float64(time.Now().UnixNano()) / 1e9
	})
	monotonic := func() float64 { return time.Since(start).Seconds() }
	add("perf_counter", "monotonic seconds (float64) for timing, as Python's time.perf_counter() (differences are what count)", monotonic)
	add("monotonic", "monotonic seconds (float64), as Python's time.monotonic()", monotonic)
	register("time", "time: the timing functions of Python's time module, predeclared as if imported: time.time(), time.perf_counter(), time.monotonic()", func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return nil, fmt.Errorf("time is a module, not a function: call its members (time.time(), time.perf_counter())")
	})
	table["time"].Members = members
}
