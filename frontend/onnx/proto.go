package onnx

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The ONNX messages tref reads, decoded by hand with protowire from the
// field numbers of onnx.proto (onnx/onnx, IR version 10). Fields tref has
// no use for (doc strings, training info, quantization annotations) are
// skipped; a field of the wrong wire type is an error. Tensor data is not
// copied: a Tensor records where its bytes are in the file, and Load reads
// them on first use.

// Limits on what a file may declare, checked while decoding, before
// anything sized by the file is allocated.
const (
	// MaxDepth bounds the nesting of graphs in attributes (If, Loop and
	// Scan bodies), and so the decoder's recursion.
	MaxDepth = 16
	// MaxRank bounds the rank of a tensor or a declared shape.
	MaxRank = 32
)

// Model is a decoded ModelProto.
type Model struct {
	IRVersion    int64
	Producer     string
	ProducerVer  string
	ModelVersion int64
	// Opsets maps an operator set's domain ("" for the default ai.onnx) to
	// its version.
	Opsets   map[string]int64
	Graph    *Graph
	Metadata map[string]string
	// Functions counts the model-local functions (FunctionProto), which
	// tref does not run.
	Functions int
}

// Graph is a decoded GraphProto.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []*ValueInfo
	Outputs      []*ValueInfo
	ValueInfo    []*ValueInfo
	// Sparse counts sparse initializers, which tref does not load.
	Sparse int
}

// Node is a decoded NodeProto.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []*Attr
}

// standard reports whether n is an op of the default ONNX domain ("",
// which decoding writes for "ai.onnx" too).
func (n *Node) standard() bool { return n.Domain == "" || n.Domain == "ai.onnx" }

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute types of onnx.proto.
const (
	AttrUndefined AttrType = iota
	AttrFloat
	AttrInt
	AttrString
	AttrTensor
	AttrGraph
	AttrFloats
	AttrInts
	AttrStrings
	AttrTensors
	AttrGraphs
	AttrSparseTensor
	AttrSparseTensors
	AttrTypeProto
	AttrTypeProtos
)

var attrTypeNames = [...]string{"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"}

func (t AttrType) String() string {
	if t >= 0 && int(t) < len(attrTypeNames) {
		return attrTypeNames[t]
	}
	return fmt.Sprintf("attribute type %d", int32(t))
}

// Attr is a decoded AttributeProto.
type Attr struct {
	Name string
	Type AttrType
	// RefAttrName is set in function bodies only.
	RefAttrName string
	F           float32
	I           int64
	S           []byte
	T           *Tensor
	G           *Graph
	Floats      []float32
	Ints        []int64
	Strings     [][]byte
	Tensors     []*Tensor
	Graphs      []*Graph
}

// ValueInfo is a decoded ValueInfoProto: a graph input's or output's name
// and type.
type ValueInfo struct {
	Name string
	Type TypeInfo
}

// TypeKind is which member of TypeProto's oneof is set.
type TypeKind uint8

// The kinds of TypeProto.
const (
	TypeNone TypeKind = iota
	TypeTensor
	TypeSequence
	TypeMap
	TypeOptional
	TypeSparseTensor
)

// TypeInfo is a decoded TypeProto.
type TypeInfo struct {
	Kind TypeKind
	// Elem is the element type of a tensor (or sparse tensor).
	Elem DataType
	// Shape is the declared shape; HasShape is false when none was given
	// (any rank).
	Shape    []Dim
	HasShape bool
	// Inner is the element type of a sequence or optional.
	Inner *TypeInfo
}

// Dim is one dimension of a declared shape: a number, a symbolic name, or
// neither (unknown).
type Dim struct {
	Value    int64
	Param    string
	HasValue bool
}

// decoder holds the state of decoding one model: how deep in nested
// graphs it is, which bounds its recursion (MaxDepth).
type decoder struct {
	depth int
}

// walk visits the fields of one message, b, which starts at offset base
// of its file: fn is called with each field's number, wire type and value
// bytes (varints, fixed32 and fixed64 are decoded into v) and the file
// offset of the value, so that tensor data can be located.
func walk(b []byte, base int64, fn func(num protowire.Number, typ protowire.Type, v uint64, val []byte, off int64) error) error {
	pos := 0
	for pos < len(b) {
		num, typ, n := protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return fmt.Errorf("at byte %d: bad field tag: %v", base+int64(pos), protowire.ParseError(n))
		}
		pos += n
		start := pos
		var (
			v   uint64
			val []byte
		)
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b[pos:])
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b[pos:])
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b[pos:])
		case protowire.BytesType:
			var m int
			_, m = protowire.ConsumeVarint(b[pos:])
			val, n = protowire.ConsumeBytes(b[pos:])
			if n >= 0 {
				start = pos + m
			}
		case protowire.StartGroupType:
			n = protowire.ConsumeFieldValue(num, typ, b[pos:])
		default:
			n = -1
		}
		if n < 0 {
			return fmt.Errorf("at byte %d: field %d: %v", base+int64(pos), num, protowire.ParseError(n))
		}
		pos += n
		if typ == protowire.StartGroupType {
			continue // groups are not part of onnx.proto: skip them
		}
		if err := fn(num, typ, v, val, base+int64(start)); err != nil {
			return err
		}
	}
	return nil
}

// wireErr is the error of a known field with an unexpected wire type.
func wireErr(msg string, num protowire.Number, typ protowire.Type) error {
	return fmt.Errorf("%s field %d has wire type %d", msg, num, typ)
}

// Decode parses a serialized ModelProto. base is b's offset in its file
// (0 for a whole file), so that tensors record where their data is.
func Decode(b []byte, base int64) (*Model, error) {
	d := &decoder{}
	m := &Model{Opsets: map[string]int64{}}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, off int64) error {
		switch num {
		case 1, 5:
			if typ != protowire.VarintType {
				return wireErr("ModelProto", num, typ)
			}
			if num == 1 {
				m.IRVersion = int64(v)
			} else {
				m.ModelVersion = int64(v)
			}
		case 2, 3:
			if typ != protowire.BytesType {
				return wireErr("ModelProto", num, typ)
			}
			if num == 2 {
				m.Producer = string(val)
			} else {
				m.ProducerVer = string(val)
			}
		case 7:
			if typ != protowire.BytesType {
				return wireErr("ModelProto", num, typ)
			}
			if m.Graph != nil {
				return errors.New("ModelProto has two graphs")
			}
			g, err := d.graph(val, off)
			if err != nil {
				return err
			}
			m.Graph = g
		case 8:
			if typ != protowire.BytesType {
				return wireErr("ModelProto", num, typ)
			}
			dom, ver, err := opsetID(val, off)
			if err != nil {
				return err
			}
			m.Opsets[dom] = ver
		case 14:
			if typ != protowire.BytesType {
				return wireErr("ModelProto", num, typ)
			}
			k, v, err := stringEntry(val, off)
			if err != nil {
				return err
			}
			if m.Metadata == nil {
				m.Metadata = map[string]string{}
			}
			m.Metadata[k] = v
		case 25:
			m.Functions++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m.Graph == nil {
		return nil, errors.New("the model has no graph (is this an ONNX model file?)")
	}
	return m, nil
}

func opsetID(b []byte, base int64) (string, int64, error) {
	var (
		dom string
		ver int64
	)
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, _ int64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			dom = string(val)
		case num == 2 && typ == protowire.VarintType:
			ver = int64(v)
		case num == 1 || num == 2:
			return wireErr("OperatorSetIdProto", num, typ)
		}
		return nil
	})
	if dom == "ai.onnx" {
		dom = ""
	}
	return dom, ver, err
}

func stringEntry(b []byte, base int64) (string, string, error) {
	var k, v string
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, _ int64) error {
		if num != 1 && num != 2 {
			return nil
		}
		if typ != protowire.BytesType {
			return wireErr("StringStringEntryProto", num, typ)
		}
		if num == 1 {
			k = string(val)
		} else {
			v = string(val)
		}
		return nil
	})
	return k, v, err
}

func (d *decoder) graph(b []byte, base int64) (*Graph, error) {
	if d.depth >= MaxDepth {
		return nil, fmt.Errorf("graphs nested more than %d deep", MaxDepth)
	}
	d.depth++
	defer func() { d.depth-- }()
	g := &Graph{}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, off int64) error {
		switch num {
		case 1, 2, 5, 11, 12, 13, 15:
		default:
			return nil
		}
		if typ != protowire.BytesType {
			return wireErr("GraphProto", num, typ)
		}
		switch num {
		case 1:
			n, err := d.node(val, off)
			if err != nil {
				return err
			}
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(val)
		case 5:
			t, err := decodeTensor(val, off)
			if err != nil {
				return fmt.Errorf("initializer %d: %w", len(g.Initializers), err)
			}
			g.Initializers = append(g.Initializers, t)
		case 11, 12, 13:
			vi, err := valueInfo(val, off)
			if err != nil {
				return err
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, vi)
			case 12:
				g.Outputs = append(g.Outputs, vi)
			default:
				g.ValueInfo = append(g.ValueInfo, vi)
			}
		case 15:
			g.Sparse++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (d *decoder) node(b []byte, base int64) (*Node, error) {
	n := &Node{}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, off int64) error {
		switch num {
		case 1, 2, 3, 4, 5, 7:
		default:
			return nil
		}
		if typ != protowire.BytesType {
			return wireErr("NodeProto", num, typ)
		}
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(val))
		case 2:
			n.Outputs = append(n.Outputs, string(val))
		case 3:
			n.Name = string(val)
		case 4:
			n.OpType = string(val)
		case 5:
			a, err := d.attr(val, off)
			if err != nil {
				return err
			}
			n.Attrs = append(n.Attrs, a)
		case 7:
			n.Domain = string(val)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("node %q (%s): %w", n.Name, n.OpType, err)
	}
	if n.Domain == "ai.onnx" {
		n.Domain = ""
	}
	return n, nil
}

func (d *decoder) attr(b []byte, base int64) (*Attr, error) {
	a := &Attr{}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, off int64) error {
		bad := func() error { return wireErr("AttributeProto", num, typ) }
		switch num {
		case 1, 4, 21:
			if typ != protowire.BytesType {
				return bad()
			}
			switch num {
			case 1:
				a.Name = string(val)
			case 4:
				a.S = val
			default:
				a.RefAttrName = string(val)
			}
		case 20:
			if typ != protowire.VarintType {
				return bad()
			}
			a.Type = AttrType(int32(v))
		case 2:
			if typ != protowire.Fixed32Type {
				return bad()
			}
			a.F = math.Float32frombits(uint32(v))
		case 3:
			if typ != protowire.VarintType {
				return bad()
			}
			a.I = int64(v)
		case 5, 10:
			if typ != protowire.BytesType {
				return bad()
			}
			t, err := decodeTensor(val, off)
			if err != nil {
				return err
			}
			if num == 5 {
				a.T = t
			} else {
				a.Tensors = append(a.Tensors, t)
			}
		case 6, 11:
			if typ != protowire.BytesType {
				return bad()
			}
			g, err := d.graph(val, off)
			if err != nil {
				return err
			}
			if num == 6 {
				a.G = g
			} else {
				a.Graphs = append(a.Graphs, g)
			}
		case 7:
			switch typ {
			case protowire.Fixed32Type:
				a.Floats = append(a.Floats, math.Float32frombits(uint32(v)))
			case protowire.BytesType:
				if len(val)%4 != 0 {
					return fmt.Errorf("attribute %q: packed floats of %d bytes", a.Name, len(val))
				}
				for i := 0; i < len(val); i += 4 {
					x, _ := protowire.ConsumeFixed32(val[i:])
					a.Floats = append(a.Floats, math.Float32frombits(x))
				}
			default:
				return bad()
			}
		case 8:
			switch typ {
			case protowire.VarintType:
				a.Ints = append(a.Ints, int64(v))
			case protowire.BytesType:
				for p := 0; p < len(val); {
					x, n := protowire.ConsumeVarint(val[p:])
					if n < 0 {
						return fmt.Errorf("attribute %q: packed ints: %v", a.Name, protowire.ParseError(n))
					}
					a.Ints = append(a.Ints, int64(x))
					p += n
				}
			default:
				return bad()
			}
		case 9:
			if typ != protowire.BytesType {
				return bad()
			}
			a.Strings = append(a.Strings, val)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	if a.Type == AttrUndefined {
		a.Type = a.guessType()
	}
	return a, nil
}

// guessType fills in the type of an attribute written without one (IR
// version 1 files), from the field that is set.
func (a *Attr) guessType() AttrType {
	switch {
	case a.T != nil:
		return AttrTensor
	case a.G != nil:
		return AttrGraph
	case a.Floats != nil:
		return AttrFloats
	case a.Ints != nil:
		return AttrInts
	case a.Strings != nil:
		return AttrStrings
	case a.Tensors != nil:
		return AttrTensors
	case a.Graphs != nil:
		return AttrGraphs
	case a.S != nil:
		return AttrString
	case a.F != 0:
		return AttrFloat
	}
	return AttrInt
}

func valueInfo(b []byte, base int64) (*ValueInfo, error) {
	vi := &ValueInfo{}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, off int64) error {
		switch num {
		case 1, 2:
		default:
			return nil
		}
		if typ != protowire.BytesType {
			return wireErr("ValueInfoProto", num, typ)
		}
		if num == 1 {
			vi.Name = string(val)
			return nil
		}
		t, err := typeInfo(val, off, 0)
		vi.Type = t
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("value %q: %w", vi.Name, err)
	}
	return vi, nil
}

func typeInfo(b []byte, base int64, depth int) (TypeInfo, error) {
	var t TypeInfo
	if depth >= MaxDepth {
		return t, fmt.Errorf("types nested more than %d deep", MaxDepth)
	}
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, off int64) error {
		switch num {
		case 1, 4, 5, 8, 9:
		default:
			return nil
		}
		if typ != protowire.BytesType {
			return wireErr("TypeProto", num, typ)
		}
		switch num {
		case 1, 8:
			t.Kind = TypeTensor
			if num == 8 {
				t.Kind = TypeSparseTensor
			}
			return tensorType(&t, val, off)
		case 4, 9:
			t.Kind = TypeSequence
			if num == 9 {
				t.Kind = TypeOptional
			}
			return walk(val, off, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, off int64) error {
				if num != 1 {
					return nil
				}
				if typ != protowire.BytesType {
					return wireErr("TypeProto.Sequence", num, typ)
				}
				in, err := typeInfo(val, off, depth+1)
				t.Inner = &in
				return err
			})
		case 5:
			t.Kind = TypeMap
		}
		return nil
	})
	return t, err
}

func tensorType(t *TypeInfo, b []byte, base int64) error {
	return walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, off int64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			t.Elem = DataType(int32(v))
		case num == 2 && typ == protowire.BytesType:
			t.HasShape = true
			return walk(val, off, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte, _ int64) error {
				if num != 1 {
					return nil
				}
				if typ != protowire.BytesType {
					return wireErr("TensorShapeProto", num, typ)
				}
				if len(t.Shape) >= MaxRank {
					return fmt.Errorf("declared shape of more than %d dimensions", MaxRank)
				}
				var d Dim
				err := walk(val, 0, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, _ int64) error {
					switch {
					case num == 1 && typ == protowire.VarintType:
						d.Value, d.HasValue = int64(v), true
					case num == 2 && typ == protowire.BytesType:
						d.Param = string(val)
					case num == 1 || num == 2:
						return wireErr("TensorShapeProto.Dimension", num, typ)
					}
					return nil
				})
				t.Shape = append(t.Shape, d)
				return err
			})
		case num == 1 || num == 2:
			return wireErr("TypeProto.Tensor", num, typ)
		}
		return nil
	})
}
