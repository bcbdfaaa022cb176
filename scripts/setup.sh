#!/usr/bin/env bash
# Installs every system package polyrs needs (idempotent). Run as root or with sudo.
#
# LLVM/MLIR 22 come from Debian's packages; tools then live in /usr/lib/llvm-22/bin.
# libpolly-22-dev is needed because `llvm-config --link-static --libs` lists Polly.
# llvm-22-tools ships lit, FileCheck and not in /usr/lib/llvm-22/bin.
# libopenblas0-pthread: the BLAS that bench/bench.py times gemm against.
set -euo pipefail

PKGS=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libpolly-22-dev
      libomp-22-dev clang-22 libclang1-22 zlib1g-dev libzstd-dev libxml2-dev libedit-dev libffi-dev
      python3-pip libopenblas0-pthread)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: system packages already installed"
fi

# Python test-time tool: islpy, the isl oracle of the math-core tests.
if ! python3 -c 'import islpy' 2>/dev/null; then
  python3 -m pip install -q --root-user-action=ignore islpy
fi
# NVIDIA's ptxas (PyPI's nvidia-cuda-nvcc-cu12, libc only, under the CUDA
# EULA: installed here, never committed) for the test that every GPU kernel
# assembles for sm_90 without spills (lit feature `ptxas`). A cache outside
# the tree; PTXAS=/path/to/ptxas overrides it.
NVCC_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/polyrs/cuda-nvcc-12.9.86"
if [ ! -x "$NVCC_DIR/nvidia/cuda_nvcc/bin/ptxas" ]; then
  python3 -m pip install -q --root-user-action=ignore --target "$NVCC_DIR" nvidia-cuda-nvcc-cu12==12.9.86 \
    || echo "setup: ptxas not installed (the ptxas tests will be skipped)"
fi
echo "setup: done"
