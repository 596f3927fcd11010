#!/usr/bin/env bash
# gpu-check.sh - check tref's CUDA path on a GPU machine that has a CUDA
# PyTorch but no Go toolchain.
#
#   scripts/gpu-check.sh TREF_BINARY [OUT_DIR]
#
# TREF_BINARY is a tref built elsewhere with `CGO_ENABLED=0 go build
# ./cmd/tref`. The script builds the torch plugin with this machine's g++
# against the PyTorch install of $PYTHON (default python3), then runs the
# offload examples on cuda:0 all-resident and with a --mem budget
# ($GPU_CHECK_MEM, default 256MiB: set it to a quarter of the weights), writing traces (jsonl + chrome) and a
# timing table to OUT_DIR (default ./gpu-check-out). A run that fails is
# recorded in the table with its error, and the others still run.
set -euo pipefail

tref=${1:?usage: scripts/gpu-check.sh TREF_BINARY [OUT_DIR]}
out=${2:-./gpu-check-out}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
mkdir -p "$out"
tref=$(cd "$(dirname "$tref")" && pwd)/$(basename "$tref")

"$python" -c 'import torch; assert torch.cuda.is_available(), "torch sees no CUDA device"; print("torch", torch.__version__, torch.cuda.get_device_name(0))'

export TREF_TORCH_OUT="$out/plugin"
TORCH_PYTHON="$python" "$here/scripts/build-torch.sh"
export TREF_TORCH_LIB="$out/plugin/libtref_torch.so"

table="$out/timings.tsv"
printf 'workload\tmode\tmem\twall_s\n' >"$table"
for script in "$here"/examples/offload/*.tr; do
  name=$(basename "$script" .tr)
  for mode in resident offload; do
    flags=(--device cuda:0)
    mem=all
    if [ "$mode" = offload ]; then
      mem=${GPU_CHECK_MEM:-256MiB}
      flags+=(--mem "$mem")
    fi
    start=$(date +%s.%N)
    if "$tref" trace "${flags[@]}" --format jsonl -o "$out/$name-$mode.jsonl" "$script" \
      >"$out/$name-$mode.stdout" 2>"$out/$name-$mode.stderr"; then
      end=$(date +%s.%N)
      "$tref" trace "${flags[@]}" --format chrome -o "$out/$name-$mode.chrome.json" "$script" >/dev/null 2>&1 || true
      printf '%s\t%s\t%s\t%.3f\n' "$name" "$mode" "$mem" "$(echo "$end - $start" | bc)" >>"$table"
    else
      # Record the failure (e.g. --mem on CUDA before the engine's CUDA
      # path exists) and go on with the other runs.
      printf '%s\t%s\t%s\tfailed: %s\n' "$name" "$mode" "$mem" "$(head -1 "$out/$name-$mode.stderr")" >>"$table"
    fi
  done
done
column -t "$table"
echo "gpu-check: traces and timings in $out"
