#!/usr/bin/env bash
# The decompositions (qr, eigh, svd, pinv, matrix_exp, lu) and a float64
# matmul on tref's cpu backend next to python3-torch's LAPACK and BLAS,
# on the same symmetric float32 matrices of 32, 128 and 256 rows: the
# best of 3 runs each, in ms, and tref's time as a multiple of torch's.
# Results go in bench/RESULTS.md ("Decompositions"). Both sides run on
# one thread: tref on one core, torch with one thread (decompose.py); see
# bench/pair.sh (OPENBLAS_CORETYPE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pair.sh"
pair_table "$here/decompose.tr" "$here/decompose.py" n '%-11s %5s %12s %12s %8s\n' "%-11s %5d %12.3f %12.3f %8.1f\n"
