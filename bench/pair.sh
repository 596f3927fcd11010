# pair.sh - sourced by the benchmarks that time a tref script against a
# python3-torch script printing the same rows ("op size ms"): the build,
# both runs on one thread, and the table with tref's time as a multiple
# of torch's. Debian's OpenBLAS 0.3.21 misdetects AMD Zen CPUs and runs
# slow unless OPENBLAS_CORETYPE is set: Haswell unless the environment
# says otherwise (bench/gemm/run.sh measures which core type is fastest).
#
#   . "$(dirname "$0")/../pair.sh"
#   pair_table TREF_SCRIPT TORCH_SCRIPT SIZE_NAME HEADER_FORMAT ROW_FORMAT
#
# HEADER_FORMAT is printf's for the column names (op, SIZE_NAME, tref ms,
# torch ms, ratio); ROW_FORMAT awk's printf for a row of the same five.
# tref runs on one core (GOMAXPROCS=1); the torch script sets its own
# thread count. Rows that do not name the same op and size fail. The
# caller runs under set -euo pipefail, so any step that fails ends it.
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}

pair_table() {
	local tr=$1 py=$2 size=$3 header=$4 row=$5
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	pair_tmp=$(mktemp -d)
	trap 'rm -rf "$pair_tmp"' EXIT
	(cd "$root" && go build -o "$pair_tmp/tref" ./cmd/tref)
	GOMAXPROCS=1 "$pair_tmp/tref" run --device cpu "$tr" >"$pair_tmp/tref.txt"
	/usr/bin/python3 "$py" 2>/dev/null >"$pair_tmp/torch.txt"
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$header" op "$size" "tref ms" "torch ms" ratio
	paste -d' ' "$pair_tmp/tref.txt" "$pair_tmp/torch.txt" | awk -v fmt="$row" '{
		if ($1 != $4 || $2 != $5) { print "mismatched rows: " $0 > "/dev/stderr"; exit 1 }
		printf fmt, $1, $2, $3, $6, $3 / $6
	}'
}
