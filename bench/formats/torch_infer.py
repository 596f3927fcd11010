"""Times PyTorch inference of the Fashion-MNIST MLP and CNN on the 10 000
test images with the weights tref's examples use, the same way the tref
scripts compute (normalise uint8/255, MLP on all images at once, CNN in
batches of 1000), so the throughputs compare. Prints one line per model:
name, seconds (median of --runs), images per second, correct predictions.

Run from the repository root: /usr/bin/python3 bench/formats/torch_infer.py
"""
import argparse
import gzip
import json
import os
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"
EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "fashion_mnist")


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        assert v["dtype"] == "F32"
        b, e = v["data_offsets"]
        out[k] = torch.from_numpy(np.frombuffer(raw, np.float32, (e - b) // 4, 8 + n + b).copy()).reshape(v["shape"])
    return out


def mlp(p, images):
    x = images.float().div(255.0).reshape(-1, 784)
    h = F.relu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
    return F.linear(h, p["fc2.weight"], p["fc2.bias"]).argmax(dim=1)


def cnn(p, images):
    x = images.float().div(255.0).reshape(-1, 1, 28, 28)
    preds = []
    for i in range(0, len(x), 1000):
        h = F.max_pool2d(F.relu(F.conv2d(x[i:i + 1000], p["conv1.weight"], p["conv1.bias"], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.weight"], p["conv2.bias"], padding=1)), 2)
        preds.append(F.linear(h.reshape(h.shape[0], 784), p["fc.weight"], p["fc.bias"]).argmax(dim=1))
    return torch.cat(preds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    images = torch.from_numpy(read_idx(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")).copy())
    labels = torch.from_numpy(read_idx(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")).astype(np.int64))
    with torch.no_grad():
        for name, fn in (("mlp", mlp), ("cnn", cnn)):
            p = read_safetensors(os.path.join(EX, name + ".safetensors"))
            fn(p, images)  # warm-up
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                pred = fn(p, images)
                times.append(time.perf_counter() - t0)
            t = sorted(times)[len(times) // 2]
            print(f"torch {name} {t:.4f} s {len(images) / t:.0f} images/s correct {(pred == labels).sum().item()}")


if __name__ == "__main__":
    main()
