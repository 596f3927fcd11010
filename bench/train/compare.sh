#!/usr/bin/env bash
# compare.sh - one epoch of the MLP 784-128-10 on Fashion-MNIST on cpu
# (examples/train/mlp.tr) against python3-torch's (bench/train/epoch_torch.py)
# on the same number of threads: GOMAXPROCS for tref, torch.set_num_threads
# and OMP_NUM_THREADS for torch. Runs alternate tref, torch, tref, ... so
# that load from other processes falls on both alike.
#
#   bench/train/compare.sh [ROUNDS] [THREADS...]     (default: 5 rounds, 1 and 2 threads)
#
# Prints, per thread count, each side's epoch wall times (the steps only:
# both scripts decode the data before their clock starts), their minimum
# and median, the ratio tref/torch of both, and the CPU seconds (user +
# system, all threads) of the steps: torch's measured around its loop,
# tref's as the process's CPU minus that of `tref run mlp.tr 0` (the same
# decoding, no epoch; the difference also holds scoring the test set, about
# 0.05 s).
#
# PRIO=1 runs each command in a session of its own whose autogroup has
# nice -20 (needs root): on a shared machine under load, two-thread torch
# otherwise waits at every OpenMP barrier for its other thread to be
# scheduled (an epoch took 20-150 s at load 15 instead of under 1 s).
# TREF=path uses that binary instead of building one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${1:-5}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${TREF:-}" ]; then cp "$TREF" "$tmp/tref"; else (cd "$root" && go build -o "$tmp/tref" ./cmd/tref); fi

run() { # run CMD...: in its own nice -20 autogroup under PRIO=1
  if [ "${PRIO:-0}" = 1 ]; then
    setsid bash -c 'echo -20 > /proc/self/autogroup; exec "$@"' run "$@"
  else
    "$@"
  fi
}

cpu_of() { # cpu_of OUTFILE CMD...: CMD's output in OUTFILE, prints its user+sys seconds
  local out=$1
  shift
  run /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$out"
  awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time"
}

stats() { # stats FILE: min and median of a column of numbers
  sort -g "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f", v[1], m }'
}

cd "$root/examples/train"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $rounds rounds; PRIO=${PRIO:-0}"
for t in "${threads[@]}"; do
  : >"$tmp/tw" && : >"$tmp/tc" && : >"$tmp/pw" && : >"$tmp/pc" && : >"$tmp/base"
  for _ in $(seq "$rounds"); do
    GOMAXPROCS=$t cpu_of "$tmp/out" "$tmp/tref" run mlp.tr 0 >>"$tmp/base"
    c=$(GOMAXPROCS=$t cpu_of "$tmp/out" "$tmp/tref" run mlp.tr)
    awk '/^epoch 1:/ { for (i = 1; i <= NF; i++) if ($i == "in") printf "%.3f\n", $(i + 1) }' "$tmp/out" >>"$tmp/tw"
    echo "$c" >>"$tmp/tc"
    (cd "$root" && OMP_NUM_THREADS=$t cpu_of "$tmp/out" /usr/bin/python3 bench/train/epoch_torch.py "$t" >/dev/null)
    awk '{ print $4 >> "'"$tmp/pw"'"; print $(NF - 1) >> "'"$tmp/pc"'" }' "$tmp/out"
  done
  base=$(stats "$tmp/base" | cut -d' ' -f2)
  awk -v b="$base" '{ printf "%.3f\n", $1 - b }' "$tmp/tc" >"$tmp/tcpu"
  read -r tmin tmed <<<"$(stats "$tmp/tw")"
  read -r pmin pmed <<<"$(stats "$tmp/pw")"
  echo "$t thread(s):"
  echo "  tref  wall s: $(paste -sd' ' "$tmp/tw")  min $tmin median $tmed; cpu s (median): $(stats "$tmp/tcpu" | cut -d' ' -f2)"
  echo "  torch wall s: $(paste -sd' ' "$tmp/pw")  min $pmin median $pmed; cpu s (median): $(stats "$tmp/pc" | cut -d' ' -f2)"
  awk -v a="$tmin" -v b="$pmin" -v c="$tmed" -v d="$pmed" 'BEGIN { printf "  tref/torch: min %.2fx, median %.2fx\n", a / b, c / d }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
