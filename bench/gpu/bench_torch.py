"""torch's CUDA generators, timed like bench_gpu (same units), for comparison.

    python3 bench/gpu/bench_torch.py [--log2n 28] [--reps 20] [--warmup 3]

Median of `reps` timed calls (CUDA events) after `warmup` untimed ones, each
filling a preallocated tensor of n elements in place, the calls alternating
between two tensors (randperm allocates its output, as torch offers no out=
path that avoids it; dropout allocates its output too). GB/s counts bytes
written (dropout: read + written). The rows follow the issue's table; the
summary (bench/gpu/summary.py) sets them beside bench_gpu's.
"""
import argparse
import statistics
import sys

import torch


def time_ms(fn, reps, warmup):
    """fn(i) for call i: median ms of the timed calls."""
    for i in range(warmup):
        fn(i)
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn(i)
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
    def two(dtype):
        return [torch.empty(n, dtype=dtype, device=dev) for _ in range(2)]

    f32, f16, bf16, u8, i64, i32 = (two(t) for t in (torch.float32, torch.float16, torch.bfloat16, torch.uint8,
                                                      torch.int64, torch.int32))
    x = torch.randn(n, device=dev, generator=g)
    drop = torch.nn.functional.dropout
    rows = [
        ("torch rand_ f32", lambda i: f32[i % 2].uniform_(generator=g), 4),
        ("torch normal_ f32", lambda i: f32[i % 2].normal_(generator=g), 4),
        ("torch normal_ f16", lambda i: f16[i % 2].normal_(generator=g), 2),
        ("torch normal_ bf16", lambda i: bf16[i % 2].normal_(generator=g), 2),
        ("torch bernoulli_ u8 p=0.1", lambda i: u8[i % 2].bernoulli_(0.1, generator=g), 1),
        ("torch dropout f32 p=0.5", lambda i: drop(x, 0.5, training=True), 8),
        ("torch random_ i32 [0,1000)", lambda i: i32[i % 2].random_(0, 1000, generator=g), 4),
        ("torch random_ i64 [0,1000)", lambda i: i64[i % 2].random_(0, 1000, generator=g), 8),
        ("torch randperm i64", lambda i: torch.randperm(n, device=dev, generator=g), 8),
    ]
    print(f"\n{'benchmark':<28} {'elements':>12} {'MB':>10} {'ms(med)':>10} {'Gelem/s':>9} {'GB/s':>8}")
    for name, fn, size in rows:
        ms = time_ms(fn, a.reps, a.warmup)
        mb = n * size / 1e6
        print(f"{name:<28} {n:>12} {mb:>10.1f} {ms:>10.4f} {n / (ms * 1e6):>9.2f} {mb / 1e3 / (ms / 1e3):>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
