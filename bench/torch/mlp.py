# The same MLP forward as mlp.tr, in PyTorch eager mode.
import sys, time
import torch
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
torch.manual_seed(0)
batch, width, layers, reps = 512, 1024, 8, 10
x = torch.randn(batch, width)
ws = [torch.randn(width, width) * 0.03 for _ in range(layers)]
bs = [torch.zeros(width) for _ in range(layers)]

def forward(x):
    h = x
    for i in range(layers):
        h = F.relu(F.linear(h, ws[i], bs[i]))
    return h

with torch.no_grad():
    check = forward(x).sum().item()
    t0 = time.perf_counter()
    for _ in range(reps):
        check = forward(x).sum().item()
    dt = (time.perf_counter() - t0) / reps
print("mlp", dt * 1000.0, "ms/forward")
