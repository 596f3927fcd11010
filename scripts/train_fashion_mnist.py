"""Train a small MLP and a small CNN on Fashion-MNIST with Debian's
python3-torch, and write what tref's examples need to reproduce their
inference exactly:

  examples/fashion_mnist/mlp.safetensors, cnn.safetensors   the weights
  examples/fashion_mnist/mlp_predictions.npy, cnn_...       torch's predicted
                                                            class per test image
  examples/fashion_mnist/torch_results.json                 accuracies, versions

Run from the repository root:  /usr/bin/python3 scripts/train_fashion_mnist.py
Deterministic (fixed seeds, 2 threads); about two minutes on 2 cores.

Pixels are normalised as x = uint8 / 255 in float32, exactly what the tref
scripts do with astype(images, "float32") / 255.0, so both compute on the
same inputs.
"""
import argparse
import gzip
import json
import os
import struct
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "fashion_mnist")


def read_idx(path):
    """Reads an IDX file (gzipped) into a numpy array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    assert zero == 0 and code == 0x08, f"{path}: not a u8 IDX file"
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_split(prefix):
    x = read_idx(os.path.join(DATA, f"{prefix}-images-idx3-ubyte.gz"))
    y = read_idx(os.path.join(DATA, f"{prefix}-labels-idx1-ubyte.gz"))
    return torch.from_numpy(x.copy()).float() / 255.0, torch.from_numpy(y.astype(np.int64))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.reshape(x.shape[0], 784)
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = x.reshape(x.shape[0], 1, 28, 28)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.reshape(x.shape[0], 16 * 7 * 7))


ST_DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def save_safetensors(path, tensors, metadata):
    """Writes tensors in the safetensors format (Debian has no safetensors
    package): an 8-byte little-endian header length, a JSON header giving
    each tensor's dtype, shape and data_offsets, padded with spaces to a
    multiple of 8, then the raw little-endian data."""
    header, offset, blobs = {"__metadata__": metadata}, 0, []
    for name, t in tensors.items():
        b = t.detach().contiguous().cpu().numpy().tobytes()
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    os.replace(tmp, path)


def train(model, x, y, epochs, lr):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(1)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(x), generator=g)
        total = 0.0
        for i in range(0, len(x), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"  epoch {epoch + 1}: loss {total / len(x):.4f}", flush=True)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    logits = torch.cat([model(x[i:i + 1000]) for i in range(0, len(x), 1000)])
    pred = logits.argmax(dim=1)
    top2 = logits.topk(2, dim=1).values
    margin = (top2[:, 0] - top2[:, 1]).min().item()
    return pred, (pred == y).sum().item() / len(y), margin


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mlp-epochs", type=int, default=3)
    ap.add_argument("--cnn-epochs", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    xtr, ytr = load_split("train")
    xte, yte = load_split("t10k")
    results = {"torch": torch.__version__, "normalise": "uint8 / 255 as float32", "test_images": len(yte)}
    for name, model, epochs in (("mlp", MLP(), args.mlp_epochs), ("cnn", CNN(), args.cnn_epochs)):
        print(f"training {name} for {epochs} epochs", flush=True)
        t0 = time.time()
        train(model, xtr, ytr, epochs, 1e-3)
        pred, acc, margin = evaluate(model, xte, yte)
        print(f"{name}: test accuracy {acc:.4f} ({int(acc * len(yte))}/{len(yte)}), "
              f"smallest top-2 logit margin {margin:.3g}, {time.time() - t0:.0f}s", flush=True)
        weights = {k: v.float() for k, v in model.state_dict().items()}
        save_safetensors(os.path.join(OUT, f"{name}.safetensors"), weights,
                         {"format": "pt", "model": name, "trained_by": "scripts/train_fashion_mnist.py"})
        np.save(os.path.join(OUT, f"{name}_predictions.npy"), pred.numpy().astype(np.int64))
        results[name] = {"accuracy": acc, "correct": int((pred == yte).sum()), "epochs": epochs,
                         "min_top2_margin": margin, "parameters": sum(v.numel() for v in weights.values())}
    with open(os.path.join(OUT, "torch_results.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
