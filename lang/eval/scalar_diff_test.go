package eval_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
)

// TestScalarsMatchKernels checks the promise of spec/README.md that
// numbers, which the interpreter keeps unboxed, compute exactly what the
// tensor kernels compute: every operator on every pair of edge values,
// with each operand a number or a 0-d tensor, must give the same value
// and dtype, or fail in all four forms.
func TestScalarsMatchKernels(t *testing.T) {
	values := []string{
		"0", "1", "-1", "2", "-7", "3", "9223372036854775807", "(-9223372036854775807 - 1)",
		"0.0", "-0.0", "1.5", "-2.5", "0.1", "1e30", "3.0", "(1.0 / 0.0)", "(-1.0 / 0.0)", "(0.0 / 0.0)",
		`astype(1.5, "float64")`, `astype(-0.1, "float64")`, `astype(1e300, "float64")`,
		"true", "false", "63", "-64", "1000000007",
	}
	ops := []string{"+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">="}
	s := newSession(t, 8)
	defer s.in.Close()
	eval1 := func(src string) (string, error) {
		v, err := s.in.EvalREPL(src)
		if err != nil {
			return "", err
		}
		defer eval.Release(s.rt, v)
		text, err := s.in.Thread().Format(v)
		if err != nil {
			return "", err
		}
		dt, err := s.in.EvalREPL("(" + src + ").dtype")
		if err != nil {
			return "", err
		}
		defer eval.Release(s.rt, dt)
		return text + " " + eval.Format(dt), nil
	}
	box := func(x string) string { return "tensor(" + x + ")" }
	mismatches := 0
	for _, a := range values {
		for _, b := range values {
			for _, op := range ops {
				want, wantErr := eval1(fmt.Sprintf("(%s) %s (%s)", a, op, b))
				for _, form := range [][2]string{{box(a), b}, {a, box(b)}, {box(a), box(b)}} {
					src := fmt.Sprintf("(%s) %s (%s)", form[0], op, form[1])
					got, gotErr := eval1(src)
					if (gotErr != nil) != (wantErr != nil) || got != want {
						mismatches++
						if mismatches <= 30 {
							t.Errorf("%s = %s (error %v), but %s %s %s = %s (error %v)",
								src, got, firstLine(gotErr), a, op, b, want, firstLine(wantErr))
						}
					}
				}
			}
		}
		want, wantErr := eval1("-(" + a + ")")
		if got, gotErr := eval1("-" + box(a)); (gotErr != nil) != (wantErr != nil) || got != want {
			mismatches++
			t.Errorf("-%s = %s (error %v), but -(%s) = %s (error %v)", box(a), got, firstLine(gotErr), a, want, firstLine(wantErr))
		}
		if s.rt.LiveRefs() != 0 {
			t.Fatalf("%d refs alive after the operations on %s", s.rt.LiveRefs(), a)
		}
	}
	if mismatches > 30 {
		t.Errorf("%d mismatches in all", mismatches)
	}
}

func firstLine(err error) string {
	if err == nil {
		return "none"
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
