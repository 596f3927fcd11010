#!/usr/bin/env bash
# Times the scalar programs (loop, fib) with a freshly built tref and the
# machine's python3, side by side in one run, and prints tref/python3.
#
#   bench/scalar/run.sh [runs]     # default 5 runs each
#   PYTHON=/usr/bin/python3 ...     # another Python; NO_HYPERFINE=1 ignores hyperfine
#
# Reports wall time and CPU time (user + system) and their ratios. Uses
# hyperfine when installed (median wall, mean CPU, after one warm-up),
# else bash's `time` over `runs` runs (medians).
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

# measure CMD...: runs it `runs` times and prints "wall_ms cpu_ms", the
# medians of the wall time and of the CPU time (user + system). On a busy
# machine the CPU time is the steadier of the two.
measure() {
	local i out=$tmp/measure
	: >"$out"
	for ((i = 0; i < runs; i++)); do
		TIMEFORMAT='%R %U %S'
		{ time "$@" >/dev/null; } 2>>"$out"
	done
	echo "$(median '$1 * 1e3' <"$out") $(median '($2 + $3) * 1e3' <"$out")"
}

# median EXPR: the median over input lines of an awk expression.
median() {
	awk "{print $1}" | sort -g | awk '{v[NR] = $1} END {printf "%.1f", v[int((NR + 1) / 2)]}'
}

# times PROGRAM: "tref_wall tref_cpu python_wall python_cpu" in ms.
times() {
	local p=$1
	if [ -z "${NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null; then
		hyperfine -N --style none --warmup 1 --runs "$runs" \
			--export-json "$tmp/$p.json" "$tref run $here/$p.tr" "$py $here/$p.py" >/dev/null
		"$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join("%.1f %.1f" % (x["median"] * 1e3, (x["user"] + x["system"]) * 1e3) for x in r))' "$tmp/$p.json"
	else
		echo "$(measure "$tref" run "$here/$p.tr") $(measure "$py" "$here/$p.py")"
	fi
}

method="bash time, medians of $runs runs"
[ -z "${NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null && method="hyperfine, $runs runs after 1 warm-up: median wall, mean CPU"
rev=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')
[ -n "$(cd "$root" && git status --porcelain 2>/dev/null)" ] && rev+="+dirty"
echo "tref $rev, $(go version | cut -d' ' -f3), $py = $("$py" --version 2>&1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'); $method"
printf '%-8s %10s %10s %8s   %10s %10s %8s\n' "" "tref" "python3" "ratio" "tref" "python3" "ratio"
printf '%-8s %10s %10s %8s   %10s %10s %8s\n' program "wall ms" "wall ms" "wall" "CPU ms" "CPU ms" "CPU"
for p in "${programs[@]}"; do
	read -r tw tc pw pc < <(times "$p")
	awk -v p="$p" -v tw="$tw" -v tc="$tc" -v pw="$pw" -v pc="$pc" 'BEGIN {
		printf "%-8s %10.1f %10.1f %7.2fx   %10.1f %10.1f %7.2fx\n", p, tw, pw, tw / pw, tc, pc, tc / pc}'
done
