#!/usr/bin/env bash
# Records battery.py for torch VERSION from PyPI (CPU capabilities avx2 and
# default; avx512 too where this CPU has it) into recorded.json beside this
# script, the file tests/python/test_torch_versions.py compares xrng's torch
# streams with. Needs the network and about 3-5 GB per version (torch and its
# CUDA libraries, installed under $XRNG_TORCH_VERSIONS_DIR, default
# ~/.cache/xrng-torch-versions; torch imports only with them).
#   tests/torch_versions/check.sh 2.4.1 [2.6.0 ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${XRNG_TORCH_VERSIONS_DIR:-$HOME/.cache/xrng-torch-versions}"
caps=(avx2 default)
grep -q avx512f /proc/cpuinfo && caps+=(avx512)
for v in "$@"; do
  dir="$root/torch-$v"
  if [ ! -d "$dir/torch" ]; then
    python3 -m pip install -q --only-binary=:all: --target "$dir" "torch==$v"
  fi
  for c in "${caps[@]}"; do
    (cd /tmp && PYTHONPATH="$dir" python3 "$here/record.py" "$c" --merge "$here/recorded.json")
  done
done
