#!/usr/bin/env bash
# The recurrent layers (lstm, gru forward; lstm's gradient) and
# multi_head_attention on tref's cpu backend next to python3-torch's
# nn.LSTM, nn.GRU and nn.MultiheadAttention: the best of 3 runs each, in
# ms, and tref's time as a multiple of torch's. Results go in
# bench/RESULTS.md ("Recurrent layers and attention"). Both sides run on
# one thread: tref on one core (GOMAXPROCS=1), torch with one thread
# (rnn.py). Debian's OpenBLAS needs OPENBLAS_CORETYPE on AMD Zen (see
# bench/gemm/run.sh): Haswell unless the environment says otherwise.
set -euo pipefail
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
GOMAXPROCS=1 "$tmp/tref" run --device cpu "$here/rnn.tr" >"$tmp/tref.txt"
/usr/bin/python3 "$here/rnn.py" 2>/dev/null >"$tmp/torch.txt"
printf '%-10s %-12s %10s %10s %7s\n' op size "tref ms" "torch ms" ratio
paste -d' ' "$tmp/tref.txt" "$tmp/torch.txt" | awk '{
	if ($1 != $4 || $2 != $5) { print "mismatched rows: " $0 > "/dev/stderr"; exit 1 }
	printf "%-10s %-12s %10.2f %10.2f %7.2f\n", $1, $2, $3, $6, $3 / $6
}'
