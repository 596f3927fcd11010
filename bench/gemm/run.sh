#!/bin/sh
# Side-by-side float32 GEMM (256³, 1024³, 2048³) and conv2d ([32,64,56,56] by
# 3×3×64×64, padding 1) for tref's cpu kernels and Debian's libtorch, in one
# run: the two alternate for ROUNDS rounds (default 3) so that both see the
# same machine load, and the table gives each side's best and median rate.
#
#   bench/gemm/run.sh [ROUNDS]
#
# Debian's OpenBLAS 0.3.21 misdetects AMD Zen CPUs and runs 4-5x slow unless
# OPENBLAS_CORETYPE is set; the script tries Haswell and SkylakeX (which
# needs AVX-512) and compares against the faster one that runs.
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
PY=/usr/bin/python3
BIN=$(mktemp -d)/tref-gemm-bench
OUT=$(mktemp)
trap 'rm -f "$BIN" "$OUT"' EXIT

go build -o "$BIN" ./bench/gemm

best_core=""
best_rate=0
for core in Haswell SkylakeX; do
	# The braces keep the shell's "Illegal instruction" report quiet.
	line=$({ OPENBLAS_CORETYPE=$core "$PY" bench/gemm/torch_bench.py --sizes 1024 --no-conv --time 1; } 2>/dev/null) || {
		echo "OPENBLAS_CORETYPE=$core: does not run on this CPU" >&2
		continue
	}
	rate=$(echo "$line" | awk '{print $4}')
	echo "OPENBLAS_CORETYPE=$core: 1024³ at $rate GFLOP/s" >&2
	if awk -v a="$rate" -v b="$best_rate" 'BEGIN{exit !(a > b)}'; then
		best_core=$core
		best_rate=$rate
	fi
done
if [ -z "$best_core" ]; then
	echo "run.sh: libtorch did not run with any OPENBLAS_CORETYPE" >&2
	exit 1
fi
export OPENBLAS_CORETYPE=$best_core

r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "round $r/$ROUNDS" >&2
	"$BIN" >>"$OUT"
	"$PY" bench/gemm/torch_bench.py >>"$OUT"
	r=$((r + 1))
done

echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), OPENBLAS_CORETYPE=$best_core, $ROUNDS rounds"
awk '
{
	key = $2 " " $3
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	if ($4 > best[$1, key]) best[$1, key] = $4
	med[$1, key] = med[$1, key] " " $5
}
function median(s,    a, k, i, j, t) {
	k = split(s, a, " ")
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return a[int((k + 1) / 2)]
}
END {
	printf "%-20s %10s %10s %10s %10s %8s %8s\n", "workload", "tref best", "torch best", "tref med", "torch med", "best x", "med x"
	for (i = 1; i <= n; i++) {
		key = order[i]
		tm = median(med["tref", key]); pm = median(med["torch", key])
		printf "%-20s %10.1f %10.1f %10.1f %10.1f %8.2f %8.2f\n", key, best["tref", key], best["torch", key], tm, pm,
			best["tref", key] / best["torch", key], tm / pm
	}
	print "(GFLOP/s; x = tref / torch)"
}' "$OUT"
