#!/usr/bin/env python3
"""The tensor-parameter draws (SPEC.md sections 10-13) side by side on the CPU:
xrng.gamma / dirichlet / poisson / binomial / multinomial against torch's
_standard_gamma / _sample_dirichlet / poisson / binomial / multinomial and
NumPy's Generator, in one run, same sizes, same thread count. Prints a
markdown table of ns per element (median of --reps calls) and each library's
time as a multiple of xrng's (> 1: xrng is faster).

    python3 bench/sampling.py [--n 1048576] [--threads 1] [--reps 5] [--ranges] [--cpu-time]

Parameters per row: a fixed mix (alpha in [0.1, 20], rate in [0.5, 60],
count 100 with prob in [0.05, 0.95], 1000 categories), the same for every
library. --ranges: instead, one row per parameter range (alpha from 0.01
to 1e4, rates from 0.1 to 1e6, counts from 1 to 1e9, log-uniform within each
row; binomial also with p in [1e-4, 1e-2] and near 1; Dirichlet over four
alpha ranges x rows of 2, 8, 64, 1000, NumPy's column with one fixed alpha
row; multinomial with k = 10, 1000, 100000, with and without replacement,
several sample counts). --only a,b: only the --ranges rows whose name
contains one of these.
--cpu-time: the process's CPU time (time.process_time_ns) instead of the
wall clock, for a shared machine: with one thread, the time of that thread;
with more, the work of all of them (not the wall time they take together).
Timing is never asserted by a test.
"""
import argparse
import time

import numpy as np
import torch

import xrng


CLOCK = time.perf_counter_ns  # --cpu-time: time.process_time_ns


def median_ns(fn, n, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        ts.append((CLOCK() - t0) / n)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ranges", action="store_true", help="one row per parameter range")
    ap.add_argument("--only", default="", help="--ranges: only rows whose name contains one of these (comma-separated)")
    ap.add_argument("--cpu-time", action="store_true", help="the process's CPU time instead of the wall clock")
    a = ap.parse_args()
    if a.cpu_time:
        global CLOCK
        CLOCK = time.process_time_ns
    if a.ranges:
        return ranges(a)
    n, reps = a.n, a.reps
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(0)
    alpha = torch.rand(n, generator=g, dtype=torch.float64) * 19.9 + 0.1
    rate = torch.rand(n, generator=g, dtype=torch.float64) * 59.5 + 0.5
    count = torch.full((n,), 100.0, dtype=torch.float64)
    prob = torch.rand(n, generator=g, dtype=torch.float64) * 0.9 + 0.05
    dir_alpha = alpha.reshape(-1, 8)
    weights = torch.rand(max(n // 1000, 1), 1000, generator=g, dtype=torch.float64)
    rng = np.random.default_rng(0)
    an, rn, pn, wn = alpha.numpy(), rate.numpy(), prob.numpy(), weights[0].numpy() / weights[0].sum().item()
    xg = xrng.Generator(1)
    rows = [
        ("gamma", n,
         lambda: xrng.gamma(alpha, generator=xg), lambda: torch._standard_gamma(alpha),
         lambda: rng.standard_gamma(an)),
        ("dirichlet (rows of 8)", n,
         lambda: xrng.dirichlet(dir_alpha, generator=xg), lambda: torch._sample_dirichlet(dir_alpha),
         lambda: rng.dirichlet(dir_alpha[0].numpy(), size=dir_alpha.shape[0])),
        ("poisson", n,
         lambda: xrng.poisson(rate, generator=xg), lambda: torch.poisson(rate), lambda: rng.poisson(rn)),
        ("binomial (n = 100)", n,
         lambda: xrng.binomial(count, prob, generator=xg), lambda: torch.binomial(count, prob),
         lambda: rng.binomial(100, pn)),
        ("multinomial, with replacement (k = 1000)", weights.shape[0] * 1000,
         lambda: xrng.multinomial(weights, 1000, True, generator=xg),
         lambda: torch.multinomial(weights, 1000, True),
         lambda: rng.choice(1000, size=(weights.shape[0], 1000), p=wn)),
    ]
    clock = "CPU time" if a.cpu_time else "wall clock"
    print(f"n = {n}, torch threads = {a.threads} (NumPy: 1 thread), median of {reps}; ns per element ({clock})")
    print()
    print("| draw | xrng | torch | numpy | torch / xrng | numpy / xrng |")
    print("|---|---|---|---|---|---|")
    for name, m, fx, ft, fnp in rows:
        tx, tt, tn = median_ns(fx, m, reps), median_ns(ft, m, reps), median_ns(fnp, m, reps)
        print(f"| {name} | {tx:.1f} | {tt:.1f} | {tn:.1f} | {tt / tx:.2f} | {tn / tx:.2f} |")


def log_uniform(g, n, lo, hi):
    import math
    return torch.exp(torch.rand(n, generator=g, dtype=torch.float64) * (math.log(hi) - math.log(lo)) + math.log(lo))


def ranges(a):
    n, reps = a.n, a.reps
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(0)
    rng = np.random.default_rng(0)
    xg = xrng.Generator(1)
    rows = []
    for lo, hi in [(0.01, 0.1), (0.1, 1.0), (1.0, 10.0), (10.0, 1e4)]:
        al = log_uniform(g, n, lo, hi)
        an = al.numpy()
        rows.append((f"gamma, alpha in [{lo:g}, {hi:g}]", n, lambda al=al: xrng.gamma(al, generator=xg),
                     lambda al=al: torch._standard_gamma(al), lambda an=an: rng.standard_gamma(an)))
    # Dirichlet: xrng and torch draw one alpha per element (every row its own
    # alphas); NumPy's dirichlet takes one alpha vector for all rows, so its
    # column is rng.dirichlet(first row's alphas, size=rows): the same shape and
    # alpha range, a fixed alpha (NumPy has no per-row form; gamma-normalising
    # in NumPy would be another draw)
    for lo, hi in [(0.01, 0.1), (0.1, 1.0), (1.0, 10.0), (10.0, 1e4)]:
        for length in [2, 8, 64, 1000]:
            dal = log_uniform(g, n // length * length, lo, hi).reshape(-1, length)
            d0 = dal[0].numpy()
            rows.append((f"dirichlet, rows of {length}, alpha in [{lo:g}, {hi:g}]", dal.numel(),
                         lambda dal=dal: xrng.dirichlet(dal, generator=xg),
                         lambda dal=dal: torch._sample_dirichlet(dal),
                         lambda d0=d0, m=dal.shape[0]: rng.dirichlet(d0, size=m)))
    for lo, hi in [(0.1, 10.0), (10.0, 1e3), (1e3, 1e6)]:
        r = log_uniform(g, n, lo, hi)
        rn = r.numpy()
        rows.append((f"poisson, rate in [{lo:g}, {hi:g}]", n, lambda r=r: xrng.poisson(r, generator=xg),
                     lambda r=r: torch.poisson(r), lambda rn=rn: rng.poisson(rn)))
    for lo, hi in [(1, 10), (10, 1e3), (1e3, 1e6), (1e6, 1e9)]:
        c = torch.floor(log_uniform(g, n, lo, hi))
        p = torch.rand(n, generator=g, dtype=torch.float64)
        cn, pn = c.numpy().astype(np.int64), p.numpy()
        rows.append((f"binomial, count in [{lo:g}, {hi:g}], p in [0, 1]", n,
                     lambda c=c, p=p: xrng.binomial(c, p, generator=xg), lambda c=c, p=p: torch.binomial(c, p),
                     lambda cn=cn, pn=pn: rng.binomial(cn, pn)))
    # small p with large counts, p near 1
    for (lo, hi), (plo, phi) in [((1e3, 1e6), (1e-4, 1e-2)), ((1e6, 1e9), (1e-4, 1e-2)),
                                 ((1e3, 1e6), (0.99, 1 - 1e-4)), ((1e6, 1e9), (0.99, 1 - 1e-4))]:
        c = torch.floor(log_uniform(g, n, lo, hi))
        p = torch.rand(n, generator=g, dtype=torch.float64) * (phi - plo) + plo
        cn, pn = c.numpy().astype(np.int64), p.numpy()
        rows.append((f"binomial, count in [{lo:g}, {hi:g}], p in [{plo:g}, {phi:g}]", n,
                     lambda c=c, p=p: xrng.binomial(c, p, generator=xg), lambda c=c, p=p: torch.binomial(c, p),
                     lambda cn=cn, pn=pn: rng.binomial(cn, pn)))
    for k in [10, 1000, 100000]:
        w = torch.rand(max(n // 1000, 1), k, generator=g, dtype=torch.float64)
        ns = 1000
        wn = (w[0] / w[0].sum()).numpy()
        rows.append((f"multinomial, with replacement, k = {k}, {ns} samples", w.shape[0] * ns,
                     lambda w=w, ns=ns: xrng.multinomial(w, ns, True, generator=xg),
                     lambda w=w, ns=ns: torch.multinomial(w, ns, True),
                     lambda w=w, wn=wn, k=k, ns=ns: rng.choice(k, size=(w.shape[0], ns), p=wn)))
    # without replacement: rows * k = n weights; ns per weight (category) drawn
    # over; NumPy: one rng.choice(replace=False, p=row 0) per row (no batched form)
    for k, samples in [(10, [2, 10]), (1000, [10, 100, 1000]), (100000, [10, 1000, 100000])]:
        w = torch.rand(max(n // k, 1), k, generator=g, dtype=torch.float64)
        wn = (w[0] / w[0].sum()).numpy()
        for ns in samples:
            rows.append((f"multinomial, without replacement, k = {k}, {ns} samples (per category)", w.numel(),
                         lambda w=w, ns=ns: xrng.multinomial(w, ns, False, generator=xg),
                         lambda w=w, ns=ns: torch.multinomial(w, ns, False),
                         lambda w=w, wn=wn, k=k, ns=ns: [rng.choice(k, size=ns, replace=False, p=wn)
                                                         for _ in range(w.shape[0])]))
    clock = "CPU time" if a.cpu_time else "wall clock"
    print(f"n = {n}, torch threads = {a.threads} (NumPy: 1 thread), median of {reps}; ns per element ({clock}; "
          "dirichlet's NumPy: one fixed alpha row for all rows, xrng/torch: an alpha per element)")
    print()
    print("| draw | xrng | torch | numpy | torch / xrng | numpy / xrng |")
    print("|---|---|---|---|---|---|")
    for name, m, fx, ft, fnp in rows:
        if a.only and not any(o in name for o in a.only.split(",")):
            continue
        tx, tt, tn = median_ns(fx, m, reps), median_ns(ft, m, reps), median_ns(fnp, m, reps)
        print(f"| {name} | {tx:.1f} | {tt:.1f} | {tn:.1f} | {tt / tx:.2f} | {tn / tx:.2f} |", flush=True)


if __name__ == "__main__":
    main()
