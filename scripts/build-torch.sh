#!/usr/bin/env bash
# build-torch.sh - build tref's torch plugin (libtref_torch.so), the C ABI
# shim over libtorch that `tref --device torch:cpu|cuda:N` loads at run time.
#
# Which libtorch, first match wins:
#   1. TORCH_DIR=/path/to/libtorch   (a libtorch distribution: include/, lib/)
#   2. TORCH_PYTHON=/path/to/python  (a PyTorch install: uses torch/include, torch/lib)
#   3. Debian's libtorch-dev          (installed with apt-get when missing,
#                                      with OpenBLAS: libopenblas0-openmp)
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
# C++17 for Debian's 1.13; a PyTorch 2.x install builds with C++20 (its
# newer headers need it, older ones accept it). The C++11 ABI flag must
# match libtorch's: taken from torch when Python is at hand.
std=-std=c++17
if [ -z "${TORCH_DIR:-}" ] && [ -n "${TORCH_PYTHON:-}" ]; then
  TORCH_DIR=$("$TORCH_PYTHON" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  echo "build-torch: using the PyTorch install at $TORCH_DIR"
  abi=$("$TORCH_PYTHON" -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))')
  defs+=(-D_GLIBCXX_USE_CXX11_ABI="$abi")
fi
if [ -n "${TORCH_DIR:-}" ]; then
  std=-std=c++20
fi
if [ -n "${TORCH_DIR:-}" ]; then
  [ -d "$TORCH_DIR/include" ] && [ -d "$TORCH_DIR/lib" ] || {
    echo "build-torch: TORCH_DIR=$TORCH_DIR has no include/ and lib/" >&2; exit 1; }
  inc=(-I"$TORCH_DIR/include" -I"$TORCH_DIR/include/torch/csrc/api/include")
  libs=(-L"$TORCH_DIR/lib" -ltorch -ltorch_cpu -lc10)
  rpath=(-Wl,-rpath,"$TORCH_DIR/lib")
  if [ -e "$TORCH_DIR/lib/libc10_cuda.so" ]; then
    # The CUDA runtime torch itself loads comes first: pip's CUDA wheels
    # ship it, with its header, next to torch (nvidia/cu13/ for CUDA 13,
    # nvidia/cuda_runtime/ before); linking another libcudart of the same
    # soname (a system CUDA's) would replace torch's in the process.
    cuda_inc=""
    for cand in "$TORCH_DIR"/../nvidia/cu13/include "$TORCH_DIR"/../nvidia/cuda_runtime/include \
      "${CUDA_HOME:-/nonexistent}/include" /usr/local/cuda/include /usr/cuda/include; do
      [ -e "$cand/cuda_runtime_api.h" ] && { cuda_inc=$(cd "$cand" && pwd); break; }
    done
    if [ -n "$cuda_inc" ]; then
      echo "build-torch: CUDA headers in $cuda_inc: building with CUDA streams"
      inc+=(-I"$cuda_inc")
      # A system CUDA's headers after the wheel's, for any it lacks.
      for d in "${CUDA_HOME:-/nonexistent}/include" /usr/local/cuda/include; do
        [ -d "$d" ] && [ "$(cd "$d" && pwd)" != "$cuda_inc" ] && inc+=(-idirafter "$d")
      done
      defs+=(-DTREF_CUDA)
      # Nothing in the plugin calls libtorch_cuda directly, but loading
      # it registers CUDA with libtorch: keep it with --no-as-needed.
      libs+=(-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed)
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
  # libtorch1.13 links libblas.so.3 and Recommends OpenBLAS; without it
  # (--no-install-recommends) Debian's alternatives give it the reference
  # BLAS, 30-50x slower at matmul. The OpenMP build of OpenBLAS shares
  # libtorch's OpenMP threads, so one thread count (torch.set_num_threads,
  # OMP_NUM_THREADS) and OMP_WAIT_POLICY govern both.
  pkgs=()
  [ -e /usr/include/ATen/ATen.h ] || pkgs+=(libtorch-dev g++)
  readlink -f /usr/lib/*-linux-gnu/libblas.so.3 2>/dev/null | grep -q openblas || pkgs+=(libopenblas0-openmp)
  if [ ${#pkgs[@]} -gt 0 ]; then
    echo "build-torch: installing ${pkgs[*]} (Debian's libtorch and its BLAS)"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}"
  fi
  inc=(-I/usr/include/torch/csrc/api/include)
  libs=(-ltorch -ltorch_cpu -lc10)
fi

# The sources' hash, which tref compares with its own (tt_source).
source_hash=$(cat "$here/runtime/backend/torch/csrc/tref_torch.h" "$src" | sha256sum | cut -c1-16)
defs+=(-DTREF_TORCH_SOURCE="\"$source_hash\"")

mkdir -p "$out_dir"
tmp="$out.tmp.$$"
echo "build-torch: compiling $src"
"$cxx" -O2 "$std" -fPIC -shared "${defs[@]}" "${inc[@]}" "$src" -o "$tmp" "${libs[@]}" "${rpath[@]}"
mv "$tmp" "$out"
echo "build-torch: wrote $out"
