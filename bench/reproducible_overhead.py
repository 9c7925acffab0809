"""Cost of xrng.reproducible on a training step of a small transformer (CPU).

The model: nn.Embedding(1000, 128) -> Dropout(0.1) -> 2 x nn.TransformerEncoderLayer
(d_model 128, 4 heads, feed-forward 256, dropout 0.1) -> Linear(128, 1000), batch
8 x 64 tokens, cross-entropy, AdamW. It runs the same training step with and
without the mode, alternating blocks of steps so that both see the same machine
load, and prints per condition the median wall time and the median CPU time of
this thread (less sensitive to other processes on a shared machine; with one
torch thread all of the step's work runs on it), their ratios, and the stream
words the mode drew per step (its dropout masks).

    python3 bench/reproducible_overhead.py [--threads 1] [--rounds 15] [--steps 10] [--dropout 0.1]
"""
import argparse
import contextlib
import statistics
import time

import torch

import xrng


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
    conds = {"eager": contextlib.nullcontext, "xrng.reproducible": lambda: mode}
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
    for _ in range(a.rounds):
        for k, ctx in conds.items():
            with ctx():
                for _ in range(a.steps):
                    t, c = time.perf_counter(), time.thread_time()
                    step()
                    cpu[k].append(time.thread_time() - c)
                    wall[k].append(time.perf_counter() - t)
    print(f"torch {torch.__version__}, {a.threads} thread(s), dropout {a.dropout}, {a.rounds} rounds x {a.steps} "
          f"steps per condition")
    for k in conds:
        qw, qc = statistics.quantiles(wall[k], n=4), statistics.quantiles(cpu[k], n=4)
        print(f"{k:18s} wall median {qw[1] * 1e3:8.2f} ms (quartiles {qw[0] * 1e3:.2f} .. {qw[2] * 1e3:.2f}), "
              f"cpu median {qc[1] * 1e3:8.2f} ms (quartiles {qc[0] * 1e3:.2f} .. {qc[2] * 1e3:.2f})")
    e, r = "eager", "xrng.reproducible"
    print(f"ratio reproducible / eager: wall {statistics.median(wall[r]) / statistics.median(wall[e]):.3f}, "
          f"cpu {statistics.median(cpu[r]) / statistics.median(cpu[e]):.3f}; {words} stream words drawn per step")


if __name__ == "__main__":
    main()
