#!/usr/bin/env bash
# CI stage: xrng on AArch64 without an ARM machine. Cross-compiles the CLI,
# the host library and the unit tests with Debian's AArch64 toolchain
# (g++-aarch64-linux-gnu, cmake/toolchain-aarch64-linux-gnu.cmake) into
# build-arm64/ and runs them under qemu-aarch64 (qemu-user, the toolchain's
# CMAKE_CROSSCOMPILING_EMULATOR; no binfmt needed):
#   - `xrng version` names the NEON backend; `xrng verify --quick`: the golden
#     files of both streams on every backend (scalar, neon, threads) and the
#     cross-backend table of every registry row;
#     (and, where the x86 build/ is present, that table equals x86's);
#   - the unit tests: known answers (cuRAND, Random123), golden files, API,
#     block draws of a global tensor (test_blocks: scalar and neon),
#     element functions, the installed package (consumer), the NEON object's
#     exports and the absence of any fused multiply-add in its stream v2
#     kernels, every row NEON == scalar (test_simd --backend=neon) and the
#     invariances on NEON (test_invariance --backend=neon), less the cases
#     whose size is the point (below);
#   - the SIMD-vs-scalar sweep of every per-word transform on the strided
#     sample w = k * 4099 of the 2^32 words (1,047,809 words each,
#     test_simd_sampled_neon; the full sweeps are too slow under emulation).
# Built with XRNG_STREAM_BYTES=65536 (CMakeLists.txt): the tests' calls at the
# streaming threshold are 80 KiB instead of 5 MiB (NEON stores straight to the
# output at any size; the fused-kernel case's 5 MiB calls were 80 % of the
# emulated runs).
# No CUDA, no Python, no benchmarks. Uses ccache when present. Run by
# scripts/test.sh; on its own: bash scripts/test_arm64.sh
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
if [ "$(uname -m)" = aarch64 ] || [ "$(uname -m)" = arm64 ]; then
  echo "test_arm64: this machine is AArch64: the main build and its tests are the ARM ones (nothing to emulate)"
  exit 0
fi
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "test_arm64: $tool is missing (scripts/setup.sh installs it)"; exit 1; }
done
root=/usr/aarch64-linux-gnu
# The header-only test dependencies, alone in a directory: the host's
# /usr/include (x86 system headers) must not be on the AArch64 include path.
deps=$PWD/build-arm64/deps
mkdir -p "$deps"
for h in doctest/doctest.h Random123/philox.h; do
  d=$(dirname "$h")
  [ -f "/usr/include/$h" ] || { echo "test_arm64: /usr/include/$h is missing (scripts/setup.sh installs it)"; exit 1; }
  ln -sfn "/usr/include/$d" "$deps/$d"
done
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DXRNG_CUDA=OFF -DXRNG_BENCH=OFF -DXRNG_PYTHON=OFF -DXRNG_STREAM_BYTES=65536 "${launcher[@]}" \
  -DXRNG_DOCTEST_INCLUDE="$deps" -DXRNG_RANDOM123_INCLUDE="$deps" >build-arm64/configure.log 2>&1 \
  || { cat build-arm64/configure.log; exit 1; }
grep -E "^-- xrng host SIMD" build-arm64/configure.log
tests=(test_kat test_random123 test_golden test_api test_elements test_blocks test_invariance test_simd test_simd_exhaustive
       test_gamma test_multinomial test_simd_params test_torch_cpu)
cmake --build build-arm64 -j"$(nproc)" --target xrng_cli "${tests[@]}"
t1=$(date +%s)
qemu=(qemu-aarch64 -L "$root")
file build-arm64/xrng | grep -q "ARM aarch64" || { echo "test_arm64: build-arm64/xrng is not an AArch64 binary"; exit 1; }
version=$("${qemu[@]}" build-arm64/xrng version)
echo "$version"
case "$version" in *", simd neon (aarch64)"*) ;; *) echo "test_arm64: expected the neon backend"; exit 1 ;; esac
"${qemu[@]}" build-arm64/xrng verify --quick | tee build-arm64/verify.txt
# Across architectures: where the x86 build is at hand, its table (every row,
# every stream, hashed) must be the AArch64 table, row for row.
if [ -x build/xrng ]; then
  table() { awk '/^cross-backend table/ {on = 1; next} on && NF > 3 && $1 != "draw" {print $1, $2, $3}' "$1"; }
  build/xrng verify --quick >build-arm64/verify-native.txt
  if ! diff <(table build-arm64/verify-native.txt) <(table build-arm64/verify.txt); then
    echo "test_arm64: the AArch64 verify table differs from this machine's"; exit 1
  fi
  echo "test_arm64: verify table identical to $(uname -m)'s ($(table build-arm64/verify.txt | wc -l) rows)"
  # torch's CPU streams (SPEC.md section 14): the same values drawn on AArch64
  for st in torch-cpu-x86 torch-cpu-scalar; do
    a=$("${qemu[@]}" build-arm64/xrng fingerprint --stream $st --dist normal --seed 0 --count 100003 | cut -d' ' -f1)
    b=$(build/xrng fingerprint --stream $st --dist normal --seed 0 --count 100003 | cut -d' ' -f1)
    [ "$a" = "$b" ] || { echo "test_arm64: --stream $st differs between AArch64 and $(uname -m)"; exit 1; }
    # the float64 paths (glibc's binary64 log/log1p/sincos as xrng's own code)
    for args in "--dist normal --dtype f64 --count 1003" "--dist normal --dtype f64 --count 15" \
                "--dist exponential --dtype f64 --count 1000"; do
      # shellcheck disable=SC2086
      a=$("${qemu[@]}" build-arm64/xrng fingerprint --stream $st $args --seed 3 | cut -d' ' -f1)
      # shellcheck disable=SC2086
      b=$(build/xrng fingerprint --stream $st $args --seed 3 | cut -d' ' -f1)
      [ "$a" = "$b" ] || { echo "test_arm64: --stream $st $args differs between AArch64 and $(uname -m)"; exit 1; }
    done
  done
  echo "test_arm64: torch-cpu-x86 and torch-cpu-scalar identical to $(uname -m)'s"
fi
(cd build-arm64 && ctest --output-on-failure -j"$(nproc)" --timeout 900 \
  -R '^(consumer|test_kat|test_random123|test_golden|test_api|test_elements|test_blocks|test_simd_symbols|test_simd_no_fused_v2|test_simd_sampled_neon|test_gamma|test_multinomial|test_simd_params_neon|test_torch_cpu)$')
# NEON == scalar on every row (counts 0..100 at every offset and start phase,
# permutations n = 1..1000, every golden vector) and the invariances (random
# access, chunking, transforms, Generator offsets, permutation shards). Left to
# the native builds: the cases whose size is what they test (2^20-element and
# 5 MiB draws, huge permutations, thread counts: the same code at any width,
# minutes under emulation).
"${qemu[@]}" build-arm64/tests/simd/test_simd --backend=neon -tce='*large*,*thread count*'
"${qemu[@]}" build-arm64/tests/simd/test_invariance --backend=neon -tce='thread count*'
t2=$(date +%s)
echo "test_arm64: ok (build $((t1 - t0)) s, qemu runs $((t2 - t1)) s)"
