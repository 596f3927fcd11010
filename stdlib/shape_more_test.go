package stdlib

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// TestSplitPiecesFitTheHostLimit: a split into more pieces than the host
// limit holds fails before it makes them, on any machine (the limit is set
// here, not read from the system's memory).
func TestSplitPiecesFitTheHostLimit(t *testing.T) {
	t.Setenv("TREF_HOST_LIMIT", "1000000000")
	for _, src := range []string{"print(tensor_split(ones(1), 2000000))", "print(hsplit(zeros([0, 2000000]), 2000000))"} {
		rt := refs.New(&cpu.Device{}, refs.Options{})
		var out bytes.Buffer
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: &out})
		err := in.RunSource("split.tr", []byte(src))
		in.Close()
		if err == nil || !strings.Contains(err.Error(), "2000000 pieces: a value of") {
			t.Errorf("%s: %v", src, err)
		}
	}
}
