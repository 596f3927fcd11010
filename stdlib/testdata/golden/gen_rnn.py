"""Goldens of the recurrent layers (stdlib/rnn.go):
/usr/bin/python3 gen_rnn.py

The cells against torch.lstm_cell, gru_cell, rnn_tanh_cell and
rnn_relu_cell (an unbatched input and a none hx as nn.LSTMCell and its
kin take them: unsqueezed, zeros); lstm, gru and rnn against nn.LSTM,
nn.GRU and nn.RNN's forward, their state_dict passed as tref's params
record: several layers, bidirectional, batch_first, without bias, with
proj_size, unbatched, with and without hx, relu. Results are compared
flattened: lstm's (output, (h_n, c_n)) as three tensors. Then gradients
(with respect to the tensors passed directly: the input, the cells'
weights, a GRU's hx) and the errors of bad parameters.
"""

import torch
import torch.nn as nn

from gen_common import Golden

torch.manual_seed(1917)
g = Golden("rnn")


def rn(*shape):
    return torch.randn(*shape)


CELLS = {
    "lstm_cell": (torch.lstm_cell, 4),
    "gru_cell": (torch.gru_cell, 3),
    "rnn_tanh_cell": (torch.rnn_tanh_cell, 1),
    "rnn_relu_cell": (torch.rnn_relu_cell, 1),
}


def cell_ref(name):
    fn, _ = CELLS[name]

    def ref(x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        batched = x.dim() == 2
        xb = x if batched else x.unsqueeze(0)
        hsize = w_hh.shape[1]
        if hx is None:
            z = torch.zeros(xb.shape[0], hsize, dtype=x.dtype)
            hx = (z, z) if name == "lstm_cell" else z
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if name == "lstm_cell" else hx.unsqueeze(0)
        out = fn(xb, hx, w_ih, w_hh, b_ih, b_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if name == "lstm_cell" else out.squeeze(0)
        return list(out) if name == "lstm_cell" else out
    return ref


for name, (fn, gates) in CELLS.items():
    H, I, B = 5, 3, 4
    w = [rn(gates * H, I), rn(gates * H, H), rn(gates * H), rn(gates * H)]
    hx = [rn(B, H), rn(B, H)] if name == "lstm_cell" else rn(B, H)
    hx1 = [rn(H), rn(H)] if name == "lstm_cell" else rn(H)
    g.case(name + "/batched", name, cell_ref(name), [rn(B, I), hx] + w)
    g.case(name + "/zeros", name, cell_ref(name), [rn(B, I), None] + w)
    g.case(name + "/unbatched", name, cell_ref(name), [rn(I), hx1] + w)
    g.case(name + "/no-bias", name, cell_ref(name), [rn(B, I), hx] + w[:2])
    g.case(name + "/float64", name, cell_ref(name), [rn(B, I).double(), None] + [t.double() for t in w], rtol=1e-12, atol=1e-12)


def seq_case(label, cls, fn, x, hx=None, kwargs=None, **make):
    """cls(**make)'s forward of x (and hx) against tref's fn(x,
    state_dict, hx, **kwargs)."""
    kwargs = kwargs or {}
    m = cls(**make)
    sd = {k: v.detach().clone() for k, v in m.state_dict().items()}
    m.eval()
    with torch.no_grad():
        out, h = m(x, hx) if hx is not None else m(x)
    want = [out] + (list(h) if isinstance(h, tuple) else [h])
    args = [x, sd] + ([list(hx) if isinstance(hx, tuple) else hx] if hx is not None else [])
    kw = dict(kwargs)
    if make.get("batch_first"):
        kw["batch_first"] = True
    if make.get("nonlinearity"):
        kw["nonlinearity"] = make["nonlinearity"]
    if make.get("dropout"):
        kw["dropout"] = make["dropout"]
        kw["train"] = False
    g.expect("seq/" + label, fn, args, kw, want, atol=1e-5)


T, B, I, H = 6, 3, 4, 5
seq_case("lstm/one-layer", nn.LSTM, "lstm", rn(T, B, I), input_size=I, hidden_size=H)
seq_case("lstm/two-layers-hx", nn.LSTM, "lstm", rn(T, B, I), (rn(2, B, H), rn(2, B, H)), input_size=I, hidden_size=H, num_layers=2)
seq_case("lstm/bidirectional", nn.LSTM, "lstm", rn(T, B, I), input_size=I, hidden_size=H, num_layers=2, bidirectional=True)
seq_case("lstm/batch-first-hx", nn.LSTM, "lstm", rn(B, T, I), (rn(2, B, H), rn(2, B, H)), input_size=I, hidden_size=H, bidirectional=True, batch_first=True)
seq_case("lstm/no-bias", nn.LSTM, "lstm", rn(T, B, I), input_size=I, hidden_size=H, bias=False)
seq_case("lstm/proj", nn.LSTM, "lstm", rn(T, B, I), (rn(4, B, 2), rn(4, B, H)), input_size=I, hidden_size=H, proj_size=2, num_layers=2, bidirectional=True)
seq_case("lstm/unbatched", nn.LSTM, "lstm", rn(T, I), (rn(2, H), rn(2, H)), input_size=I, hidden_size=H, num_layers=2)
seq_case("lstm/eval-dropout", nn.LSTM, "lstm", rn(T, B, I), input_size=I, hidden_size=H, num_layers=2, dropout=0.5)
seq_case("gru/one-layer", nn.GRU, "gru", rn(T, B, I), input_size=I, hidden_size=H)
seq_case("gru/stacked-bidirectional-hx", nn.GRU, "gru", rn(T, B, I), rn(6, B, H), input_size=I, hidden_size=H, num_layers=3, bidirectional=True)
seq_case("gru/batch-first-no-bias", nn.GRU, "gru", rn(B, T, I), input_size=I, hidden_size=H, batch_first=True, bias=False)
seq_case("gru/unbatched", nn.GRU, "gru", rn(T, I), rn(1, H), input_size=I, hidden_size=H)
seq_case("rnn/tanh", nn.RNN, "rnn", rn(T, B, I), input_size=I, hidden_size=H, num_layers=2)
seq_case("rnn/relu-bidirectional", nn.RNN, "rnn", rn(T, B, I), rn(2, B, H), input_size=I, hidden_size=H, nonlinearity="relu", bidirectional=True)
seq_case("rnn/one-step", nn.RNN, "rnn", rn(1, B, I), input_size=I, hidden_size=H)



def packed_case(label, cls, fn, x, lengths, hx=None, **make):
    """cls(**make) over pack_padded_sequence(x, lengths), padded back to
    x's steps, against tref's fn(x, state_dict, hx, lengths=lengths)."""
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    m = cls(**make)
    sd = {k: v.detach().clone() for k, v in m.state_dict().items()}
    bf = make.get("batch_first", False)
    with torch.no_grad():
        packed = pack_padded_sequence(x, torch.tensor(lengths), batch_first=bf, enforce_sorted=False)
        out, h = m(packed, hx) if hx is not None else m(packed)
        out, _ = pad_packed_sequence(out, batch_first=bf, total_length=x.shape[1 if bf else 0])
    want = [out] + (list(h) if isinstance(h, tuple) else [h])
    args = [x, sd] + ([list(hx) if isinstance(hx, tuple) else hx] if hx is not None else [])
    kw = {"lengths": lengths}
    if bf:
        kw["batch_first"] = True
    g.expect("packed/" + label, fn, args, kw, want, atol=1e-5)


packed_case("lstm", nn.LSTM, "lstm", rn(T, 4, I), [6, 2, 5, 3], input_size=I, hidden_size=H)
packed_case("lstm-bidirectional-hx", nn.LSTM, "lstm", rn(T, 4, I), [1, 6, 4, 6], (rn(4, 4, H), rn(4, 4, H)), input_size=I, hidden_size=H, num_layers=2, bidirectional=True)
packed_case("lstm-proj-batch-first", nn.LSTM, "lstm", rn(3, T, I), [2, 6, 3], input_size=I, hidden_size=H, proj_size=3, bidirectional=True, batch_first=True)
packed_case("gru-bidirectional", nn.GRU, "gru", rn(T, 3, I), [5, 6, 1], input_size=I, hidden_size=H, bidirectional=True)
packed_case("rnn-two-layers", nn.RNN, "rnn", rn(T, 3, I), [3, 3, 4], rn(2, 3, H), input_size=I, hidden_size=H, num_layers=2)
# lengths may be an int64 tensor
m = nn.GRU(I, H)
sdg = {k: v.detach().clone() for k, v in m.state_dict().items()}
xg = rn(T, 2, I)
with torch.no_grad():
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    o, hg = m(pack_padded_sequence(xg, torch.tensor([4, 6]), enforce_sorted=False))
    o = pad_packed_sequence(o, total_length=T)[0]
g.expect("packed/tensor-lengths", "gru", [xg, sdg], {"lengths": torch.tensor([4, 6])}, [o, hg], atol=1e-5)


def pad_left(seqs, batch_first=False, padding_value=0.0):
    from torch.nn.utils.rnn import pad_sequence
    out = pad_sequence([s.flip(0) for s in seqs], batch_first=batch_first, padding_value=padding_value)
    return out.flip(1 if batch_first else 0)


from torch.nn.utils.rnn import pad_sequence
g.case("pad_sequence/default", "pad_sequence", pad_sequence, [[rn(3, 2), rn(5, 2), rn(1, 2)]])
g.case("pad_sequence/batch-first-value", "pad_sequence", pad_sequence, [[rn(4), rn(2)]], {"batch_first": True, "padding_value": -1.5})
g.case("pad_sequence/int", "pad_sequence", pad_sequence, [[torch.tensor([1, 2, 3]), torch.tensor([4])]], {"padding_value": 9})
g.case("pad_sequence/equal", "pad_sequence", pad_sequence, [[rn(2, 2, 2), rn(2, 2, 2)]], {"batch_first": True})
seqs = [rn(3, 2), rn(5, 2)]
g.expect("pad_sequence/left", "pad_sequence", [seqs], {"padding_side": "left", "batch_first": True, "padding_value": 0.5}, pad_left(seqs, batch_first=True, padding_value=0.5))

# gradients
for name, (fn, gates) in CELLS.items():
    w = [rn(gates * H, I), rn(gates * H, H), rn(gates * H), rn(gates * H)]
    if name == "lstm_cell":
        hx = [rn(B, H), rn(B, H)]
        g.grad_case(name + "/h", name + ".h", lambda x, hx, *w: torch.lstm_cell(x, tuple(hx), *w)[0], [rn(B, I), hx] + w)
        g.grad_case(name + "/c", name + ".c", lambda x, hx, *w: torch.lstm_cell(x, tuple(hx), *w)[1], [rn(B, I), hx] + w)
    else:
        g.grad_case(name, name, fn, [rn(B, I), rn(B, H)] + w)


def seq_grad(label, cls, fn, x, hx=None, field="output", **make):
    m = cls(**make)
    sd = {k: v.detach().clone() for k, v in m.state_dict().items()}
    idx = {"output": 0, "h_n": 1}[field]

    def f(x, p, hx=None, **_):
        out = m(x, hx) if hx is not None else m(x)
        return out[idx]
    args = [x, sd] + ([hx] if hx is not None else [])
    kw = {"batch_first": True} if make.get("batch_first") else {}
    g.grad_case("seq/" + label, fn + "." + field, f, args, kw)


seq_grad("lstm-output", nn.LSTM, "lstm", rn(T, B, I), input_size=I, hidden_size=H, num_layers=2, bidirectional=True)
seq_grad("gru-h_n", nn.GRU, "gru", rn(T, B, I), rn(2, B, H), field="h_n", input_size=I, hidden_size=H, num_layers=2)
seq_grad("rnn-batch-first", nn.RNN, "rnn", rn(B, T, I), input_size=I, hidden_size=H, batch_first=True)

# errors
w4 = [rn(8, 3), rn(8, 2)]
sd = {k: v.detach() for k, v in nn.LSTM(3, 2).state_dict().items()}
for label, fn, args, kw, msg in [
    ("cell-weight-ih", "lstm_cell", [rn(4, 3), None, rn(7, 3), rn(8, 2)], {}, "lstm_cell: the cell's weight_ih must be [4·hidden_size, input_size], got shape [7, 3]"),
    ("cell-input-size", "lstm_cell", [rn(4, 5), None] + w4, {}, "lstm_cell: the cell's weight_ih is [8, 3] for an input of size 5: it must be [8, 5]"),
    ("cell-weight-hh", "gru_cell", [rn(4, 3), None, rn(6, 3), rn(6, 3)], {}, "gru_cell: the cell's weight_hh must be [6, 2], got shape [6, 3]"),
    ("cell-bias", "rnn_tanh_cell", [rn(4, 3), None, rn(2, 3), rn(2, 2), rn(3)], {}, "rnn_tanh_cell: the cell's bias_ih must be [2], got shape [3]"),
    ("cell-hx", "lstm_cell", [rn(4, 3), rn(4, 2)] + w4, {}, "lstm_cell: hx must be the list [h, c] (or none)"),
    ("cell-hx-shape", "gru_cell", [rn(4, 3), rn(3, 2), rn(6, 3), rn(6, 2)], {}, "gru_cell: h must be float32 [4, 2], got float32 [3, 2]"),
    ("cell-input-rank", "rnn_relu_cell", [rn(2, 4, 3), None, rn(2, 3), rn(2, 2)], {}, "rnn_relu_cell: input must be a float tensor [batch, input_size] or [input_size]"),
    ("seq-missing", "lstm", [rn(5, 2, 3), {k: v for k, v in sd.items() if k != "bias_hh_l0"}], {}, "lstm: params has no bias_hh_l0"),
    ("seq-extra", "lstm", [rn(5, 2, 3), dict(sd, weight_ih_l2=rn(8, 2))], {}, "lstm: params has \"weight_ih_l2\", which is not a weight of this 1-layer lstm"),
    ("seq-names", "gru", [rn(5, 2, 3), {"weight": rn(6, 3)}], {}, "gru: params must hold the module's weights under its state_dict names"),
    ("seq-proj-gru", "gru", [rn(5, 2, 3), dict(sd, weight_hr_l0=rn(1, 2))], {}, "gru: params has weight_hr_l0, a projection only lstm takes"),
    ("seq-input-size", "lstm", [rn(5, 2, 4), sd], {}, "lstm: layer 0's weight_ih is [8, 3] for an input of size 4: it must be [8, 4]"),
    ("seq-hx", "lstm", [rn(5, 2, 3), sd, [rn(1, 2, 2), rn(2, 2, 2)]], {}, "lstm: c_0 must be float32 [1, 2, 2], got float32 [2, 2, 2]"),
    ("seq-nonlinearity", "rnn", [rn(5, 2, 3), {"weight_ih_l0": rn(2, 3), "weight_hh_l0": rn(2, 2)}], {"nonlinearity": "gelu"}, "rnn: unknown nonlinearity \"gelu\""),
    ("seq-dropout", "gru", [rn(5, 2, 3), {"weight_ih_l0": rn(6, 3), "weight_hh_l0": rn(6, 2)}], {"dropout": 1.5}, "gru: dropout should be a number in range [0, 1]"),
    ("lengths-range", "lstm", [rn(5, 2, 3), sd], {"lengths": [5, 0]}, "lstm: lengths[1] is 0: each must be in [1, 5] (the input's steps)"),
    ("lengths-count", "lstm", [rn(5, 2, 3), sd], {"lengths": [5, 2, 1]}, "lstm: lengths has 3 entries for a batch of 2"),
    ("lengths-unbatched", "lstm", [rn(5, 3), sd], {"lengths": [5]}, "lstm: lengths needs a batched input"),
    ("lengths-float", "lstm", [rn(5, 2, 3), sd], {"lengths": rn(2)}, "lstm: lengths must be a list of ints or a 1-d int tensor, got float32 [2]"),
    ("pad-shapes", "pad_sequence", [[rn(3, 2), rn(2, 3)]], {}, "pad_sequence: sequences[1] is float32 [2, 3], sequences[0] float32 [3, 2]: they must differ in their length only"),
    ("pad-empty", "pad_sequence", [[]], {}, "pad_sequence: sequences must not be empty"),
    ("pad-side", "pad_sequence", [[rn(3)]], {"padding_side": "top"}, "pad_sequence: padding_side must be \"right\" or \"left\", not \"top\""),
    ("seq-dtype", "lstm", [rn(5, 2, 3).double(), sd], {}, "lstm: layer 0's weights must have the input's dtype float64, got float32"),
]:
    g.error("error/" + label, fn, args, msg, kw)

g.write()
