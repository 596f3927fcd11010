#!/usr/bin/env bash
# Benchmarks of tref's elementwise ops and reductions; results go in
# bench/RESULTS.md ("Elementwise ops and reductions").
#
#   bench/ops/run.sh [runs]      # default 5 runs of each program
#   SMALL_ONLY=1 bench/ops/run.sh  # only part 1
#   BASE=rev bench/ops/run.sh      # part 2 also for the kernels at git
#                                  # revision rev (with today's benchmark
#                                  # file), interleaved round by round
#
# 1. Small ops: a chain of 100k adds on [4] tensors through the whole stack
#    (bench/ops/smallops.tr: evaluator, refs.Submit, window, cpu kernel)
#    next to the same chain in python3-torch (smallops.py). Reported per
#    add: the best in-script wall time (the loop alone) and the CPU time,
#    the steadier figure on a busy machine: for tref the CPU time (user +
#    system) of a whole run with 100k adds minus that of a run with none
#    (start-up is small), for torch the loop's process_time() (the import
#    alone costs seconds of CPU, too noisy to subtract).
# 2. Bandwidth: 16M-element float32 kernels next to copy() of 64 MB, `runs`
#    interleaved rounds of one test binary; for each kernel the best round,
#    in bytes read + written per wall second and per CPU second (all
#    threads; steadier on a shared machine). The machine's copy bandwidth is
#    the better of a one-thread copy() and the same copy split over every
#    core as the kernels split their work (Copy64MBParallel); wall figures
#    are fractions of that, CPU figures fractions of the split copy's
#    bytes per CPU second (both use every core the same way).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-5}
py=/usr/bin/python3
n=100000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
tref=$tmp/tref
sed "s/^let n = $n\$/let n = 0/" "$here/smallops.tr" >"$tmp/smallops0.tr"
grep -q '^let n = 0$' "$tmp/smallops0.tr"

a=$("$tref" run --device cpu "$here/smallops.tr" | awk '{print $NF}')
b=$("$py" "$here/smallops.py" 2>/dev/null | awk '{print $NF}')
if [ "$a" != "$b" ]; then
	echo "tref's sum $a differs from torch's $b" >&2
	exit 1
fi

# cpu_ms CMD...: mean CPU time (user + system) in ms over `runs` runs.
cpu_ms() {
	hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$tmp/h.json" "$*" >/dev/null
	"$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.1f" % ((r["user"] + r["system"]) * 1e3))' "$tmp/h.json"
}

# best_wall CMD...: the smallest in-script ns per add over `runs` runs.
best_wall() {
	local i
	for ((i = 0; i < runs; i++)); do "$@" 2>/dev/null; done | awk '{print $6}' | sort -g | head -1
}

rev=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')
[ -n "$(cd "$root" && git status --porcelain 2>/dev/null)" ] && rev+="+dirty"
echo "tref $rev, $(go version | cut -d' ' -f3), torch $("$py" -c 'import torch; print(torch.__version__)'), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "== small ops: $n adds on [4] tensors, $runs runs each"
tw=$(best_wall "$tref" run --device cpu "$here/smallops.tr")
pw=$(best_wall "$py" "$here/smallops.py")
tc=$(awk -v a="$(cpu_ms "$tref" run --device cpu "$here/smallops.tr")" -v b="$(cpu_ms "$tref" run --device cpu "$tmp/smallops0.tr")" -v n=$n 'BEGIN {printf "%.0f", (a - b) * 1e6 / n}')
pc=$(for ((i = 0; i < runs; i++)); do "$py" "$here/smallops.py" 2>&1 >/dev/null; done | awk '{print $3}' | sort -g | awk '{v[NR] = $1} END {printf "%.0f", v[int((NR + 1) / 2)]}')
printf '%-22s %10s %10s %8s\n' "" tref torch ratio
awk -v t="$tw" -v p="$pw" 'BEGIN {printf "%-22s %10.0f %10.0f %7.2fx\n", "best wall ns/add", t, p, t / p}'
awk -v t="$tc" -v p="$pc" 'BEGIN {printf "%-22s %10.0f %10.0f %7.2fx\n", "CPU ns/add", t, p, t / p}'

[ -n "${SMALL_ONLY:-}" ] && exit 0
echo "== 16M-element float32 kernels, best of $runs interleaved rounds"
echo "   (GB/s: bytes read + written per wall second; cpu-GB/s: per CPU second, all threads)"
cd "$root"
go test -c -o "$tmp/cpu.test" ./runtime/backend/cpu
bins=("$tmp/cpu.test")
if [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git archive "$BASE" | tar -x -C "$tmp/base"
	cp runtime/backend/cpu/elementwise_bench_test.go runtime/backend/cpu/elementwise_cputime*_test.go "$tmp/base/runtime/backend/cpu/"
	(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./runtime/backend/cpu)
	bins=("$tmp/base.test" "$tmp/cpu.test")
	echo "   (base: the kernels at $BASE; each round runs base, then now)"
fi
for ((i = 0; i < runs; i++)); do
	for b in "${bins[@]}"; do
		tag=now
		[ "$b" = "$tmp/base.test" ] && tag=base
		"$b" -test.run '^$' -test.bench 'Copy64MB|Elementwise16M|Reduce16M' -test.benchtime 5x | sed "s/^Benchmark/$tag Benchmark/"
	done
done | awk '$2 ~ /^Benchmark/ {
		tag = $1; name = $2; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
		if (!(name in seen)) { order[++n] = name; seen[name] = 1 }
		if (tag == "base") {
			hasBase = 1
			if ($8 + 0 > bcpu[name]) bcpu[name] = $8 + 0
		} else {
			if ($6 + 0 > wall[name]) wall[name] = $6 + 0
			if ($8 + 0 > cpu[name]) cpu[name] = $8 + 0
		}
	}
	END {
		refw = wall["Copy64MB"]
		if (wall["Copy64MBParallel"] > refw) refw = wall["Copy64MBParallel"]
		refc = cpu["Copy64MBParallel"]; brefc = bcpu["Copy64MBParallel"]
		printf "%-28s %8s %8s %10s %8s", "kernel", "GB/s", "/ copy", "cpu-GB/s", "/ copy"
		if (hasBase) printf " %10s %8s", "base cpu", "/ copy"
		printf "\n"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "%-28s %8.1f %7.2fx %10.1f %7.2fx", k, wall[k] / 1000, wall[k] / refw, cpu[k], cpu[k] / refc
			if (hasBase) printf " %10.1f %7.2fx", bcpu[k], bcpu[k] / brefc
			printf "\n"
		}
	}'
