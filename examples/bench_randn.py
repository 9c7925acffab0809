#!/usr/bin/env python3
"""xrng.randn vs torch.randn, float32, on the CPU and (when present) CUDA, in one run.

Prints the median time of each and the ratio torch / xrng (above 1: xrng is
faster). CPU timings use torch.get_num_threads() threads for both libraries.

    python examples/bench_randn.py [--sizes 1048576,16777216] [--repeat 7]
"""
import argparse
import statistics
import time

import torch

import xrng


def timed(fn, repeat, sync=None):
    fn()  # warm up (allocator, kernels)
    if sync:
        sync()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1048576,16777216")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"torch {torch.__version__}, xrng simd={xrng.simd_isa()}, cpu threads={torch.get_num_threads()}, "
          f"cuda={'yes: ' + torch.cuda.get_device_name() if torch.cuda.is_available() else 'no'}, "
          f"xrng cuda kernels={xrng.has_cuda_kernels()}")
    print(f"{'device':22s} {'n':>10s} {'torch ms':>10s} {'xrng ms':>10s} {'torch/xrng':>10s}")
    rows = [("cpu", "auto", None)]
    if torch.cuda.is_available():
        rows += [("cuda", "auto", torch.cuda.synchronize), ("cuda", "host_transfer", torch.cuda.synchronize)]
    for device, path, sync in rows:
        for n in sizes:
            g = torch.Generator(device=device).manual_seed(0)
            xg = xrng.Generator(0)
            t_torch = timed(lambda: torch.randn(n, device=device, generator=g), args.repeat, sync)
            t_xrng = timed(lambda: xrng.randn(n, device=device, generator=xg, path=path), args.repeat, sync)
            label = device + ("" if path == "auto" else f" ({path})")
            print(f"{label:22s} {n:10d} {t_torch * 1e3:10.3f} {t_xrng * 1e3:10.3f} {t_torch / t_xrng:10.2f}")


if __name__ == "__main__":
    main()
