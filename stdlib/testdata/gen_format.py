#!/usr/bin/python3
"""Writes format.json: Python's format(value, spec) over ints, floats and
strings, the table stdlib's TestFormatSpec checks format() against.
Run with /usr/bin/python3 (3.11) from stdlib/testdata."""
import json, math

ints = [0, 1, -1, 7, 42, -42, 255, 1234, -1234567, 1000000, 2**40 + 3, -(2**63), 2**63 - 1]
floats = [0.0, -0.0, 1.0, -1.0, 0.5, 3.14159, -2.71828, 1234.5678, 1e-5, 1.5e-4,
          123456789.0, 1e16, 1e20, 2.5e-10, 0.1, 2.675, 1e100, 99.995, 0.00001234,
          float("inf"), float("-inf"), float("nan"), 12345678901234567.0]
strings = ["", "a", "hello", "héllo", "tensor"]
int_specs = ["", "d", "5d", "<5d", "^7d", ">6", "=+8d", "+d", " d", "-d", "08d", "08,d", ",", "_d",
             "_", "b", "#b", "o", "#o", "x", "#x", "X", "#X", "#010x", "_x", "_b", "*^9d", "e", ".2e",
             "f", ".1f", "g", "%", ".0%", "n", "c", "010,", "12,d", "<<<", "5q", "..", "5.2.1", ".2d", "+c"]
float_specs = ["", ".2f", ".3e", ".0f", "#.0f", "f", "F", "e", "E", "g", "G", ".3g", ".10g", "#g",
               "#.3g", ".1g", "8.2f", "<8.2f", "^10.3f", "=+10.2f", "+.2f", " .1f", "010.2f",
               ",.2f", "_.3f", "012,.2f", "%", ".1%", "10", ".3", ".12", "#.3", "z.1f", "z.2f",
               ",", "*>12.4e", "n", ".2n", "#e", ".0e", "#.0e", ".17g"]
str_specs = ["", "s", "10", "<10", ">10", "^10", "^11", ".2", "8.3s", "*^9", "-<6"]
rows = []
def add(kind, v, spec):
    try:
        out = format(v, spec)
        if kind == "float" and (math.isnan(v) or math.isinf(v)):
            val = repr(v)
        else:
            val = v
        rows.append({"kind": kind, "value": val if kind != "float" or math.isfinite(v) else repr(v), "spec": spec, "want": out})
    except (ValueError, OverflowError) as e:
        rows.append({"kind": kind, "value": v if kind != "float" or math.isfinite(v) else repr(v), "spec": spec, "error": str(e)})
for v in ints:
    for s in int_specs:
        add("int", v, s)
for v in floats:
    for s in float_specs:
        add("float", v, s)
for v in strings:
    for s in str_specs:
        add("str", v, s)
# floats as JSON: repr keeps every digit
for r in rows:
    if r["kind"] == "float" and not isinstance(r["value"], str):
        r["value"] = repr(r["value"])
with open("format.json", "w") as f:
    f.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n")
print(len(rows), "rows")
