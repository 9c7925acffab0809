"""An older torch release's own float16/bfloat16 CPU draws, scalar-p
bernoulli_ and exponential_ (2.0 to 2.6: MKL's; so multinomial) against xrng's copy of them (xrng.torch_cpu(release=R), SPEC.md 14.7), for the same values.
One torch per process: the older release (a directory holding its `torch`
package, as tests/torch_versions/check.sh installs it) runs in a subprocess
of this script, xrng with the torch this Python imports, in another. The two
alternate `rounds` times (the machine's load shared), each timing every row
`repeats` times; the median over all of a side's timings is printed per call
and as the ratio xrng / torch (below 1: xrng faster). Single-threaded
(OMP_NUM_THREADS=1 both sides). Not a test.

    python3 bench/torch_cpu_release.py DIR [--repeats 5] [--rounds 5] [--intel LIBINTEL_CPU]

--intel: torch with tests/torch_versions/mkl/intel_cpu.c (built as a shared
library) preloaded, its MKL running an Intel CPU's AVX2 kernels, against
kernel="x86-intel".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# (name, call): drawn with `g` (a torch.Generator or an xrng.torch_cpu generator) by `draw`
ROWS = [("randn f16 (2,4,128,128)", "randn", (2, 4, 128, 128), "float16"),
        ("randn bf16 (2,4,128,128)", "randn", (2, 4, 128, 128), "bfloat16"),
        ("randn f16 (1,4,64,64)", "randn", (1, 4, 64, 64), "float16"),
        ("rand f16 2^20", "rand", (1 << 20,), "float16"),
        ("rand bf16 2^20", "rand", (1 << 20,), "bfloat16"),
        ("uniform_(-2, 5.5) f16 2^20", "uniform", (1 << 20,), "float16"),
        ("randn f16 100", "randn", (100,), "float16"),
        ("bernoulli_(0.3) f32 2^20", "bernoulli", (1 << 20,), "float32"),
        ("bernoulli_(0.3) bool 2^20", "bernoulli", (1 << 20,), "bool"),
        ("exponential_(1.5) f32 2^20", "exponential", (1 << 20,), "float32"),
        ("exponential_(1.5) f64 2^20", "exponential", (1 << 20,), "float64"),
        ("exponential_(1.5) f16 2^20", "exponential", (1 << 20,), "float16"),
        ("exponential_(1.5) f32 1024", "exponential", (1024,), "float32"),
        ("multinomial (64, 50000), 1", "multinomial", (64, 50000), "float32"),
        ("multinomial 10, 7", "multinomial", (10,), "float32")]

TIMER = r"""
import json, statistics, sys, time, torch
rows, repeats, release, kernel = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
torch.manual_seed(1)  # multinomial's weights, the same on both sides
W = {(64, 50000): torch.rand(64, 50000) + 0.01, (10,): torch.arange(1.0, 11.0)}
if release == "-":
    g = torch.Generator().manual_seed(0)
    def draw(kind, shape, dt):
        if kind == "uniform":
            return torch.empty(shape, dtype=dt).uniform_(-2, 5.5, generator=g)
        if kind == "bernoulli":
            return torch.empty(shape, dtype=dt).bernoulli_(0.3, generator=g)
        if kind == "exponential":
            return torch.empty(shape, dtype=dt).exponential_(1.5, generator=g)
        if kind == "multinomial":
            return torch.multinomial(W[tuple(shape)], 1 if len(shape) == 2 else 7, generator=g)
        return (torch.randn if kind == "randn" else torch.rand)(shape, dtype=dt, generator=g)
else:
    import xrng
    g = xrng.torch_cpu(0, kernel=kernel, release=release)
    def draw(kind, shape, dt):
        if kind == "uniform":
            return xrng.uniform_(torch.empty(shape, dtype=dt), -2, 5.5, generator=g)
        if kind == "bernoulli":
            return xrng.bernoulli_(torch.empty(shape, dtype=dt), 0.3, generator=g)
        if kind == "exponential":
            return xrng.exponential_(torch.empty(shape, dtype=dt), 1.5, generator=g)
        if kind == "multinomial":
            return xrng.multinomial(W[tuple(shape)], 1 if len(shape) == 2 else 7, generator=g)
        return (xrng.randn if kind == "randn" else xrng.rand)(shape, dtype=dt, generator=g)
out = {"version": torch.__version__.split("+")[0]}
for name, kind, shape, dt in rows:
    dt = getattr(torch, dt)
    draw(kind, shape, dt)
    calls = 1
    while True:  # a batch of at least ~1 ms
        a = time.perf_counter()
        for _ in range(calls):
            draw(kind, shape, dt)
        if time.perf_counter() - a > 1e-3:
            break
        calls *= 2
    times = []
    for _ in range(repeats):
        a = time.perf_counter()
        for _ in range(calls):
            draw(kind, shape, dt)
        times.append((time.perf_counter() - a) / calls)
    out[name] = times
print(json.dumps(out))
"""


def run(rows, repeats, release, path, kernel="x86", preload=None):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if path is not None:
        env["PYTHONPATH"] = path
    if preload is not None:
        env["LD_PRELOAD"] = preload
    r = subprocess.run([sys.executable, "-c", TIMER, json.dumps(rows), str(repeats), release, kernel], env=env,
                       capture_output=True, text=True, cwd="/")
    if r.returncode != 0:
        sys.exit(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="a directory holding the older release's torch package")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--intel", metavar="LIB", help="tests/torch_versions/mkl/intel_cpu.c built as a shared library: "
                    "torch's MKL runs an Intel CPU's kernels, against kernel='x86-intel'")
    args = ap.parse_args()
    kernel, preload = ("x86-intel", os.path.abspath(args.intel)) if args.intel else ("x86", None)
    theirs, mine = {}, {}
    for _ in range(args.rounds):
        t = run(ROWS, args.repeats, "-", os.path.expanduser(args.dir), preload=preload)
        release = t.pop("version")
        m = run(ROWS, args.repeats, release, None, kernel)
        m.pop("version")
        for name in t:
            theirs.setdefault(name, []).extend(t[name])
            mine.setdefault(name, []).extend(m[name])
    theirs = {k: statistics.median(v) for k, v in theirs.items()}
    mine = {k: statistics.median(v) for k, v in mine.items()}
    print(f"torch {release} (its own generator{', MKL told the CPU is Intel' if preload else ''}) against "
          f"xrng.torch_cpu(kernel={kernel!r}, release={release!r}), same values, "
          f"one thread, median of {args.rounds} x {args.repeats}")
    print(f"{'draw':32} {'torch us':>10} {'xrng us':>10} {'xrng/torch':>11}")
    for name, *_ in ROWS:
        print(f"{name:32} {theirs[name] * 1e6:10.1f} {mine[name] * 1e6:10.1f} {mine[name] / theirs[name]:11.2f}")


if __name__ == "__main__":
    main()
