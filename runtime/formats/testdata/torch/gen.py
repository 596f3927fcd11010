"""Writes tensor files with Debian's python3-torch and numpy, and the values
tref must load from them (golden.json). Run: /usr/bin/python3 gen.py

The .pt files are torch.save checkpoints (torch 1.13's zip format). Their
golden tensors are named as tref's reader documents: a dict's tensors, also
in nested dicts, lists and tuples, under their path of keys joined with
".", other values left out (flatten below). bigendian.pt and deflated.pt
are rewritten from torch.save's output: the first as torch 2.x writes on
a big-endian machine (an "archive/" directory, a byteorder record, byte-
swapped storages), the second with deflated members.

There is no safetensors package in Debian; save_safetensors below follows
the format's specification byte for byte the way the reference writer
does: the JSON header lists dtype, shape and data_offsets, tensors are
laid out widest dtype first, the header is padded with spaces to 8 bytes.
"""
import collections
import gzip
import io
import json
import os
import struct
import zipfile

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(7)

ST_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32",
    torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL",
}


def raw_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def save_safetensors(path, tensors, metadata=None):
    order = sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0]))
    header, offset = {}, 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in order:
        n = t.numel() * t.element_size()
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + n]}
        offset += n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for _, t in order:
            f.write(raw_bytes(t))


# tref's dtype after loading (halves as float32 when the loader does not
# keep them; integers keep their width).
LOADED = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float32",
    torch.bfloat16: "float32", torch.int64: "int64", torch.int32: "int32",
    torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}


def golden(t):
    vals = t.to(torch.float64).flatten().tolist() if t.is_floating_point() else t.flatten().tolist()
    if t.dtype == torch.bool:
        vals = [int(v) for v in vals]
    vals = [v if v == v and abs(v) != float("inf") else str(v) for v in vals]
    return {"dtype": LOADED[t.dtype], "shape": list(t.shape), "data": vals}


tensors = {
    "fc1.weight": torch.randn(3, 4),
    "fc1.bias": torch.randn(3, dtype=torch.float64),
    "half": torch.tensor([0.1, -2.5, 65504.0, 6e-8, float("inf")], dtype=torch.float16),
    "bhalf": (torch.randn(2, 3) * 1000).to(torch.bfloat16),
    "ids": torch.tensor([-(2**62), -1, 0, 2**40], dtype=torch.int64),
    "i32": torch.tensor([-(2**31), -7, 2**31 - 1], dtype=torch.int32),
    "i16": torch.tensor([-32768, 5, 32767], dtype=torch.int16),
    "i8": torch.tensor([-128, 0, 127], dtype=torch.int8),
    "pixels": torch.tensor([0, 1, 128, 255, 7, 9], dtype=torch.uint8).reshape(2, 3),
    "mask": torch.tensor([[True, False], [False, True]]),
    "scalar": torch.tensor(3.25),
    "empty": torch.zeros(0, 3),
}
save_safetensors(os.path.join(here, "model.safetensors"), tensors, {"format": "pt", "source": "gen.py"})
out = {"model.safetensors": {"metadata": {"format": "pt", "source": "gen.py"},
                             "tensors": {k: golden(v) for k, v in tensors.items()}}}

arrays = {
    "f32": torch.randn(2, 3),
    "f64": torch.randn(4, dtype=torch.float64),
    "f16": torch.tensor([1.5, -0.0, 1e-4], dtype=torch.float16),
    "i64": torch.arange(-3, 3, dtype=torch.int64).reshape(3, 2),
    "i32": torch.tensor([[1, -2], [3, 2**30]], dtype=torch.int32),
    "u8": torch.arange(250, 256, dtype=torch.uint8),
    "bool": torch.tensor([True, False, True]),
    "scalar": torch.tensor(2.5, dtype=torch.float64),
}
for name, t in arrays.items():
    np.save(os.path.join(here, name + ".npy"), t.numpy())
    out[name + ".npy"] = {"tensors": {"": golden(t)}}

f = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) * 0.5
np.save(os.path.join(here, "fortran.npy"), np.asfortranarray(f.numpy()))
out["fortran.npy"] = {"tensors": {"": golden(f)}}
big = torch.tensor([[1.0, -2.0], [3.5, 1e300]], dtype=torch.float64)
np.save(os.path.join(here, "bigendian.npy"), big.numpy().astype(">f8"))
out["bigendian.npy"] = {"tensors": {"": golden(big)}}

npz = {"weight": torch.randn(3, 2), "bias": torch.randn(2), "steps": torch.tensor([1, 2, 3]),
       "flags": torch.tensor([False, True])}
np.savez(os.path.join(here, "stored.npz"), **{k: v.numpy() for k, v in npz.items()})
np.savez_compressed(os.path.join(here, "compressed.npz"), **{k: v.numpy() for k, v in npz.items()})
for n in ("stored.npz", "compressed.npz"):
    out[n] = {"tensors": {k: golden(v) for k, v in npz.items()}}

# IDX, as the MNIST files are written: big-endian header, then data.
img = (torch.arange(2 * 3 * 4) * 11 % 256).to(torch.uint8).reshape(2, 3, 4)
idx = struct.pack(">BBBB", 0, 0, 0x08, 3) + struct.pack(">III", 2, 3, 4) + img.numpy().tobytes()
with open(os.path.join(here, "images-idx3-ubyte"), "wb") as fh:
    fh.write(idx)
with gzip.GzipFile(os.path.join(here, "images-idx3-ubyte.gz"), "wb", mtime=0) as fh:
    fh.write(idx)
out["images-idx3-ubyte"] = out["images-idx3-ubyte.gz"] = {"tensors": {"": golden(img)}}
flt = torch.tensor([[0.5, -1.25, 3e-5]], dtype=torch.float32)
with open(os.path.join(here, "floats.idx2-ubyte"), "wb") as fh:
    fh.write(struct.pack(">BBBB", 0, 0, 0x0D, 2) + struct.pack(">II", 1, 3) + flt.numpy().astype(">f4").tobytes())
out["floats.idx2-ubyte"] = {"tensors": {"": golden(flt)}}

csv = torch.tensor([[5.1, 3.5, 1.4, 0.2, 0], [7.0, 3.2, 4.7, 1.4, 1], [6.3, 3.3, 6.0, 2.5, 2]])
with open(os.path.join(here, "iris-head.csv"), "w") as fh:
    fh.write("sepal_length,sepal_width,petal_length,petal_width,target\n")
    np.savetxt(fh, csv.numpy(), delimiter=",", fmt="%g")
out["iris-head.csv"] = {"tensors": {"": golden(csv)}}



def flatten(obj, prefix=""):
    """The tensors of a checkpoint as tref names them."""
    out = {}
    if isinstance(obj, torch.Tensor):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}.{i}" if prefix else str(i)))
    return out


def save_pt(name, obj):
    torch.save(obj, os.path.join(here, name))
    out[name] = {"tensors": {k: golden(v) for k, v in flatten(obj).items()}}


# Every dtype, and the views torch.save keeps as views: a transpose, a
# slice at a storage offset, several tensors of one storage, a strided
# slice, an expanded (stride 0) tensor, a permuted 3-d tensor, a scalar.
base = torch.arange(24, dtype=torch.float32) * 0.25 - 2
state = {
    "f32": torch.randn(2, 3),
    "f64": torch.randn(3, dtype=torch.float64),
    "f16": torch.tensor([0.1, -2.5, 65504.0, 6e-8, float("-inf")], dtype=torch.float16),
    "bf16": (torch.randn(2, 2) * 100).to(torch.bfloat16),
    "i64": torch.tensor([-(2**62), -1, 0, 2**40], dtype=torch.int64),
    "i32": torch.tensor([-(2**31), 7, 2**31 - 1], dtype=torch.int32),
    "i16": torch.tensor([-32768, 5, 32767], dtype=torch.int16),
    "i8": torch.tensor([-128, 0, 127], dtype=torch.int8),
    "u8": torch.tensor([[0, 1, 128], [255, 7, 9]], dtype=torch.uint8),
    "bool": torch.tensor([[True, False], [False, True]]),
    "scalar": torch.tensor(3.25),
    "empty": torch.zeros(0, 3),
    "transposed": torch.randn(3, 4).t(),
    "shared.whole": base,
    "shared.tail": base[10:],
    "shared.grid": base.view(4, 6)[1:, ::2],
    "shared.row": base.view(4, 6)[2],
    "expanded": torch.tensor([[1.5], [-2.0]]).expand(2, 3),
    "permuted": torch.arange(24, dtype=torch.int16).reshape(2, 3, 4).permute(2, 0, 1),
    "half_t": torch.randn(2, 3).to(torch.float16).t(),
}
assert not state["transposed"].is_contiguous() and state["shared.tail"].storage_offset() == 10
save_pt("state.pt", state)

# An nn.Module's state_dict: an OrderedDict with _metadata, BatchNorm's
# running statistics and its int64 num_batches_tracked.
net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
net(torch.randn(5, 4)).sum().backward()
save_pt("module.pt", net.state_dict())

# A training checkpoint: nested dicts (the optimizer's state is keyed by
# int), a list and a tuple of tensors, a Parameter, and values that are
# not tensors.
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
opt.step()
save_pt("checkpoint.pt", {
    "model": net.state_dict(),
    "optimizer": opt.state_dict(),
    "epoch": 3, "lr": 0.1, "name": "run-1", "best": None, "done": False,
    "steps": 2**40, "dtype": torch.float16,
    "history": [torch.tensor([0.5, 0.25]), "note", (torch.tensor([1, 2]),)],
    "param": torch.nn.Parameter(torch.randn(2, 2)),
})

# pytorch_model.bin: a zip checkpoint under the name Hugging Face uses.
save_pt("pytorch_model.bin", {"w": torch.randn(2, 2), "b": torch.zeros(2, dtype=torch.float64)})


def rezip(src, dst, members):
    with zipfile.ZipFile(dst, "w") as z:
        for name, data, method in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=method)


# As torch 2.x writes on a big-endian machine: storages in big-endian
# order, which the byteorder record says.
be = {"f32": torch.randn(2, 3).t(), "i64": torch.tensor([1, -2, 2**50]), "f16": torch.tensor([1.5, -0.25], dtype=torch.float16),
      "bf16": torch.tensor([3.0, -1.0], dtype=torch.bfloat16), "f64": torch.randn(2, dtype=torch.float64), "u8": torch.tensor([1, 200], dtype=torch.uint8),
      "i32": torch.tensor([[-3], [70000]], dtype=torch.int32), "i16": torch.tensor([-2, 300], dtype=torch.int16), "bool": torch.tensor([True, False])}
buf = io.BytesIO()
torch.save(be, buf)
src = zipfile.ZipFile(buf)
prefix = src.namelist()[0].split("/")[0] + "/"
pkl = src.read(prefix + "data.pkl")
# torch numbers storages in the order it first pickles them.
sizes = {str(i): t.element_size() for i, t in enumerate(be.values())}
members = [("archive/data.pkl", pkl, zipfile.ZIP_STORED), ("archive/byteorder", b"big", zipfile.ZIP_STORED)]
for key, es in sizes.items():
    data = src.read(prefix + "data/" + key)
    swapped = b"".join(data[i:i + es][::-1] for i in range(0, len(data), es))
    members.append(("archive/data/" + key, swapped, zipfile.ZIP_STORED))
members += [("archive/version", b"3\n", zipfile.ZIP_STORED), ("archive/.data/serialization_id", b"1234567890", zipfile.ZIP_STORED)]
rezip(src, os.path.join(here, "bigendian.pt"), members)
out["bigendian.pt"] = {"tensors": {k: golden(v) for k, v in be.items()}}

# Deflated members (torch writes them stored): views at an offset are
# read through the decompressor.
src = zipfile.ZipFile(os.path.join(here, "state.pt"))
rezip(src, os.path.join(here, "deflated.pt"), [(i.filename, src.read(i.filename), zipfile.ZIP_DEFLATED) for i in src.infolist()])
out["deflated.pt"] = out["state.pt"]

with open(os.path.join(here, "golden.json"), "w") as fh:
    json.dump({"torch": torch.__version__, "numpy": np.__version__, "files": out}, fh, indent=1)
    fh.write("\n")
