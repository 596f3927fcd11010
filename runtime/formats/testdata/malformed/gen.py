"""Writes the malformed-file corpus and errors.txt, the error each file
must produce (a substring of the message). Run: python3 gen.py"""
import gzip
import io
import json
import os
import pickle
import struct
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
expect = []


def put(name, data, want):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)
    expect.append((name, want))


def st(header, data=b"", raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


# safetensors
put("short.safetensors", b"\x01\x02\x03\x04", "too short for the 8-byte header length")
put("huge-header.safetensors", struct.pack("<Q", 1 << 40) + b"{}", "exceeds the limit of 100000000 bytes")
put("header-past-end.safetensors", struct.pack("<Q", 1000) + b"{}" + b" " * 10, "header length 1000 exceeds the 12 bytes after the length field")
put("not-json.safetensors", st(None, raw_header=b"hello   "), "does not start with '{'")
put("bad-json.safetensors", st(None, raw_header=b'{"a": '), "header: tensor \"a\": unexpected EOF")
put("dtype.safetensors", st({"x": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8), 'dtype "C64" is not supported')
put("neg-dim.safetensors", st({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), "-1 is not a non-negative integer")
put("frac-dim.safetensors", st({"x": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}}, b"\0" * 4), "1.5 is not a non-negative integer")
put("offset-overflow.safetensors", st(None, raw_header=b'{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551617]}}'), "is not a non-negative integer")
put("span.safetensors", st({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4), "span 4 bytes, but F32[2] needs 8")
put("backwards.safetensors", st({"x": {"dtype": "U8", "shape": [0], "data_offsets": [4, 0]}}, b"\0" * 4), "end before they begin")
put("overlap.safetensors", st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), "overlap the previous tensor")
put("gap.safetensors", st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                           "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}, b"\0" * 12), "leave a gap after offset 4")
put("truncated.safetensors", st({"a": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}}, b"\0" * 8), "tensors need 16 bytes of data, but the file holds 8 after the header (truncated?)")
put("trailing.safetensors", st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 8), "tensors cover 4 bytes of data, but the file holds 8")
put("dup-key.safetensors", st(None, raw_header=b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}') + b"\0", 'duplicate key "a"')
put("huge-shape.safetensors", st({"a": {"dtype": "F32", "shape": [1 << 40, 1 << 40], "data_offsets": [0, 4]}}, b"\0" * 4), "more than 1099511627776 elements")
put("unknown-field.safetensors", st({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1], "strides": [1]}}, b"\0"), 'unknown field "strides"')
put("missing-offsets.safetensors", st({"a": {"dtype": "U8", "shape": [1]}}, b"\0"), "missing data_offsets")
put("bad-metadata.safetensors", st({"__metadata__": {"n": 1}}), "__metadata__ must map strings to strings")
put("after-json.safetensors", st(None, raw_header=b'{} xyz  '), "unexpected data after the JSON object")


def npy(header, data=b"", version=(1, 0), raw_len=None):
    h = header.encode()
    if version[0] == 1:
        ln = struct.pack("<H", len(h) if raw_len is None else raw_len)
    else:
        ln = struct.pack("<I", len(h) if raw_len is None else raw_len)
    return b"\x93NUMPY" + bytes(version) + ln + h + data


good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"
put("bad-magic.npy", b"\x93NUMPX\x01\x00" + b"\0" * 20, "bad magic")
put("version.npy", npy(good, b"\0" * 8, version=(4, 0)), "unsupported format version 4.0")
put("header-too-long.npy", npy(good, version=(2, 0), raw_len=1 << 31), "header length 2147483648 exceeds the limit")
put("truncated-header.npy", npy(good)[:30], "file ends early (truncated?)")
put("object.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }\n", b"\0" * 16), "object arrays (pickled Python objects) are not supported")
put("structured.npy", npy("{'descr': [('a', '<f4'), ('b', '<i8')], 'fortran_order': False, 'shape': (2,), }\n", b"\0" * 24), "structured dtypes are not supported")
put("complex.npy", npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", b"\0" * 16), 'dtype "<c8" is not supported')
put("no-byte-order.npy", npy("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }\n", b"\0" * 8), "needs a byte order")
put("missing-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, }\n", b"\0" * 8), "missing 'shape'")
put("extra-key.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", b"\0" * 8), "unexpected")
put("neg-dim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", b"\0" * 8), "expected a non-negative integer, found '-'")
put("bad-order.npy", npy("{'descr': '<f4', 'fortran_order': 'no', 'shape': (2,), }\n", b"\0" * 8), "fortran_order must be True or False")
put("truncated-data.npy", npy(good, b"\0" * 5), "needs 8 bytes of data, but the file holds 5 (truncated?)")
put("trailing-data.npy", npy(good, b"\0" * 9), "1 unexpected bytes after the 8 bytes")
put("huge.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }\n", b"\0" * 8), "more than 1099511627776 elements")
put("unterminated.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\n"), "unterminated tuple")


def zipped(members, method=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=method)
    return b.getvalue()


good_npy = npy(good, struct.pack("<2f", 1.5, -2))
put("not-zip.npz", b"PK\x03\x04 this is not really a zip", "not a valid zip archive")
put("not-npy-member.npz", zipped([("a.npy", good_npy), ("readme.txt", b"hi")]), 'member "readme.txt" is not a .npy array')
put("bad-member.npz", zipped([("a.npy", b"\x93NUMPX" + good_npy[6:])]), 'member "a.npy": bad magic')
put("short-member.npz", zipped([("a.npy", npy(good, b"\0" * 4))]), 'member "a.npy" holds 72 bytes, but its header declares <f4[2]: 76 bytes')
crc = bytearray(zipped([("a.npy", good_npy)]))
crc[crc.index(struct.pack("<f", 1.5))] ^= 0xFF  # corrupt the data, not the CRC
put("bad-crc.npz", bytes(crc), "checksum error")
put("bzip2.npz", zipped([("a.npy", good_npy)], zipfile.ZIP_BZIP2), "uses compression method 12")


def idx(code, dims, data):
    return bytes([0, 0, code, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + data


put("bad-magic-ubyte", bytes([1, 2, 8, 1]) + b"\0" * 8, "bad magic number")
put("type-ubyte", idx(0x0A, [2], b"\0\0"), "unknown type code 0x0a")
put("rank0-ubyte", idx(0x08, [], b""), "rank 0 out of range")
put("truncated-idx1-ubyte", idx(0x0C, [3], b"\0" * 8), "i32[3] needs 12 bytes of data, but the file holds 8 (truncated?)")
put("trailing-idx1-ubyte", idx(0x08, [3], b"\0" * 5), "2 unexpected bytes after the 3 bytes of u8[3] data")
put("short-dims-idx3-ubyte", bytes([0, 0, 8, 3]) + b"\0\0\0\1", "reading 3 dimensions: file ends early")
put("bomb-idx3-ubyte.gz", gzip.compress(idx(0x08, [60000, 60000, 100], b"\0" * 16), mtime=0), "more than")
put("gz-short-idx1-ubyte.gz", gzip.compress(idx(0x08, [100], b"\1" * 50), mtime=0), "reading 100 bytes of data: file ends early")
bad = bytearray(gzip.compress(idx(0x08, [4], b"\1\2\3\4"), mtime=0))
bad[-8] ^= 0xFF  # the CRC-32 of the gzip trailer
put("gz-crc-idx1-ubyte.gz", bytes(bad), "gzip: invalid checksum")

# CSV
put("ragged.csv", b"a,b\n1,2\n3,4\n5\n", "line 4 has 1 fields, but earlier rows have 2")
put("not-a-number.csv", b"1,2\n3,x7\n", 'line 2, column 3: "x7" is not a number')
put("empty.csv", b"", "no data (the file is empty)")
put("header-only.csv", b"a,b,c\n", "no data rows after the header")
put("quote.csv", b'1,"2\n3,4\n', 'extraneous or missing " in quoted-field')
put("data.bin", b"\0" * 16, "unknown file type")


# PyTorch checkpoints (torch.save's zip format), assembled opcode by opcode
# as torch 1.13 writes them, then broken one way each.
def pk(*parts):
    return b"\x80\x02" + b"".join(parts) + b"."


def s(x):
    b = x.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def i(n):
    return b"J" + struct.pack("<i", n) if -2**31 <= n < 2**31 else b"\x8a\x08" + struct.pack("<q", n)


def glob(mod, name):
    return b"c" + f"{mod}\n{name}\n".encode()


def tup(*xs):
    return b"(" + b"".join(xs) + b"t"


def odict():
    return glob("collections", "OrderedDict") + b")R"


def tensor(key, numel, offset, size, stride, stype="FloatStorage", extra=b""):
    pid = tup(s("storage"), glob("torch", stype), s(key), s("cpu"), i(numel)) + b"Q"
    return glob("torch._utils", "_rebuild_tensor_v2") + tup(pid, i(offset), tup(*map(i, size)), tup(*map(i, stride)), b"\x89", odict(), extra) + b"R"


def state(*items):
    return b"}(" + b"".join(s(k) + v for k, v in items) + b"u"


def pt(pkl, storages=None, extra=(), prefix="archive/"):
    members = [(prefix + "data.pkl", pkl)]
    members += [(prefix + "data/" + k, v) for k, v in (storages or {}).items()]
    members += [(prefix + "version", b"3\n")] + list(extra)
    return zipped(members)


f4 = struct.pack("<4f", 1, 2, 3, 4)
good_pt = pt(pk(state(("w", tensor("0", 4, 0, [2, 2], [2, 1])))), {"0": f4})
put("truncated.pt", good_pt[: len(good_pt) // 2], "not a valid zip archive")
put("legacy.pt", pk(b"\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19"), "not a valid zip archive (torch.save writes one since torch 1.6")
put("no-pickle.pt", zipped([("archive/data/0", f4)]), "no <name>/data.pkl member")
put("torchscript.pt", zipped([("m/constants.pkl", pk(b")")), ("m/data/0", f4)]), "a TorchScript archive (torch.jit.save)")
put("missing-storage.pt", pt(pk(state(("w", tensor("1", 4, 0, [4], [1])))), {"0": f4}), 'storage "1": the archive has no member "archive/data/1"')
put("os-system.pt", pt(pk(state(("w", glob("os", "system") + tup(s("echo hi")) + b"R")))), "global os.system is not allowed")


class Evil:
    """What a malicious checkpoint pickles: a call of os.system."""
    def __reduce__(self):
        return (os.system, ("true",))


# Python's own pickler (protocol 4: FRAME, STACK_GLOBAL, MEMOIZE).
put("posix-system.pt", pt(pickle.dumps({"w": Evil()}, protocol=4)), "global posix.system is not allowed")
put("complex.pt", pt(pk(state(("w", tensor("0", 2, 0, [2], [1], "ComplexFloatStorage")))), {"0": f4}), "storage type torch.ComplexFloatStorage is not supported")
put("short-storage.pt", pt(pk(state(("w", tensor("0", 4, 1, [4], [1])))), {"0": f4}), 'view at offset 1 of size (4,), stride (1,) needs elements up to 5, but storage "0" holds 4')
put("stride-past.pt", pt(pk(state(("w", tensor("0", 4, 0, [2, 2], [3, 1])))), {"0": f4}), 'size (2, 2) with stride (3, 1) reaches past the 4 elements of storage "0"')
put("huge-stride.pt", pt(pk(state(("w", tensor("0", 4, 0, [3], [2**62])))), {"0": f4}), "reaches past the 4 elements")
put("negative-stride.pt", pt(pk(state(("w", tensor("0", 4, 3, [4], [-1])))), {"0": f4}), "negative stride -1 in (-1,)")
put("storage-size.pt", pt(pk(state(("w", tensor("0", 8, 0, [8], [1])))), {"0": f4}), 'storage "0" declares 8 elements of FloatStorage (4 bytes each), but archive/data/0 holds 16 bytes')
put("huge-shape.pt", pt(pk(state(("w", tensor("0", 4, 0, [2**40, 2**40], [0, 0])))), {"0": f4}), "more than 1099511627776 elements")
put("expanded.pt", pt(pk(state(("w", tensor("0", 1, 0, [2**20, 2**20], [0, 0])))), {"0": f4[:4]}), "view 4398046511104 bytes, more than 1032 times the file's")
put("storage-types.pt", pt(pk(state(("a", tensor("0", 4, 0, [4], [1])), ("b", tensor("0", 2, 0, [2], [1], "DoubleStorage")))), {"0": f4}),
    'storage "0" is declared as 4 elements of FloatStorage and as 2 of DoubleStorage')
put("undefined-memo.pt", pt(pk(b"}(" + s("w") + b"h\x05u"), {"0": f4}), "opcode BINGET: memo entry 5 was never stored")
put("no-stop.pt", pt(pk(state(("w", tensor("0", 4, 0, [4], [1]))))[:-1], {"0": f4}), "without STOP (truncated?)")
put("after-stop.pt", pt(pk(state()) + b"N", {"0": f4}), "1 unexpected bytes after the pickle's STOP")
put("newobj.pt", pt(pk(glob("collections", "OrderedDict") + b")\x81")), "opcode NEWOBJ: not supported")
put("top-list.pt", pt(pk(b"]")), "the checkpoint holds a list, not a dict of tensors")
put("top-tensor.pt", pt(pk(tensor("0", 4, 0, [4], [1])), {"0": f4}), "the checkpoint holds a single tensor, not a dict of tensors")
put("dup-name.pt", pt(pk(state(("a.b", tensor("0", 4, 0, [4], [1])), ("a", state(("b", tensor("0", 4, 0, [4], [1])))))), {"0": f4}), 'two tensors are named "a.b"')
put("build-tensor.pt", pt(pk(state(("w", tensor("0", 4, 0, [4], [1]) + b"}b"))), {"0": f4}), "setting the state of a torch.Tensor is not supported")
put("neg-metadata.pt", pt(pk(state(("w", tensor("0", 4, 0, [4], [1], extra=b"}" + s("neg") + b"\x88s")))), {"0": f4}), "tensor metadata with 1 fields (conj or neg views) is not supported")
put("bad-byteorder.pt", pt(pk(state()), extra=[("archive/byteorder", b"middle")]), 'archive/byteorder is "middle"')
put("bad-utf8.pt", pt(pk(b"}(X\x02\x00\x00\x00\xff\xfeNu")), "string is not valid UTF-8")
put("bad-key.pt", pt(pk(b"}(" + tup(i(1)) + tensor("0", 4, 0, [4], [1]) + b"u"), {"0": f4}), "the checkpoint: a dict key of type tuple (want str or int) holds tensors")
crc = bytearray(good_pt)
crc[crc.index(f4)] ^= 0xFF  # the storage's data, not its CRC
put("bad-crc.pt", bytes(crc), 'tensor "w" (archive/data/0): zip: checksum error')
put("two-pickles.pt", zipped([("a/data.pkl", pk(state())), ("b/data.pkl", pk(state()))]), "several data.pkl members (a/data.pkl, b/data.pkl, ...)")
put("rank.pt", pt(pk(state(("w", tensor("0", 4, 0, [1] * 33, [1] * 33)))), {"0": f4}), "size has 33 dimensions, more than the limit of 32")
put("bad-pid.pt", pt(pk(state(("w", tup(s("module"), s("x")) + b"Q")))), "persistent id is not ('storage', type, key, location, numel)")
put("bz2.pt", zipped([("archive/data.pkl", pk(state()))], zipfile.ZIP_BZIP2), 'member "archive/data.pkl" uses compression method 12')
put("not-zip.bin", b"\x80\x02}q\x00.", "unknown file type")

with open(os.path.join(here, "errors.txt"), "w") as f:
    f.write("# file<TAB>substring of the error it must give (written by gen.py)\n")
    for name, want in expect:
        f.write(f"{name}\t{want}\n")
