#!/usr/bin/env bash
# gpu-sweep.sh - measure the CUDA plane's staging settings on a GPU
# machine (no Go there), to pick the defaults from numbers.
#
#   scripts/gpu-sweep.sh DEVICES_BINARY [OUT_DIR]
#
# DEVICES_BINARY is `CGO_ENABLED=0 go build ./bench/devices`, run from the
# repository root. TREF_TORCH_LIB must name a plugin built against the
# machine's CUDA PyTorch (scripts/gpu-check.sh builds one in
# OUT/plugin). For each setting of the staging pool (TREF_CUDA_STAGING_MIB,
# TREF_CUDA_STAGING_REGISTER), its chunks (TREF_CUDA_CHUNK_MIB) and the
# split of the memcpys into it among goroutines (TREF_CUDA_COPY_SPLIT_KIB,
# TREF_CUDA_COPY_PIECE_KIB; see runtime/backend/torch/plane.go) and the
# buffers allocated ahead of the first copy (TREF_CUDA_PREALLOC), and
# of when host blocks are pinned in place (TREF_CUDA_PIN_AT) and whether
# staged copies wait on the copy stream (TREF_CUDA_STAGE=wait), the
# script runs bench/devices' large layers copied in for the first
# time (large-transfer, 1 GiB in
# 64 MiB weights, and large-compute), resident and under a quarter of
# the weights, fastest of 2, and prints one line per setting: the
# measured times, and whether every offload's output equalled its
# resident run's. A setting whose output differs, or whose run fails,
# makes the script exit 1. OUT_DIR (default ./gpu-sweep-out) gets each
# setting's full benchmark output. Seventeen settings, about 12 s each on
# an H200 machine, the likeliest to matter first (a run cut short keeps
# its lines).
# GPU_SWEEP_ONLY="name ..." runs only those settings;
# GPU_SWEEP_EXAMPLES="name ..." first runs bench/devices' offload
# examples (host-bound, copies of 1-8 MiB) under those settings, fastest
# of 5, and prints their resident and offload ms (OUT_DIR/NAME-examples.md
# has the whole output): a default chosen on the large layers must not
# slow the small copies down. GPU_SWEEP_DEVICE and
# GPU_SWEEP_WIDTH (default cuda:0, 4096) try it elsewhere: on torch:cpu
# the settings change nothing, but the script runs.
set -euo pipefail

bench=${1:?usage: scripts/gpu-sweep.sh DEVICES_BINARY [OUT_DIR]}
out=${2:-./gpu-sweep-out}
dev=${GPU_SWEEP_DEVICE:-cuda:0}
width=${GPU_SWEEP_WIDTH:-4096}
mkdir -p "$out"
: "${TREF_TORCH_LIB:?set TREF_TORCH_LIB to a plugin built against the PyTorch here}"

# name|settings (environment assignments)
settings=(
  "default|"
  "pin-birth|TREF_CUDA_PIN_AT=birth"
  "pin-first|TREF_CUDA_PIN_AT=first"
  "stage-wait|TREF_CUDA_STAGE=wait"
  "birth-wait|TREF_CUDA_PIN_AT=birth TREF_CUDA_STAGE=wait"
  "old-defaults|TREF_CUDA_STAGING_REGISTER=0 TREF_CUDA_PREALLOC=2 TREF_CUDA_COPY_PIECE_KIB=2048"
  "host-alloc|TREF_CUDA_STAGING_REGISTER=0"
  "two-ahead|TREF_CUDA_PREALLOC=2"
  "pieces2m|TREF_CUDA_COPY_PIECE_KIB=2048"
  "pool128|TREF_CUDA_STAGING_MIB=128"
  "pieces512k|TREF_CUDA_COPY_PIECE_KIB=512 TREF_CUDA_COPY_SPLIT_KIB=2048"
  "chunk8|TREF_CUDA_CHUNK_MIB=8"
  "none-ahead|TREF_CUDA_PREALLOC=0"
  "engine-thread|TREF_CUDA_STAGE=sync"
  "chunk32-pool128|TREF_CUDA_CHUNK_MIB=32 TREF_CUDA_STAGING_MIB=128"
  "chunk4-pool32|TREF_CUDA_CHUNK_MIB=4 TREF_CUDA_STAGING_MIB=32"
  "one-core|TREF_CUDA_COPY_SPLIT_KIB=1048576"
)
if [ -n "${GPU_SWEEP_ONLY:-}" ]; then
  read -r -a only <<<"$GPU_SWEEP_ONLY"
  keep=()
  for s in "${settings[@]}"; do
    for o in "${only[@]}"; do
      [ "${s%%|*}" = "$o" ] && keep+=("$s")
    done
  done
  settings=("${keep[@]}")
fi

# ms WORKLOAD MODE FILE: the measured ms of the table's row of that
# workload resident (MODE resident) or under its quarter (offload).
ms() {
  awk -F'|' -v w="$1" -v m="$2" '$2 == " " w " " && $3 !~ /staged/ && (($3 == " resident ") == (m == "resident")) {
    gsub(/ /, "", $4); print $4; exit }' "$3"
}

# measure SETTING FILE ROW ARGS...: runs the benchmark with ARGS under
# SETTING's environment into FILE, and sets outputs to equal, DIFFER (an
# offload's output not its resident run's) or FAILED (no table row
# beginning with ROW), and failed to 1 for either of those.
measure() {
  local s=$1 f=$2 row=$3 envs
  shift 3
  read -r -a envs <<<"${s#*|}"
  env ${envs[@]+"${envs[@]}"} timeout 300 "$bench" -device "$dev" "$@" >"$f" 2>&1 ||
    echo "gpu-sweep: ${s%%|*} failed: $(tail -1 "$f")"
  outputs=equal
  if ! grep -q "^| $row" "$f"; then
    outputs=FAILED
    failed=1
  elif grep -q '| false |$' "$f"; then
    outputs=DIFFER
    failed=1
  fi
}

failed=0

# exms WORKLOAD FILE: "resident/offload" ms of an example's two rows.
exms() {
  echo "$(ms "$1" resident "$2")/$(ms "$1" offload "$2")"
}
if [ -n "${GPU_SWEEP_EXAMPLES:-}" ]; then
  read -r -a examples <<<"$GPU_SWEEP_EXAMPLES"
  printf '%-16s %-18s %-18s %-18s %-18s %s\n' setting mlp transformer embedding loop outputs
  for s in "${settings[@]}"; do
    name=${s%%|*}
    [[ " ${examples[*]} " == *" $name "* ]] || continue
    f="$out/$name-examples.md"
    measure "$s" "$f" "mlp " -set examples -reps 5
    printf '%-16s %-18s %-18s %-18s %-18s %s\n' "$name" "$(exms mlp "$f")" "$(exms transformer "$f")" \
      "$(exms embedding "$f")" "$(exms loop "$f")" "$outputs"
  done
  echo
fi

printf '%-16s %-62s %10s %10s %10s %10s %s\n' setting environment transfer-res transfer-off compute-res compute-off outputs
for s in "${settings[@]}"; do
  name=${s%%|*}
  f="$out/$name.md"
  measure "$s" "$f" large- -set large -width "$width" -only large-transfer,large-compute -reps 2
  printf '%-16s %-62s %10s %10s %10s %10s %s\n' "$name" "${s#*|}" \
    "$(ms large-transfer resident "$f")" "$(ms large-transfer offload "$f")" \
    "$(ms large-compute resident "$f")" "$(ms large-compute offload "$f")" "$outputs"
done

exit $failed
