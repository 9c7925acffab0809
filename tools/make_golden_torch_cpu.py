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

The cases of the draws that depend on the torch release (CASES16: float16
and bfloat16, whose bytes are the 16-bit patterns, and the 16-wide float32
and float64 normal with a mean and std) are drawn by the imported torch too,
and by each older torch given with --older DIR (a directory holding that
release's `torch` package, as tests/torch_versions/check.sh installs it),
whose lines name the stream with its release: "torch-cpu-x86@2.11.0"
(SPEC.md 14.7). The file was written by

    python3 tools/make_golden_torch_cpu.py --older ~/.cache/xrng-torch-versions/torch-2.13.0 \
        --older ~/.cache/xrng-torch-versions/torch-2.12.1 --older ~/.cache/xrng-torch-versions/torch-2.11.0 \
        --older ~/.cache/xrng-torch-versions/torch-2.0.1

(torch 2.15.0 imported; [OUT] before the options writes elsewhere).
"""
import os
import subprocess
import sys

CHILD = r"""
import hashlib, os, struct, sys, torch
cases = eval(sys.argv[1])
cpu = getattr(torch.backends, "cpu", None)  # (torch 2.1 on)
print("# torch", torch.__version__, "capability", cpu.get_cpu_capability() if cpu else os.environ["ATEN_CPU_CAPABILITY"])
for dist, dtype, seed, count, mean, std in cases:
    torch.manual_seed(seed)
    dt = getattr(torch, {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16"}[dtype])
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
    raw = t.view(torch.int16) if t.element_size() == 2 else t  # (the 16-bit patterns)
    # little-endian bytes without numpy (older torch wheels import without it)
    code = {2: "h", 4: "f", 8: "d"}[t.element_size()]
    data = struct.pack(f"<{raw.numel()}{code}", *raw.flatten().tolist())
    print(dist, dtype, seed, count, repr(mean), repr(std), hashlib.sha256(data).hexdigest())
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


# float16 and bfloat16 (SPEC.md 14.7: torch 1.13 to 2.11 drew these otherwise): the 16-wide normal (sizes on both
# sides of 16, a mean and std), the float64 path (7 elements, a non-contiguous output), rand and uniform_ (256, 258
# and 1000, 1001: values that round up to `to`)
CASES16 = ([("normal", d, s, n, 0.0, 1.0) for d in ("f16", "bf16") for s in (0, 42) for n in (16, 17, 1000, 4099)]
           + [(dist, d, s, n, m, sd) for d in ("f16", "bf16")
              for dist, s, n, m, sd in [("normal", 7, 1001, 1.5, 2.0), ("normal", 8, 100, -3.0, 0.1),
                                        ("normal", 5, 7, 0.0, 1.0), ("normal_each", 11, 1001, 0.0, 1.0),
                                        ("uniform", 3, 1000, 0.0, 1.0), ("uniform", 8, 1000, -2.0, 5.5),
                                        ("uniform", 9, 1000, 256.0, 258.0), ("uniform", 10, 1000, 1000.0, 1001.0)]]
           # where torch 2.0.1's AVX2 build (a fused multiply-add) and its default one differ: element 124168
           + [("normal", "f16", 3, 131072, 1.5, 0.3)]
           # the 16-wide float32 and float64 normal with a std that is not a power of two: its last multiply-add,
           # fused in the default build (kernel scalar) from 2.13 on only
           + [("normal", "f32", 3, 131072, 1.5, 0.3), ("normal", "f64", 3, 20000, 1.5, 0.3)]
           # the scalar-p bernoulli_: Intel MKL's MCG31 generator in torch 2.0 to 2.6's x86-64 wheels
           + [("bernoulli", "f32", 3, 100003, 0.3, 1.0), ("bernoulli", "f64", 4, 1001, 0.5, 1.0)])


def child(cases, cap, path=None):
    """The CHILD's lines for `cases` under ATEN_CPU_CAPABILITY=cap, with the torch at `path` (None: this one)."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
    if path is not None:
        env["PYTHONPATH"] = path
    r = subprocess.run([sys.executable, "-c", CHILD, repr(cases)], capture_output=True, text=True, env=env, cwd="/")
    if r.returncode != 0:
        sys.exit(f"torch at {path or 'this Python'} ({cap}) failed:\n{r.stderr[-2000:]}")
    return r.stdout.splitlines()


def main():
    args = sys.argv[1:]
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "golden_torch_cpu.txt")
    if args and not args[0].startswith("--"):
        path = args.pop(0)
    older = []
    while args:
        if args[0] != "--older" or len(args) < 2:
            sys.exit("usage: make_golden_torch_cpu.py [OUT] [--older DIR]...")
        older.append(os.path.expanduser(args[1]))
        del args[:2]
    lines = ["# Fingerprints of the torch CPU streams drawn by torch itself (tools/make_golden_torch_cpu.py).",
             "# stream dist dtype seed count mean std sha256"]
    for stream, cap in (("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")):
        for line in child(CASES + [c for c in CASES16 if c not in CASES], cap):  # (the bernoulli_ cases: in both)
            lines.append(line if line.startswith("#") else f"{stream} {line}")
    for d in older:
        for stream, cap in (("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")):
            out = child(CASES16, cap, d)
            release = out[0].split()[2].split("+")[0]  # "# torch 2.11.0+cu130 capability AVX2"
            lines += [line if line.startswith("#") else f"{stream}@{release} {line}" for line in out]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
