"""Writes tests/data/golden_torch_cpu.txt: SHA-256 fingerprints of the torch
CPU streams (SPEC.md section 14) as torch itself draws them, so the C++ tests
check xrng's streams on any host, torch installed or not.

Each line: stream dist dtype seed count mean std sha256 (of the values'
little-endian bytes, as `xrng fingerprint --stream ...` hashes them). torch
runs in a subprocess per stream with ATEN_CPU_CAPABILITY=avx2 (torch-cpu-x86)
or =default (torch-cpu-scalar), after torch.manual_seed(seed), `count`
elements of the dtype:
  normal       torch.empty(count).normal_(mean, std) (16 or more: torch's
               16-wide fill; fewer: its element-wise float64 path)
  normal_each  torch.empty(7, count // 7).t().normal_(mean, std): a
               non-contiguous output, so the element-wise float64 path
               whatever the count (hashed in memory order, torch's order)
  uniform      torch.empty(count).uniform_(mean, std) (the columns are from, to)
  exponential  torch.empty(count).exponential_(mean) (the mean column is lambda)
  geometric    torch.empty(count).geometric_(mean) (the mean column is p)
  log_normal   torch.empty(count).log_normal_(mean, std)
  cauchy       torch.empty(count).cauchy_(mean, std) (the columns are median, sigma)
  bernoulli    torch.empty(count).bernoulli_(mean) (the mean column is p, std unused;
               float p: the same kernel on every CPU, Intel's included)
Cases are only ever added (the C++ test counts them): an existing line must
come out the same.

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
    dt = getattr(torch, {"f32": "float32", "f64": "float64"}[dtype])
    if dist == "normal":
        t = torch.empty(count, dtype=dt).normal_(mean, std)
    elif dist == "normal_each":
        t = torch.empty(7, count // 7, dtype=dt).t().normal_(mean, std).t().contiguous()
    elif dist == "exponential":
        t = torch.empty(count, dtype=dt).exponential_(mean)
    elif dist == "geometric":
        t = torch.empty(count, dtype=dt).geometric_(mean)
    elif dist == "log_normal":
        t = torch.empty(count, dtype=dt).log_normal_(mean, std)
    elif dist == "cauchy":
        t = torch.empty(count, dtype=dt).cauchy_(mean, std)
    elif dist == "bernoulli":
        t = torch.empty(count, dtype=dt).bernoulli_(mean)
    elif (mean, std) == (0.0, 1.0):
        t = torch.rand(count, dtype=dt)
    else:
        t = torch.empty(count, dtype=dt).uniform_(mean, std)
    print(dist, dtype, seed, count, repr(mean), repr(std), hashlib.sha256(t.numpy().tobytes()).hexdigest())
"""

CASES = ([("normal", "f32", s, n, 0.0, 1.0) for s in (0, 1, 42, 2 ** 32 + 5) for n in (16, 17, 1000, 100003)]
         + [("normal", "f32", 7, 4099, 1.5, 0.25), ("uniform", "f32", 3, 1000, 0.0, 1.0),
            ("uniform", "f64", 3, 1000, 0.0, 1.0)]
         # added with the float64 normal, exponential_ and uniform_(a, b):
         + [("normal", "f64", s, n, 0.0, 1.0) for s in (0, 42) for n in (1, 5, 15, 16, 17, 1000, 100003)]
         + [("normal", "f64", 7, 4099, 1.5, 0.25), ("normal", "f64", 7, 9, -2.0, 3.0),
            ("normal", "f32", 0, 15, 0.0, 1.0), ("normal", "f32", 5, 7, 0.5, 2.0),
            ("normal_each", "f32", 11, 1001, 0.0, 1.0), ("normal_each", "f64", 11, 1001, 0.1, 0.3),
            ("exponential", "f32", 3, 1000, 1.0, 1.0), ("exponential", "f64", 3, 100003, 1.0, 1.0),
            ("exponential", "f64", 4, 1000, 0.3, 1.0), ("uniform", "f32", 8, 1000, -2.0, 5.5),
            ("uniform", "f64", 8, 1000, -2.0, 5.5), ("uniform", "f32", 9, 1000, 0.1, 0.30000001192092896)]
         # added with geometric_:
         + [("geometric", "f64", 3, 100003, 0.3, 1.0), ("geometric", "f32", 4, 1000, 0.001, 1.0)]
         # added with log_normal_:
         + [("log_normal", "f64", 5, 10001, 1.0, 2.0), ("log_normal", "f32", 6, 1001, 300.0, 100.0),
            ("log_normal", "f64", 7, 1001, -500.0, 200.0)]
         # added with cauchy_ (glibc's tan):
         + [("cauchy", "f64", 8, 100003, 0.0, 1.0), ("cauchy", "f32", 9, 10001, 0.0, 1.0),
            ("cauchy", "f64", 10, 10001, 1.5, 0.3), ("cauchy", "f32", 11, 1001, -3.0, 7.0)]
         # added with the check that Intel CPUs run the same scalar-p bernoulli_:
         + [("bernoulli", "f32", 3, 100003, 0.3, 1.0), ("bernoulli", "f64", 4, 1001, 0.5, 1.0),
            ("bernoulli", "f32", 5, 801, 0.9, 1.0)])


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
