#!/usr/bin/env bash
# Builds ./probe from probe.cu: nvcc from $NVCC or PATH, for $ARCH (default sm_90; sm_80 for
# an A100: every probe but stmatrix's builds there).
set -euo pipefail
cd "$(dirname "$0")"
"${NVCC:-nvcc}" -O3 -std=c++17 -lineinfo -arch="${ARCH:-sm_90}" -o probe probe.cu
