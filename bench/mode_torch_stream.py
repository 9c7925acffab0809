"""Cost of the reproducible mode's torch-cpu stream (issue 26, SPEC.md 8.5)
against torch's own CPU generator for the same values, one thread on both
sides (torch's generator is single-threaded): the unmodified torch call,
without the mode (torch draws) and inside ``xrng.reproducible(stream=...)``
(xrng draws torch's values). Every call the stream serves, at small sizes
(the per-call cost) and a few large ones. Conditions alternate within each
of `repeats` rounds (the same machine load); each row prints the median of
its rounds' per-call medians in microseconds, and the ratio mode / torch.
Timing is never asserted by a test.

    python3 bench/mode_torch_stream.py [--repeats 5] [--stream torch-cpu-x86] [--filter REGEX]

``--stream torch-cpu-scalar`` reruns itself with ATEN_CPU_CAPABILITY=default
(torch's default kernel, the one that stream reproduces) unless it is set.
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


@torch.jit.script
def _scripted(t: torch.Tensor, n: int):
    for _ in range(n):
        t.normal_(2.0, 3.0)
    return t


def cases():
    """name -> call (the same torch call with and without the mode)."""
    c = {}
    for dn, dt in (("f32", torch.float32), ("f64", torch.float64), ("f16", torch.float16),
                   ("bf16", torch.bfloat16)):
        for n in (1, 8, 16, 256):
            c[f"torch.randn({n}) {dn}"] = lambda n=n, dt=dt: torch.randn(n, dtype=dt)
    c["torch.randn(2^20) f32"] = lambda: torch.randn(2 ** 20)
    out = torch.empty(2 ** 20)
    c["out.normal_() 2^20 f32"] = lambda: out.normal_()
    t16 = torch.empty(16)
    c["t.normal_(2, 3) 16 f32"] = lambda: t16.normal_(2.0, 3.0)
    # the kernel's cost without Python's: a TorchScript loop (boxed calls, no Python per draw)
    c["TorchScript: 100 x t.normal_(2, 3) 16 f32"] = lambda: _scripted(t16, 100)
    for dn, dt in (("f32", torch.float32), ("f64", torch.float64), ("f16", torch.float16)):
        for n in (1, 256):
            c[f"torch.rand({n}) {dn}"] = lambda n=n, dt=dt: torch.rand(n, dtype=dt)
    c["t.uniform_(-1, 2) 16 f32"] = lambda: t16.uniform_(-1.0, 2.0)
    c["torch.randint(0, 1000, (16,))"] = lambda: torch.randint(0, 1000, (16,))
    c["torch.randint(0, 2^40, (16,))"] = lambda: torch.randint(0, 2 ** 40, (16,))
    c["torch.randint(0, 1000, (2^20,))"] = lambda: torch.randint(0, 1000, (2 ** 20,))
    ti = torch.empty(16, dtype=torch.int64)
    c["t.random_(0, 1000) 16 i64"] = lambda: ti.random_(0, 1000)
    for n in (10, 1000):
        c[f"torch.randperm({n})"] = lambda n=n: torch.randperm(n)
    tb = torch.empty(16, dtype=torch.bool)
    c["t.bernoulli_(0.3) 16 bool"] = lambda: tb.bernoulli_(0.3)
    p16 = torch.rand(16)
    c["torch.bernoulli(p: 16 f32)"] = lambda: torch.bernoulli(p16)
    x16, x20 = torch.ones(16), torch.ones(2 ** 20)
    c["F.dropout(16, 0.1)"] = lambda: F.dropout(x16, 0.1)
    c["F.dropout(2^20, 0.1)"] = lambda: F.dropout(x20, 0.1)
    c["t.exponential_(1.5) 16 f32"] = lambda: t16.exponential_(1.5)
    c["t.log_normal_() 16 f32"] = lambda: t16.log_normal_()
    c["t.cauchy_() 16 f32"] = lambda: t16.cauchy_()
    c["t.geometric_(0.3) 16 f32"] = lambda: t16.geometric_(0.3)
    w = torch.rand(10)
    c["torch.multinomial(10, 5)"] = lambda: torch.multinomial(w, 5)
    c["torch.multinomial(10, 5, True)"] = lambda: torch.multinomial(w, 5, True)
    return c


def per_call(f):
    """Seconds per call of f over a batch of at least ~1 ms and 5 calls (a
    single call of a 2^20 draw swings with page faults and the machine's load)."""
    t0 = time.perf_counter()
    f()
    once = max(time.perf_counter() - t0, 1e-7)
    batch = max(5, min(2000, int(1e-3 / once)))
    t0 = time.perf_counter()
    for _ in range(batch):
        f()
    return (time.perf_counter() - t0) / batch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--stream", default="torch-cpu-x86", choices=["torch-cpu-x86", "torch-cpu-scalar"])
    ap.add_argument("--filter", default="", help="only the rows whose name matches this regex")
    a = ap.parse_args()
    if a.stream == "torch-cpu-scalar" and os.environ.get("ATEN_CPU_CAPABILITY") != "default":
        env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
        sys.exit(subprocess.call([sys.executable] + sys.argv, env=env))
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, capability {torch.backends.cpu.get_cpu_capability()}, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    rows = {k: f for k, f in cases().items() if re.search(a.filter, k)}
    res: dict = {}
    for _ in range(a.repeats):
        for name, f in rows.items():
            ts, ms = [], []
            for _ in range(3):  # alternating, within the round
                ts.append(per_call(f))
                with xrng.reproducible(stream=a.stream):
                    ms.append(per_call(f))
            res.setdefault((name, "torch"), []).append(statistics.median(ts))
            res.setdefault((name, "mode"), []).append(statistics.median(ms))
    print(f"| call | torch us | mode {a.stream} us | ratio |\n|---|---|---|---|")
    for name in rows:
        t = statistics.median(res[(name, "torch")])
        m = statistics.median(res[(name, "mode")])
        print(f"| {name} | {1e6 * t:.2f} | {1e6 * m:.2f} | {m / t:.2f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
