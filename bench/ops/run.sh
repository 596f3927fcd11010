#!/bin/sh
# Benchmarks of tref's elementwise ops and reductions; results and the
# machine they ran on go in bench/RESULTS.md.
#
#   sh bench/ops/run.sh [rounds]
#
# 1. Small ops: the chain of 100k adds on [4] tensors through the whole
#    stack (bench/ops/smallops.tr) next to the same chain in python3-torch
#    (smallops.py), alternating, best of N rounds each (the machine is
#    shared, so the best run is the least disturbed one).
# 2. Bandwidth: 16M-element float32 kernels next to copy() of 64 MB, in one
#    `go test -bench` run.
set -e
cd "$(dirname "$0")/../.."
rounds=${1:-5}
bin=$(mktemp -d)/tref
go build -o "$bin" ./cmd/tref
out=$(mktemp)
i=0
while [ "$i" -lt "$rounds" ]; do
	"$bin" run --device cpu bench/ops/smallops.tr | tee -a "$out"
	"$bin" run bench/ops/smallops.tr | sed 's/^tref/tref-auto/' | tee -a "$out"
	/usr/bin/python3 bench/ops/smallops.py | tee -a "$out"
	i=$((i + 1))
done
echo "== best of $rounds (ns per add)"
awk '{ ns = $6 + 0; if (!($1 in best) || ns < best[$1]) best[$1] = ns }
	END {
		for (k in best) printf "%-10s %8.0f ns/op\n", k, best[k]
		if (best["torch"] > 0) printf "tref (cpu) / torch = %.2f\n", best["tref"] / best["torch"]
	}' "$out"
rm -f "$out" "$bin"
echo "== 16M-element float32 bandwidth (bytes read + written per second)"
go test ./runtime/backend/cpu -run '^$' -bench 'Copy64MB|Elementwise16M|Reduce16M' -benchtime 10x
