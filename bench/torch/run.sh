#!/usr/bin/env bash
# run.sh - the torch:cpu backend against Debian's python3-torch on the same
# models, same thread count, side by side in one run.
#
#   bench/torch/run.sh [THREADS] [ROUNDS]
#
# TREF=path uses a prebuilt tref instead of building one. Needs the plugin (scripts/build-torch.sh) and python3-torch. Each model
# times 10 forwards inside the script (start-up excluded); each round runs
# tref and PyTorch back to back and the best round of each is reported.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
threads=${1:-2}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${TREF:-}" ]; then
  cp "$TREF" "$tmp/tref"   # a prebuilt binary
else
  (cd "$root" && go build -o "$tmp/tref" ./cmd/tref)
fi
export TREF_TORCH_THREADS=$threads
# Both sides run OpenBLAS with the core type tref measured as fastest
# (its first torch:cpu run on this machine measures and caches it) unless
# OPENBLAS_CORETYPE is set.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  "$tmp/tref" run --device torch:cpu "$root/examples/hello.tr" >/dev/null
  OPENBLAS_CORETYPE=$(/usr/bin/python3 -c '
import json, os, sys
d = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
try:
    m = json.load(open(os.path.join(d, "tref", "openblas-coretype.json")))
except OSError:
    sys.exit()
mine = [v for k, v in m.items() if os.path.exists(k.split("|")[1])]
print(max(mine, key=lambda v: v["measured"])["coretype"] if mine else "")')
  echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(OpenBLAS default)} (tref's measurement)"
fi
export OPENBLAS_CORETYPE
# OpenBLAS has its own thread pool beside libtorch's OpenMP one; give both
# runs the same count so neither oversubscribes the cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$threads}
printf '%-6s %12s %12s %12s %8s\n' model tref_torch_ms tref_cpu_ms pytorch_ms ratio
for model in mlp block; do
  bt=1000000000 bc=1000000000 bp=1000000000
  for _ in $(seq "$rounds"); do
    t=$("$tmp/tref" run --device torch:cpu "$here/$model.tr" | awk '{print $2}')
    c=$("$tmp/tref" run --device cpu "$here/$model.tr" | awk '{print $2}')
    p=$(/usr/bin/python3 "$here/$model.py" "$threads" | awk '{print $2}')
    bt=$(echo "if ($t < $bt) $t else $bt" | bc -l)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc -l)
    bp=$(echo "if ($p < $bp) $p else $bp" | bc -l)
  done
  printf '%-6s %12.1f %12.1f %12.1f %8.2f\n' "$model" "$bt" "$bc" "$bp" "$(echo "$bt / $bp" | bc -l)"
done
echo "ratio = tref torch:cpu time / PyTorch time (goal: <= 1.10)"
