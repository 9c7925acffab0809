#!/usr/bin/env bash
# Records battery.py for torch VERSION (installed by ../check.sh under
# $XRNG_TORCH_VERSIONS_DIR, default ~/.cache/xrng-torch-versions) as an Intel
# CPU with AVX2 and without AVX-512 runs it, into ../recorded.json under the
# capability "avx2-intel" (tests/python/test_torch_versions.py compares it
# with the stream torch-cpu-x86-intel@VERSION): ATEN_CPU_CAPABILITY=avx2 and
# intel_cpu.c preloaded, so that the wheel's static MKL runs its l9 kernels
# (only torch 2.0 to 2.6 have MKL draws). Needs a CPU with AVX2 and FMA.
#   tests/torch_versions/mkl/record_intel.sh 2.0.1 [2.6.0 ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${XRNG_TORCH_VERSIONS_DIR:-$HOME/.cache/xrng-torch-versions}"
grep -q avx2 /proc/cpuinfo || { echo "record_intel.sh: no AVX2 here"; exit 1; }
mkdir -p "$root"
gcc -shared -fPIC -O2 "$here/intel_cpu.c" -o "$root/libintel_cpu.so"
for v in "$@"; do
  dir="$root/torch-$v"
  [ -d "$dir/torch" ] || { echo "record_intel.sh: no $dir/torch (tests/torch_versions/check.sh $v installs it)"; exit 1; }
  (cd /tmp && LD_PRELOAD="$root/libintel_cpu.so" PYTHONPATH="$dir" \
    python3 "$here/../record.py" avx2-intel --merge "$here/../recorded.json")
done
