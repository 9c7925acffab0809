#!/usr/bin/env bash
# Records battery.py for torch VERSION (installed by ../check.sh under
# $XRNG_TORCH_VERSIONS_DIR, default ~/.cache/xrng-torch-versions) as an Intel
# CPU with AVX2 and without AVX-512 runs it, into ../recorded.json under the
# capability "avx2-intel" (tests/python/test_torch_versions.py compares it
# with the stream torch-cpu-x86-intel@VERSION): ATEN_CPU_CAPABILITY=avx2 and
# intel_cpu.c preloaded, so that the wheel's static MKL runs its l9 kernels
# (only torch 2.0 to 2.6 have MKL draws). Needs a CPU with AVX2 and FMA.
# With --no-avx2, as an Intel CPU without AVX2 runs it (capability
# "default-intel", the stream torch-cpu-scalar-intel@VERSION):
# ATEN_CPU_CAPABILITY=default and MKL_ENABLE_INSTRUCTIONS=AVX, so that MKL
# runs its e9 kernels (h8 in 2.5 and 2.6, whose MKL has no e9).
#   tests/torch_versions/mkl/record_intel.sh [--no-avx2] 2.0.1 [2.6.0 ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${XRNG_TORCH_VERSIONS_DIR:-$HOME/.cache/xrng-torch-versions}"
cap=avx2-intel
mkl_isa=
if [ "${1:-}" = "--no-avx2" ]; then
  cap=default-intel
  mkl_isa=AVX
  shift
fi
grep -q avx2 /proc/cpuinfo || { echo "record_intel.sh: no AVX2 here"; exit 1; }
mkdir -p "$root"
gcc -shared -fPIC -O2 "$here/intel_cpu.c" -o "$root/libintel_cpu.so"
for v in "$@"; do
  dir="$root/torch-$v"
  [ -d "$dir/torch" ] || { echo "record_intel.sh: no $dir/torch (tests/torch_versions/check.sh $v installs it)"; exit 1; }
  (cd /tmp && env LD_PRELOAD="$root/libintel_cpu.so" PYTHONPATH="$dir" ${mkl_isa:+MKL_ENABLE_INSTRUCTIONS=$mkl_isa} \
    python3 "$here/../record.py" "$cap" --merge "$here/../recorded.json")
done
