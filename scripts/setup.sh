#!/usr/bin/env bash
# Installs what xrng needs on Debian 12 (run as root). Idempotent: installs only
# what is missing, so the main job and the test command both start with it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

need=()
# (g++-aarch64-linux-gnu and qemu-user: the AArch64 cross build and its
# emulator, scripts/test_arm64.sh)
for pkg in build-essential cmake git librandom123-dev doctest-dev libeigen3-dev libbenchmark-dev g++-aarch64-linux-gnu qemu-user; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# python3 and pip may come from elsewhere (pyenv, a venv): ask apt only when absent.
if ! command -v python3 >/dev/null 2>&1; then
  need+=(python3 python3-pip)
elif ! python3 -m pip --version >/dev/null 2>&1; then
  need+=(python3-pip)
fi
if ((${#need[@]})); then
  echo "setup: apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Python packages, into the python3 on PATH (Debian's own python3 is
# "externally managed": allow pip to install there all the same).
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1
missing=()
for mod in torch numpy scipy pytest pybind11 scikit_build_core transformers diffusers timm safetensors expecttest; do
  python3 -c "import $mod" >/dev/null 2>&1 || missing+=("${mod//_/-}")
done
if ((${#missing[@]})); then
  echo "setup: pip install ${missing[*]}"
  python3 -m pip install -q "${missing[@]}"
fi
echo "setup: ok ($(python3 -c 'import torch; print("torch", torch.__version__)'), $(cmake --version | head -1))"
