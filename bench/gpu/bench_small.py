"""Per-call cost of small draws: xrng.randn against torch.randn, Python included.

    python3 bench/gpu/bench_small.py [--device cuda] [--calls 200] [--repeats 7]
                                     [--min-log2 10] [--max-log2 24]

For each size n (powers of 4 from 2**min-log2 to 2**max-log2: 1K, 4K, 16K, ...
16M) it times, on the same device and with a generator each (so no
seeding inside the loop):
  pipelined  `calls` back-to-back calls, then one synchronize: the cost of a
             call in a loop such as a diffusion sampler's (launch + Python);
  synced     each call followed by a synchronize: the latency of one draw.
Both are wall-clock per call (time.perf_counter), the median of `repeats`
repetitions, after a warm-up (module load, allocator, first launch). With
--device cpu it measures the same on CPU tensors (the Python and binding
overhead, with the host backend's work). The last column is xrng's
pipelined time over torch's. The target (issue 16) is <= 1.25 per call for
small tensors, CPU n=1 included:

    python3 bench/gpu/bench_small.py --device cpu --min-log2 0 --max-log2 10 \
        --calls 1000 --repeats 9

(wall time: run it on an idle machine; the ratio compares the two in one
run). A generator on the device (CUDA) is timed too.
"""
import argparse
import statistics
import sys
import time

import torch

import xrng


def per_call_us(fn, sync, calls, repeats, each):
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        if each:
            for _ in range(calls):
                fn()
                sync()
        else:
            for _ in range(calls):
                fn()
            sync()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-log2", type=int, default=10)
    ap.add_argument("--max-log2", type=int, default=24)
    a = ap.parse_args()
    dev = torch.device(a.device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            print("SKIPPED: torch.cuda.is_available() is False")
            return 0
        sync = torch.cuda.synchronize
        name = torch.cuda.get_device_name()
    else:
        sync = lambda: None  # noqa: E731
        name = f"{dev.type} ({torch.get_num_threads()} torch threads)"
    print(f"device: {name}, torch {torch.__version__}, xrng kernels: {xrng.has_cuda_kernels()}; "
          f"wall time per call (us), median of {a.repeats} x {a.calls} calls")
    tg = torch.Generator(device=dev)
    tg.manual_seed(1)
    xg = xrng.Generator(1)
    print(f"\n{'elements':>10} {'xrng pipe':>10} {'torch pipe':>10} {'xrng sync':>10} {'torch sync':>10} "
          f"{'ratio':>7}")
    rows = []
    for k in range(a.min_log2, a.max_log2 + 1, 2):
        n = 1 << k
        calls = max(5, min(a.calls, (a.calls << 14) // n))  # fewer calls for large n
        fx = lambda: xrng.randn(n, device=dev, generator=xg)  # noqa: E731
        ft = lambda: torch.randn(n, device=dev, generator=tg)  # noqa: E731
        xp = per_call_us(fx, sync, calls, a.repeats, False)
        tp = per_call_us(ft, sync, calls, a.repeats, False)
        xs = per_call_us(fx, sync, calls, a.repeats, True)
        ts = per_call_us(ft, sync, calls, a.repeats, True)
        rows.append((n, xp, tp, xs, ts))
        print(f"{n:>10} {xp:>10.2f} {tp:>10.2f} {xs:>10.2f} {ts:>10.2f} {xp / tp:>7.2f}")
    if dev.type == "cuda":
        device_generator(dev, sync, a)
    return 0


def device_generator(dev, sync, a):
    """A generator whose state is on the GPU (xrng.Generator(..., device=)): an
    eager draw is a take kernel and the draw kernel, no host step; and the
    same draws captured in a CUDA graph, replayed (per draw: the replay's
    time over the draws in it). Pipelined wall time per draw, as above."""
    print(f"\ndevice generator (state on the GPU), pipelined us per draw; graph: {8} draws per replay")
    print(f"{'elements':>10} {'host state':>10} {'dev state':>10} {'graph':>10}")
    for n in (1 << 10, 1 << 14, 1 << 20):
        hg, dg = xrng.Generator(1), xrng.Generator(1, device=dev)
        host = per_call_us(lambda: xrng.randn(n, device=dev, generator=hg), sync, a.calls, a.repeats, False)
        devs = per_call_us(lambda: xrng.randn(n, device=dev, generator=dg), sync, a.calls, a.repeats, False)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(8):
                xrng.randn(n, device=dev, generator=dg)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(8):
                xrng.randn(n, device=dev, generator=dg)
        calls = max(5, a.calls // 8)
        replay = per_call_us(graph.replay, sync, calls, a.repeats, False) / 8
        print(f"{n:>10} {host:>10.2f} {devs:>10.2f} {replay:>10.2f}")


if __name__ == "__main__":
    sys.exit(main())
