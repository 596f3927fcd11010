package onnx

import (
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder and loads every
// initializer and Constant tensor: any input must give a model or an
// error, never a panic, and no allocation beyond the bytes declared
// possible (a tensor larger than 64 MiB is refused by Check).
func FuzzDecode(f *testing.F) {
	f.Add(linearModel())
	f.Add(encModel(13, nest(3)))
	f.Add(encModel(13, encGraph([][]byte{encNode("Constant", nil, []string{"c"}, encAttrTensor("value", encTensorF32("", []int64{2}, []float32{1, 2})))}, nil, nil, nil)))
	f.Add(encModel(13, encGraph([][]byte{encNode("Reshape", []string{"x", "s"}, []string{"y"}, encAttrInts("allowzero", 0), encAttrInt("axis", -1))}, nil, nil, nil)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b, 0)
		if err != nil {
			return
		}
		rd := func(off, n int64, fn func([]byte) error) error {
			if off < 0 || n < 0 || off > int64(len(b)) || n > int64(len(b))-off {
				t.Fatalf("read of [%d, %d) outside the %d-byte file", off, off+n, len(b))
			}
			return fn(b[off : off+n])
		}
		check := func(n int64) error {
			if n > 64<<20 {
				return errTooBig
			}
			return nil
		}
		for _, tt := range tensorsOf(m.Graph) {
			if tt.External != nil {
				continue
			}
			tt.load(rd, nil, check)
		}
	})
}

var errTooBig = &tooBig{}

type tooBig struct{}

func (*tooBig) Error() string { return "too big" }

// tensorsOf lists the initializers and Constant-node tensors of g.
func tensorsOf(g *Graph) []*Tensor {
	ts := append([]*Tensor(nil), g.Initializers...)
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			if a.T != nil {
				ts = append(ts, a.T)
			}
		}
	}
	return ts
}
