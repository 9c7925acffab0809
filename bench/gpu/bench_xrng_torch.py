"""xrng's CUDA draws against torch's own CUDA draws, as ratios, through the
Python bindings (xrng built with its CUDA kernels, xrng.has_cuda_kernels()):

* the tensor-parameter draws (device/gamma.cu, device/multinomial.cu):
  xrng.gamma / dirichlet / poisson / binomial / multinomial against
  torch._standard_gamma / _sample_dirichlet / poisson / binomial /
  multinomial, with bench/sampling.py's default parameter mix and a few of
  its --ranges rows;
* the torch-cuda stream's kernels (SPEC.md section 15; issue 26 item 4):
  xrng.rand / randn / uniform_ / normal_ / exponential_ / bernoulli_ /
  randint / dropout with generator=xrng.torch_cuda(seed, sm_count=<this
  GPU's>) into CUDA tensors against the same torch calls on a CUDA
  torch.Generator (same values, SPEC 15: the exact rows bit for bit).

    python3 bench/gpu/bench_xrng_torch.py [--log2n 24] [--reps 10] [--warmup 2] [--device cuda]

Median ms of --reps calls (CUDA events; --device cpu: the wall clock, a dry
run of the script's logic on a machine without a GPU, small --log2n) after
--warmup untimed ones; "torch / xrng" > 1: xrng is faster. Informational: no
timing is asserted. A row either library refuses prints its error instead.
"""
import argparse
import math
import statistics
import sys
import time

import torch


def timer(dev):
    if dev.type == "cuda":
        def t(fn, reps, warmup):
            for _ in range(warmup):
                fn()
            torch.cuda.synchronize()
            ts = []
            for _ in range(reps):
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                ts.append(a.elapsed_time(b))
            return statistics.median(ts)
    else:
        def t(fn, reps, warmup):
            for _ in range(warmup):
                fn()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e3)
            return statistics.median(ts)
    return t


def log_uniform(g, n, lo, hi, dev):
    u = torch.rand(n, generator=g, dtype=torch.float64)
    return torch.exp(u * (math.log(hi) - math.log(lo)) + math.log(lo)).to(dev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--device", default="cuda", help="cuda (default); cpu: a dry run of the logic")
    a = ap.parse_args()
    dev = torch.device(a.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("SKIPPED: torch.cuda.is_available() is False")
        return 0
    try:
        import xrng
    except ImportError as e:
        print(f"SKIPPED: xrng is not importable ({e})")
        return 0
    if dev.type == "cuda" and not xrng.has_cuda_kernels():
        print("SKIPPED: this xrng build has no CUDA kernels (xrng.has_cuda_kernels() is False)")
        return 0
    n = 1 << a.log2n
    tm = timer(dev)
    if dev.type == "cuda":
        p = torch.cuda.get_device_properties(0)
        sm, tps, name = p.multi_processor_count, p.max_threads_per_multi_processor, p.name
    else:
        sm, tps, name = 132, 2048, "cpu (dry run)"
    print(f"device: {name}, torch {torch.__version__}, xrng {getattr(xrng, '__version__', '?')}; n = 2^{a.log2n}; "
          f"median of {a.reps} after {a.warmup} warm-up; ms per call; torch / xrng > 1: xrng faster")
    bad = []

    def table(title, rows):
        print(f"\n{title}\n")
        print("| row | elements | xrng ms | torch ms | torch / xrng |")
        print("|---|---|---|---|---|")
        for rname, m, fx, ft in rows:
            cells = []
            for f in (fx, ft):
                try:
                    cells.append(tm(f, a.reps, a.warmup))
                except Exception as e:  # a refused row: its error, the table goes on
                    cells.append(f"error: {type(e).__name__}: {str(e).splitlines()[0][:60]}")
            if all(isinstance(c, float) for c in cells):
                print(f"| {rname} | {m} | {cells[0]:.4f} | {cells[1]:.4f} | {cells[1] / cells[0]:.2f} |", flush=True)
            else:
                print(f"| {rname} | {m} | {cells[0]} | {cells[1]} | - |", flush=True)
                if not isinstance(cells[0], float):
                    bad.append(rname)

    # ---- tensor-parameter draws ------------------------------------------------------------
    g = torch.Generator().manual_seed(0)
    xg = xrng.Generator(1)
    alpha = (torch.rand(n, generator=g, dtype=torch.float64) * 19.9 + 0.1).to(dev)
    alpha32 = alpha.float()
    rate = (torch.rand(n, generator=g, dtype=torch.float64) * 59.5 + 0.5).to(dev)
    count = torch.full((n,), 100.0, dtype=torch.float64, device=dev)
    prob = (torch.rand(n, generator=g, dtype=torch.float64) * 0.9 + 0.05).to(dev)
    dal = alpha.reshape(-1, 8)
    kw = max(n // 1000 // 16, 1)  # multinomial rows: 1000 samples each
    w = torch.rand(kw, 1000, generator=g, dtype=torch.float64).to(dev)
    rows = [
        ("gamma f64, alpha in [0.1, 20]", n, lambda: xrng.gamma(alpha, generator=xg), lambda: torch._standard_gamma(alpha)),
        ("gamma f32, alpha in [0.1, 20]", n, lambda: xrng.gamma(alpha32, generator=xg),
         lambda: torch._standard_gamma(alpha32)),
        ("dirichlet f64, rows of 8", n, lambda: xrng.dirichlet(dal, generator=xg), lambda: torch._sample_dirichlet(dal)),
        ("poisson f64, rate in [0.5, 60]", n, lambda: xrng.poisson(rate, generator=xg), lambda: torch.poisson(rate)),
        ("binomial f64, n = 100, p in [0.05, 0.95]", n, lambda: xrng.binomial(count, prob, generator=xg),
         lambda: torch.binomial(count, prob)),
        (f"multinomial, replacement, k = 1000, {kw} rows x 1000", kw * 1000,
         lambda: xrng.multinomial(w, 1000, True, generator=xg), lambda: torch.multinomial(w, 1000, True)),
        (f"multinomial, no replacement, k = 1000, {kw} rows x 100", kw * 100,
         lambda: xrng.multinomial(w, 100, False, generator=xg), lambda: torch.multinomial(w, 100, False)),
    ]
    for lo, hi in ((0.01, 0.1), (10.0, 1e4)):
        al = log_uniform(g, n, lo, hi, dev)
        rows.append((f"gamma f64, alpha in [{lo:g}, {hi:g}]", n, lambda al=al: xrng.gamma(al, generator=xg),
                     lambda al=al: torch._standard_gamma(al)))
    for lo, hi in ((0.1, 10.0), (1e3, 1e6)):
        r = log_uniform(g, n, lo, hi, dev)
        rows.append((f"poisson f64, rate in [{lo:g}, {hi:g}]", n, lambda r=r: xrng.poisson(r, generator=xg),
                     lambda r=r: torch.poisson(r)))
    for (lo, hi), (plo, phi) in (((1e6, 1e9), (0.0, 1.0)), ((1e3, 1e6), (1e-4, 1e-2))):
        c = torch.floor(log_uniform(g, n, lo, hi, dev))
        pr = (torch.rand(n, generator=g, dtype=torch.float64) * (phi - plo) + plo).to(dev)
        rows.append((f"binomial f64, count in [{lo:g}, {hi:g}], p in [{plo:g}, {phi:g}]", n,
                     lambda c=c, pr=pr: xrng.binomial(c, pr, generator=xg), lambda c=c, pr=pr: torch.binomial(c, pr)))
    wk = torch.rand(max(n // 100000 // 16, 1), 100000, generator=g, dtype=torch.float64).to(dev)
    rows.append((f"multinomial, replacement, k = 1e5, {wk.shape[0]} rows x 1000", wk.shape[0] * 1000,
                 lambda: xrng.multinomial(wk, 1000, True, generator=xg), lambda: torch.multinomial(wk, 1000, True)))
    table("tensor-parameter draws (xrng's CUDA kernels vs torch's CUDA kernels)", rows)
    del alpha, alpha32, rate, count, prob, dal, w, wk

    # ---- the torch-cuda stream --------------------------------------------------------------
    xg = xrng.torch_cuda(1234, sm_count=sm, threads_per_sm=tps)
    tg = torch.Generator(device=dev)
    tg.manual_seed(1234)
    f32 = torch.empty(n, device=dev)
    f16 = torch.empty(n, dtype=torch.float16, device=dev)
    f64 = torch.empty(n, dtype=torch.float64, device=dev)
    x = torch.randn(n, device=dev, generator=tg)
    drop = torch.nn.functional.dropout
    rows = [
        ("rand f32 (factory)", n, lambda: xrng.rand(n, generator=xg, device=dev),
         lambda: torch.rand(n, generator=tg, device=dev)),
        ("uniform_ f32", n, lambda: xrng.uniform_(f32, generator=xg), lambda: f32.uniform_(generator=tg)),
        ("uniform_ f64", n, lambda: xrng.uniform_(f64, generator=xg), lambda: f64.uniform_(generator=tg)),
        ("randn f32 (factory)", n, lambda: xrng.randn(n, generator=xg, device=dev),
         lambda: torch.randn(n, generator=tg, device=dev)),
        ("normal_ f32", n, lambda: xrng.normal_(f32, generator=xg), lambda: f32.normal_(generator=tg)),
        ("normal_ f16", n, lambda: xrng.normal_(f16, generator=xg), lambda: f16.normal_(generator=tg)),
        ("normal_ f64", n, lambda: xrng.normal_(f64, generator=xg), lambda: f64.normal_(generator=tg)),
        ("exponential_ f32", n, lambda: xrng.exponential_(f32, 1.5, generator=xg),
         lambda: f32.exponential_(1.5, generator=tg)),
        ("bernoulli_(0.1) f32", n, lambda: xrng.bernoulli_(f32, 0.1, generator=xg),
         lambda: f32.bernoulli_(0.1, generator=tg)),
        ("randint(0, 1000) i64 (factory)", n, lambda: xrng.randint(0, 1000, (n,), generator=xg, device=dev),
         lambda: torch.randint(0, 1000, (n,), generator=tg, device=dev)),
        ("dropout f32 p=0.5", n, lambda: xrng.dropout(x, 0.5, generator=xg), lambda: drop(x, 0.5, training=True)),
    ]
    table(f"the torch-cuda stream (xrng.torch_cuda(1234, sm_count={sm}) on {dev.type} tensors) vs torch's own draws",
          rows)
    if bad:
        print(f"\nbench_xrng_torch: xrng refused {len(bad)} row(s): {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
