"""torch's CPU stream drawn by xrng (xrng.torch_cpu) against torch's own CPU
generator, for the same values: the median over repeats of one call's time,
interleaved so both see the same machine load, and the ratio xrng / torch
(below 1: xrng faster). Single-threaded by nature: torch's generator is a
sequential Mersenne Twister and torch draws it under a lock. Not a test.

    python3 bench/torch_cpu.py [--repeats 15] [--kernel x86|scalar]

Run torch with ATEN_CPU_CAPABILITY=default to time the scalar kernel against
torch's own default kernel.
"""
import argparse
import statistics
import time

import torch

import xrng


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--kernel", default="x86", choices=["x86", "scalar"])
    a = ap.parse_args()
    print(f"torch {torch.__version__}, capability {torch.backends.cpu.get_cpu_capability()}, "
          f"xrng kernel {a.kernel}, {torch.get_num_threads()} torch threads")
    tg = torch.Generator().manual_seed(1)
    xg = xrng.torch_cpu(1, kernel=a.kernel)
    cases = []
    for n in (1 << 16, 1 << 20, 1 << 22):
        cases += [
            (f"randn({n}) float32", lambda n=n: torch.randn(n, generator=tg),
             lambda n=n: xrng.randn(n, generator=xg)),
            (f"randn({n}) bfloat16", lambda n=n: torch.randn(n, generator=tg, dtype=torch.bfloat16),
             lambda n=n: xrng.randn(n, generator=xg, dtype=torch.bfloat16)),
            (f"rand({n}) float32", lambda n=n: torch.rand(n, generator=tg),
             lambda n=n: xrng.rand(n, generator=xg)),
            (f"randint(0, 1000, ({n},))", lambda n=n: torch.randint(0, 1000, (n,), generator=tg),
             lambda n=n: xrng.randint(0, 1000, (n,), generator=xg)),
        ]
    print(f"{'draw':28s} {'torch ms':>10s} {'xrng ms':>10s} {'ratio':>7s}")
    for name, t_fn, x_fn in cases:
        tt, xt = [], []
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            t_fn()
            t1 = time.perf_counter()
            x_fn()
            t2 = time.perf_counter()
            tt.append(t1 - t0)
            xt.append(t2 - t1)
        mt, mx = statistics.median(tt) * 1e3, statistics.median(xt) * 1e3
        print(f"{name:28s} {mt:10.3f} {mx:10.3f} {mx / mt:7.2f}")


if __name__ == "__main__":
    main()
