"""Cost of the reproducible mode's torch-cpu stream (issue 26, SPEC.md 8.5)
against torch's own CPU generator for the same values, one thread on both
sides (torch's generator is single-threaded). Conditions alternate within
each of `repeats` rounds (the same machine load); each prints the median of
its rounds' medians, in milliseconds. Timing is never asserted by a test.

    python3 bench/mode_torch_stream.py [--repeats 3] [--stream torch-cpu-x86]
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import xrng


def timed(f, n):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--stream", default="torch-cpu-x86")
    a = ap.parse_args()
    torch.set_num_threads(1)
    out = torch.empty(2 ** 20)
    ones = torch.ones(2 ** 20)
    cases = {
        "out.normal_() (2^20 float32)": (lambda: out.normal_(), 9),
        "torch.randn(2^20)": (lambda: torch.randn(2 ** 20), 9),
        "1000 x torch.randn(16)": (lambda: [torch.randn(16) for _ in range(1000)], 5),
        "F.dropout(2^20, 0.1)": (lambda: F.dropout(ones, 0.1), 7),
        "torch.randint(0, 1000, (2^20,))": (lambda: torch.randint(0, 1000, (2 ** 20,)), 7),
    }
    res: dict = {}
    for _ in range(a.repeats):
        for name, (f, n) in cases.items():
            res.setdefault((name, "torch"), []).append(timed(f, n))
            with xrng.reproducible(stream=a.stream):
                res.setdefault((name, a.stream), []).append(timed(f, n))
    print(f"| call | torch ms | mode {a.stream} ms | ratio |\n|---|---|---|---|")
    for name in cases:
        t = statistics.median(res[(name, "torch")])
        m = statistics.median(res[(name, a.stream)])
        print(f"| {name} | {1e3 * t:.3f} | {1e3 * m:.3f} | {m / t:.2f} |")


if __name__ == "__main__":
    main()
