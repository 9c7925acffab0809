#!/bin/bash
# Records torch's own Windows CPU draws (the specs of specs.py) into
# tests/torch_versions/recorded_windows.json: installs wine and mingw-w64
# (apt), downloads PyPI's win_amd64 wheel of torch VERSION (no Python for
# Windows is needed: wdraw.c calls torch_cpu.dll's C shim), builds wdraw.exe
# and the C11 threads DLL wine 8 lacks, runs the specs under wine with torch's
# default capability choice (AVX2 on an AVX2 host; on an AVX-512 host torch's
# avx512 build, whose normal kernel is the AVX2 one) and records a
# fingerprint per spec. Usage (as root): check_windows.sh VERSION...
# XRNG_TORCH_VERSIONS_DIR: where wheels go (default /tmp/xrng-torch-windows).
# What runs under wine and what does not (its math library is wine's, not
# Microsoft's UCRT): SPEC.md 14.9.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${XRNG_TORCH_VERSIONS_DIR:-/tmp/xrng-torch-windows}
[ $# -ge 1 ] || { echo "usage: $0 VERSION..." >&2; exit 2; }
if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q wine64 gcc-mingw-w64-x86-64 >/dev/null
fi
mkdir -p "$DIR"
for V in "$@"; do
  W="$DIR/$V"
  if [ ! -f "$W/torch/lib/torch_cpu.dll" ]; then
    python3 -m pip download -q "torch==$V" --platform win_amd64 --only-binary=:all: --python-version 3.11 \
      --no-deps -d "$W"
    python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith('torch/lib/')])" "$W"/torch-"$V"-*-win_amd64.whl "$W"
  fi
  L="$W/torch/lib"
  x86_64-w64-mingw32-gcc -O1 -Wall -o "$L/wdraw.exe" "$HERE/wdraw.c"
  # (unused by releases whose torch_cpu.dll does not import it)
  x86_64-w64-mingw32-gcc -O2 -Wall -shared -o "$L/vcruntime140_threads.dll" "$HERE/c11threads.c" \
    "$HERE/c11threads.def"
  # OMP_NUM_THREADS=1: libiomp5's topology query (GetNumaNodeProcessorMaskEx) is missing in wine 8
  PYTHONPATH="$HERE" python3 -c "import specs, sys; sys.stdout.write(specs.wdraw_lines())" |
    (cd "$L" && WINEDEBUG=-all OMP_NUM_THREADS=1 KMP_AFFINITY=disabled wine wdraw.exe "$W/out.bin")
  PYTHONPATH="$HERE" python3 - "$V" "$W/out.bin" "$HERE/../recorded_windows.json" <<'PY'
import json, os, sys
import specs
version, out, rec = sys.argv[1:]
buf = open(out, "rb").read()
fps, off = {}, 0
for sp in specs.SPECS:
    k = specs.itemsize(sp[2]) * sp[3]
    fps[specs.key(sp)] = specs.fingerprint(buf[off:off + k]); off += k
assert off == len(buf), (off, len(buf))
assert len(fps) == len(specs.SPECS), "specs.py: keys not unique"
data = json.load(open(rec)) if os.path.exists(rec) else {}
data[version] = fps
with open(rec, "w") as f:
    json.dump(data, f, indent=0, sort_keys=True)
    f.write("\n")
print(f"torch {version} (win_amd64): {len(fps)} specs recorded in {rec}")
PY
done
