#!/usr/bin/env bash
# Records battery.py for the AArch64 wheels of torch VERSION from PyPI, run
# under qemu-aarch64 on an x86-64 Debian 12 host, into recorded.json beside
# this script (key "aarch64": torch's DEFAULT capability, what it runs under
# qemu's default CPU). tests/python/test_torch_versions.py compares it with
# the torch-cpu-scalar stream (SPEC.md 14.8). Not in CI: it needs the network,
# root (it adds Debian's arm64 architecture to fetch an AArch64 Python 3.11,
# unpacked, not installed) and 0.3 to 1 GB per version. Wheels of 2.12 on are
# CUDA builds whose libtorch_cpu.so needs CUDA's AArch64 libraries to load:
# not recorded here.
#   tests/torch_versions/check_aarch64.sh 2.4.1 [2.7.1 ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${XRNG_TORCH_VERSIONS_DIR:-$HOME/.cache/xrng-torch-versions}/aarch64"
py="$root/python"
command -v qemu-aarch64 >/dev/null || apt-get install -y -qq qemu-user
if [ ! -x "$py/usr/bin/python3.11" ]; then
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  apt-get update -qq
  mkdir -p "$root/debs" && (cd "$root/debs" && apt-get download \
    python3.11-minimal:arm64 libpython3.11-minimal:arm64 libpython3.11-stdlib:arm64 libc6:arm64 libgcc-s1:arm64 \
    libstdc++6:arm64 libgomp1:arm64 libexpat1:arm64 zlib1g:arm64 libffi8:arm64 libssl3:arm64 libbz2-1.0:arm64 \
    liblzma5:arm64 libsqlite3-0:arm64 libncursesw6:arm64 libtinfo6:arm64 libreadline8:arm64 libuuid1:arm64 \
    libcrypt1:arm64 libnsl2:arm64 libtirpc3:arm64 libdb5.3:arm64 libgdbm6:arm64)
  for f in "$root"/debs/*.deb; do dpkg -x "$f" "$py"; done
fi
if [ ! -d "$root/pure" ]; then  # torch's pure-Python dependencies (markupsafe: its AArch64 wheel)
  python3 -m pip install -q --no-deps --target "$root/pure" typing_extensions sympy==1.13.1 mpmath networkx jinja2 \
    fsspec filelock
  python3 -m pip install -q --no-deps --target "$root/pure" --platform manylinux2014_aarch64 --python-version 3.11 \
    --only-binary=:all: markupsafe
fi
for v in "$@"; do
  dir="$root/torch-$v"
  if [ ! -d "$dir/torch" ]; then
    mkdir -p "$root/wheels" "$dir"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux2014_aarch64 \
      --platform manylinux_2_28_aarch64 -d "$root/wheels" "torch==$v"
    python3 -m zipfile -e "$root"/wheels/torch-"$v"-*aarch64.whl "$dir"
  fi
  (cd "$root" && PYTHONPATH="$dir:$root/pure" qemu-aarch64 -L "$py" "$py/usr/bin/python3.11" \
    "$here/record.py" default --merge "$here/recorded.json")
done
