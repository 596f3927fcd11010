#!/usr/bin/env bash
# Index assignment in a loop (bench/ops/rowfill.tr) next to the same loop
# in python3-torch (rowfill.py), `runs` alternating rounds (default 5),
# one thread each; results in bench/RESULTS.md ("Index assignment").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
for _ in $(seq "$runs"); do
	GOMAXPROCS=1 "$tmp/tref" run "$here/rowfill.tr"
	/usr/bin/python3 "$here/rowfill.py"
done
