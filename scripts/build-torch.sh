#!/usr/bin/env bash
# build-torch.sh - build tref's torch plugin (libtref_torch.so), the C ABI
# shim over libtorch that `tref --device torch:cpu|cuda:N` loads at run time.
#
# Which libtorch, first match wins:
#   1. TORCH_DIR=/path/to/libtorch   (a libtorch distribution: include/, lib/)
#   2. TORCH_PYTHON=/path/to/python  (a PyTorch install: uses torch/include, torch/lib)
#   3. Debian's libtorch-dev          (installed with apt-get when missing)
#
# Where the plugin goes: $TREF_TORCH_OUT if set, else the user cache dir
# (${XDG_CACHE_HOME:-~/.cache}/tref/libtref_torch.so), which is the last
# place tref searches (see README "Torch backend").
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/runtime/backend/torch/csrc/tref_torch.cpp"
out_dir=${TREF_TORCH_OUT:-${XDG_CACHE_HOME:-$HOME/.cache}/tref}
out="$out_dir/libtref_torch.so"
cxx=${CXX:-g++}

inc=() libs=() defs=() rpath=()
if [ -z "${TORCH_DIR:-}" ] && [ -n "${TORCH_PYTHON:-}" ]; then
  TORCH_DIR=$("$TORCH_PYTHON" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  echo "build-torch: using the PyTorch install at $TORCH_DIR"
fi
if [ -n "${TORCH_DIR:-}" ]; then
  [ -d "$TORCH_DIR/include" ] && [ -d "$TORCH_DIR/lib" ] || {
    echo "build-torch: TORCH_DIR=$TORCH_DIR has no include/ and lib/" >&2; exit 1; }
  inc=(-I"$TORCH_DIR/include" -I"$TORCH_DIR/include/torch/csrc/api/include")
  libs=(-L"$TORCH_DIR/lib" -ltorch -ltorch_cpu -lc10)
  rpath=(-Wl,-rpath,"$TORCH_DIR/lib")
  if [ -e "$TORCH_DIR/lib/libc10_cuda.so" ]; then
    cuda_inc=""
    for d in "${CUDA_HOME:-}" /usr/local/cuda /usr/cuda; do
      [ -n "$d" ] && [ -e "$d/include/cuda_runtime_api.h" ] && { cuda_inc="$d/include"; break; }
    done
    if [ -z "$cuda_inc" ]; then
      # pip's nvidia-cuda-runtime wheel ships the header next to torch.
      cand=$(ls -d "$TORCH_DIR"/../nvidia/cuda_runtime/include 2>/dev/null | head -1 || true)
      [ -n "$cand" ] && [ -e "$cand/cuda_runtime_api.h" ] && cuda_inc=$cand
    fi
    if [ -n "$cuda_inc" ]; then
      echo "build-torch: CUDA headers in $cuda_inc: building with CUDA streams"
      inc+=(-I"$cuda_inc")
      defs+=(-DTREF_CUDA)
      libs+=(-ltorch_cuda -lc10_cuda)
      cudart=$(ls "$cuda_inc"/../lib/libcudart.so* "$cuda_inc"/../lib64/libcudart.so* 2>/dev/null | head -1 || true)
      if [ -n "$cudart" ]; then
        libs+=("$cudart")
        rpath+=(-Wl,-rpath,"$(dirname "$cudart")")
      else
        libs+=(-lcudart)
      fi
    else
      echo "build-torch: libtorch has CUDA but no CUDA headers were found (set CUDA_HOME): building CPU-only" >&2
    fi
  fi
else
  if [ ! -e /usr/include/ATen/ATen.h ]; then
    echo "build-torch: installing Debian's libtorch-dev"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends libtorch-dev g++
  fi
  inc=(-I/usr/include/torch/csrc/api/include)
  libs=(-ltorch -ltorch_cpu -lc10)
fi

mkdir -p "$out_dir"
tmp="$out.tmp.$$"
echo "build-torch: compiling $src"
"$cxx" -O2 -std=c++17 -fPIC -shared "${defs[@]}" "${inc[@]}" "$src" -o "$tmp" "${libs[@]}" "${rpath[@]}"
mv "$tmp" "$out"
echo "build-torch: wrote $out"
