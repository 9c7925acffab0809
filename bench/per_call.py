"""Per-call cost of a one-element draw, xrng against torch, interleaved (so
both see the same machine load): the minimum over repeats of the mean of
`calls` calls, in microseconds.

    python3 bench/per_call.py [--calls 5000] [--repeats 15]
"""
import argparse
import time

import torch

import xrng


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=15)
    a = ap.parse_args()
    tg = torch.Generator().manual_seed(1)
    xg = xrng.Generator(1)
    cases = {
        "torch.randn(1, generator=tg)": lambda: torch.randn(1, generator=tg),
        "xrng.randn(1, generator=g)": lambda: xrng.randn(1, generator=xg),
        "xrng.randn(1, generator=g, device='cpu')": lambda: xrng.randn(1, generator=xg, device="cpu"),
        "xrng.randn(1, seed=1)": lambda: xrng.randn(1, seed=1),
        "xrng.randn(1) (default generator)": lambda: xrng.randn(1),
    }
    best = {k: float("inf") for k in cases}
    for _ in range(a.repeats):
        for k, f in cases.items():
            for _ in range(50):
                f()
            t0 = time.perf_counter()
            for _ in range(a.calls):
                f()
            best[k] = min(best[k], (time.perf_counter() - t0) / a.calls * 1e6)
    base = best["torch.randn(1, generator=tg)"]
    for k, v in best.items():
        print(f"{k:45s} {v:7.2f} us  {v / base:5.2f}x")


if __name__ == "__main__":
    main()
