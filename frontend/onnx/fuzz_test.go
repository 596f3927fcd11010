package onnx

import (
	"fmt"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
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

// FuzzRun compiles and runs arbitrary models on zero inputs of their
// declared shapes (small static shapes only): any model must run or give
// an error, never panic or leak a ref.
func FuzzRun(f *testing.F) {
	f.Add(linearModel())
	f.Add(mlpModel())
	f.Add(encModel(13, encGraph([][]byte{
		encNode("Reshape", []string{"x", "s"}, []string{"r"}),
		encNode("Transpose", []string{"r"}, []string{"t"}, encAttrInts("perm", 1, 0)),
		encNode("Slice", []string{"t", "st", "en"}, []string{"y"}),
	}, [][]byte{encTensorI64("s", []int64{2}, []int64{3, -1}), encTensorI64("st", []int64{1}, []int64{1}), encTensorI64("en", []int64{1}, []int64{-1})},
		[][]byte{encValue("x", Float, 2, 3)}, [][]byte{encValue("y", Float, 1, 3)})))
	f.Add(encModel(11, encGraph([][]byte{
		encNode("Conv", []string{"x", "w"}, []string{"c"}, encAttrInts("pads", 1, 1, 1, 1)),
		encNode("MaxPool", []string{"c"}, []string{"y"}, encAttrInts("kernel_shape", 2, 2), encAttrInts("strides", 2, 2)),
	}, [][]byte{encTensorF32("w", []int64{2, 1, 3, 3}, make([]float32, 18))},
		[][]byte{encValue("x", Float, 1, 1, 4, 4)}, [][]byte{encValue("y", Float, 1, 2, 2, 2)})))
	// The compile-time folds and fusions (fold.go, fuse.go).
	f.Add(foldModel())
	f.Add(hardswishModel(9))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b, 0)
		if err != nil {
			return
		}
		file := &File{Path: "fuzz.onnx", Model: m, holders: 1, check: func(n int64) error {
			if n > 16<<20 {
				return errTooBig
			}
			return nil
		}}
		file.mapped = memMappedOf(b)
		rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
		// Values as large as the file's: a model whose values are
		// larger fails with the host limit's error, before its ops run
		// (a max pool of 48 x 48 windows over 48 x 48 planes of 81 x 122
		// took 6.5 s, which the fuzzer took for a hang).
		rt.HostPool().Limit = 16 << 20
		// A model that runs long (a Loop of a million iterations) is
		// interrupted, as Ctrl-C would: it must stop with an error and
		// leak nothing all the same.
		interrupt := time.AfterFunc(2*time.Second, rt.Interrupt)
		defer interrupt.Stop()
		p, err := Compile(rt, refs.Site{}, file)
		if err != nil {
			if n := rt.LiveRefs(); n != 0 {
				t.Fatalf("%d refs leaked after a failed compile", n)
			}
			return
		}
		var ins []*refs.Ref
		ok := true
		for _, in := range p.Inputs {
			s, dt, fits := smallStatic(in.Type)
			if !fits {
				ok = false
				break
			}
			ins = append(ins, rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: s, DType: dt})))
		}
		var runErr error
		if ok {
			outs, err := p.Run(rt, refs.Site{}, ins)
			runErr = err
			if err == nil {
				for _, r := range outs {
					rt.Read(r)
					rt.Release(r)
				}
			}
		}
		for _, r := range ins {
			rt.Release(r)
		}
		p.Release(rt)
		rt.Flush()
		if n := rt.LiveRefs(); n != 0 {
			var where []string
			for _, r := range rt.Leaks() {
				where = append(where, r.String())
			}
			t.Fatalf("%d refs leaked: %v (run error: %v)", n, where, runErr)
		}
	})
}

// smallStatic is a declared tensor type's shape when it is static and
// small (at most 4096 elements).
func smallStatic(ti TypeInfo) (tensor.Shape, tensor.DType, bool) {
	dt, ok := ti.Elem.DType()
	if !ok || ti.Kind != TypeTensor || !ti.HasShape {
		return nil, 0, false
	}
	s := make(tensor.Shape, len(ti.Shape))
	n := int64(1)
	for i, d := range ti.Shape {
		if !d.HasValue || d.Value < 0 || d.Value > 4096 {
			return nil, 0, false
		}
		s[i] = int(d.Value)
		if n *= d.Value; n > 4096 {
			return nil, 0, false
		}
	}
	return s, dt, true
}

// memMapped is a source over bytes in memory.
type memMapped []byte

func memMappedOf(b []byte) source { return memMapped(b) }

func (m memMapped) Read(off, n int64, fn func([]byte) error) error {
	if off < 0 || n < 0 || off > int64(len(m)) || n > int64(len(m))-off {
		return fmt.Errorf("range [%d, %d) outside %d bytes", off, off+n, len(m))
	}
	return fn(m[off : off+n])
}

func (memMapped) Close() error { return nil }
