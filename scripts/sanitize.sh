#!/usr/bin/env bash
# Builds the host library, CLI and unit tests with ASan + UBSan and runs them
# (the statistical and exhaustive suites are left to the optimised build).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DXRNG_SANITIZE=ON -DXRNG_CUDA=OFF -DXRNG_BENCH=OFF >build-asan.configure.log 2>&1 \
  || { cat build-asan.configure.log; exit 1; }
cmake --build build-asan -j"$(nproc)"
# On a CPU with AVX-512 the AVX2 variants of the per-backend tests are left
# out here: they run the same templates at half the width (and the optimised
# build runs them in full), while under ASan at -O0 each takes minutes. On an
# AVX2-only CPU they are the SIMD tests that run; on AArch64 the NEON ones.
# Which ISAs this CPU runs is the library's own answer (`xrng version`), not a
# guess from /proc/cpuinfo (which differs per architecture and OS).
exclude=()
# XRNG_FORCE_NO_AVX512=1 (as for the tests themselves) runs it as an AVX2-only CPU would.
if [ -z "${XRNG_FORCE_NO_AVX512:-}" ] && ./build-asan/xrng version 2>/dev/null | grep -q ', simd avx512 '; then
  exclude=(-E '^test_(simd|invariance)_avx2$')
fi
# Two tests at a time on a 2-core machine (-j"$(nproc)"): test_simd_<isa> alone
# takes about 3 minutes at -O0 under ASan, the other 29 about 5 together.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -L unit "${exclude[@]}" -j"$(nproc)" --timeout 1800)
