"""Goldens of searchsorted and bucketize: /usr/bin/python3 gen_search.py

Left and right sides (right= and side=), rows of sorted sequences (N-d),
values of any shape against a 1-d sequence, duplicates, NaN in the values
and in the sequence (where torch's comparisons put them), integer, float64
and mixed dtypes, out_int32, sorter, empty inputs, and errors.
"""

import torch

from gen_common import Golden

torch.manual_seed(31)
g = Golden("search")

seq = torch.tensor([1.0, 2.0, 2.0, 3.5, 7.0])
vals = torch.tensor([[0.0, 1.0, 2.0, 2.5], [3.5, 7.0, 9.0, -1.0]])
for right in (False, True):
    g.case("searchsorted/1d-right%d" % right, "searchsorted", torch.searchsorted, [seq, vals], {"right": right})
    g.case("bucketize/right%d" % right, "bucketize", torch.bucketize, [vals, seq], {"right": right})
for side in ("left", "right"):
    g.case("searchsorted/side-" + side, "searchsorted", torch.searchsorted, [seq, vals], {"side": side})
g.case("searchsorted/side-right-and-right", "searchsorted", torch.searchsorted, [seq, vals], {"side": "right", "right": True})
rows = torch.sort(torch.randn(2, 3, 6), dim=-1).values
g.case("searchsorted/nd", "searchsorted", torch.searchsorted, [rows, torch.randn(2, 3, 4)])
g.case("searchsorted/nd-right", "searchsorted", torch.searchsorted, [rows, rows[..., :3].contiguous()], {"right": True})
g.case("searchsorted/scalar", "searchsorted", torch.searchsorted, [seq, torch.tensor(2.0)])
g.case("searchsorted/nan-values", "searchsorted", torch.searchsorted, [seq, torch.tensor([float("nan"), float("inf"), float("-inf")])])
g.case("searchsorted/nan-sequence", "searchsorted", torch.searchsorted, [torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 0.5, 5.0])])
g.case("searchsorted/int", "searchsorted", torch.searchsorted, [torch.tensor([1, 3, 3, 8]), torch.tensor([0, 3, 4, 9])])
g.case("searchsorted/int-right", "searchsorted", torch.searchsorted, [torch.tensor([1, 3, 3, 8]), torch.tensor([0, 3, 4, 9])], {"right": True})
g.case("searchsorted/float64", "searchsorted", torch.searchsorted, [seq.double(), vals.double()])
g.case("searchsorted/int-seq-float-values", "searchsorted", torch.searchsorted, [torch.tensor([1, 2, 3]), torch.tensor([2.5, 1.0])])
g.case("searchsorted/float16", "searchsorted", torch.searchsorted, [seq.half(), vals.half()], {"right": True})
g.case("searchsorted/int32", "searchsorted", torch.searchsorted, [torch.tensor([-5, 0, 0, 7], dtype=torch.int32), torch.tensor([0, 8, -9], dtype=torch.int32)])
g.case("searchsorted/out_int32", "searchsorted", torch.searchsorted, [seq, vals], {"out_int32": True})
unsorted = torch.tensor([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]])
g.case("searchsorted/sorter", "searchsorted", torch.searchsorted, [unsorted, torch.tensor([[1.5, 3.5], [6.0, 8.5]])], {"sorter": torch.argsort(unsorted, dim=-1)})
g.case("searchsorted/empty-values", "searchsorted", torch.searchsorted, [seq, torch.zeros(0)])
g.case("searchsorted/empty-sequence", "searchsorted", torch.searchsorted, [torch.zeros(0), torch.tensor([1.0, 2.0])])
g.case("searchsorted/keywords", "searchsorted", lambda sorted_sequence, input: torch.searchsorted(sorted_sequence, input), [], {"sorted_sequence": seq, "input": torch.tensor([2.0])})
g.case("bucketize/scalar", "bucketize", torch.bucketize, [torch.tensor(2.5), torch.tensor([1.0, 2.0, 3.0])])
g.case("bucketize/out_int32", "bucketize", torch.bucketize, [torch.tensor([[1, 5], [2, 9]]), torch.tensor([1, 2, 4, 8])], {"out_int32": True, "right": True})
g.error("searchsorted/shape", "searchsorted", [torch.ones(1, 3), torch.ones(2, 1)], "must be 1-d or share all but its last dimension")
g.error("searchsorted/0d", "searchsorted", [torch.tensor(1.0), torch.ones(2)], "at least one dimension")
g.error("searchsorted/side", "searchsorted", [seq, vals], "side must be", {"side": "middle"})
g.error("searchsorted/opposites", "searchsorted", [seq, vals], "say opposite things", {"side": "left", "right": True})
g.error("searchsorted/bool", "searchsorted", [torch.tensor([False, True]), torch.tensor([True])], "bool tensors cannot be searched")
g.error("searchsorted/sorter-dtype", "searchsorted", [unsorted, torch.ones(2, 1)], "sorter must be an int64 tensor", {"sorter": torch.ones(2, 3)})
g.error("bucketize/2d", "bucketize", [torch.ones(2), torch.ones(2, 2)], "boundaries must be 1-d")
g.write()
