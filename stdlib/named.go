package stdlib

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
)

// named passes on a builtin's result, its failure prefixed with the
// builtin's name fname unless the failure already starts with it (an op's
// error names the op, which may not be the builtin the script called):
// return named(b.Name)(c.Result(r)).
func named(fname string) func(eval.Value, error) (eval.Value, error) {
	return func(v eval.Value, err error) (eval.Value, error) {
		if err != nil && !strings.HasPrefix(err.Error(), fname+":") {
			return nil, fmt.Errorf("%s: %w", fname, err)
		}
		return v, err
	}
}
