package stdlib

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's recurrent layers, composed of tref's ops (so grad and every
// device take them as they are): the cells of torch.lstm_cell, gru_cell,
// rnn_tanh_cell and rnn_relu_cell, and nn.LSTM, nn.GRU and nn.RNN's
// forward over a sequence as lstm, gru and rnn, whose parameters are a
// record under the names of the module's state_dict (weight_ih_l0,
// weight_hh_l0, bias_ih_l0, bias_hh_l0, the _reverse ones of a
// bidirectional layer, LSTM's weight_hr_l0 of proj_size), so that a
// PyTorch checkpoint's entries drive them unchanged. The input's
// projection x·W_ihᵀ + b_ih of every step is one matmul per layer and
// direction; the steps then run one after the other. A padded batch of
// sequences of their own lengths (what pack_padded_sequence packs) is
// the input with lengths=: past its length a sequence's state stays and
// its output is 0.

func init() {
	register("lstm_cell", "lstm_cell(input, hx, w_ih, w_hh, b_ih=none, b_hh=none): one step of an LSTM, as torch.lstm_cell (nn.LSTMCell): input [B, in] (or [in]), hx the list [h, c] of [B, H] each (none: zeros), w_ih [4H, in], w_hh [4H, H], biases [4H]; gates i, f, g, o from x·w_ihᵀ + b_ih + h·w_hhᵀ + b_hh, c' = σ(f)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c'); gives {h, c} (also read as [h, c])", rnnCellBuiltin(lstmKind))
	register("gru_cell", "gru_cell(input, hx, w_ih, w_hh, b_ih=none, b_hh=none): one step of a GRU, as torch.gru_cell (nn.GRUCell): input [B, in] (or [in]), hx [B, H] (none: zeros), w_ih [3H, in], w_hh [3H, H], biases [3H]; r, z = σ of the first two thirds of x·w_ihᵀ + b_ih + h·w_hhᵀ + b_hh, n = tanh(x·w_inᵀ + b_in + r·(h·w_hnᵀ + b_hn)), h' = (1 - z)·n + z·h", rnnCellBuiltin(gruKind))
	register("rnn_tanh_cell", "rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=none, b_hh=none): one step of an Elman RNN, as torch.rnn_tanh_cell (nn.RNNCell): h' = tanh(x·w_ihᵀ + b_ih + h·w_hhᵀ + b_hh) for input [B, in] (or [in]), hx [B, H] (none: zeros), w_ih [H, in], w_hh [H, H]", rnnCellBuiltin(tanhKind))
	register("rnn_relu_cell", "rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=none, b_hh=none): rnn_tanh_cell with relu for tanh, as torch.rnn_relu_cell (nn.RNNCell(nonlinearity=\"relu\"))", rnnCellBuiltin(reluKind))
	register("pad_sequence", "pad_sequence(sequences, batch_first=false, padding_value=0.0, padding_side=\"right\"): the list of tensors [L_i, *] (one trailing shape and dtype) padded with padding_value to the longest and stacked into [T, B, *] ([B, T, *] with batch_first), as torch.nn.utils.rnn.pad_sequence (padding_side \"left\" pads in front, as torch 2.6's)", padSequenceBuiltin)
	register("lstm", "lstm(input, params, hx=none, batch_first=false, dropout=0.0, train=true, lengths=none): nn.LSTM's forward: input [T, B, in] ([B, T, in] with batch_first, [T, in] unbatched), params a record under nn.LSTM's state_dict names (weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, weight_hr_l{k} of proj_size, the same with _reverse for bidirectional; the layers, directions, bias and projection read from which are there), hx the list [h_0, c_0] of [layers·directions, B, H_out] and [..., B, H] (none: zeros); dropout on each layer's output but the last while train; lengths (a list of ints or a 1-d int tensor, one per sequence of the batch) runs each sequence to its own length, as pack_padded_sequence(x, lengths, enforce_sorted=false), lstm and pad_packed_sequence(total_length=T) do: the output 0 past each length, h_n and c_n from each one's last step (the reverse direction starts there); gives {output, hidden: {h_n, c_n}}, also read as torch's (output, (h_n, c_n)): let out, (h, c) = lstm(x, p)", rnnBuiltin(lstmKind))
	register("gru", "gru(input, params, hx=none, batch_first=false, dropout=0.0, train=true, lengths=none): nn.GRU's forward (see lstm for input, params, dropout and lengths; gru_cell for the step): hx h_0 [layers·directions, B, H] (none: zeros); gives {output, h_n}, also read as torch's (output, h_n)", rnnBuiltin(gruKind))
	register("rnn", "rnn(input, params, hx=none, nonlinearity=\"tanh\", batch_first=false, dropout=0.0, train=true, lengths=none): nn.RNN's forward (see lstm for input, params, dropout and lengths): h_t = tanh (or relu) of x_t·W_ihᵀ + b_ih + h_{t-1}·W_hhᵀ + b_hh; hx h_0 [layers·directions, B, H] (none: zeros); gives {output, h_n}, also read as torch's (output, h_n)", rnnBuiltin(tanhKind))
}

// rnnKind is the recurrence of a cell.
type rnnKind int

const (
	lstmKind rnnKind = iota
	gruKind
	tanhKind
	reluKind
)

// gates is how many blocks of H rows the cell's weights stack.
func (k rnnKind) gates() int {
	switch k {
	case lstmKind:
		return 4
	case gruKind:
		return 3
	}
	return 1
}

// rnnWeights are one cell's parameters: bih and bhh nil without bias,
// whr nil without a projection.
type rnnWeights struct{ wih, whh, bih, bhh, whr *refs.Ref }

// hidden is H, the size of the cell's state.
func (w rnnWeights) hidden(k rnnKind) int { return w.wih.Shape()[0] / k.gates() }

// out is the size of the cell's h: H, or the projection's.
func (w rnnWeights) out(k rnnKind) int {
	if w.whr != nil {
		return w.whr.Shape()[0]
	}
	return w.hidden(k)
}

// check checks the shapes and dtypes of one cell's weights against the
// size of its input; what names them in errors.
func (w rnnWeights) check(fname, what string, k rnnKind, in int, dt tensor.DType) error {
	g := k.gates()
	ws := w.wih.Shape()
	if len(ws) != 2 || ws[0] == 0 || ws[0]%g != 0 {
		return fmt.Errorf("%s: %s weight_ih must be [%d·hidden_size, input_size], got shape %v", fname, what, g, ws)
	}
	h := ws[0] / g
	if ws[1] != in {
		return fmt.Errorf("%s: %s weight_ih is %v for an input of size %d: it must be [%d, %d]", fname, what, ws, in, g*h, in)
	}
	out := h
	if w.whr != nil {
		if s := w.whr.Shape(); len(s) != 2 || s[1] != h || s[0] == 0 || s[0] >= h {
			return fmt.Errorf("%s: %s weight_hr must be [proj_size, %d] with 0 < proj_size < %d, got shape %v", fname, what, h, h, s)
		}
		out = w.whr.Shape()[0]
	}
	if s := w.whh.Shape(); !s.Equal(tensor.Shape{g * h, out}) {
		return fmt.Errorf("%s: %s weight_hh must be [%d, %d], got shape %v", fname, what, g*h, out, s)
	}
	for _, b := range []struct {
		name string
		r    *refs.Ref
	}{{"bias_ih", w.bih}, {"bias_hh", w.bhh}} {
		if b.r != nil && !b.r.Shape().Equal(tensor.Shape{g * h}) {
			return fmt.Errorf("%s: %s %s must be [%d], got shape %v", fname, what, b.name, g*h, b.r.Shape())
		}
	}
	for _, r := range []*refs.Ref{w.wih, w.whh, w.bih, w.bhh, w.whr} {
		if r != nil && r.DType() != dt {
			return fmt.Errorf("%s: %s weights must have the input's dtype %s, got %s", fname, what, dt, r.DType())
		}
	}
	return nil
}

// sliceAlong is positions [a, b) of x along dimension d (x itself when
// that is all of it).
func (c *chain) sliceAlong(x *refs.Ref, d, a, b int) *refs.Ref {
	if x == nil {
		return nil
	}
	if a == 0 && x.Shape()[d] == b {
		return x
	}
	return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, a, b)}, x)
}

// affine is x·wᵀ (+ b) for x [B, in] and w [out, in] given as wt = wᵀ.
func (c *chain) affine(x, wt, b *refs.Ref) *refs.Ref {
	y := c.Op(ops.Matmul, nil, x, wt)
	if b != nil {
		y = c.Op(ops.Add, nil, y, b)
	}
	return y
}

// cellStep is one step of the cell from xw = x·W_ihᵀ + b_ih [B, G·H],
// the state h [B, H_out] (and LSTM's cell state cs [B, H]), given
// whhT = W_hhᵀ and whrT = W_hrᵀ (nil without a projection): the next h
// (and cs).
func (c *chain) cellStep(k rnnKind, xw, h, cs, whhT, bhh, whrT *refs.Ref, hsize int) (*refs.Ref, *refs.Ref) {
	hw := c.affine(h, whhT, bhh)
	gate := func(t *refs.Ref, i int) *refs.Ref { return c.sliceAlong(t, 1, i*hsize, (i+1)*hsize) }
	switch k {
	case lstmKind:
		g := c.Op(ops.Add, nil, xw, hw)
		// one sigmoid over the four gates (the candidate's quarter is
		// not used): fewer, larger ops than one per gate
		sg := c.Op(ops.Sigmoid, nil, g)
		in, forget, outg := gate(sg, 0), gate(sg, 1), gate(sg, 3)
		cand := c.Op(ops.Tanh, nil, gate(g, 2))
		cs2 := c.Op(ops.Add, nil, c.Op(ops.Mul, nil, forget, cs), c.Op(ops.Mul, nil, in, cand))
		h2 := c.Op(ops.Mul, nil, outg, c.Op(ops.Tanh, nil, cs2))
		if whrT != nil {
			h2 = c.Op(ops.Matmul, nil, h2, whrT)
		}
		return h2, cs2
	case gruKind:
		r := c.Op(ops.Sigmoid, nil, c.Op(ops.Add, nil, gate(xw, 0), gate(hw, 0)))
		z := c.Op(ops.Sigmoid, nil, c.Op(ops.Add, nil, gate(xw, 1), gate(hw, 1)))
		n := c.Op(ops.Tanh, nil, c.Op(ops.Add, nil, gate(xw, 2), c.Op(ops.Mul, nil, r, gate(hw, 2))))
		// (1 - z)·n + z·h = n + z·(h - n), as torch's kernel
		return c.Op(ops.Add, nil, n, c.Op(ops.Mul, nil, z, c.Op(ops.Sub, nil, h, n))), nil
	case reluKind:
		return c.Op(ops.Relu, nil, c.Op(ops.Add, nil, xw, hw)), nil
	}
	return c.Op(ops.Tanh, nil, c.Op(ops.Add, nil, xw, hw)), nil
}

// zeros2 is a [rows, cols] zero tensor of dtype dt.
func (c *chain) zeros2(rows, cols int, dt tensor.DType) *refs.Ref {
	return c.Expand(c.scalar(0, dt), tensor.Shape{rows, cols})
}

func rnnCellBuiltin(k rnnKind) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, wih, whh *refs.Ref
		var hx eval.Value
		bihV, bhhV := eval.Value(eval.None), eval.Value(eval.None)
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "hx", &hx, "w_ih", &wih, "w_hh", &whh, "b_ih?", &bihV, "b_hh?", &bhhV); err != nil {
			return nil, err
		}
		w := rnnWeights{wih: wih, whh: whh}
		for _, o := range []struct {
			name string
			v    eval.Value
			to   **refs.Ref
		}{{"b_ih", bihV, &w.bih}, {"b_hh", bhhV, &w.bhh}} {
			rs, err := withOptional(th, b.Name, o.name, nil, o.v)
			if err != nil {
				return nil, err
			}
			if len(rs) == 1 {
				*o.to = rs[0]
			}
		}
		xs := x.Shape()
		if !x.DType().IsFloat() || (len(xs) != 1 && len(xs) != 2) {
			return nil, fmt.Errorf("%s: input must be a float tensor [batch, input_size] or [input_size], got %s %v", b.Name, x.DType(), xs)
		}
		if err := w.check(b.Name, "the cell's", k, xs[len(xs)-1], x.DType()); err != nil {
			return nil, err
		}
		batched := len(xs) == 2
		rows := 1
		if batched {
			rows = xs[0]
		}
		hsize, hout := w.hidden(k), w.out(k)
		lead := tensor.Shape{}
		if batched {
			lead = tensor.Shape{rows}
		}
		states, err := hiddenStates(b.Name, k, hx, [2]string{"h", "c"}, lead, hsize, hout, x.DType())
		if err != nil {
			return nil, err
		}
		c := newChain(th)
		in := c.Reshape(x, tensor.Shape{rows, xs[len(xs)-1]})
		h := c.zeros2(rows, hout, x.DType())
		var cs *refs.Ref
		if states != nil {
			h = c.Reshape(states[0], tensor.Shape{rows, hout})
		}
		if k == lstmKind {
			cs = c.zeros2(rows, hsize, x.DType())
			if states != nil {
				cs = c.Reshape(states[1], tensor.Shape{rows, hsize})
			}
		}
		xw := c.affine(in, c.Transpose(w.wih), w.bih)
		h2, cs2 := c.cellStep(k, xw, h, cs, c.Transpose(w.whh), w.bhh, nil, hsize)
		if !batched {
			h2 = c.Reshape(h2, tensor.Shape{hout})
			cs2 = c.Reshape(cs2, tensor.Shape{hsize})
		}
		if k == lstmKind {
			return c.Record([]string{"h", "c"}, h2, cs2)
		}
		return c.Result(h2)
	}
}

// hiddenStates reads the hx of a cell or a sequence: none (nil: zeros),
// the tensor h (GRU, RNN) or the list [h, c] (LSTM, names[1] c), each
// of shape lead + [its size] and of dtype dt.
func hiddenStates(fname string, k rnnKind, hx eval.Value, names [2]string, lead tensor.Shape, hsize, hout int, dt tensor.DType) ([]*refs.Ref, error) {
	if _, none := hx.(eval.NoneType); none {
		return nil, nil
	}
	vs, sizes := []eval.Value{hx}, []int{hout}
	if k == lstmKind {
		l, ok := listElems(hx)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("%s: hx must be the list [%s, %s] (or none), not %s", fname, names[0], names[1], eval.Describe(hx))
		}
		vs, sizes = l, []int{hout, hsize}
	}
	out := make([]*refs.Ref, len(vs))
	for i, v := range vs {
		t, ok := v.(eval.Tensor)
		if !ok {
			return nil, fmt.Errorf("%s: %s must be a tensor, not %s", fname, names[i], eval.Describe(v))
		}
		want := append(slices.Clone(lead), sizes[i])
		if s := t.Ref.Shape(); !s.Equal(want) || t.Ref.DType() != dt {
			return nil, fmt.Errorf("%s: %s must be %s %v, got %s %v", fname, names[i], dt, want, t.Ref.DType(), s)
		}
		out[i] = t.Ref
	}
	return out, nil
}

// listElems gives the elements of a list or of a record read by
// position (a result such as lstm_cell's {h, c}).
func listElems(v eval.Value) ([]eval.Value, bool) {
	switch v := v.(type) {
	case *eval.List:
		return v.Elems, true
	case *eval.Record:
		return v.Values, v.Positional
	}
	return nil, false
}

// rnnLayers reads a recurrent module's parameters from a record of its
// state_dict names: per layer and direction one cell's weights. Which
// names are there says the layers, the directions, the bias and the
// projection; every one of those must be there, and nothing else.
func rnnLayers(fname string, k rnnKind, params eval.Value) ([][]rnnWeights, error) {
	p, err := asStateDict(fname, params, "weight_ih_l0, ...")
	if err != nil {
		return nil, err
	}
	has := func(name string) bool { _, ok := p.Get(name); return ok }
	bias, proj := has("bias_ih_l0"), has("weight_hr_l0")
	if proj && k != lstmKind {
		return nil, fmt.Errorf("%s: params has weight_hr_l0, a projection only lstm takes", fname)
	}
	dirs := []string{""}
	if has("weight_ih_l0_reverse") {
		dirs = append(dirs, "_reverse")
	}
	n := 0
	for has("weight_ih_l" + strconv.Itoa(n)) {
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: params must hold the module's weights under its state_dict names (weight_ih_l0, weight_hh_l0, ...), got the keys %v", fname, p.rec.Keys)
	}
	fields := []string{"weight_ih", "weight_hh"}
	if bias {
		fields = append(fields, "bias_ih", "bias_hh")
	}
	if proj {
		fields = append(fields, "weight_hr")
	}
	var names []string
	for l := range n {
		for _, d := range dirs {
			for _, f := range fields {
				names = append(names, f+"_l"+strconv.Itoa(l)+d)
			}
		}
	}
	for _, key := range p.rec.Keys {
		if !slices.Contains(names, key) {
			return nil, fmt.Errorf("%s: params has %q, which is not a weight of this %d-layer %s (its names: %v)", fname, key, n, fname, names)
		}
	}
	layers := make([][]rnnWeights, n)
	at := 0
	for l := range n {
		for range dirs {
			var w rnnWeights
			targets := []**refs.Ref{&w.wih, &w.whh}
			if bias {
				targets = append(targets, &w.bih, &w.bhh)
			}
			if proj {
				targets = append(targets, &w.whr)
			}
			for _, to := range targets {
				name := names[at]
				at++
				if *to, err = p.ref(fname, name, true); err != nil {
					return nil, err
				}
			}
			layers[l] = append(layers[l], w)
		}
	}
	return layers, nil
}

func rnnBuiltin(kind rnnKind) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		k := kind // rnn's nonlinearity may make it relu
		var x *refs.Ref
		var params eval.Value
		hx := eval.Value(eval.None)
		var batchFirst bool
		dropout, train, nonlin := 0.0, true, "tanh"
		lengthsV := eval.Value(eval.None)
		pairs := []any{"input", &x, "params", &params, "hx?", &hx, "batch_first?", &batchFirst, "dropout?", &dropout, "train|training?", &train, "lengths?", &lengthsV}
		if k == tanhKind {
			pairs = append(pairs, "nonlinearity?", &nonlin)
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		switch nonlin {
		case "tanh":
		case "relu":
			k = reluKind
		default:
			return nil, fmt.Errorf("%s: unknown nonlinearity %q (torch's are \"tanh\" and \"relu\")", b.Name, nonlin)
		}
		if !(dropout >= 0 && dropout <= 1) {
			return nil, fmt.Errorf("%s: dropout should be a number in range [0, 1] representing the probability of an element being zeroed, got %v", b.Name, dropout)
		}
		layers, err := rnnLayers(b.Name, k, params)
		if err != nil {
			return nil, err
		}
		xs := x.Shape()
		if !x.DType().IsFloat() || (len(xs) != 2 && len(xs) != 3) {
			return nil, fmt.Errorf("%s: input must be a float tensor [seq, batch, input_size] ([batch, seq, input_size] with batch_first, [seq, input_size] unbatched), got %s %v", b.Name, x.DType(), xs)
		}
		batched := len(xs) == 3
		steps, rows := xs[0], 1
		if batched {
			steps, rows = xs[0], xs[1]
			if batchFirst {
				steps, rows = xs[1], xs[0]
			}
		}
		in := xs[len(xs)-1]
		for l, layer := range layers {
			for d, w := range layer {
				what := fmt.Sprintf("layer %d's", l)
				if d == 1 {
					what = fmt.Sprintf("layer %d's reverse", l)
				}
				if err := w.check(b.Name, what, k, in, x.DType()); err != nil {
					return nil, err
				}
			}
			in = len(layer) * layer[0].out(k)
		}
		dirs, hsize, hout := len(layers[0]), layers[0][0].hidden(k), layers[0][0].out(k)
		for _, layer := range layers {
			for _, w := range layer {
				if w.hidden(k) != hsize || w.out(k) != hout {
					return nil, fmt.Errorf("%s: every layer must have one hidden size: layer 0's is %d, another's %d", b.Name, hsize, w.hidden(k))
				}
			}
		}
		n := len(layers) * dirs
		lead := tensor.Shape{n}
		if batched {
			lead = tensor.Shape{n, rows}
		}
		states, err := hiddenStates(b.Name, k, hx, [2]string{"h_0", "c_0"}, lead, hsize, hout, x.DType())
		if err != nil {
			return nil, err
		}
		if _, err := tensor.CheckedNumel(tensor.Shape{steps, rows, 4 * hsize * dirs}); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		lens, err := sequenceLengths(th, b.Name, lengthsV, batched, steps, rows)
		if err != nil {
			return nil, err
		}
		c := newChain(th)
		// live[t] is the bool [B, 1] mask of the sequences t is within
		// (nil where it is within all)
		live := make([]*refs.Ref, steps)
		for t := range steps {
			m := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{rows, 1}, DType: tensor.Bool})
			all := true
			for i, n := range lens {
				if t < n {
					m.Set(i, 1)
				} else {
					all = false
				}
			}
			if !all {
				live[t] = c.Host(m)
			}
		}
		// seq [T, B, in], the layers' input
		seq := x
		switch {
		case !batched:
			seq = c.Reshape(x, tensor.Shape{steps, 1, xs[1]})
		case batchFirst:
			seq = c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, x)
		}
		state := func(i, j, size int) *refs.Ref {
			if states == nil {
				return c.zeros2(rows, size, x.DType())
			}
			return c.Reshape(c.sliceAlong(states[i], 0, j, j+1), tensor.Shape{rows, size})
		}
		var hn, cn []*refs.Ref
		for l, layer := range layers {
			var outs []*refs.Ref
			for d, w := range layer {
				j := l*dirs + d
				h := state(0, j, hout)
				var cs *refs.Ref
				if k == lstmKind {
					cs = state(1, j, hsize)
				}
				width := seq.Shape()[2]
				xw := c.affine(c.Reshape(seq, tensor.Shape{steps * rows, width}), c.Transpose(w.wih), w.bih)
				bhh := w.bhh
				if bhh != nil && k != gruKind {
					// b_hh added to every step's input projection at
					// once (GRU's n gate takes it inside r·(...))
					xw, bhh = c.Op(ops.Add, nil, xw, bhh), nil
				}
				xw = c.Reshape(xw, tensor.Shape{steps, rows, k.gates() * hsize})
				whhT := c.Transpose(w.whh)
				var whrT *refs.Ref
				if w.whr != nil {
					whrT = c.Transpose(w.whr)
				}
				hs := make([]*refs.Ref, steps)
				for s := range steps {
					t := s
					if d == 1 {
						t = steps - 1 - s
					}
					xt := c.Reshape(c.sliceAlong(xw, 0, t, t+1), tensor.Shape{rows, k.gates() * hsize})
					h2, cs2 := c.cellStep(k, xt, h, cs, whhT, bhh, whrT, hsize)
					if live[t] == nil {
						h, cs, hs[t] = h2, cs2, h2
						continue
					}
					// past a sequence's length its state stays and its
					// output is 0 (the reverse pass starts at its end)
					h = c.Op(ops.Where, nil, live[t], h2, h)
					if cs != nil {
						cs = c.Op(ops.Where, nil, live[t], cs2, cs)
					}
					hs[t] = c.Op(ops.Where, nil, live[t], h2, c.scalar(0, x.DType()))
				}
				hn, cn = append(hn, h), append(cn, cs)
				if steps == 0 {
					outs = append(outs, c.zeros3(0, rows, hout, x.DType()))
				} else {
					outs = append(outs, c.Op(ops.Stack, ops.CatAttrs{Dim: 0}, hs...))
				}
			}
			seq = outs[0]
			if len(outs) == 2 {
				seq = c.Op(ops.Cat, ops.CatAttrs{Dim: 2}, outs...)
			}
			if l < len(layers)-1 && train && dropout > 0 {
				seq = c.dropout(b.Name, seq, dropout)
			}
		}
		output := seq
		hN := c.Op(ops.Stack, ops.CatAttrs{Dim: 0}, hn...)
		var cN *refs.Ref
		if k == lstmKind {
			cN = c.Op(ops.Stack, ops.CatAttrs{Dim: 0}, cn...)
		}
		switch {
		case !batched:
			output = c.Reshape(output, tensor.Shape{steps, dirs * hout})
			hN = c.Reshape(hN, tensor.Shape{n, hout})
			if cN != nil {
				cN = c.Reshape(cN, tensor.Shape{n, hsize})
			}
		case batchFirst:
			output = c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, output)
		}
		if k != lstmKind {
			return c.Record([]string{"output", "h_n"}, output, hN)
		}
		return c.nestedRecord(output, hN, cN)
	}
}

// sequenceLengths reads the lengths of the batch's sequences: a list of
// ints or a 1-d integer tensor of one per row, each in [1, steps]; none
// (nil) is steps each.
func sequenceLengths(th *eval.Thread, fname string, v eval.Value, batched bool, steps, rows int) ([]int, error) {
	if _, none := v.(eval.NoneType); none {
		return nil, nil
	}
	if !batched {
		return nil, fmt.Errorf("%s: lengths needs a batched input (one sequence has its own length)", fname)
	}
	var lens []int
	if t, ok := v.(eval.Tensor); ok {
		if !t.Ref.DType().IsInt() || len(t.Ref.Shape()) != 1 {
			return nil, fmt.Errorf("%s: lengths must be a list of ints or a 1-d int tensor, got %s %v", fname, t.Ref.DType(), t.Ref.Shape())
		}
		vs, err := readInts(th, t.Ref)
		if err != nil {
			return nil, err
		}
		for _, n := range vs {
			lens = append(lens, int(max(min(n, int64(steps)+1), -1)))
		}
	} else if err := eval.UnpackArgs(th, fname, []eval.Value{v}, nil, "lengths", &lens); err != nil {
		return nil, err
	}
	if len(lens) != rows {
		return nil, fmt.Errorf("%s: lengths has %d entries for a batch of %d", fname, len(lens), rows)
	}
	for i, n := range lens {
		if n < 1 || n > steps {
			return nil, fmt.Errorf("%s: lengths[%d] is %d: each must be in [1, %d] (the input's steps)", fname, i, n, steps)
		}
	}
	return lens, nil
}

// zeros3 is a [a, b, d] zero tensor of dtype dt.
func (c *chain) zeros3(a, b, d int, dt tensor.DType) *refs.Ref {
	return c.Expand(c.scalar(0, dt), tensor.Shape{a, b, d})
}

// dropout zeroes each element of x with probability p from the script's
// stream and scales the rest by 1/(1-p), as the dropout builtin.
func (c *chain) dropout(fname string, x *refs.Ref, p float64) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	mask, err := newHost(c.Thread(), fname, x.Shape(), tensor.Bool)
	if err != nil {
		c.Fail(err)
		return nil
	}
	c.Thread().Rand().FillBernoulli(mask.U8(), 1-p)
	return c.Op(ops.Dropout, ops.DropoutAttrs{P: p}, x, c.Host(mask))
}

// nestedRecord is lstm's result {output, hidden: {h_n, c_n}}, both
// records also read by position, or the chain's error.
func (c *chain) nestedRecord(output, hN, cN *refs.Ref) (eval.Value, error) {
	if c.Err() != nil || output == nil || hN == nil || cN == nil {
		c.Release()
		return nil, c.Err()
	}
	rt := c.Thread().RT
	for _, r := range []*refs.Ref{output, hN, cN} {
		rt.Retain(r)
	}
	c.Release()
	hidden := eval.NewResult([]string{"h_n", "c_n"}, []eval.Value{eval.Tensor{Ref: hN}, eval.Tensor{Ref: cN}})
	return eval.NewResult([]string{"output", "hidden"}, []eval.Value{eval.Tensor{Ref: output}, hidden}), nil
}

func padSequenceBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var seqs []*refs.Ref
	var batchFirst bool
	value, side := 0.0, "right"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "sequences", &seqs, "batch_first?", &batchFirst, "padding_value?", &value, "padding_side?", &side); err != nil {
		return nil, err
	}
	if side != "right" && side != "left" {
		return nil, fmt.Errorf("%s: padding_side must be \"right\" or \"left\", not %q", b.Name, side)
	}
	if len(seqs) == 0 {
		return nil, fmt.Errorf("%s: sequences must not be empty", b.Name)
	}
	first := seqs[0].Shape()
	if len(first) == 0 {
		return nil, fmt.Errorf("%s: each sequence needs a length dimension, got a 0-d tensor", b.Name)
	}
	longest := 0
	for i, r := range seqs {
		s := r.Shape()
		if len(s) == 0 || !s[1:].Equal(first[1:]) || r.DType() != seqs[0].DType() {
			return nil, fmt.Errorf("%s: sequences[%d] is %s %v, sequences[0] %s %v: they must differ in their length only", b.Name, i, r.DType(), s, seqs[0].DType(), first)
		}
		longest = max(longest, s[0])
	}
	if _, err := tensor.CheckedNumel(append(tensor.Shape{longest, len(seqs)}, first[1:]...)); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	padded := make([]*refs.Ref, len(seqs))
	for i, r := range seqs {
		padded[i] = r
		if n := longest - r.Shape()[0]; n > 0 {
			fill := c.Expand(c.scalar(value, r.DType()), append(tensor.Shape{n}, first[1:]...))
			parts := []*refs.Ref{r, fill}
			if side == "left" {
				parts = []*refs.Ref{fill, r}
			}
			padded[i] = c.Op(ops.Cat, ops.CatAttrs{Dim: 0}, parts...)
		}
	}
	dim := 1
	if batchFirst {
		dim = 0
	}
	return c.Result(c.Op(ops.Stack, ops.CatAttrs{Dim: dim}, padded...))
}
