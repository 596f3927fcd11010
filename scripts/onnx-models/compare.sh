#!/usr/bin/env bash
# Alternates tref (go test -bench RealModels ./frontend/onnx) and
# onnxruntime-node (bench.js) on one thread, ROUNDS rounds each (default
# 3), printing the load average before each run, so that both sides see
# the same load on a shared machine. Summarise with the min and median
# of each side's figures. Usage:
#   scripts/onnx-models/compare.sh [ROUNDS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
threads=${2:-1}
dir=${TREF_ONNX_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/tref/onnx-models}
bin=$(mktemp -d)/onnx.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./frontend/onnx
for r in $(seq "$rounds"); do
	echo "# round $r tref load $(cut -d' ' -f1-3 /proc/loadavg)"
	(cd frontend/onnx && GOMAXPROCS=$threads "$bin" -test.run '^$' -test.bench RealModels -test.benchtime 1s | grep '^Benchmark')
	echo "# round $r onnxruntime load $(cut -d' ' -f1-3 /proc/loadavg)"
	NODE_PATH=$dir/node_modules node scripts/onnx-models/bench.js "$dir" "$threads"
done
