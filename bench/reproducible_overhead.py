"""Cost of xrng.reproducible on a training step of a small transformer (CPU).

Runs the same training step with and without the mode, alternating blocks of
steps so that both see the same machine load, and prints the median step time
of each, their ratio, and how many calls the mode intercepted per step.

    python3 bench/reproducible_overhead.py [--threads 1] [--rounds 15] [--steps 10]
"""
import argparse
import contextlib
import statistics
import time

import torch

import xrng


def build(seed: int = 0):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(128, 4, 256, dropout=0.1, batch_first=True)
    model = torch.nn.Sequential(torch.nn.Embedding(1000, 128), torch.nn.Dropout(0.1),
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
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    step = build()
    mode = xrng.reproducible(seed=0)
    conds = {"eager": contextlib.nullcontext, "xrng.reproducible": lambda: mode}
    times = {k: [] for k in conds}
    for k, ctx in conds.items():  # warm-up
        with ctx():
            for _ in range(3):
                step()
    for _ in range(a.rounds):
        for k, ctx in conds.items():
            with ctx():
                for _ in range(a.steps):
                    t = time.perf_counter()
                    step()
                    times[k].append(time.perf_counter() - t)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    q = {k: statistics.quantiles(v, n=4) for k, v in times.items()}
    print(f"torch {torch.__version__}, {a.threads} thread(s), {a.rounds} rounds x {a.steps} steps per condition")
    for k in conds:
        print(f"{k:18s} median {med[k]:8.2f} ms/step  (quartiles {q[k][0] * 1e3:.2f} .. {q[k][2] * 1e3:.2f})")
    print(f"ratio reproducible / eager: {med['xrng.reproducible'] / med['eager']:.3f}")


if __name__ == "__main__":
    main()
