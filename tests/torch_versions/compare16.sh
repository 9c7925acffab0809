#!/usr/bin/env bash
# Compares float16/bfloat16 draws of an installed older torch with xrng's torch-cpu streams named with its
# release (SPEC.md 14.7): 2^20 elements per case, normal_ (1.5, 0.3) and (0, 1), rand, uniform_ (-2, 5.5) and
# (256, 258), under ATEN_CPU_CAPABILITY=avx2 (against torch-cpu-x86@RELEASE) and =default (torch-cpu-scalar@RELEASE).
# Prints one line per case with the number of differing bytes; exits 1 if any differs. Not in CI (needs the release).
#   tests/torch_versions/compare16.sh DIR RELEASE   (DIR holds that release's torch package, as check.sh installs it)
#   XRNG_CLI: the xrng command (default: xrng on PATH)
set -euo pipefail
dir="$1" release="$2" cli="${XRNG_CLI:-xrng}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bad=0
for cap in avx2 default; do
  kernel=$([ "$cap" = avx2 ] && echo x86 || echo scalar)
  for dt in f16 bf16; do
    for spec in "normal 1.5 0.3" "normal 0.0 1.0" "uniform 0.0 1.0" "uniform -2.0 5.5" "uniform 256.0 258.0"; do
      read -r dist a b <<< "$spec"
      (cd / && PYTHONPATH="$dir" ATEN_CPU_CAPABILITY="$cap" python3 - "$dist" "$dt" "$a" "$b" "$tmp/torch.bin" <<'PY' 2>/dev/null
import struct, sys, torch
dist, dt, a, b, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
torch.manual_seed(11)
dt = {"f16": torch.float16, "bf16": torch.bfloat16}[dt]
n = 1 << 20
if dist == "normal":
    t = torch.empty(n, dtype=dt).normal_(a, b)
elif (a, b) == (0.0, 1.0):
    t = torch.rand(n, dtype=dt)
else:
    t = torch.empty(n, dtype=dt).uniform_(a, b)
open(out, "wb").write(struct.pack(f"<{n}h", *t.view(torch.int16).tolist()))
PY
      )
      params=$([ "$dist" = normal ] && echo "--mean $a --std $b" || echo "--low $a --high $b")
      # shellcheck disable=SC2086
      "$cli" gen --stream "torch-cpu-$kernel@$release" --dist "$dist" --dtype "$dt" --count 1048576 --seed 11 \
        $params --format bin > "$tmp/xrng.bin"
      n=$(cmp -l "$tmp/torch.bin" "$tmp/xrng.bin" | wc -l || true)
      echo "$dir ($cap) vs torch-cpu-$kernel@$release, $dt $spec: $n differing bytes"
      [ "$n" = 0 ] || bad=1
    done
  done
done
exit "$bad"
