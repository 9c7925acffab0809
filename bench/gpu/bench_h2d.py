"""The host-to-device path: generation on the host, the pinned copy, and
xrng's path="host_transfer" (the path of every non-CUDA torch device), which
overlaps the two.

    python3 bench/gpu/bench_h2d.py [--device cuda] [--log2n 26] [--reps 10]

Per draw (n elements): wall-clock milliseconds, median of `reps` after a
warm-up, each synchronised:
  host gen   xrng filling a pinned CPU tensor of n elements on all host
             threads (torch.get_num_threads()), nothing copied;
  copy       the pinned tensor copied to the device (non_blocking, then
             synchronize): the copy engine's time;
  transfer   xrng.<fill>_(device tensor, path="host_transfer"): generation
             and copy, chunked and double-buffered;
  bound      max(host gen, copy): what a perfect overlap would take;
  %bound     bound / transfer (the issue's target: >= 80 %);
  sum        host gen + copy: what no overlap would take.
Values are checked equal to the CPU path's.
"""
import argparse
import statistics
import sys
import time

import torch

import xrng


def median_ms(fn, sync, reps):
    fn()
    sync()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


DRAWS = [
    ("normal f32", torch.float32, lambda t, **k: xrng.normal_(t, **k)),
    ("uniform f32", torch.float32, lambda t, **k: xrng.uniform_(t, **k)),
    ("normal bf16", torch.bfloat16, lambda t, **k: xrng.normal_(t, **k)),
    ("bernoulli bool p=0.1", torch.bool, lambda t, **k: xrng.bernoulli_(t, 0.1, **k)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    dev = torch.device(a.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("SKIPPED: torch.cuda.is_available() is False")
        return 0
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    n = 1 << a.log2n
    pin = dev.type == "cuda"
    name = torch.cuda.get_device_name() if dev.type == "cuda" else dev.type
    print(f"device: {name}, host threads: {torch.get_num_threads()}, n = 2^{a.log2n}; wall ms, median of {a.reps}")
    print(f"\n{'draw':<22} {'host gen':>9} {'copy':>8} {'transfer':>9} {'bound':>8} {'%bound':>7} {'sum':>8}  check")
    ok = True
    for name, dtype, fill in DRAWS:
        host = torch.empty(n, dtype=dtype, pin_memory=pin)
        out = torch.empty(n, dtype=dtype, device=dev)
        gen = median_ms(lambda: fill(host, seed=3), sync, a.reps)
        copy = median_ms(lambda: out.copy_(host, non_blocking=True), sync, a.reps)
        total = median_ms(lambda: fill(out, seed=3, path="host_transfer"), sync, a.reps)
        same = torch.equal(out.cpu().view(torch.uint8) if dtype != torch.bool else out.cpu(),
                           host.view(torch.uint8) if dtype != torch.bool else host)
        ok = ok and same
        bound = max(gen, copy)
        print(f"{name:<22} {gen:>9.2f} {copy:>8.2f} {total:>9.2f} {bound:>8.2f} {100 * bound / total:>6.0f}% "
              f"{gen + copy:>8.2f}  {'equal to CPU' if same else 'DIFFERS FROM CPU'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
