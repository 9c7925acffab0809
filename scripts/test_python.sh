#!/usr/bin/env bash
# Builds the Python package against the installed torch and runs its tests
# (CUDA-marked tests are skipped, with their reason, where torch sees no GPU).
# The wheel carries the `xrng` command; the CLI-comparison tests use it unless
# XRNG_CLI names another binary. The golden-vector tests need no CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# --no-build-isolation: compile against the torch already installed here.
python3 -m pip install -q --no-build-isolation .
python3 -m pytest -q -rs tests/python
