package onnx

import (
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The small host constants the lowering hands to runtime ops (the scalars
// of activations, short per-channel vectors) become refs once per program
// instead of a copy and a new ref on every call: in a small model they are
// a quarter of its nodes' inputs.

// smallMax bounds the bytes of a cached constant.
const smallMax = 128

// smallKey is a small constant's value: dtype, shape (rank ≤ 4) and bytes.
type smallKey struct {
	dt    tensor.DType
	rank  int
	shape [4]int
	n     int
	b     [smallMax]byte
}

// smallRefs holds one reference to each cached constant's ref, all on rt.
type smallRefs struct {
	rt   *refs.Runtime
	refs map[smallKey]*refs.Ref
}

// smallRef returns a ref holding d's value with one reference for the
// caller, from the program's cache (made at site the first time), or nil
// when d is too large to cache or rt is not the runtime the cache is on.
func (p *Program) smallRef(rt *refs.Runtime, site refs.Site, d *tensor.Dense) *refs.Ref {
	if len(d.Buf) > smallMax || len(d.Shape) > 4 || (p.small.rt != nil && p.small.rt != rt) {
		return nil
	}
	k := smallKey{dt: d.DType, rank: len(d.Shape), n: len(d.Buf)}
	copy(k.shape[:], d.Shape)
	copy(k.b[:], d.Buf)
	if r, ok := p.small.refs[k]; ok {
		rt.Retain(r)
		return r
	}
	if p.small.refs == nil {
		p.small = smallRefs{rt: rt, refs: map[smallKey]*refs.Ref{}}
	}
	r := rt.FromHost(site, d.Clone())
	rt.Retain(r)
	p.small.refs[k] = r
	return r
}

// releaseSmall drops the cache's references.
func (p *Program) releaseSmall() {
	for _, r := range p.small.refs {
		p.small.rt.Release(r)
	}
	p.small = smallRefs{}
}
