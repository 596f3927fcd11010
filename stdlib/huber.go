package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("huber_loss", "huber_loss(input, target, reduction=\"mean\", delta=1.0): 0.5·d² where d = |input - target| < delta, else delta·(d - 0.5·delta) (broadcasting), as torch's F.huber_loss", huberLossBuiltin)
}

func huberLossBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	reduction := "mean"
	delta := 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "target", &t, "reduction?", &reduction, "delta?", &delta); err != nil {
		return nil, err
	}
	r, err := parseReduction(b.Name, reduction)
	if err != nil {
		return nil, err
	}
	if !(delta > 0) {
		return nil, fmt.Errorf("%s: delta must be positive, got %v", b.Name, delta)
	}
	c := newChain(th)
	d := c.Op(ops.Abs, nil, c.Op(ops.Sub, nil, x, t))
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	dt := d.DType()
	if !dt.IsFloat() {
		dt = tensor.Float32
	}
	quad := c.Op(ops.Mul, nil, c.Op(ops.Mul, nil, d, d), c.scalar(0.5, dt))
	lin := c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, d, c.scalar(0.5*delta, dt)), c.scalar(delta, dt))
	loss := c.Op(ops.Where, nil, c.Op(ops.Lt, nil, d, c.scalar(delta, dt)), quad, lin)
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}
