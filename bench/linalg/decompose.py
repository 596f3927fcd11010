"""bench/linalg/decompose.tr in python3-torch (LAPACK through libtorch):
the best of 3 runs of each decomposition on one float32 matrix of each
size, in ms, on one thread."""

import time

import torch

# One thread: tref's decompositions run on one core too.
torch.set_num_threads(1)
fs = {
    "qr": lambda x: torch.linalg.qr(x).R.sum().item(),
    "eigh": lambda x: torch.linalg.eigh(x).eigenvalues.sum().item(),
    "svd": lambda x: torch.linalg.svd(x, full_matrices=False).S.sum().item(),
    "pinv": lambda x: torch.linalg.pinv(x).sum().item(),
    "matrix_exp": lambda x: torch.linalg.matrix_exp(x / x.abs().sum(0).max()).sum().item(),
    "lu": lambda x: torch.linalg.lu_factor(x).LU.sum().item(),
    "matmul_f64": lambda x: (x.double() @ x.double()).sum().item(),
}
for n in [32, 128, 256]:
    torch.manual_seed(0)
    a = torch.randn(n, n)
    s = (a + a.T) / 2
    for name in fs:
        best = 1e9
        for _ in range(3):
            t0 = time.perf_counter()
            fs[name](s)
            best = min(best, time.perf_counter() - t0)
        print(name, n, best * 1000)
