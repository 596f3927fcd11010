package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() { Register(ops.Full, fullKernel) }

// fullKernel writes full's value into every element of out: the value's
// bytes, doubled by copies (exact for every dtype, int64 beyond 2^53
// included).
func fullKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("full", ins, 0); err != nil {
		return err
	}
	a, err := ops.FullOf(attrs)
	if err != nil {
		return err
	}
	fillBytes(out.Buf, a.Value.Dense().Buf)
	return nil
}

// fillBytes repeats the element e over buf (whose length is a multiple of
// e's), as fill does for a typed slice.
func fillBytes(buf, e []byte) {
	if len(buf) == 0 || len(e) == 0 {
		return
	}
	zero := true
	for _, b := range e {
		zero = zero && b == 0
	}
	if zero {
		clear(buf)
		return
	}
	repeatPrefix(buf, copy(buf, e))
}
