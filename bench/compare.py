#!/usr/bin/env python3
"""xrng vs torch, NumPy and the C++ standard library on the CPU, side by side.

One run, same machine, same sizes, same thread counts; prints a markdown table
of ns per element (median of --reps calls into preallocated buffers) and each
library's time as a multiple of xrng's SIMD time (> 1: xrng is faster).

    python3 bench/compare.py [--xrng-time build/bench/xrng_time] [--n 16777216]
                             [--threads 1,2] [--reps 5] [--isa avx2]
                             [--ops normal_f32,exponential_f32_v2] [--cpu-time]

xrng and std::mt19937 figures come from bench/xrng_time (C++), the others
from this process. NumPy's Generator is single-threaded: listed at 1 thread.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time


CLOCK = time.perf_counter_ns  # --cpu-time: time.thread_time_ns (this thread's CPU time)


def median_ns(fn, n, reps):
    fn()  # warm-up (allocations, page faults, lazy init)
    ts = []
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        ts.append((CLOCK() - t0) / n)
    ts.sort()
    return ts[len(ts) // 2]


def find_timer(root):
    cands = sorted(glob.glob(os.path.join(root, "build*", "bench", "xrng_time")), key=os.path.getmtime)
    return cands[-1] if cands else None


def timed(rows, n, reps, only):
    """{op: (name, ns)} of the {op: (name, fn)} rows (only those in `only`, if given)."""
    return {op: (name, median_ns(fn, n, reps)) for op, (name, fn) in rows.items() if only is None or op in only}


def torch_rows(n, threads, reps, only=None):
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(threads)
    torch.manual_seed(42)
    f = torch.empty(n, dtype=torch.float32)
    b = torch.empty(n, dtype=torch.uint8)
    p = torch.empty(n, dtype=torch.int64)
    return timed({
        "uniform_f32": ("torch.rand(out=)", lambda: torch.rand(n, out=f)),
        "normal_f32": ("torch.randn(out=)", lambda: torch.randn(n, out=f)),
        "exponential_f32": ("f32.exponential_()", lambda: f.exponential_()),
        "bernoulli_u8": ("uint8.bernoulli_(0.3)", lambda: b.bernoulli_(0.3)),
        "randperm_i64": ("torch.randperm(out=)", lambda: torch.randperm(n, out=p)),
    }, n, reps, only)


def numpy_rows(n, threads, reps):
    if threads != 1:
        return {}
    try:
        import numpy as np
    except ImportError:
        return {}
    g = np.random.Generator(np.random.Philox(42))
    f = np.empty(n, dtype=np.float32)
    return {
        "uniform_f32": ("Philox random(f32, out=)", median_ns(lambda: g.random(n, dtype=np.float32, out=f), n, reps)),
        "normal_f32": ("Philox standard_normal(f32, out=)",
                       median_ns(lambda: g.standard_normal(n, dtype=np.float32, out=f), n, reps)),
        "exponential_f32": ("Philox standard_exponential(f32, out=)",
                            median_ns(lambda: g.standard_exponential(n, dtype=np.float32, out=f), n, reps)),
        "bernoulli_u8": ("Philox random(f32) < 0.3", median_ns(lambda: g.random(n, dtype=np.float32, out=f) < 0.3, n, reps)),
        "randperm_i64": ("Philox permutation(n)", median_ns(lambda: g.permutation(n), n, reps)),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xrng-time", default=None, help="path of the xrng_time binary (default: newest build*/bench/xrng_time)")
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--isa", default=None, help="cap xrng's SIMD backend (xrng_time --isa avx2|none)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time each call by the calling thread's CPU time (1 thread only): robust on a busy machine")
    ap.add_argument("--ops", default=None, help="only these rows, e.g. normal_f32,exponential_f32_v2 (SIMD only, no NumPy)")
    a = ap.parse_args()
    global CLOCK
    if a.cpu_time:
        if a.threads != "1":
            sys.exit("compare.py: --cpu-time needs --threads 1")
        CLOCK = time.thread_time_ns
    timer = a.xrng_time or find_timer(os.path.dirname(here))
    if not timer or not os.path.exists(timer):
        sys.exit("compare.py: xrng_time not found; build the target xrng_time or pass --xrng-time")

    # normal_f32 is the default stream (2); normal_f32_v1 the binary64 transform of
    # stream 1. The other libraries' rows are compared with both.
    ops = ["uniform_f32", "normal_f32", "normal_f32_v1", "exponential_f32_v2", "bernoulli_u8", "randperm_i64"]
    if a.ops:
        ops = [o for o in ops if o in a.ops.split(",")]
    print(f"n = {a.n}, median of {a.reps} calls, ns/element; ratio = other / xrng SIMD (> 1: xrng faster)\n")
    for t in [int(x) for x in a.threads.split(",")]:
        cmd = [timer, "--n", str(a.n), "--threads", str(t), "--reps", str(a.reps)]
        if a.isa:
            cmd += ["--isa", a.isa]
        if a.ops:
            cmd += ["--ops", a.ops, "--no-scalar"]
        if a.cpu_time:
            cmd += ["--cpu-time"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        res = json.loads(out)
        isa = res["isa"]
        xr = {(r["op"], r["variant"]): r["ns_per_elem"] for r in res["results"] if r["lib"] == "xrng"}
        std = {r["op"]: (r["variant"], r["ns_per_elem"]) for r in res["results"] if r["lib"] != "xrng"}
        only = {o.removesuffix("_v1").removesuffix("_v2") for o in ops} if a.ops else None
        th = torch_rows(a.n, t, a.reps, only)
        nprows = numpy_rows(a.n, t, a.reps) if not a.ops else {}
        print(f"### {t} thread{'s' if t > 1 else ''} (xrng SIMD ISA: {isa})\n")
        print("| op | xrng simd | xrng scalar | torch | numpy | std::mt19937 |")
        print("|---|---|---|---|---|---|")
        for op in ops:
            base = xr.get((op, isa))
            other = op.removesuffix("_v1").removesuffix("_v2")  # the same draw in torch / numpy / std

            def cell(v):
                if v is None:
                    return "n/a"
                name, ns = v
                ratio = f" ({ns / base:.1f}x)" if base else ""
                return f"{ns:.2f}{ratio} `{name}`"

            simd = f"{base:.2f}" if base is not None else "n/a"
            sc = xr.get((op, "scalar"))
            scalar = f"{sc:.2f} ({sc / base:.1f}x)" if (sc is not None and base) else "n/a"
            print(f"| {op} | {simd} | {scalar} | {cell(th.get(other))} | {cell(nprows.get(other))} | "
                  f"{cell(std.get(other))} |")
        print()


if __name__ == "__main__":
    main()
