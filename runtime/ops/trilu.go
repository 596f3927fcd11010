package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TriluAttrs are the attributes of trilu, torch's tril and triu (ONNX
// Trilu): the last two dimensions are matrices; tril keeps the elements
// (i, j) with j - i <= Diagonal, triu (Upper) those with j - i >= Diagonal,
// and zeroes the others. Any dtype.
type TriluAttrs struct {
	Diagonal int
	Upper    bool
}

// Trilu takes TriluAttrs.
var Trilu = Register(&Def{Name: "trilu", Infer: inferTrilu, Inplace: []int{0}})

func init() {
	defineGrads(map[Op]*Grad{
		// Linear: the same mask applied to the cotangent.
		Trilu: {VJP: func(b *Builder, a *GradArgs, g T) []T { return []T{b.Op(Trilu, a.Attrs, g)} }},
	})
}

func inferTrilu(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[TriluAttrs]("trilu", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if len(x.Shape) < 2 {
		name := "tril"
		if a.Upper {
			name = "triu"
		}
		return tensor.Meta{}, fmt.Errorf("%s needs a tensor of at least 2 dimensions, got shape %v", name, x.Shape)
	}
	return x, nil
}
