package diag

import (
	"errors"

	"github.com/tref-lang/tref/runtime/refs"
)

// Diagnostics turns an error from any phase into the diagnostics to print:
// one per static error of a list, or one with its traceback for a runtime
// error. An error without a script position becomes a diagnostic with only
// its message.
func Diagnostics(err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var opErr *refs.OpError
	if errors.As(err, &opErr) {
		pos, _ := ParsePos(opErr.Site.Pos)
		return []Diagnostic{{Pos: pos, Msg: err.Error()}}
	}
	return []Diagnostic{{Msg: err.Error()}}
}
