package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of matmul, linear and outer (see grad.go).

func init() {
	defineGrads(map[Op]*Grad{
		Matmul: {Saves: []int{0, 1}, VJP: matmulGrad},
		Linear: {Saves: []int{0, 1}, VJP: linearGrad},
		// c = aᵀ·b: ga = b·gᵀ (linear(b, g)), gb = a·g.
		MatmulTN: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{
				needed(a, 0, func() T { return b.Op(Linear, nil, a.X[1], g) }),
				needed(a, 1, func() T { return b.Matmul(a.X[0], g) }),
			}
		}},
		Outer: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{
				needed(a, 0, func() T { return b.Matmul(g, a.X[1]) }),
				needed(a, 1, func() T { return b.Matmul(a.X[0], g) }),
			}
		}},
	})
}

// matmulGrad treats a 1-d operand as a matrix of one row (a) or one column
// (b), as matmul does: ga = g·bᵀ and gb = aᵀ·g, summed over broadcast batch
// dimensions. With a matrix b, ga is linear(g, b) and gb one matmul_tn over
// a's rows of every batch, so neither transpose is materialised.
func matmulGrad(b *Builder, a *GradArgs, g T) []T {
	x, y := a.X[0], a.X[1]
	xs, ys := a.In[0].Shape, a.In[1].Shape
	d, err := MatmulLayout(xs, ys)
	if err != nil {
		b.Fail(err)
		return []T{nil, nil}
	}
	x2s, y2s := xs, ys
	if len(xs) == 1 {
		x2s = tensor.Shape{1, xs[0]}
	}
	if len(ys) == 1 {
		y2s = tensor.Shape{ys[0], 1}
	}
	g2 := b.Reshape(g, append(d.Batch.Clone(), d.M, d.N))
	if len(ys) == 2 {
		// A matrix y (x @ W): the products that read a transposed operand
		// in place, x's batch folded into its rows.
		rows := d.Batch.Numel() * d.M
		gx := needed(a, 0, func() T { return b.Reshape(b.Op(Linear, nil, g2, y), xs) })
		gy := needed(a, 1, func() T {
			return b.Op(MatmulTN, nil, b.Reshape(x, tensor.Shape{rows, d.K}), b.Reshape(g2, tensor.Shape{rows, d.N}))
		})
		return []T{gx, gy}
	}
	gx := needed(a, 0, func() T {
		gx := b.Matmul(g2, b.Transpose(b.Reshape(y, y2s)))
		return b.Reshape(b.SumTo(gx, x2s), xs)
	})
	gy := needed(a, 1, func() T {
		gy := b.Matmul(b.Transpose(b.Reshape(x, x2s)), g2)
		return b.Reshape(b.SumTo(gy, y2s), ys)
	})
	return []T{gx, gy}
}

// linearGrad: y = x·wᵀ + bias over rows of x.
func linearGrad(b *Builder, a *GradArgs, g T) []T {
	x, w := a.X[0], a.X[1]
	xs, ws := a.In[0].Shape, a.In[1].Shape
	in := xs[len(xs)-1]
	rows := xs[:len(xs)-1].Numel()
	gx := needed(a, 0, func() T {
		if len(ws) == 2 {
			return b.Matmul(g, w)
		}
		return b.Mul(b.Reshape(g, append(g.Meta().Shape.Clone(), 1)), w)
	})
	gw := needed(a, 1, func() T {
		x2 := b.Reshape(x, tensor.Shape{rows, in})
		if len(ws) == 2 {
			return b.Op(MatmulTN, nil, b.Reshape(g, tensor.Shape{rows, ws[0]}), x2)
		}
		return b.Matmul(b.Reshape(g, tensor.Shape{rows}), x2)
	})
	out := []T{gx, gw}
	if len(a.In) == 3 {
		out = append(out, g)
	}
	return out
}
