#!/usr/bin/env bash
# gpu-session.sh - what a session lent a GPU runs there, in one call that
# ends within SECONDS (default 540): scripts/gpu-check.sh with the
# benchmarks (bench/devices), then scripts/gpu-sweep.sh with the plugin
# gpu-check built, for as long as the time left allows (the sweep's
# likeliest settings first; a sweep cut short keeps its lines). The
# device machine has a CUDA PyTorch and no Go toolchain: build both
# binaries here first. The sweep first runs the offload examples under
# the default, pinning at birth, staged copies waiting on the copy
# stream, and both (GPU_SWEEP_EXAMPLES, "" for none).
#
#   CGO_ENABLED=0 go build -ldflags="-s -w" -o tref ./cmd/tref
#   CGO_ENABLED=0 go build -ldflags="-s -w" -o bin/devices ./bench/devices
#   scripts/gpu-session.sh [--dry-run] ./tref ./bin/devices OUT [SECONDS]
#
# OUT gets check.log and sweep.log (what the two printed), gc.tgz (the
# outputs, traces' statistics, tables and benchmark reports of both,
# without the plugin) and traces.tgz (the benchmarks' chrome traces). The
# exit status is gpu-check's, or 1 when the sweep found an offload whose
# output differed from its resident run's, or a setting whose run
# failed. --dry-run runs both on torch:cpu (CI does: the sweep's
# settings then change nothing), with GPU_SWEEP_ONLY and GPU_SWEEP_WIDTH
# as the environment sets them.
set -uo pipefail

dry=()
dev=cuda:0
if [ "${1:-}" = --dry-run ]; then
  dry=(--dry-run)
  dev=torch:cpu
  shift
fi
usage="usage: scripts/gpu-session.sh [--dry-run] TREF_BINARY DEVICES_BINARY OUT [SECONDS]"
tref=${1:?$usage}
bench=${2:?$usage}
out=${3:?$usage}
total=${4:-540}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
tref=$(cd "$(dirname "$tref")" && pwd)/$(basename "$tref")
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
cd "$here" # the benchmarks read their scripts from the repository root
work=$(mktemp -d)
start=$(date +%s)

# gpu-check gets at most 60% of the time; it ends within 8 minutes by
# its own limits, and took about 150 s with the benchmarks on the H200.
GPU_CHECK_BENCH=$bench timeout -k 10 $((total * 60 / 100)) \
  "$here/scripts/gpu-check.sh" "${dry[@]}" "$tref" "$work/gc" >"$out/check.log" 2>&1
check=$?
tail -3 "$out/check.log"
[ $check = 124 ] && echo "gpu-session: gpu-check ran out of its $((total * 60 / 100)) s"

sweep=0
left=$((total - ($(date +%s) - start) - 30))
plugin=$work/gc/plugin/libtref_torch.so
if [ ! -f "$plugin" ]; then
  echo "gpu-session: no plugin built: the sweep does not run" | tee "$out/sweep.log"
elif [ $left -lt 45 ]; then
  echo "gpu-session: $left s left: the sweep does not run" | tee "$out/sweep.log"
else
  TREF_TORCH_LIB=$plugin GPU_SWEEP_DEVICE=${GPU_SWEEP_DEVICE:-$dev} \
    GPU_SWEEP_EXAMPLES=${GPU_SWEEP_EXAMPLES-default pin-birth stage-wait birth-wait} timeout -k 5 $left \
    "$here/scripts/gpu-sweep.sh" "$bench" "$work/gs" >"$out/sweep.log" 2>&1
  sweep=$?
  cat "$out/sweep.log"
  [ $sweep = 124 ] && echo "gpu-session: the sweep ran out of its $left s (its lines so far above)"
fi

tar czf "$out/gc.tgz" --exclude=plugin --exclude=bench-traces -C "$work" gc $([ -d "$work/gs" ] && echo gs)
[ -d "$work/gc/bench-traces" ] && tar czf "$out/traces.tgz" -C "$work/gc" bench-traces
rm -rf "$work"
echo "gpu-session: gpu-check exit $check, sweep exit $sweep, $(($(date +%s) - start)) s"
[ $check = 0 ] || exit $check
[ $sweep = 1 ] && exit 1
exit 0
