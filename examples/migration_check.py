#!/usr/bin/env python3
"""Migration check: record the fingerprint of every RNG draw of a run, replay
it elsewhere, and report the first draw that differs.

    # on the old machine / device
    python examples/migration_check.py record --out draws.jsonl --device cpu
    # on the new one
    python examples/migration_check.py replay --log draws.jsonl --device cuda [--path host_transfer]

The "run" is a short training-like loop that draws everything a real one
draws: a shuffle per epoch, dropout masks, noise, random crops (randint) and
augmentation flips (bernoulli), from one xrng Generator plus per-epoch keys.
Each line of the log is one draw: its number, its name, its shape/dtype and the
SHA-256 of its bytes. Replay exits with status 1 at the first difference.
"""
import argparse
import hashlib
import json
import sys

import torch

import xrng


def draws(device="cpu", path="auto", seed=31337, steps=4, epochs=2):
    """Yields (name, tensor) for every random draw of the run, in order."""
    g = xrng.Generator(seed)
    x = torch.ones(8, 64)
    for epoch in range(epochs):
        yield f"epoch{epoch}/shuffle", xrng.randperm(512, generator=g.fold_in(epoch), device=device, path=path)
        for step in range(steps):
            tag = f"epoch{epoch}/step{step}"
            yield f"{tag}/crop", xrng.randint(0, 32, (8, 2), generator=g, device=device, path=path)
            yield f"{tag}/flip", xrng.bernoulli(8, p=0.5, generator=g, device=device, path=path)
            yield f"{tag}/noise", xrng.randn(8, 64, generator=g, device=device, path=path, std=0.1)
            yield f"{tag}/noise_bf16", xrng.randn(8, 64, dtype=torch.bfloat16, generator=g, device=device, path=path)
            yield f"{tag}/dropout", xrng.dropout(x.to(device), 0.1, generator=g, path=path)
            yield f"{tag}/init", xrng.rand(64, low=-0.125, high=0.125, dtype=torch.float64, generator=g,
                                           device=device, path=path)


def record_of(i, name, t):
    data = t.detach().cpu().contiguous()
    raw = (data.view(torch.int16) if data.dtype in (torch.float16, torch.bfloat16) else data).numpy().tobytes()
    return {"draw": i, "name": name, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "sha256": hashlib.sha256(raw).hexdigest()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--out", required=True)
    rep = sub.add_parser("replay")
    rep.add_argument("--log", required=True)
    for p in (rec, rep):
        p.add_argument("--device", default="cpu")
        p.add_argument("--path", default="auto", choices=["auto", "host_transfer"])
        p.add_argument("--seed", type=int, default=31337)
    args = ap.parse_args(argv)

    run = (record_of(i, name, t) for i, (name, t) in enumerate(draws(args.device, args.path, args.seed)))
    if args.cmd == "record":
        n = 0
        with open(args.out, "w") as f:
            for r in run:
                f.write(json.dumps(r) + "\n")
                n += 1
        print(f"recorded {n} draws on {args.device} ({args.path}) to {args.out}")
        return 0
    with open(args.log) as f:
        expected = [json.loads(line) for line in f if line.strip()]
    n = 0
    for want, got in zip(expected, run):
        n += 1
        if want != got:
            print(f"first difference at draw {want['draw']} ({want['name']}): "
                  f"expected {want['dtype']}{want['shape']} {want['sha256'][:16]}, "
                  f"got {got['dtype']}{got['shape']} {got['sha256'][:16]} on {args.device} ({args.path})")
            return 1
    if n != len(expected):
        print(f"the log has {len(expected)} draws, this run made {n}")
        return 1
    print(f"all {n} draws identical on {args.device} ({args.path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
