"""torch's CPU stream drawn by xrng (xrng.torch_cpu) against torch's own CPU
generator, for the same values: every draw the stream offers, in the dtypes
users use, small sizes (per-call cost) and large (per-element cost). For each
row the torch call and the xrng call alternate (the same machine load), each
timed over a batch of calls (at least ~1 ms), and the median over `repeats`
batches is printed per call, per element and as the ratio xrng / torch
(below 1: xrng faster). Single-threaded by nature: torch's generator is a
sequential Mersenne Twister and torch draws it under a lock. Not a test.

    python3 bench/torch_cpu.py [--repeats 15] [--kernel x86|scalar|x86-windows] [--filter REGEX] [--markdown]

``--kernel scalar`` times xrng's scalar kernel against torch's default
(non-vector) kernel: unless ATEN_CPU_CAPABILITY is already ``default``, the
script reruns itself in a subprocess with it set. ``--kernel x86-windows``
times xrng's copy of torch's Windows AVX2 kernel against this host's torch
(on Linux its AVX2 kernel: the same work, values 1 or 2 ulp apart in about
1 % of normals and in uniform_'s last bits; SPEC.md 14.9).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import xrng


def cases(tg, xg):
    """(name, elements, torch call, xrng call): the same draw on both sides."""
    c = []

    def add(name, n, t_fn, x_fn):
        c.append((name, n, t_fn, x_fn))

    dts = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}
    for dn, dt in dts.items():
        for n in (1, 8, 16, 256, 1 << 16, 1 << 20):
            add(f"randn({n}) {dn}", n, lambda n=n, dt=dt: torch.randn(n, generator=tg, dtype=dt),
                lambda n=n, dt=dt: xrng.randn(n, generator=xg, dtype=dt))
    for dn in ("f32", "f64"):
        for n in (8, 1 << 16):
            t = torch.empty(n, dtype=dts[dn])
            add(f"normal_({n}, 2, 3) {dn}", n, lambda t=t: t.normal_(2.0, 3.0, generator=tg),
                lambda t=t: xrng.normal_(t, 2.0, 3.0, generator=xg))
    for dn in ("f32", "f64", "f16"):
        for n in (1, 256, 1 << 16, 1 << 20):
            dt = dts[dn]
            add(f"rand({n}) {dn}", n, lambda n=n, dt=dt: torch.rand(n, generator=tg, dtype=dt),
                lambda n=n, dt=dt: xrng.rand(n, generator=xg, dtype=dt))
    for dn in ("f32", "f64"):
        t = torch.empty(1 << 16, dtype=dts[dn])
        add(f"uniform_(65536, -1, 2) {dn}", 1 << 16, lambda t=t: t.uniform_(-1.0, 2.0, generator=tg),
            lambda t=t: xrng.uniform_(t, -1.0, 2.0, generator=xg))
    for n in (16, 1 << 16, 1 << 20):
        add(f"randint(0, 1000, ({n},))", n, lambda n=n: torch.randint(0, 1000, (n,), generator=tg),
            lambda n=n: xrng.randint(0, 1000, (n,), generator=xg))
    for n in (16, 1 << 16, 1 << 20):
        add(f"randint(0, 2^40, ({n},))", n, lambda n=n: torch.randint(0, 1 << 40, (n,), generator=tg),
            lambda n=n: xrng.randint(0, 1 << 40, (n,), generator=xg))
    for n in (16, 1 << 16):
        t = torch.empty(n, dtype=torch.int64)
        add(f"random_({n}, 0, 1000) i64", n, lambda t=t: t.random_(0, 1000, generator=tg),
            lambda t=t: xrng.randint_(t, 0, 1000, generator=xg))
    t32 = torch.empty(1 << 16, dtype=torch.int32)
    add("random_(65536, -5, 5) i32", 1 << 16, lambda: t32.random_(-5, 5, generator=tg),
        lambda: xrng.randint_(t32, -5, 5, generator=xg))
    for n in (10, 1000, 100_000, 1_000_000, 1 << 21):
        add(f"randperm({n})", n, lambda n=n: torch.randperm(n, generator=tg),
            lambda n=n: xrng.randperm(n, generator=xg))
    for n in (16, 1 << 16, 1 << 20):
        add(f"bernoulli({n}, p=0.3) bool", n,
            lambda n=n: torch.empty(n, dtype=torch.bool).bernoulli_(0.3, generator=tg),
            lambda n=n: xrng.bernoulli(n, p=0.3, generator=xg))
    for dn in ("f32", "f64"):
        for n in (16, 1 << 16):
            p = torch.rand(n, dtype=dts[dn])
            add(f"bernoulli(p: {n} {dn})", n, lambda p=p: torch.bernoulli(p, generator=tg),
                lambda p=p: xrng.bernoulli(p=p, generator=xg))
    for n in (16, 1 << 16, 1 << 20):
        x = torch.ones(n)
        # F.dropout takes no generator: torch's default one (the same kernel)
        add(f"dropout({n}, 0.1) f32", n, lambda x=x: F.dropout(x, 0.1),
            lambda x=x: xrng.dropout(x, 0.1, generator=xg))
    for dn in ("f32", "f64"):
        for n in (16, 1 << 16):
            t = torch.empty(n, dtype=dts[dn])
            add(f"exponential_({n}, 1.5) {dn}", n, lambda t=t: t.exponential_(1.5, generator=tg),
                lambda t=t: xrng.exponential_(t, 1.5, generator=xg))
            add(f"log_normal_({n}) {dn}", n, lambda t=t: t.log_normal_(1.0, 2.0, generator=tg),
                lambda t=t: xrng.log_normal_(t, 1.0, 2.0, generator=xg))
            add(f"cauchy_({n}) {dn}", n, lambda t=t: t.cauchy_(0.0, 1.0, generator=tg),
                lambda t=t: xrng.cauchy_(t, 0.0, 1.0, generator=xg))
            add(f"geometric_({n}, 0.3) {dn}", n, lambda t=t: t.geometric_(0.3, generator=tg),
                lambda t=t: xrng.geometric_(t, 0.3, generator=xg))
    for k, ns, rows in ((10, 5, 1), (1000, 100, 1), (1000, 100, 64), (65536, 100, 1), (65536, 1000, 1)):
        w = torch.rand(k) if rows == 1 else torch.rand(rows, k)
        for repl in (False, True):
            add(f"multinomial({rows}x{k}, {ns}, repl={repl})", rows * ns,
                lambda w=w, ns=ns, repl=repl: torch.multinomial(w, ns, repl, generator=tg),
                lambda w=w, ns=ns, repl=repl: xrng.multinomial(w, ns, repl, generator=xg))
    # torch's tensor-parameter draws (SPEC.md 14.4, 14.5): gamma, Dirichlet, Poisson, binomial
    for dn in ("f32", "f64"):
        for n in (16, 1 << 16):
            a = torch.rand(n, dtype=dts[dn]) * 3 + 0.05
            add(f"_standard_gamma({n}) {dn}", n, lambda a=a: torch._standard_gamma(a, generator=tg),
                lambda a=a: xrng.gamma(a, generator=xg))
            rate = torch.rand(n, dtype=dts[dn]) * 30
            add(f"poisson({n}, rate < 30) {dn}", n, lambda r=rate: torch.poisson(r, generator=tg),
                lambda r=rate: xrng.poisson(r, generator=xg))
            cnt, pr = torch.full((n,), 100.0, dtype=dts[dn]), torch.rand(n, dtype=dts[dn])
            add(f"binomial({n}, 100, p) {dn}", n, lambda c=cnt, p=pr: torch.binomial(c, p, generator=tg),
                lambda c=cnt, p=pr: xrng.binomial(c, p, generator=xg))
        for rows in (2, 1024):
            a = torch.rand(rows, 8, dtype=dts[dn]) + 0.1
            add(f"_sample_dirichlet({rows}x8) {dn}", a.numel(), lambda a=a: torch._sample_dirichlet(a, generator=tg),
                lambda a=a: xrng.dirichlet(a, generator=xg))
    return c


def time_row(t_fn, x_fn, repeats):
    """Median seconds per call of t_fn and x_fn, alternating batches."""
    t_fn(), x_fn()  # warm up (allocator, first-call paths)
    t0 = time.perf_counter()
    t_fn()
    once = max(time.perf_counter() - t0, 1e-7)
    batch = max(1, min(2000, int(1e-3 / once)))
    tt, xt = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(batch):
            t_fn()
        t1 = time.perf_counter()
        for _ in range(batch):
            x_fn()
        t2 = time.perf_counter()
        tt.append((t1 - t0) / batch)
        xt.append((t2 - t1) / batch)
    return statistics.median(tt), statistics.median(xt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--kernel", default="x86", choices=["x86", "scalar", "x86-windows"])
    ap.add_argument("--filter", default="", help="only the rows whose name matches this regex")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = ap.parse_args()
    if a.kernel == "scalar" and os.environ.get("ATEN_CPU_CAPABILITY") != "default":
        env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
        sys.exit(subprocess.call([sys.executable] + sys.argv, env=env))
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, capability {torch.backends.cpu.get_cpu_capability()}, "
          f"xrng kernel {a.kernel}, {torch.get_num_threads()} torch thread, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    tg = torch.Generator().manual_seed(1)
    xg = xrng.torch_cpu(1, kernel=a.kernel)
    rows = [r for r in cases(tg, xg) if re.search(a.filter, r[0])]
    if a.markdown:
        print("| draw | torch us/call | xrng us/call | torch ns/elem | xrng ns/elem | ratio |\n|---|---|---|---|---|---|")
    else:
        print(f"{'draw':34s} {'torch us':>10s} {'xrng us':>10s} {'t ns/el':>8s} {'x ns/el':>8s} {'ratio':>6s}")
    for name, n, t_fn, x_fn in rows:
        mt, mx = time_row(t_fn, x_fn, a.repeats)
        if a.markdown:
            print(f"| {name} | {mt * 1e6:.2f} | {mx * 1e6:.2f} | {mt * 1e9 / n:.2f} | {mx * 1e9 / n:.2f} | "
                  f"{mx / mt:.2f} |", flush=True)
        else:
            print(f"{name:34s} {mt * 1e6:10.2f} {mx * 1e6:10.2f} {mt * 1e9 / n:8.2f} {mx * 1e9 / n:8.2f} "
                  f"{mx / mt:6.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
