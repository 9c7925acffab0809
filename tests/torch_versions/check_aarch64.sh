#!/usr/bin/env bash
# Records battery.py for the AArch64 wheels of torch VERSION from PyPI, run
# under qemu-aarch64 on an x86-64 Debian 12 host, into recorded.json beside
# this script (key "aarch64": torch's DEFAULT capability, what it runs under
# qemu's default CPU). tests/python/test_torch_versions.py compares it with
# the torch-cpu-arm stream (SPEC.md 14.8). Not in CI: it needs the network,
# root (it adds Debian's arm64 architecture to fetch an AArch64 Python 3.11,
# unpacked, not installed) and 0.3 to 1 GB per version (2.11 on: about 5 GB,
# the wheels are CUDA builds and torch loads CUDA's AArch64 libraries even on a
# CPU, so pip installs them as torch's dependencies).
# qemu-user passes the x86 host's /proc/cpuinfo and /sys/devices/system/cpu
# through; torch 2.15's (cpuinfo, oneDNN's xbyak_aarch64) crashed on them at
# import, so the Python root gets a two-CPU Neoverse N1's (qemu-user opens
# <root>/path before /path): it names the CPU and its caches only, torch's
# capability still comes from the hardware capabilities qemu reports.
# With --sve256 first, qemu emulates a 256-bit SVE CPU (as a Graviton3) and
# torch runs its SVE256 capability: key "aarch64-sve256".
#   tests/torch_versions/check_aarch64.sh [--sve256] 2.4.1 [2.7.1 ...]
set -euo pipefail
cpu=() cap=default
if [ "${1:-}" = --sve256 ]; then cpu=(-cpu max,sve256=on) cap=sve256; shift; fi
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
sys="$py/sys/devices/system/cpu"
if [ ! -f "$py/proc/cpuinfo" ]; then  # the fake CPU description (above)
  mkdir -p "$sys" "$py/proc"
  for f in online possible present; do echo 0-1 > "$sys/$f"; done
  echo 255 > "$sys/kernel_max"
  for c in 0 1; do
    d="$sys/cpu$c"
    mkdir -p "$d/regs/identification" "$d/topology"
    echo 0x00000000413fd0c1 > "$d/regs/identification/midr_el1"
    echo 0x0000000000000000 > "$d/regs/identification/revidr_el1"
    echo 0 > "$d/topology/physical_package_id"; echo 0 > "$d/topology/cluster_id"; echo "$c" > "$d/topology/core_id"
    for f in cluster_cpus_list package_cpus_list core_siblings_list; do echo 0-1 > "$d/topology/$f"; done
    echo "$c" > "$d/topology/thread_siblings_list"
    i=0
    for spec in "1 Data 64K" "1 Instruction 64K" "2 Unified 1024K"; do
      read -r level type size <<< "$spec"
      mkdir -p "$d/cache/index$i"
      echo "$level" > "$d/cache/index$i/level"; echo "$type" > "$d/cache/index$i/type"; echo "$size" > "$d/cache/index$i/size"
      echo "$c" > "$d/cache/index$i/shared_cpu_list"; echo 64 > "$d/cache/index$i/coherency_line_size"
      i=$((i + 1))
    done
    printf 'processor\t: %s\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n' "$c" >> "$py/proc/cpuinfo"
  done
fi
# torch, then the dependencies its metadata names for an AArch64 Linux CPython 3.11 (pip would evaluate
# their markers for this x86-64 host), triton left out (compilation only); glibc 2.36: manylinux tags to 2_36
pipa=(python3 -m pip install -q --only-binary=:all: --python-version 3.11 --platform manylinux2014_aarch64)
for i in $(seq 17 36); do pipa+=(--platform "manylinux_2_${i}_aarch64"); done
for v in "$@"; do
  dir="$root/torch-$v"
  if [ ! -d "$dir/torch" ]; then
    "${pipa[@]}" --no-deps --target "$dir" "torch==$v"
    python3 - "$dir" > "$dir/aarch64-requirements.txt" <<'EOF'
import glob, sys
from pip._vendor.packaging.requirements import Requirement
env = {"platform_machine": "aarch64", "platform_system": "Linux", "sys_platform": "linux", "os_name": "posix",
       "python_version": "3.11", "python_full_version": "3.11.2", "implementation_name": "cpython",
       "platform_python_implementation": "CPython", "platform_release": "", "platform_version": "", "extra": ""}
meta = glob.glob(f"{sys.argv[1]}/torch-*.dist-info/METADATA")[0]
for line in open(meta):
    if line.startswith("Requires-Dist:"):
        r = Requirement(line.split(":", 1)[1].strip())
        if r.name != "triton" and (r.marker is None or r.marker.evaluate(env)):
            r.marker = None
            print(r)
EOF
    "${pipa[@]}" --target "$dir" -r "$dir/aarch64-requirements.txt"
  fi
  (cd "$root" && PYTHONPATH="$dir" qemu-aarch64 "${cpu[@]}" -L "$py" "$py/usr/bin/python3.11" \
    "$here/record.py" "$cap" --merge "$here/recorded.json")
done
