#!/usr/bin/env bash
# Configures and builds xrng (CLI, host library, tests, benchmarks, and the CUDA
# backend when nvcc is present) in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >build.configure.log 2>&1 || { cat build.configure.log; exit 1; }
grep -E "^-- xrng|CUDA" build.configure.log || true
cmake --build build -j"$(nproc)"
