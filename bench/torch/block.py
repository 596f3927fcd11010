# The same transformer block as block.tr, in PyTorch eager mode. Attention
# is written out (torch 1.13 has no scaled_dot_product_attention), as the
# torch plugin computes it.
import math, sys, time
import torch
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
torch.manual_seed(0)
b, t, d, heads, reps = 8, 128, 512, 8, 10
hd = d // heads
x = torch.randn(b, t, d)
r = lambda *s: torch.randn(*s)
p = dict(wq=r(d, d) * 0.04, wk=r(d, d) * 0.04, wv=r(d, d) * 0.04, wo=r(d, d) * 0.04,
         w1=r(4 * d, d) * 0.04, w2=r(d, 4 * d) * 0.02,
         g1=torch.ones(d), b1=torch.zeros(d), g2=torch.ones(d), b2=torch.zeros(d))
mask = torch.ones(t, t, dtype=torch.bool).triu(1)

def heads_of(y):
    return y.reshape(b, t, heads, hd).transpose(1, 2).contiguous()

def attention(q, k, v):
    s = (q @ k.transpose(-2, -1)) * (1 / math.sqrt(hd))
    s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v

def block(x):
    h = F.layer_norm(x, (d,), p["g1"], p["b1"])
    q, k, v = (heads_of(F.linear(h, p[w])) for w in ("wq", "wk", "wv"))
    a = attention(q, k, v).transpose(1, 2).reshape(b, t, d)
    x1 = x + F.linear(a, p["wo"])
    m = F.linear(F.gelu(F.linear(F.layer_norm(x1, (d,), p["g2"], p["b2"]), p["w1"])), p["w2"])
    return x1 + m

with torch.no_grad():
    check = block(x).sum().item()
    t0 = time.perf_counter()
    for _ in range(reps):
        check = block(x).sum().item()
print("block", (time.perf_counter() - t0) / reps * 1000.0, "ms/forward")
