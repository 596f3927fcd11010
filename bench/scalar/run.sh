#!/usr/bin/env bash
# Times the scalar programs (loop, fib) with a freshly built tref and the
# machine's python3, side by side in one run, and prints tref/python3.
#
#   bench/scalar/run.sh [runs]     # default 5 runs each; PYTHON=... to pick
#
# Uses hyperfine when installed (median of its runs, after one warm-up),
# else runs each command `runs` times and takes the median wall time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-5}
py=${PYTHON:-python3}
programs=(loop fib)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
tref=$tmp/tref

# The two implementations must agree before their times mean anything.
for p in "${programs[@]}"; do
	a=$("$tref" run "$here/$p.tr")
	b=$("$py" "$here/$p.py")
	if [ "$a" != "$b" ]; then
		echo "$p: tref printed '$a' but $py printed '$b'" >&2
		exit 1
	fi
done

# median_ms CMD...: the median wall time of `runs` runs, in milliseconds.
median_ms() {
	local i t0 t1
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		echo $((t1 - t0))
	done | sort -n | awk '{t[NR] = $1} END {printf "%.1f", t[int((NR + 1) / 2)] / 1e6}'
}

# times_ms PROGRAM: "tref_ms python_ms" for one program.
times_ms() {
	local p=$1
	if command -v hyperfine >/dev/null; then
		hyperfine -N --style none --warmup 1 --runs "$runs" \
			--export-json "$tmp/$p.json" "$tref run $here/$p.tr" "$py $here/$p.py" >/dev/null
		"$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("%.1f %.1f" % (r[0]["median"] * 1e3, r[1]["median"] * 1e3))' "$tmp/$p.json"
	else
		echo "$(median_ms "$tref" run "$here/$p.tr") $(median_ms "$py" "$here/$p.py")"
	fi
}

method="median of $runs runs (date +%s%N)"
command -v hyperfine >/dev/null && method="hyperfine, median of $runs runs after 1 warm-up"
echo "tref $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3), $("$py" --version 2>&1), $(nproc) cores; $method"
printf '%-8s %12s %14s %14s\n' program "tref (ms)" "python3 (ms)" "tref/python3"
for p in "${programs[@]}"; do
	read -r t_ms py_ms < <(times_ms "$p")
	awk -v p="$p" -v t="$t_ms" -v q="$py_ms" 'BEGIN {printf "%-8s %12.1f %14.1f %13.2fx\n", p, t, q, t / q}'
done
