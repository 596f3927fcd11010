#!/usr/bin/env bash
# The decompositions (qr, eigh, svd, pinv, matrix_exp, lu) and a float64
# matmul on tref's cpu backend next to python3-torch's LAPACK and BLAS,
# on the same symmetric float32 matrices of 32, 128 and 256 rows: the
# best of 3 runs each, in ms, and tref's time as a multiple of torch's.
# Results go in bench/RESULTS.md ("Decompositions"). Both sides run on
# one thread: tref on one core (GOMAXPROCS=1), torch with one thread
# (decompose.py). Debian's OpenBLAS 0.3.21 misdetects AMD Zen CPUs and
# runs slow unless OPENBLAS_CORETYPE is set: Haswell unless the
# environment says otherwise (bench/gemm/run.sh measures which core type
# is fastest).
set -euo pipefail
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
GOMAXPROCS=1 "$tmp/tref" run --device cpu "$here/decompose.tr" >"$tmp/tref.txt"
/usr/bin/python3 "$here/decompose.py" 2>/dev/null >"$tmp/torch.txt"
printf '%-11s %5s %12s %12s %8s\n' op n "tref ms" "torch ms" ratio
paste -d' ' "$tmp/tref.txt" "$tmp/torch.txt" | awk '{
	if ($1 != $4 || $2 != $5) { print "mismatched rows: " $0 > "/dev/stderr"; exit 1 }
	printf "%-11s %5d %12.3f %12.3f %8.1f\n", $1, $2, $3, $6, $3 / $6
}'
