package device

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is a kind of device, registered by the package that implements
// it: "sim" (sim[:N]), "torch" (torch:cpu), "cuda" (cuda[:N]).
type Kind struct {
	// Name is the part of a --device value before the colon.
	Name string
	// Indexed kinds take an optional index, name:N with N >= 0 (0 when
	// left out); others take exactly the argument Arg (torch:cpu).
	Indexed bool
	Arg     string
	// Open makes the device spec names; opts come from the command line.
	Open func(spec Spec, opts Options) (Device, error)
}

// Options are what the command line says about a device besides its name.
type Options struct {
	// Cost is the cost model the engine plans with (and the simulated
	// device's clock); zero fields take the defaults.
	Cost Cost
	// NoInPlace turns Caps.InPlace off on a device that has it, so that
	// its decisions can be compared with a device that has not.
	NoInPlace bool
	// NoExactFallback turns Caps.ExactFallback off on a device that has
	// it (sim), so that it decides as a device whose kernels differ from
	// the host's (torch, CUDA): no op goes to the host because it is
	// cheaper there, and one that cannot fit is an error.
	NoExactFallback bool
	// Mem is the budget --mem asks for (0: none); a device that knows
	// its free memory refuses a budget above it.
	Mem int64
	// Pinned bounds the host memory a device pins in place for its
	// copies (--pinned): 0 takes the device's default, negative none.
	Pinned int64
}

// Spec is a parsed --device value.
type Spec struct {
	// Kind is "auto", "cpu" (the host), or a registered kind's name.
	Kind string
	// Index is N of sim:N or cuda:N, 0 otherwise.
	Index int
	// Name is the normalised value: "sim:0" for "sim", "torch:cpu".
	Name string
}

// Host is the name of the host device.
const Host = "cpu"

var kinds []Kind

// Register adds a kind of device. It panics on a duplicate name, or one
// of the built-in names auto and cpu.
func Register(k Kind) {
	if k.Name == "auto" || k.Name == Host || lookup(k.Name) != nil {
		panic("device: duplicate kind " + k.Name)
	}
	kinds = append(kinds, k)
}

func lookup(name string) *Kind {
	for i := range kinds {
		if kinds[i].Name == name {
			return &kinds[i]
		}
	}
	return nil
}

// forms lists the accepted --device values: auto, cpu, sim[:N], ...
func forms() []string {
	parts := []string{"auto", Host}
	for _, k := range kinds {
		switch {
		case k.Indexed:
			parts = append(parts, k.Name+"[:N]")
		default:
			parts = append(parts, k.Name+":"+k.Arg)
		}
	}
	return parts
}

// Usage lists the accepted --device values: "auto|cpu|sim[:N]|...".
func Usage() string { return strings.Join(forms(), "|") }

// Choices lists the accepted --device values in words: "auto, cpu,
// sim[:N] or cuda[:N]".
func Choices() string {
	f := forms()
	return strings.Join(f[:len(f)-1], ", ") + " or " + f[len(f)-1]
}

// Parse checks and normalises a --device value. It is the one parser of
// device names: the command line, the engine's configuration and the
// trace command all go through it.
func Parse(s string) (Spec, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	bad := func() (Spec, error) {
		return Spec{}, fmt.Errorf("unknown device %q: want %s", s, Choices())
	}
	if name == "auto" || name == Host {
		if hasArg {
			return bad()
		}
		return Spec{Kind: name, Name: name}, nil
	}
	k := lookup(name)
	if k == nil {
		return bad()
	}
	if !k.Indexed {
		if arg != k.Arg {
			return bad()
		}
		return Spec{Kind: name, Name: s}, nil
	}
	n := 0
	if hasArg {
		var err error
		if n, err = strconv.Atoi(arg); err != nil || n < 0 || strings.HasPrefix(arg, "+") {
			return bad()
		}
	}
	return Spec{Kind: name, Index: n, Name: fmt.Sprintf("%s:%d", name, n)}, nil
}

// Absent is the error of an Open whose hardware is not on this machine
// at all (no GPU), as against one that is there but cannot be used (a
// plugin that does not load, a CPU-only libtorch): --device auto passes
// over the first silently and says why it passed over the second.
type Absent struct{ Why string }

func (a Absent) Error() string { return a.Why }

// Open makes the accelerator spec names. auto and cpu are not
// accelerators: the caller resolves them.
func Open(spec Spec, opts Options) (Device, error) {
	k := lookup(spec.Kind)
	if k == nil {
		return nil, fmt.Errorf("device %q is not an accelerator", spec.Name)
	}
	d, err := k.Open(spec, opts)
	if err != nil {
		return nil, err
	}
	return d, nil
}
