"""Writes tests/data/golden_torch_cpu.txt: SHA-256 fingerprints of the torch
CPU streams (SPEC.md section 14) as torch itself draws them, so the C++ tests
check xrng's streams on any host, torch installed or not.

Each line: stream dist dtype seed count mean std sha256 (of the values'
little-endian bytes, as `xrng fingerprint --stream ...` hashes them). torch
runs in a subprocess per stream with ATEN_CPU_CAPABILITY=avx2 (torch-cpu-x86)
or =default (torch-cpu-scalar), after torch.manual_seed(seed): torch.randn,
torch.rand or torch.rand(dtype=float64) of `count` elements, then
.normal_(mean, std) for the lines with mean/std other than 0 1.

    python3 tools/make_golden_torch_cpu.py [tests/data/golden_torch_cpu.txt]
"""
import os
import subprocess
import sys

CHILD = r"""
import hashlib, sys, torch
cases = eval(sys.argv[1])
print("# torch", torch.__version__, "capability", torch.backends.cpu.get_cpu_capability())
for dist, dtype, seed, count, mean, std in cases:
    torch.manual_seed(seed)
    if dist == "normal":
        t = torch.empty(count).normal_(mean, std)
    else:
        t = torch.rand(count, dtype=getattr(torch, {"f32": "float32", "f64": "float64"}[dtype]))
    print(dist, dtype, seed, count, repr(mean), repr(std), hashlib.sha256(t.numpy().tobytes()).hexdigest())
"""

CASES = ([("normal", "f32", s, n, 0.0, 1.0) for s in (0, 1, 42, 2 ** 32 + 5) for n in (16, 17, 1000, 100003)]
         + [("normal", "f32", 7, 4099, 1.5, 0.25), ("uniform", "f32", 3, 1000, 0.0, 1.0),
            ("uniform", "f64", 3, 1000, 0.0, 1.0)])


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                               "golden_torch_cpu.txt")
    lines = ["# Fingerprints of the torch CPU streams drawn by torch itself (tools/make_golden_torch_cpu.py).",
             "# stream dist dtype seed count mean std sha256"]
    for stream, cap in (("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")):
        r = subprocess.run([sys.executable, "-c", CHILD, repr(CASES)], capture_output=True, text=True, check=True,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY=cap))
        for line in r.stdout.splitlines():
            lines.append(line if line.startswith("#") else f"{stream} {line}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
