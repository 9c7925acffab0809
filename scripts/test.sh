#!/usr/bin/env bash
# Every test: install what is missing, build, run all ctest tests (unit, stat,
# exhaustive; GPU tests report SKIPPED without a GPU), the AArch64 build under
# qemu (scripts/test_arm64.sh), then the Python package's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# Two tests at a time on a 2-core machine; the longest start first (their COST).
(cd build && ctest --output-on-failure -j"$(nproc)" --timeout 3000)
# AArch64: cross-compiled and run under qemu-aarch64 (a few minutes)
bash scripts/test_arm64.sh
if [ -f pyproject.toml ]; then
  bash scripts/test_python.sh
fi
