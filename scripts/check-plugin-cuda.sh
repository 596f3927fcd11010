#!/usr/bin/env bash
# check-plugin-cuda.sh compiles the torch plugin's CUDA branch
# (-DTREF_CUDA in runtime/backend/torch/csrc/tref_torch.cpp) without a GPU:
# a type-checking compile (g++ -fsyntax-only) against Debian's libtorch
# headers (their c10/cuda and ATen/cuda) and the CUDA runtime headers of
# Debian's nvidia-cuda-dev (non-free, CUDA 11.8). The .deb (774 MB) is
# downloaded once into the cache and only unpacked, never installed.
# It checks what a GPU machine's build would compile, short of the CUDA
# and libtorch versions there (scripts/build-torch.sh builds against the
# machine's own). Not part of CI: the download is too large.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tref/cuda-headers
src=runtime/backend/torch/csrc/tref_torch.cpp
if [ ! -e /usr/include/ATen/cuda/CUDAContext.h ]; then
  echo "check-plugin-cuda: needs Debian's libtorch-dev (scripts/build-torch.sh installs it)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -e "$cache/usr/include/cuda_runtime_api.h" ]; then
  mkdir -p "$cache"
  sources=$tmp/nonfree.sources
  . /etc/os-release
  cat > "$sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $VERSION_CODENAME
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  lists=$tmp/lists
  mkdir -p "$lists/partial"
  opts=(-o Dir::Etc::sourcelist="$sources" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$lists" -o APT::Get::List-Cleanup=0)
  echo "check-plugin-cuda: fetching nvidia-cuda-dev's headers (774 MB download, once)"
  apt-get "${opts[@]}" update -q >/dev/null 2>&1
  (cd "$tmp" && apt-get "${opts[@]}" download nvidia-cuda-dev 2>/dev/null)
  dpkg-deb --fsys-tarfile "$tmp"/nvidia-cuda-dev_*.deb | tar -x -C "$cache" ./usr/include
fi
# Debian's libtorch leaves out the header its CMake build generates for
# c10/cuda; the definition it would hold (a shared-library build) is all
# the plugin's includes need.
stub=$tmp/stub
mkdir -p "$stub/c10/cuda/impl"
printf '#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n' > "$stub/c10/cuda/impl/cuda_cmake_macros.h"
${CXX:-g++} -fsyntax-only -std=c++17 -DTREF_CUDA -I"$stub" -I/usr/include/torch/csrc/api/include -I"$cache/usr/include" "$src"
echo "check-plugin-cuda: $src compiles with -DTREF_CUDA"
