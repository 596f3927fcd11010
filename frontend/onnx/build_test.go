package onnx

import (
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// A small ONNX encoder for tests: each function returns one message's
// bytes, built with protowire from onnx.proto's field numbers.

func fBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func fString(b []byte, num protowire.Number, s string) []byte { return fBytes(b, num, []byte(s)) }

func fVarint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// encModel is a ModelProto of one graph and the default opset at version.
func encModel(opset int64, graph []byte) []byte {
	var b []byte
	b = fVarint(b, 1, 8)
	b = fString(b, 2, "tref-test")
	b = fBytes(b, 8, fVarint(fString(nil, 1, ""), 2, opset))
	return fBytes(b, 7, graph)
}

// encGraph holds nodes, initializers, inputs and outputs, in that order.
func encGraph(nodes, inits, inputs, outputs [][]byte) []byte {
	b := fString(nil, 2, "g")
	for _, n := range nodes {
		b = fBytes(b, 1, n)
	}
	for _, t := range inits {
		b = fBytes(b, 5, t)
	}
	for _, v := range inputs {
		b = fBytes(b, 11, v)
	}
	for _, v := range outputs {
		b = fBytes(b, 12, v)
	}
	return b
}

func encNode(op string, ins, outs []string, attrs ...[]byte) []byte {
	var b []byte
	for _, s := range ins {
		b = fString(b, 1, s)
	}
	for _, s := range outs {
		b = fString(b, 2, s)
	}
	b = fString(b, 3, op+"_node")
	b = fString(b, 4, op)
	for _, a := range attrs {
		b = fBytes(b, 5, a)
	}
	return b
}

func encAttrInt(name string, v int64) []byte {
	return fVarint(fVarint(fString(nil, 1, name), 20, int64(AttrInt)), 3, v)
}

func encAttrInts(name string, vs ...int64) []byte {
	b := fVarint(fString(nil, 1, name), 20, int64(AttrInts))
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return fBytes(b, 8, p)
}

func encAttrGraph(name string, g []byte) []byte {
	return fBytes(fVarint(fString(nil, 1, name), 20, int64(AttrGraph)), 6, g)
}

func encAttrTensor(name string, t []byte) []byte {
	return fBytes(fVarint(fString(nil, 1, name), 20, int64(AttrTensor)), 5, t)
}

// encTensorF32 is a float tensor with raw_data.
func encTensorF32(name string, dims []int64, vals []float32) []byte {
	b := encTensorHead(name, Float, dims)
	raw := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		raw = protowire.AppendFixed32(raw, math.Float32bits(v))
	}
	return fBytes(b, 9, raw)
}

// encTensorI64 is an int64 tensor in packed int64_data.
func encTensorI64(name string, dims []int64, vals []int64) []byte {
	b := encTensorHead(name, Int64, dims)
	var p []byte
	for _, v := range vals {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return fBytes(b, 7, p)
}

func encTensorHead(name string, dt DataType, dims []int64) []byte {
	var b []byte
	for _, d := range dims {
		b = fVarint(b, 1, d)
	}
	b = fVarint(b, 2, int64(dt))
	return fString(b, 8, name)
}

// encExternal is a float tensor whose data is in another file.
func encExternal(name string, dims []int64, location string, offset, length int64) []byte {
	b := encTensorHead(name, Float, dims)
	entry := func(k, v string) []byte { return fString(fString(nil, 1, k), 2, v) }
	b = fBytes(b, 13, entry("location", location))
	b = fBytes(b, 13, entry("offset", itoa(offset)))
	b = fBytes(b, 13, entry("length", itoa(length)))
	return fVarint(b, 14, 1)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// encValue is a ValueInfoProto of a tensor with the given dims; a
// negative dim is written as the symbol "N".
func encValue(name string, dt DataType, dims ...int64) []byte {
	var shape []byte
	for _, d := range dims {
		if d < 0 {
			shape = fBytes(shape, 1, fString(nil, 2, "N"))
		} else {
			shape = fBytes(shape, 1, fVarint(nil, 1, d))
		}
	}
	tt := fBytes(fVarint(nil, 1, int64(dt)), 2, shape)
	return fBytes(fString(nil, 1, name), 2, fBytes(nil, 1, tt))
}
