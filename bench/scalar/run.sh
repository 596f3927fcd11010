#!/usr/bin/env bash
# Times the scalar programs (loop, fib) with a freshly built tref and a
# CPython interpreter binary, alternating the two run by run, and prints
# each side's minimum and median with the ratios tref/python.
#
#   bench/scalar/run.sh [runs]        # default 7 runs each
#   PYTHON=/path/to/python3 ...        # another interpreter (default /usr/bin/python3)
#
# PYTHON is resolved to the file that runs (symlinks followed) and must be
# a binary: a script such as a pyenv shim (python3 on PATH here) is
# refused, since timing it times bash and pyenv as well. The header names
# the binary timed, the machine and its load before and after.
#
# Wall time and CPU time (user + system) are measured with bash's `time`;
# on a loaded machine the CPU time is the steadier of the two, and the
# minimum the least disturbed by other work.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-7}
programs=(loop fib)

# The interpreter binary itself, never a wrapper script.
py=${PYTHON:-/usr/bin/python3}
if ! command -v "$py" >/dev/null; then
	echo "run.sh: no interpreter $py (set PYTHON)" >&2
	exit 1
fi
py=$(readlink -f "$(command -v "$py")")
if [ "$(head -c 2 "$py")" = '#!' ]; then
	echo "run.sh: $py is a script (a pyenv shim?), not an interpreter binary; set PYTHON to the binary (pyenv which python3)" >&2
	exit 1
fi

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

# timeit OUT CMD...: runs CMD once and appends "wall user sys" (seconds) to OUT.
timeit() {
	local out=$1
	shift
	local TIMEFORMAT='%3R %3U %3S'
	{ time "$@" >/dev/null; } 2>>"$out"
}

# stats EXPR: "min median" in ms over input lines of an awk expression.
stats() {
	awk "{print $1}" | sort -g | awk '{v[NR] = $1} END {printf "%.0f %.0f\n", v[1] * 1e3, v[int((NR + 1) / 2)] * 1e3}'
}

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo '?')
rev=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')
[ -n "$(cd "$root" && git status --porcelain 2>/dev/null)" ] && rev+="+dirty"
echo "tref $rev ($(go version | cut -d' ' -f3)) vs $py ($("$py" --version 2>&1))"
echo "$cpu, $(nproc) cores; load before: $(load)"
echo "$runs runs each, tref and python alternating after one warm-up of each; bash time, ms"
printf '%-7s %-6s %9s %9s %7s   %9s %9s %7s\n' "" "" "tref" "python" "ratio" "tref" "python" "ratio"
printf '%-7s %-6s %9s %9s %7s   %9s %9s %7s\n' program stat "wall" "wall" "wall" "CPU" "CPU" "CPU"
for p in "${programs[@]}"; do
	t=$tmp/$p.tref
	q=$tmp/$p.py
	: >"$t"
	: >"$q"
	"$tref" run "$here/$p.tr" >/dev/null
	"$py" "$here/$p.py" >/dev/null
	for ((i = 0; i < runs; i++)); do
		timeit "$t" "$tref" run "$here/$p.tr"
		timeit "$q" "$py" "$here/$p.py"
	done
	read -r twmin twmed < <(stats '$1' <"$t")
	read -r tcmin tcmed < <(stats '$2 + $3' <"$t")
	read -r pwmin pwmed < <(stats '$1' <"$q")
	read -r pcmin pcmed < <(stats '$2 + $3' <"$q")
	for s in min median; do
		if [ $s = min ]; then
			set -- "$twmin" "$pwmin" "$tcmin" "$pcmin"
		else
			set -- "$twmed" "$pwmed" "$tcmed" "$pcmed"
		fi
		awk -v p="$p" -v s="$s" -v tw="$1" -v pw="$2" -v tc="$3" -v pc="$4" 'BEGIN {
			printf "%-7s %-6s %9d %9d %6.2fx   %9d %9d %6.2fx\n", p, s, tw, pw, tw / pw, tc, pc, (pc > 0 ? tc / pc : 0)}'
	done
done
echo "load after: $(load)"
