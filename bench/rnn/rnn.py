"""bench/rnn/rnn.tr in python3-torch: nn.LSTM, nn.GRU (forward, and the
LSTM's gradient) and nn.MultiheadAttention on the same sizes, the best of
3 runs each, in ms, on one thread."""

import time

import torch

torch.set_num_threads(1)


def best_of(f):
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


for t, b, i, h in [(50, 16, 64, 128), (100, 32, 128, 256)]:
    torch.manual_seed(0)
    x = torch.randn(t, b, i)
    lstm, gru = torch.nn.LSTM(i, h), torch.nn.GRU(i, h)
    name = "%dx%dx%d" % (t, b, h)
    with torch.no_grad():
        lstm(x)[0].sum().item()
        print("lstm", name, best_of(lambda: lstm(x)[0].sum().item()))
        print("gru", name, best_of(lambda: gru(x)[0].sum().item()))

    def lstm_grad():
        lstm.zero_grad()
        lstm(x)[0].sum().backward()
        lstm.weight_hh_l0.grad.sum().item()
    print("lstm_grad", name, best_of(lstm_grad))
for l, n, e, heads in [(64, 8, 128, 4), (128, 8, 256, 8)]:
    torch.manual_seed(0)
    x = torch.randn(l, n, e)
    mha = torch.nn.MultiheadAttention(e, heads)
    name = "%dx%dx%d" % (l, n, e)
    with torch.no_grad():
        mha(x, x, x)[0].sum().item()
        print("mha", name, best_of(lambda: mha(x, x, x)[0].sum().item()))
