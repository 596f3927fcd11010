package eval

import (
	"errors"
	"strings"
)

// errDescribed stops a builtin called by Params at its UnpackArgs.
var errDescribed = errors.New("parameters described")

// Param is one parameter of a builtin as UnpackArgs parses it.
type Param struct {
	// Names are the keywords that bind it, tref's first ("x", "input").
	Names []string
	// Optional: the builtin has a default for it.
	Optional bool
}

// Params reports the parameters builtin b binds with its first UnpackArgs
// call, for its reference: b is called with no arguments on th, and that
// call records its parameter list and returns before converting anything.
// ok is false for a builtin that fails or returns before unpacking (one
// that takes any number of values, or parses its arguments itself).
func Params(th *Thread, b *Builtin) (params []Param, ok bool) {
	var got []Param
	th.describe = &got
	defer func() {
		th.describe = nil
		if recover() != nil {
			params, ok = nil, false
		}
	}()
	_, err := b.Fn(th, b, nil, nil)
	if !errors.Is(err, errDescribed) {
		return nil, false
	}
	return got, true
}

// described records the parameter list of an UnpackArgs call made under
// Params and returns errDescribed.
func (th *Thread) described(pairs []any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		spec := pairs[i].(string)
		p := Param{Optional: strings.HasSuffix(spec, "?")}
		p.Names = strings.Split(strings.TrimSuffix(spec, "?"), "|")
		*th.describe = append(*th.describe, p)
	}
	return errDescribed
}
