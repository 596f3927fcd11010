#!/usr/bin/env bash
# gpu-check.sh - check tref's CUDA data plane on a GPU machine that has a
# CUDA PyTorch but no Go toolchain, in one command of a few minutes.
#
#   scripts/gpu-check.sh [--dry-run] TREF_BINARY [OUT_DIR]
#
# TREF_BINARY is a tref built elsewhere with `CGO_ENABLED=0 go build
# ./cmd/tref`. The script builds the torch plugin with this machine's g++
# against the PyTorch of $PYTHON (default python3), then runs each offload
# example (examples/offload), training with its activations offloaded
# (bench/devices/train.tr: every backward op on the device), training
# through the ops torch's CUDA kernels sum in no fixed order
# (bench/devices/grads.tr: the plugin's must give the same bits each
# run), and large
# layers streamed twice
# (bench/devices/large.tr: 64 MiB weights copied in 16 MiB chunks through
# a full staging pool, then straight from pinned host memory), three
# ways: on cpu (tref's own kernels, for reference), on cuda:0 with every
# tensor resident, and on cuda:0 with --mem a quarter of the workload's
# weights. The offload run's output must
# equal the resident run's exactly (same kernels, only the placement
# differs), and the resident run's must agree with cpu's (other kernels:
# each number within 1e-3 of it, relative, or absolute below 1); then
# runs bad input (a tensor above --mem, a missing device,
# --mem above the free memory), each of which must exit 1 with an error.
# A difference or a failed run makes the script exit 1 after all runs
# (with GPU_CHECK_BENCH, so does a benchmarked offload whose output is not
# the resident run's). OUT_DIR (default ./gpu-check-out) gets each run's output,
# chrome trace and memory svg (on cuda the trace's copies and kernels
# carry the times CUDA events measured: copies overlapping kernels show
# there), `tref calibrate`'s output, link.txt (the host link's peak as
# PyTorch's pinned copies reach it, scripts/gpu-link-peak.py),
# trace-stats.txt (each trace's overlap and copy bandwidth,
# scripts/gpu-trace-stats.py), and table.tsv.
#
# With GPU_CHECK_BENCH set to a `CGO_ENABLED=0 go build ./bench/devices`
# binary, the script then runs that benchmark too: the offload examples
# (warm, fastest of 5, sim's prediction; bench-examples.md) and the large
# layers of bench/devices/large.tr (1 GiB of weights, compute- and
# transfer-bound, and streamed 2 and 6 times over; bench-large.md),
# against the link peak link.txt measured, each offload also with every
# copy staged (--pinned 0), and two of the large layers again with the
# larger staging pool of before (bench-large-staging256.md), with the
# warm chrome traces in bench-traces/NAME/ (a few minutes more).
#
# --dry-run does the same on torch:cpu (no GPU needed; CI runs it): the
# plugin is built against $PYTHON's torch if it has one, else Debian's
# libtorch-dev. TREF_CUDA_SYNC=1 in the environment runs cuda:N on the
# synchronous torch device instead of the data plane.
set -euo pipefail

dev=cuda:0
if [ "${1:-}" = --dry-run ]; then
  dev=torch:cpu
  shift
fi
tref=${1:?usage: scripts/gpu-check.sh [--dry-run] TREF_BINARY [OUT_DIR]}
out=${2:-./gpu-check-out}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tref=$(cd "$(dirname "$tref")" && pwd)/$(basename "$tref")
t_start=$(date +%s)

# Each workload and the MiB of its float32 weights (bench/devices); then
# large: 16 layers of bench/devices/large.tr streamed twice (1 GiB of
# weights on the GPU, 64 MiB on a dry run), so that a quarter of them
# goes through the staging pool in 16 MiB chunks and, the second time,
# straight from the pinned host tensors.
# train: bench/devices/train.tr, five AdamW steps of an MLP whose
# activations, weights and optimizer state (248 MiB at its peak, the
# "weights" below: its --mem is a quarter of that) go out during the
# forward pass and come back for the backward one.
# grads: bench/devices/grads.tr, three AdamW steps through the ops whose
# torch CUDA kernels sum in no fixed order (the backward of embedding,
# gather, reflect pad, adaptive_avg_pool2d and conv2d; a per-window
# cross entropy, a long 1-d cumsum and cumprod, scatter and
# scatter_reduce with repeated indices): 8 MiB of weights, 32 "weights"
# for a budget of 8 MiB, under which it evicts about 450 times.
workloads="mlp:64 transformer:96 embedding:112 loop:96 grads:32 train:248 large:1024"
large_args=(16 4096 128 1 2)
train_args=(8 1024 1024 5)
grads_args=(8 512 3)

if [ "$dev" = torch:cpu ]; then
  workloads="${workloads% train:248 large:1024} train:8 large:64"
  large_args=(16 1024 32 1 2)
  train_args=(4 256 256 3)
  if "$python" -c 'import torch' 2>/dev/null; then
    export TORCH_PYTHON="$python"
  fi
else
  "$python" -c 'import torch; assert torch.cuda.is_available(), "torch sees no CUDA device"; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
  export TORCH_PYTHON="$python"
fi
# The link's peak: PyTorch's own pinned copies, timed with CUDA events,
# for tref's staging pool to be judged against (not fatal).
if [ "$dev" != torch:cpu ]; then
  "$python" "$here/scripts/gpu-link-peak.py" >"$out/link.txt" 2>&1 || echo "gpu-check: link peak failed: $(tail -1 "$out/link.txt")"
  cat "$out/link.txt"
fi

export TREF_TORCH_OUT="$out/plugin"
"$here/scripts/build-torch.sh"
export TREF_TORCH_LIB="$out/plugin/libtref_torch.so"

# Calibration: what sim needs to predict this device (not fatal).
timeout 60 "$tref" calibrate --device "$dev" >"$out/calibrate.txt" 2>&1 || echo "gpu-check: calibrate failed: $(head -1 "$out/calibrate.txt")"

# secs prints the time from ns $1 to ns $2 as N.NNN seconds (no bc).
secs() { local d=$(( ($2 - $1) / 1000000 )); printf '%d.%03d' $((d / 1000)) $((d % 1000)); }

# agrees A B: files A and B hold the same text but for rounding: the same
# words around their numbers, integers equal, and each other number
# within 1e-3 of the other's, relative (absolute below 1).
agrees() {
  awk -v tol=1e-3 '
    function num(x) { return x ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    function abs(x) { return x < 0 ? -x : x }
    function split_(line, parts,   n, i, out) {
      gsub(/[][(),:=]/, " & ", line)
      return split(line, parts, /[ \t]+/)
    }
    NR == FNR { a[FNR] = $0; na = FNR; next }
    {
      nb = FNR
      n = split_(a[FNR], x); m = split_($0, y)
      if (n != m) exit 1
      for (i = 1; i <= n; i++) {
        if (x[i] == y[i]) continue
        if (!num(x[i]) || !num(y[i])) exit 1
        if (x[i] !~ /[.eE]/ && y[i] !~ /[.eE]/) exit 1
        d = abs(x[i] - y[i]); s = abs(x[i]) > abs(y[i]) ? abs(x[i]) : abs(y[i])
        if (d > tol * (s > 1 ? s : 1)) exit 1
      }
    }
    END { if (na != nb) exit 1 }
  ' "$1" "$2"
}

# On the GPU each run gets at most $limit seconds, so that the whole check
# ends within about 8 minutes even when runs hang (a dry run on a slow
# CPU gets longer).
limit=${GPU_CHECK_RUN_TIMEOUT:-30}
if [ "$dev" = torch:cpu ]; then
  limit=${GPU_CHECK_RUN_TIMEOUT:-180}
fi
table="$out/table.tsv"
printf 'workload\tmode\tdevice\tmem\twall_s\tresult\n' >"$table"
failed=0
for w in $workloads; do
  name=${w%%:*}
  weights=${w#*:}
  script="$here/examples/offload/$name.tr"
  script_args=()
  case $name in
  large | train | grads)
    # bench/devices/NAME.tr with NAME_args
    script="$here/bench/devices/$name.tr"
    args_of="${name}_args[@]"
    script_args=("${!args_of}")
    ;;
  esac
  quarter=$(( weights * 1024 / 4 ))KiB
  for mode in cpu resident offload; do
    args=(--device "$dev")
    d=$dev mem=-
    case $mode in
    cpu) args=(--device cpu) d=cpu ;;
    offload) args+=(--mem "$quarter") mem=$quarter ;;
    esac
    base="$out/$name-$mode"
    t0=$(date +%s%N)
    if [ $mode = cpu ]; then
      timeout "$limit" "$tref" run "${args[@]}" "$script" ${script_args[@]+"${script_args[@]}"} >"$base.stdout" 2>"$base.stderr" && rc=0 || rc=$?
    else
      timeout "$limit" "$tref" trace "${args[@]}" --format chrome -o "$base.chrome.json" --svg "$base.svg" "$script" \
        ${script_args[@]+"${script_args[@]}"} >"$base.stdout" 2>"$base.stderr" && rc=0 || rc=$?
    fi
    t1=$(date +%s%N)
    result=ok
    if [ $rc -eq 124 ]; then
      result="killed after ${limit}s"
      failed=1
    elif [ $rc -ne 0 ]; then
      result="failed: $(head -1 "$base.stderr")"
      failed=1
    elif [ $mode = offload ] && ! cmp -s "$base.stdout" "$out/$name-resident.stdout"; then
      result="output differs from resident: $(head -1 "$base.stdout")"
      failed=1
    elif [ $mode = resident ] && ! agrees "$base.stdout" "$out/$name-cpu.stdout"; then
      result="output differs from cpu's ($(head -1 "$out/$name-cpu.stdout")) beyond rounding: $(head -1 "$base.stdout")"
      failed=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$d" "$mem" "$(secs "$t0" "$t1")" "$result" >>"$table"
  done
done
# Bad input: each must fail with exit status 1 and an error, not a
# crash: a tensor larger than --mem, a device that is not there, and (on
# a GPU) --mem above the free memory.
bad=("mem-below-tensor|--device $dev --mem 1MiB" "no-such-device|--device cuda:7")
if [ "$dev" != torch:cpu ]; then
  bad+=("mem-above-free|--device $dev --mem 100000GiB")
fi
for case in "${bad[@]}"; do
  name=${case%%|*}
  read -r -a flags <<<"${case#*|}"
  base="$out/bad-$name"
  timeout "$limit" "$tref" run "${flags[@]}" "$here/examples/offload/mlp.tr" >"$base.stdout" 2>"$base.stderr" && rc=0 || rc=$?
  result="ok: $(grep -m1 . "$base.stderr")"
  if [ $rc -ne 1 ] || grep -q -e '^panic' -e '^goroutine ' -e 'SIGSEGV' "$base.stderr"; then
    result="exit $rc, want 1 with an error: $(head -1 "$base.stderr")"
    failed=1
  fi
  printf '%s\tbad input\t%s\t-\t-\t%s\n' "$name" "$dev" "$result" >>"$table"
done

# The benchmark (not fatal: the check above is the verdict).
if [ -n "${GPU_CHECK_BENCH:-}" ]; then
  bench=$(cd "$(dirname "$GPU_CHECK_BENCH")" && pwd)/$(basename "$GPU_CHECK_BENCH")
  # The link's peak: PyTorch's pinned host-to-device copies of 64 MiB.
  peak=$(awk '$1 == 64 { print $2 }' "$out/link.txt" 2>/dev/null || true)
  mkdir -p "$out/bench-traces"
  # Each run: its name|environment|flags. -staged: each offload again
  # with every copy staged (--pinned 0), to show what copying straight
  # from pinned host tensors gains. large-staging256: the large layers
  # with the staging pool of before session 15 (256 MiB, not 64).
  sets=("examples||-set examples -reps 5 -staged" "large||-set large -reps 2 -staged"
    "large-staging256|TREF_CUDA_STAGING_MIB=256|-set large -only large-compute,large-transfer -reps 2")
  if [ "$dev" = torch:cpu ]; then
    sets=("examples||-set examples -reps 1 -only mlp -staged" "large||-set large -reps 1 -width 256")
  fi
  for s in "${sets[@]}"; do
    name=${s%%|*}
    rest=${s#*|}
    read -r -a envs <<<"${rest%%|*}"
    read -r -a flags <<<"${rest#*|}"
    mkdir -p "$out/bench-traces/$name"
    (cd "$here" && timeout $((limit * 12)) env ${envs[@]+"${envs[@]}"} "$bench" -device "$dev" "${flags[@]}" ${peak:+-link "$peak"} \
      -chrome "$out/bench-traces/$name") >"$out/bench-$name.md" 2>&1 ||
      echo "gpu-check: bench $name failed: $(tail -1 "$out/bench-$name.md")"
    cat "$out/bench-$name.md"
    # An offload whose output is not the resident run's is a failed
    # check, not a slow one.
    if grep -q '| false |$' "$out/bench-$name.md"; then
      printf 'bench %s\toffload\t%s\t-\t-\t%s\n' "$name" "$dev" "output differs from resident: $(grep -m1 '| false |$' "$out/bench-$name.md")" >>"$table"
      failed=1
    fi
  done
fi

# What the traces say: copies overlapping kernels, copy bandwidth.
if command -v "$python" >/dev/null; then
  "$python" "$here/scripts/gpu-trace-stats.py" "$out"/*.chrome.json >"$out/trace-stats.txt" 2>&1 || true
  sed "s|$out/||" "$out/trace-stats.txt"
fi
column -t -s "$(printf '\t')" "$table" 2>/dev/null || cat "$table"
echo "gpu-check: $dev, $(( $(date +%s) - t_start )) s; outputs, chrome traces and table in $out"
exit $failed
