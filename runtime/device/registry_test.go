package device

import (
	"fmt"
	"strings"
	"testing"
)

func init() {
	Register(Kind{Name: "tsim", Indexed: true})
	Register(Kind{Name: "tlib", Arg: "cpu"})
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Spec{
		"auto":     {Kind: "auto", Name: "auto"},
		"cpu":      {Kind: "cpu", Name: "cpu"},
		"tsim":     {Kind: "tsim", Name: "tsim:0"},
		"tsim:3":   {Kind: "tsim", Index: 3, Name: "tsim:3"},
		"tsim:007": {Kind: "tsim", Index: 7, Name: "tsim:7"},
		"tlib:cpu": {Kind: "tlib", Name: "tlib:cpu"},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "gpu", "cpu:0", "auto:1", "tsim:-1", "tsim:+1", "tsim:x", "tsim:1:2", "tlib", "tlib:gpu"} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, fmt.Sprintf("unknown device %q: want auto, cpu, ", in)) ||
			!strings.Contains(msg, "tsim[:N]") || !strings.Contains(msg, "tlib:cpu") || !strings.Contains(msg, " or ") {
			t.Errorf("Parse(%q): %q, want one line naming every form", in, msg)
		}
	}
	if u := Usage(); !strings.HasPrefix(u, "auto|cpu|") || !strings.Contains(u, "|tsim[:N]|") || !strings.Contains(u, "|tlib:cpu") {
		t.Errorf("Usage() = %q", u)
	}
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	for _, name := range []string{"tsim", "cpu", "auto"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(Kind{Name: name})
		}()
	}
}

func TestOpenRefusesTheHost(t *testing.T) {
	for _, s := range []string{"cpu", "auto"} {
		spec, _ := Parse(s)
		if _, err := Open(spec, Options{}); err == nil {
			t.Errorf("Open(%s) made an accelerator", s)
		}
	}
}
