"""Per-call cost of torch's random calls under the reproducible mode (issue 25),
CPU: torch's own call and the same call under ``xrng.reproducible`` (xrng's
kernels serve the aten ops), in one run. Each condition: the best of
`repeats` means of `calls` calls; conditions alternate within each repeat,
so both see the same machine load. Prints a markdown table in microseconds
and the mode's time as a multiple of torch's own (the goal of issue 25:
<= 1.5x). The last row is a TorchScript loop of draws (the interpreter's
boxed calls, no Python per draw): the kernel's own cost. Timing is never
asserted by a test. (The entry-point engine, a
column here until it was removed, cost 2.4-30x on the same calls: docs/reproducible.md.)

    python3 bench/mode_per_call.py [--threads 1] [--calls 4000] [--repeats 5]
"""
import argparse
import time

import torch
import torch.nn.functional as F

import xrng


@torch.jit.script
def _scripted(t: torch.Tensor, n: int):
    for _ in range(n):
        t.normal_(0.0, 1.0)
    return t


def cases():
    x64 = torch.ones(64)
    w = torch.rand(1000)
    e = torch.empty(256)
    t16 = torch.empty(16)
    return {
        "torch.randn(2)": lambda: torch.randn(2),
        "torch.rand(1024)": lambda: torch.rand(1024),
        "F.dropout(64 elements)": lambda: F.dropout(x64, 0.5),
        "torch.randint(10, (8,))": lambda: torch.randint(10, (8,)),
        "torch.multinomial(1000 categories, 1)": lambda: torch.multinomial(w, 1),
        "torch.empty(256).normal_()": lambda: e.normal_(),
        # the kernel's cost without Python's: a TorchScript loop (boxed calls), per draw
        "TorchScript: t.normal_() on 16 elements, per draw": (lambda: _scripted(t16, 100), 100),
    }


def mean_us(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cs = cases()
    conds = ("torch", "mode")
    best = {(c, k): float("inf") for c in conds for k in cs}
    for _ in range(a.repeats):
        for c in conds:
            mode = xrng.reproducible(seed=0) if c == "mode" else None
            if mode:
                mode.enable()
            try:
                for k, fn in cs.items():
                    fn, per = fn if isinstance(fn, tuple) else (fn, 1)
                    fn()  # warm
                    best[c, k] = min(best[c, k], mean_us(fn, max(1, a.calls // per)) / per)
            finally:
                if mode:
                    mode.disable()
    print(f"CPU, {a.threads} thread(s), best of {a.repeats} x {a.calls} calls; us per call\n")
    print("| call | torch | under the mode | ratio |")
    print("|---|---|---|---|")
    for k in cs:
        t, d = best["torch", k], best["mode", k]
        print(f"| `{k}` | {t:.2f} | {d:.2f} | {d / t:.2f}x |")


if __name__ == "__main__":
    main()
