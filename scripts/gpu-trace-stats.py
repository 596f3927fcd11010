"""gpu-trace-stats.py - what a tref chrome trace says about copies and kernels.

For each trace (`tref trace --format chrome`), one line: the span from
the first event to the last, the time kernels ran, the time copies ran
and how much of it overlapped a kernel, the bytes each way, and the copy
bandwidth (bytes over the copies' own measured time: on cuda those are
CUDA-event times of DMA from tref's pinned staging pool), overall and for
copies of at least 1 MiB; and how many ops ran on the host (the device's
kernels lacking them). gpu-check.sh runs it over its traces.

    python3 scripts/gpu-trace-stats.py TRACE.json...
"""

import json
import sys


def union(intervals):
    """Merges [start, end) intervals into disjoint sorted ones."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def covered(merged, s, e):
    """How much of [s, e) the disjoint sorted intervals merged cover."""
    t = 0.0
    for a, b in merged:
        if b <= s:
            continue
        if a >= e:
            break
        t += min(b, e) - max(a, s)
    return t


def stats(path):
    with open(path) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        return "no events"
    kernels = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e.get("cat") == "op"]
    copies = [e for e in spans if e.get("cat") == "copy"]
    merged = union(kernels)
    first = min(e["ts"] for e in spans)
    last = max(e["ts"] + e["dur"] for e in spans)
    copy_us = sum(e["dur"] for e in copies)
    overlap_us = sum(covered(merged, e["ts"], e["ts"] + e["dur"]) for e in copies)
    kernel_us = sum(b - a for a, b in merged)
    by_dir = {}
    for e in copies:
        k = e["name"].split()[0]
        b, t, big_b, big_t = by_dir.get(k, (0, 0.0, 0, 0.0))
        n = e.get("args", {}).get("bytes", 0)
        if n >= 1 << 20:
            big_b, big_t = big_b + n, big_t + e["dur"]
        by_dir[k] = (b + n, t + e["dur"], big_b, big_t)
    summary = d.get("otherData", {}) if isinstance(d, dict) else {}
    parts = [
        "span %.2f ms" % ((last - first) / 1e3),
        "kernels %.2f ms" % (kernel_us / 1e3),
        "copies %.2f ms (%d), %.0f%% overlapping kernels" % (copy_us / 1e3, len(copies), 100 * overlap_us / copy_us if copy_us else 0),
    ]
    for k in sorted(by_dir):
        b, t, big_b, big_t = by_dir[k]
        gbps = b / t / 1e3 if t else 0
        big = " (>=1MiB: %.2f GB/s)" % (big_b / big_t / 1e3) if big_t else ""
        parts.append("%s %.1f MiB at %.2f GB/s%s" % (k, b / 2**20, gbps, big))
    if "fallbacks" in summary:
        parts.append("%d of %d ops on the host" % (summary["fallbacks"], summary.get("ops", 0)))
    return "; ".join(parts)


def main():
    for p in sys.argv[1:]:
        try:
            print("%s: %s" % (p, stats(p)))
        except (OSError, ValueError, KeyError) as err:
            print("%s: cannot read: %s" % (p, err))


if __name__ == "__main__":
    main()
