"""torch's CUDA generators, timed like bench_gpu (same units), for comparison.

    python3 bench/gpu/bench_torch.py [--log2n 28] [--reps 20] [--warmup 3]

Median of `reps` timed calls (CUDA events) after `warmup` untimed ones, each
filling a preallocated tensor of n elements in place (randperm allocates its
output, as torch offers no out= path that avoids it). GB/s counts bytes written.
"""
import argparse
import statistics
import sys

import torch


def time_ms(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIPPED: torch.cuda.is_available() is False")
        return 0
    n = 1 << a.log2n
    dev = torch.device("cuda")
    g = torch.Generator(device=dev)
    g.manual_seed(1234)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}; n = 2^{a.log2n}; "
          f"median of {a.reps} runs after {a.warmup} warm-up")
    f32 = torch.empty(n, dtype=torch.float32, device=dev)
    f16 = torch.empty(n, dtype=torch.float16, device=dev)
    bf16 = torch.empty(n, dtype=torch.bfloat16, device=dev)
    u8 = torch.empty(n, dtype=torch.uint8, device=dev)
    rows = [
        ("torch rand_ f32", lambda: f32.uniform_(generator=g), 4),
        ("torch normal_ f32", lambda: f32.normal_(generator=g), 4),
        ("torch normal_ f16", lambda: f16.normal_(generator=g), 2),
        ("torch normal_ bf16", lambda: bf16.normal_(generator=g), 2),
        ("torch bernoulli_ u8 p=0.1", lambda: u8.bernoulli_(0.1, generator=g), 1),
        ("torch randperm i64", lambda: torch.randperm(n, device=dev, generator=g), 8),
    ]
    print(f"\n{'benchmark':<26} {'elements':>12} {'MB':>10} {'ms(med)':>10} {'Gelem/s':>9} {'GB/s':>8}")
    for name, fn, size in rows:
        ms = time_ms(fn, a.reps, a.warmup)
        mb = n * size / 1e6
        print(f"{name:<26} {n:>12} {mb:>10.1f} {ms:>10.4f} {n / (ms * 1e6):>9.2f} {mb / 1e3 / (ms / 1e3):>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
