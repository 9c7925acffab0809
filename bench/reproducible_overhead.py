"""Cost of xrng.reproducible on a training step of a small transformer (CPU).

The model: nn.Embedding(1000, 128) -> Dropout(0.1) -> 2 x nn.TransformerEncoderLayer
(d_model 128, 4 heads, feed-forward 256, dropout 0.1) -> Linear(128, 1000), batch
8 x 64 tokens, cross-entropy, AdamW. It runs the same training step without the
mode, under an empty TorchFunctionMode (what intercepting every torch call
would cost) and under xrng.reproducible, alternating blocks of steps so that
all see the same machine load, and prints per condition the median wall time
and the median CPU time of this thread (less sensitive to other processes on a
shared machine; with one torch thread all of the step's work runs on it),
their ratios to eager, and the stream words the mode drew per step. Then the
cost of single calls: a non-random torch call, a dropout that draws nothing,
and the draws the step makes (dropout, SDPA with dropout), with and without
the mode.

    python3 bench/reproducible_overhead.py [--threads 1] [--rounds 15] [--steps 10] [--dropout 0.1]
"""
import argparse
import contextlib
import statistics
import time

import torch
from torch.overrides import TorchFunctionMode

import xrng


class EmptyFunctionMode(TorchFunctionMode):
    """Intercepts every torch call and does nothing else."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def build(seed: int = 0, dropout: float = 0.1):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(128, 4, 256, dropout=dropout, batch_first=True)
    model = torch.nn.Sequential(torch.nn.Embedding(1000, 128), torch.nn.Dropout(dropout),
                                torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
                                torch.nn.Linear(128, 1000))
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 1000, (8, 64), generator=g)
    y = torch.randint(0, 1000, (8, 64), generator=g)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, 1000), y.reshape(-1))
        loss.backward()
        opt.step()
    return step


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=10, help="steps per block")
    ap.add_argument("--dropout", type=float, default=0.1, help="0: a step that draws nothing")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    step = build(dropout=a.dropout)
    mode = xrng.reproducible(seed=0)
    conds = {"eager": contextlib.nullcontext, "empty function mode": EmptyFunctionMode,
             "xrng.reproducible": lambda: mode}
    wall = {k: [] for k in conds}
    cpu = {k: [] for k in conds}
    for k, ctx in conds.items():  # warm-up
        with ctx():
            for _ in range(3):
                step()
    with mode:
        before = mode.global_position().offset
        step()
        words = mode.global_position().offset - before
    order = list(conds.items())
    for r in range(a.rounds):
        for k, ctx in order if r % 2 == 0 else order[::-1]:  # alternate the order: no condition always follows another
            with ctx():
                for _ in range(a.steps):
                    t, c = time.perf_counter(), time.thread_time()
                    step()
                    cpu[k].append(time.thread_time() - c)
                    wall[k].append(time.perf_counter() - t)
    print(f"torch {torch.__version__}, {a.threads} thread(s), dropout {a.dropout}, {a.rounds} rounds x {a.steps} "
          f"steps per condition; {words} stream words drawn per step under the mode")
    e = "eager"
    for k in conds:
        qw, qc = statistics.quantiles(wall[k], n=4), statistics.quantiles(cpu[k], n=4)
        print(f"{k:20s} wall median {qw[1] * 1e3:7.2f} ms (quartiles {qw[0] * 1e3:.2f} .. {qw[2] * 1e3:.2f}), "
              f"cpu median {qc[1] * 1e3:7.2f} ms (quartiles {qc[0] * 1e3:.2f} .. {qc[2] * 1e3:.2f}); "
              f"ratio to eager: wall {qw[1] / statistics.median(wall[e]):.3f}, "
              f"cpu {qc[1] / statistics.median(cpu[e]):.3f}")

    # single calls: median CPU time per call, with and without the mode
    small = torch.ones(4)
    x = torch.ones(8, 64, 256)
    q = torch.ones(8, 4, 64, 32)
    calls = {
        "Tensor.add, 4 elements (not random)": (lambda: small.add(small), 20000),
        "F.dropout(p=0), 131072 elements (no draw)": (lambda: torch.nn.functional.dropout(x, 0.0), 20000),
        "F.dropout(p=0.1), 131072 elements": (lambda: torch.nn.functional.dropout(x, 0.1), 50),
        "SDPA dropout_p=0.1, 8x4x64x32": (
            lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.1), 50),
    }
    for name, (f, n) in calls.items():
        res = {"eager": [], "mode": []}
        for _ in range(7):
            for k, ctx in (("eager", contextlib.nullcontext), ("mode", lambda: mode)):
                with ctx():
                    c = time.thread_time()
                    for _ in range(n):
                        f()
                    res[k].append((time.thread_time() - c) / n)
        print(f"{name:42s} eager {statistics.median(res['eager']) * 1e6:9.3f} us, "
              f"under the mode {statistics.median(res['mode']) * 1e6:9.3f} us")


if __name__ == "__main__":
    main()
