#!/usr/bin/env bash
# Instructions executed per element by the AArch64 backends (NEON and the
# scalar path), every element row of the registry, counted under qemu-aarch64
# (one log line per executed instruction: -singlestep -d exec,nochain) as the
# difference between draws of N1 and N2 elements divided by N2 - N1: the
# Philox words, the transform and the store of one element, nothing else.
# A machine-independent proxy for speed where no ARM machine is at hand (it
# counts instructions, not cycles: NEON's sqrt, division and multiplies cost
# more than an add).
#   bash bench/count_insns.sh [BUILD_DIR]    (default build-arm64-bench)
# (link it statically, -DCMAKE_EXE_LINKER_FLAGS=-static: the dynamic loader
# alone executes about 10^6 instructions per run)
# BUILD_DIR: a cross build with the benchmarks (insn_count), e.g.
#   cmake -S . -B build-arm64-bench -DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/toolchain-aarch64-linux-gnu.cmake \
#     -DXRNG_CUDA=OFF -DXRNG_TESTS=OFF -DXRNG_PYTHON=OFF -DCMAKE_EXE_LINKER_FLAGS=-static && \
#     cmake --build build-arm64-bench --target insn_count
# On an ARM machine, run the native build's bench/insn_count under any
# instruction counter (perf stat -e instructions) the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-arm64-bench}/bench/insn_count
n1=${N1:-1024}
n2=${N2:-3072}
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
count() {  # instructions executed by: insn_count ROW ISA N
  "${qemu[@]}" -singlestep -d exec,nochain -D /dev/stdout "$bin" "$@" | grep -c '^Trace'
}
echo "| row | stream | scalar | neon | scalar / neon |"
echo "|---|---|---|---|---|"
"${qemu[@]}" "$bin" --list | while read -r idx name stream; do
  s1=$(count "$idx" none "$n1"); s2=$(count "$idx" none "$n2")
  v1=$(count "$idx" neon "$n1"); v2=$(count "$idx" neon "$n2")
  python3 -c "s=($s2-$s1)/($n2-$n1); v=($v2-$v1)/($n2-$n1); print(f'| $name | $stream | {s:.1f} | {v:.1f} | {s/v:.1f}x |')"
done
