#!/usr/bin/env bash
# Proves rng/torch_cpu.h's copies of Intel MKL's draws (torch 2.0 to 2.6's
# x86-64 exponential_ and bernoulli_: mkl_ln_f32 and its Intel forms, mkl_ln_f64,
# MklExponential, MklBernoulli) against MKL itself, over every input
# (mkl_check.cpp says what), as MKL runs on this CPU and as it runs on an
# Intel one (on a CPU without AVX-512, the AVX-512 logarithm by emulate_ln.py,
# which runs its machine code). Not in CI: downloads PyPI's mkl 2023.1.0 wheel
# (about 200 MB) into $XRNG_TORCH_VERSIONS_DIR (default
# ~/.cache/xrng-torch-versions). About 14 minutes on 2 cores, 29 without AVX-512.
#   tests/torch_versions/mkl/check_mkl.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
root="${XRNG_TORCH_VERSIONS_DIR:-$HOME/.cache/xrng-torch-versions}/mkl-2023.1.0"
lib="$root/mkl-2023.1.0.data/data/lib"
if [ ! -f "$lib/libmkl_rt.so.2" ]; then
  mkdir -p "$root"
  python3 -m pip download -q --no-deps --only-binary=:all: "mkl==2023.1.0" -d "$root"
  python3 -c "import zipfile, glob, sys; zipfile.ZipFile(glob.glob(sys.argv[1] + '/mkl-*.whl')[0]).extractall(sys.argv[1])" "$root"
fi
g++ -std=c++17 -O2 -ffp-contract=off -I"$repo" "$here/mkl_check.cpp" -o "$root/mkl_check" \
  -ldl -L"$lib" -l:libmkl_rt.so.2 -Wl,-rpath,"$lib"
grep -m1 "vendor_id" /proc/cpuinfo || true
# the double-precision generic logarithm (mkl_ln_f64) over every float64 uniform, and this CPU's rcpps against
# its steps (where they differ, mkl_check's float64 exponential below differs too: another CPU design's values)
g++ -std=c++17 -O2 -ffp-contract=off -I"$repo" "$here/ln64_period.cpp" -o "$root/ln64_period" -ldl
MKL_THREADING_LAYER=SEQUENTIAL "$root/ln64_period" "$lib/libmkl_vml_def.so.2"
MKL_THREADING_LAYER=SEQUENTIAL "$root/mkl_check" "$lib"
# again with MKL told the CPU is Intel's (intel_cpu.c): its l9 / z0 kernels, the x86-intel kernels' draws
gcc -shared -fPIC -O2 "$here/intel_cpu.c" -o "$root/libintel_cpu.so"
LD_PRELOAD="$root/libintel_cpu.so" MKL_THREADING_LAYER=SEQUENTIAL "$root/mkl_check" "$lib" intel
# without AVX-512, sLn_Z0LAynn's own machine code run by the emulator instead (about 15 minutes on 2 cores)
if ! grep -qw avx512dq /proc/cpuinfo; then
  python3 "$here/emulate_ln.py" "$lib/libmkl_vml_avx512.so.2" mkl_vml_kernel_sLn_Z0LAynn z0 --jobs "$(nproc)"
fi
# the logarithm of an Intel CPU without AVX2 (mkl_ln_f32_e9): PyPI's MKL has no such kernel, the installed
# torch's static MKL does (sLn_H8LAynn, SSE4.2)
g++ -std=c++17 -O2 -ffp-contract=off -I"$repo" "$here/ln32_all.cpp" -o "$root/ln32_all" -ldl
torch_lib="$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')"
"$root/ln32_all" "$torch_lib" mkl_vml_kernel_sLn_H8LAynn e9
# the host's SIMD loops against the header over the same period (no MKL needed)
g++ -std=c++17 -O2 -ffp-contract=off -I"$repo" -I"$repo/host" "$here/host_period.cpp" -o "$root/host_period"
"$root/host_period"
