"""Compares an installed older torch release with xrng's torch-cpu streams
named with that release (SPEC.md 14.7), beyond battery.py: 2^18 elements per
case, the draws whose last steps a release's build may fuse or round
otherwise (normal_ with a std that is not a power of two, contiguous and not,
in every floating dtype; uniform_ and rand in float16 and bfloat16 with
bounds that round up to `to`; cauchy_, log_normal_, exponential_,
geometric_; the scalar-p bernoulli_, dropout and randint of a range in
[2^28, 2^32)), under ATEN_CPU_CAPABILITY=avx2 (against torch-cpu-x86@R) and
=default (torch-cpu-scalar@R). Not in CI (it needs the release installed).

    python3 tests/torch_versions/compare_release.py DIR [--intel LIBINTEL_CPU]

--intel adds a run with LIBINTEL_CPU (mkl/intel_cpu.c built as a shared
library) preloaded, Intel MKL then running an Intel CPU's kernels, against
torch-cpu-x86-intel@R, and one under ATEN_CPU_CAPABILITY=default with MKL
also limited to AVX (MKL_ENABLE_INSTRUCTIONS=AVX: an Intel CPU without AVX2)
against torch-cpu-scalar-intel@R.

DIR holds the release's `torch` package (as check.sh installs it); it runs in
a subprocess per capability, xrng (under xrng.reproducible, strict) in this
process. Prints one line per case that differs (with the number of differing
elements) and a summary; exits 1 if any case differs.
"""
import os
import pickle
import struct
import subprocess
import sys
import tempfile

N = 1 << 18
CASES = [  # (name, dtype, non-contiguous, draw)
    ("normal_(1.5, 0.3)", "float32", False, "t.normal_(1.5, 0.3)"),
    ("normal_(1.5, 0.3)", "float64", False, "t.normal_(1.5, 0.3)"),
    ("normal_(1.5, 0.3)", "float16", False, "t.normal_(1.5, 0.3)"),
    ("normal_(1.5, 0.3)", "bfloat16", False, "t.normal_(1.5, 0.3)"),
    ("normal_(-3, 7)", "float16", False, "t.normal_(-3.0, 7.0)"),
    ("normal_()", "float16", False, "t.normal_()"),
    ("normal_()", "bfloat16", False, "t.normal_()"),
    ("normal_(1.5, 0.3)", "float32", True, "t.normal_(1.5, 0.3)"),
    ("normal_(1.5, 0.3)", "float64", True, "t.normal_(1.5, 0.3)"),
    ("normal_(1.5, 0.3)", "float16", True, "t.normal_(1.5, 0.3)"),
    ("rand", "float16", False, "torch.rand(N, dtype=t.dtype)"),
    ("rand", "bfloat16", False, "torch.rand(N, dtype=t.dtype)"),
    ("uniform_(-1.3, 2.7)", "float32", False, "t.uniform_(-1.3, 2.7)"),
    ("uniform_(-1.3, 2.7)", "float64", False, "t.uniform_(-1.3, 2.7)"),
    ("uniform_(-1.3, 2.7)", "float16", False, "t.uniform_(-1.3, 2.7)"),
    ("uniform_(256, 258)", "float16", False, "t.uniform_(256, 258)"),
    ("uniform_(256, 258)", "bfloat16", False, "t.uniform_(256, 258)"),
    ("cauchy_(1.5, 0.3)", "float64", False, "t.cauchy_(1.5, 0.3)"),
    ("cauchy_(1.5, 0.3)", "float32", False, "t.cauchy_(1.5, 0.3)"),
    ("log_normal_(0.3, 0.7)", "float64", False, "t.log_normal_(0.3, 0.7)"),
    ("exponential_(1.3)", "float64", False, "t.exponential_(1.3)"),
    ("exponential_(1.3)", "float32", False, "t.exponential_(1.3)"),
    ("exponential_(1.3)", "float16", False, "t.exponential_(1.3)"),
    ("exponential_(1.3)", "bfloat16", False, "t.exponential_(1.3)"),
    # (weights 1 + i / N: exact arange, then correctly rounded steps, the same in every build and capability;
    # torch.linspace's values differ between torch's avx2 and default kernels, and the xrng side runs in this
    # process's capability)
    ("multinomial(w, N)", "float32", False, "torch.multinomial(torch.arange(N, dtype=t.dtype).div_(N).add_(1.0), N)"),
    ("geometric_(0.3)", "float64", False, "t.geometric_(0.3)"),
    ("bernoulli_(0.3)", "float32", False, "t.bernoulli_(0.3)"),
    ("bernoulli_(0.7)", "float64", True, "t.bernoulli_(0.7)"),
    ("dropout(ones, 0.2)", "float32", False, "torch.nn.functional.dropout(torch.ones(N, dtype=t.dtype), 0.2)"),
    ("randint(-5, 2**31)", "float64", False, "torch.randint(-5, 2 ** 31, (N,), dtype=t.dtype)"),
]

DRAW = r"""
import pickle, struct, sys, torch
N, cases, out = int(sys.argv[1]), pickle.loads(bytes.fromhex(sys.argv[2])), sys.argv[3]
res = {"version": torch.__version__.split("+")[0]}
for i, (name, dtype, strided, expr) in enumerate(cases):
    torch.manual_seed(11)
    dt = getattr(torch, dtype)
    t = torch.empty(N, 2, dtype=dt)[:, 0] if strided else torch.empty(N, dtype=dt)
    v = eval(expr).contiguous()
    code = "q" if v.dtype == torch.int64 else {2: "h", 4: "f", 8: "d"}[v.element_size()]
    v = v.view(torch.int16) if v.element_size() == 2 else v
    res[i] = struct.pack(f"<{v.numel()}{code}", *v.flatten().tolist())
open(out, "wb").write(pickle.dumps(res))
"""


def torch_side(path, capability, preload=None, mkl_isa=None):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "draws.pkl")
        env = dict(os.environ, PYTHONPATH=path, ATEN_CPU_CAPABILITY=capability)
        if preload:
            env["LD_PRELOAD"] = preload
        if mkl_isa:
            env["MKL_ENABLE_INSTRUCTIONS"] = mkl_isa
        r = subprocess.run([sys.executable, "-c", DRAW, str(N), pickle.dumps(CASES).hex(), out], env=env, cwd="/",
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"torch at {path} ({capability}) failed:\n{r.stderr[-2000:]}")
        return pickle.loads(open(out, "rb").read())


def xrng_side(stream):
    import torch
    import xrng
    res = {}
    for i, (name, dtype, strided, expr) in enumerate(CASES):
        dt = getattr(torch, dtype)
        try:
            with xrng.reproducible(seed=11, stream=stream, strict=True):
                t = torch.empty(N, 2, dtype=dt)[:, 0] if strided else torch.empty(N, dtype=dt)
                v = eval(expr, {"torch": torch, "t": t, "N": N}).contiguous()
        except xrng.NotReproducibleError:  # (a draw the stream refuses: SPEC.md says which)
            res[i] = None
            continue
        res[i] = (v.view(torch.int16) if v.element_size() == 2 else v).numpy().tobytes()
    return res


def main():
    path = os.path.expanduser(sys.argv[1])
    bad = total = 0
    runs = [("avx2", "x86", None, None), ("default", "scalar", None, None)]
    if len(sys.argv) == 4 and sys.argv[2] == "--intel":  # MKL told the CPU is Intel's: torch-cpu-x86-intel
        runs.append(("avx2", "x86-intel", os.path.abspath(sys.argv[3]), None))
        runs.append(("default", "scalar-intel", os.path.abspath(sys.argv[3]), "AVX"))  # ... and has no AVX2
    for capability, kernel, preload, mkl_isa in runs:
        theirs = torch_side(path, capability, preload, mkl_isa)
        stream = f"torch-cpu-{kernel}@{theirs.pop('version')}"
        mine = xrng_side(stream)
        for i, (name, dtype, strided, _) in enumerate(CASES):
            total += 1
            if mine[i] is None:
                print(f"{stream} ({capability}{' intel' if preload else ''}): {name} {dtype}: refused (not reproduced)")
                bad += 1
            elif mine[i] != theirs[i]:
                es = len(mine[i]) // N
                diff = sum(mine[i][j:j + es] != theirs[i][j:j + es] for j in range(0, len(mine[i]), es))
                print(f"{stream} ({capability}{' intel' if preload else ''}): {name} {dtype}{' strided' if strided else ''}: {diff} of {N} differ")
                bad += 1
    print(f"{total - bad} of {total} cases equal ({N} elements each)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
