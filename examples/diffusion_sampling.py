#!/usr/bin/env python3
"""A DDPM-style sampling loop whose noise comes from xrng at every step.

The denoiser is a stand-in (an elementwise linear "model"), chosen so that the
loop's own arithmetic is the same on every device; all randomness (the initial
latents and the noise added at each step) comes from
xrng.diffusers.randn_tensor. The script prints the SHA-256 fingerprint of the
final latents for every path available here: CPU, CUDA (the CUDA kernels) and
CUDA through host-then-transfer, plus any extra devices named with --devices.
They are identical; the exit status is 1 if they are not.

    python examples/diffusion_sampling.py [--steps 50] [--seed 1234] [--devices cpu,cuda]
"""
import argparse
import hashlib
import sys

import torch

import xrng
from xrng.diffusers import randn_tensor


def schedule(steps):
    """Linear beta schedule, computed in Python floats (the same everywhere)."""
    betas = [1e-4 + (0.02 - 1e-4) * i / max(steps - 1, 1) for i in range(steps)]
    alphas, bars, prod = [], [], 1.0
    for b in betas:
        prod *= 1.0 - b
        alphas.append(1.0 - b)
        bars.append(prod)
    return betas, alphas, bars


def denoiser(x, t, steps):
    """Stand-in for a trained eps-prediction network."""
    return x * (0.5 + 0.5 * t / steps)


def sample(device="cpu", path="auto", steps=50, seed=1234, shape=(2, 4, 32, 32), dtype=torch.float32):
    g = xrng.Generator(seed)
    betas, alphas, bars = schedule(steps)
    x = randn_tensor(shape, generator=g, device=device, dtype=dtype) if path == "auto" else \
        xrng.randn(shape, generator=g, device=device, dtype=dtype, path=path)
    for t in reversed(range(steps)):
        eps = denoiser(x, t, steps)
        x = (x - eps * (betas[t] / (1.0 - bars[t]) ** 0.5)) * (1.0 / alphas[t] ** 0.5)
        if t > 0:
            sigma = (betas[t] * (1.0 - bars[t - 1]) / (1.0 - bars[t])) ** 0.5
            noise = randn_tensor(shape, generator=g, device=device, dtype=dtype) if path == "auto" else \
                xrng.randn(shape, generator=g, device=device, dtype=dtype, path=path)
            x = x + noise * sigma
    return x


def fingerprint(t):
    return hashlib.sha256(t.detach().cpu().contiguous().numpy().tobytes()).hexdigest()


def available_paths(extra=()):
    paths = [("cpu", "auto")]
    if torch.cuda.is_available():
        paths += [("cuda", "auto"), ("cuda", "host_transfer")]
    paths += [(d, "auto") for d in extra]
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--devices", default="", help="extra devices, comma separated (e.g. a privateuse1 device)")
    args = ap.parse_args(argv)
    extra = [d for d in args.devices.split(",") if d and d != "cpu" and not d.startswith("cuda")]
    results = {}
    for device, path in available_paths(extra):
        fp = fingerprint(sample(device, path, args.steps, args.seed))
        label = f"{device}" + ("" if path == "auto" else f" ({path})")
        results[label] = fp
        print(f"{label:24s} {fp}")
    same = len(set(results.values())) == 1
    print("identical" if same else "DIFFERENT")
    if not torch.cuda.is_available():
        print("(no CUDA device here: CPU path only)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
