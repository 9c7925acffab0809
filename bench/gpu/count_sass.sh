#!/bin/sh
# SASS instructions per kernel of bench/gpu/normal_sass.cu for sm_90 (no GPU
# needed): the per-pair cost of stream v1 and v2's normal, and of the other v2
# transforms. Also checks the PTX of the same file against the determinism
# rules (tests/gpu/check_ptx.cmake). Usage: bench/gpu/count_sass.sh [nvcc]
set -e
NVCC=${1:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
"$NVCC" -std=c++20 -arch=sm_90 --fmad=false -cubin -I"$SRC" "$SRC/bench/gpu/normal_sass.cu" -o "$TMP/k.cubin"
"$NVCC" -std=c++20 -arch=sm_90 --fmad=false -ptx -I"$SRC" "$SRC/bench/gpu/normal_sass.cu" -o "$TMP/k.ptx"
cmake -DPTX_FILES="$TMP/k.ptx" -P "$SRC/tests/gpu/check_ptx.cmake"
${CUOBJDUMP:-$(dirname "$NVCC")/cuobjdump} -sass "$TMP/k.cubin" | awk '
  /Function :/ { name = $3 }
  /^        \/\*[0-9a-f]+\*\// { if (name != "" && $2 != "NOP") n[name]++; if ($2 == "EXIT" || $2 == "EXIT;") {} }
  END { for (k in n) printf "%-28s %5d SASS instructions (NOPs excluded)\n", k, n[k] }' | sort
rm -rf "$TMP"
