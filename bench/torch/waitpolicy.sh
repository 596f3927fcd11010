#!/usr/bin/env bash
# waitpolicy.sh - how OpenMP's wait policy spreads two-thread torch:cpu
# runs: the MLP forward (bench/torch/mlp.tr, matmul-bound) under each
# OMP_WAIT_POLICY, the policies interleaved round by round so that load
# from other processes falls on all of them alike.
#
#   bench/torch/waitpolicy.sh [ROUNDS] [THREADS]
#
# "default" is libgomp's own (spin about 300k iterations, then sleep): an
# unknown value makes libgomp keep its default (it warns on stderr), where
# an unset one gets tref's PASSIVE. Prints each policy's runs (ms per
# forward), median, min, max and coefficient of variation.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${1:-8}
threads=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${TREF:-}" ]; then cp "$TREF" "$tmp/tref"; else (cd "$root" && go build -o "$tmp/tref" ./cmd/tref); fi
policies=(PASSIVE ACTIVE default)
for _ in $(seq "$rounds"); do
  for p in "${policies[@]}"; do
    ms=$(TREF_TORCH_THREADS=$threads OMP_WAIT_POLICY=$p "$tmp/tref" run --device torch:cpu "$here/mlp.tr" 2>/dev/null | awk '{print $2}')
    echo "$p $ms" >>"$tmp/runs"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $threads threads, $rounds rounds, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-measured by tref}"
for p in "${policies[@]}"; do
  awk -v p="$p" '$1 == p { v[++n] = $2; s += $2; ss += $2 * $2; runs = runs sprintf(" %.0f", $2) }
    END {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      mean = s / n; sd = sqrt(ss / n - mean * mean)
      printf "%-8s median %7.1f  min %7.1f  max %7.1f  cv %4.0f%%  runs:%s\n", p, med, v[1], v[n], 100 * sd / mean, runs
    }' "$tmp/runs"
done
