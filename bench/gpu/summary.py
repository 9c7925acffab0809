"""The issue's table from one run of the GPU benchmarks (tests/gpu/run.sh).

    python3 bench/gpu/summary.py BENCH_GPU.txt BENCH_TORCH.txt

Reads the tables bench_gpu and bench_torch.py printed in the same run and
sets, for every draw of the issue's table, xrng beside cuRAND's host API,
torch and the write limit (the f32x4 store kernel's bandwidth over the
draw's bytes), with the ratios the targets are stated in. Prints nothing
it did not read: a draw missing from either file shows "-".
"""
import re
import sys

# name, elements, MB, ms, Gelem/s, GB/s; bench_gpu's rows go on with "%write", bench_torch's end there
# (anchored so that a name ending in a number, "xrng bits u32 @offset 3", stays whole).
ROWS = (re.compile(r"^(\S.*?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+%"),
        re.compile(r"^(\S.*?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$"))


def read(path):
    rows = {}
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return rows
    for line in text.splitlines():
        m = ROWS[0].match(line) or ROWS[1].match(line)
        if m:
            rows[m.group(1).strip()] = {"n": int(m.group(2)), "mb": float(m.group(3)), "ms": float(m.group(4))}
    return rows


# draw, xrng row, cuRAND row, torch row, bytes per element counted against the write limit, target
TABLE = [
    ("bits u32", "xrng bits u32", None, None, 4, ">= 90% write"),
    ("bits u32 @offset 3", "xrng bits u32 @offset 3", None, None, 4, ">= 90% write"),
    ("uniform f32", "xrng uniform f32", "curand uniform f32", "torch rand_ f32", 4, ">= 90% write"),
    ("uniform f32 @offset 3", "xrng uniform f32 @offset 3", None, None, 4, ">= 90% write"),
    ("uniform f32 start 1", "xrng uniform f32 start 1", None, None, 4, ">= 90% write"),
    ("normal f32 (v2)", "xrng normal f32", "curand normal f32", "torch normal_ f32", 4, "v2: binary32, exact"),
    ("normal f32 start 1 (v2)", "xrng normal f32 start 1", None, None, 4, "v2: binary32, exact"),
    ("normal f16 (v2)", "xrng normal f16", None, "torch normal_ f16", 2, "v2: binary32, exact"),
    ("normal bf16 (v2)", "xrng normal bf16", None, "torch normal_ bf16", 2, "v2: binary32, exact"),
    ("normal f32 (v1)", "xrng normal f32 v1", "curand normal f32", "torch normal_ f32", 4, "v1: fp64-bound"),
    ("bernoulli u8", "xrng bernoulli u8", None, "torch bernoulli_ u8 p=0.1", 1, ">= 90% write"),
    ("dropout f32 (read+write)", "xrng dropout f32", None, "torch dropout f32 p=0.5", 8, ">= 90% write"),
    ("randint i32", "xrng randint i32", None, "torch random_ i32 [0,1000)", 4, ">= 90% write"),
    ("randint i64", "xrng randint i64", None, "torch random_ i64 [0,1000)", 8, ">= 90% write"),
    ("randperm i64", "xrng perm i64", None, "torch randperm i64", 8, ">= 10x torch"),
]


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    g, t = read(sys.argv[1]), read(sys.argv[2])
    store = g.get("store kernel f32x4 (write)")
    if not g:
        print("summary: no bench_gpu table to read")
        return 0
    n = store["n"] if store else None
    print(f"n = {n}; ms are medians (CUDA events); 'write' = the f32x4 store kernel's time for the draw's bytes")
    print(f"{'draw':<26} {'xrng':>8} {'cuRAND':>8} {'torch':>8} {'write':>8} {'%write':>7} {'torch/x':>8} "
          f"{'cuRAND/x':>8}  target")
    for name, xr, cr, tr, bpe, target in TABLE:
        x = g.get(xr, {}).get("ms")
        c = g.get(cr, {}).get("ms") if cr else None
        tt = t.get(tr, {}).get("ms") if tr else None
        w = store["ms"] * bpe / 4 if store else None
        pct = 100 * w / x if (w and x) else None
        print(f"{name:<26} {fmt(x):>8} {fmt(c):>8} {fmt(tt):>8} {fmt(w):>8} {fmt(pct, '.0f'):>6}% "
              f"{fmt(tt / x if (tt and x) else None, '.2f'):>8} {fmt(c / x if (c and x) else None, '.2f'):>8}  "
              f"{target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
