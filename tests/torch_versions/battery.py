"""One battery of torch CPU draws, the same code for every torch from 1.13 on.

`run()` draws each case after `torch.manual_seed(seed)` and returns
[(name, values, state)]: the values as a Python list (floating types through
float64, exact), or "error: <type>" where that torch refuses the call, and
the 5056 bytes of `torch.get_rng_state()` after the draw. The inputs that are
not random (probabilities, rates, means) are made by exact arithmetic, so they
do not depend on the CPU capability torch runs (`torch.linspace` would: its
vectorised and scalar kernels round differently).

record.py fingerprints it for one torch; tests/python/test_torch_versions.py
draws it under xrng.reproducible(stream="torch-cpu-x86@R" | "torch-cpu-scalar@R")
and compares with each recorded torch release R.
"""
import torch


def cases():
    """[(name, seed, draw)]: 780 draws (156 kinds x 5 seeds), every kind the torch-cpu streams reproduce."""
    out = []
    F = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}
    sizes = [1, 7, 15, 16, 17, 31, 100, 1000, 4099]
    for s in [0, 1, 42, 2**32 + 5, 123456789]:
        for dn, dt in F.items():
            for n in sizes:
                out.append((f"s{s} randn {dn} {n}", s, lambda n=n, dt=dt: torch.randn(n, dtype=dt)))
                out.append((f"s{s} rand {dn} {n}", s, lambda n=n, dt=dt: torch.rand(n, dtype=dt)))
            out.append((f"s{s} normal_ noncontig {dn}", s, lambda dt=dt: torch.zeros(20, 40, dtype=dt)[:, ::2].normal_(1.5, 2.0)))
            out.append((f"s{s} randn twice {dn}", s, lambda dt=dt: torch.cat([torch.randn(3, dtype=dt), torch.randn(5, dtype=dt), torch.randn(33, dtype=dt)])))
            out.append((f"s{s} uniform_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).uniform_(-2, 3)))
            # bounds where float16/bfloat16 values round up to `to`; a contiguous normal_ with a mean and std
            out.append((f"s{s} uniform_ 256 258 {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).uniform_(256, 258)))
            out.append((f"s{s} normal_ contig {dn}", s, lambda dt=dt: torch.empty(100, dtype=dt).normal_(1.5, 2.0)))
            out.append((f"s{s} exponential_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).exponential_(1.5)))
            out.append((f"s{s} cauchy_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).cauchy_()))
            out.append((f"s{s} log_normal_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).log_normal_()))
            out.append((f"s{s} geometric_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).geometric_(0.3)))
            out.append((f"s{s} bernoulli_ {dn}", s, lambda dt=dt: torch.empty(257, dtype=dt).bernoulli_(0.3)))
            out.append((f"s{s} bernoulli p {dn}", s, lambda dt=dt: torch.bernoulli((torch.arange(257, dtype=torch.float64) / 256).to(dt))))
            out.append((f"s{s} dropout {dn}", s, lambda dt=dt: torch.nn.functional.dropout(torch.ones(1000, dtype=dt), 0.4)))
            # parameters whose multiply-add rounds differently fused (AArch64 builds fuse where x86's default
            # build does not), and dropout of a transposed input (the noise's layout: 1.13 to 2.4 made it contiguous)
            out.append((f"s{s} normal_ 0.7 0.3 {dn}", s, lambda dt=dt: torch.empty(1000, dtype=dt).normal_(0.7, 0.3)))
            out.append((f"s{s} cauchy_ 0.5 2.3 {dn}", s, lambda dt=dt: torch.empty(1000, dtype=dt).cauchy_(0.5, 2.3)))
            out.append((f"s{s} log_normal_ 0.3 0.7 {dn}", s, lambda dt=dt: torch.empty(1000, dtype=dt).log_normal_(0.3, 0.7)))
            out.append((f"s{s} dropout T {dn}", s, lambda dt=dt: torch.nn.functional.dropout(
                torch.arange(1, 1201, dtype=dt).reshape(30, 40).t(), 0.3)))
        for lo, hi in [(0, 10), (-2**40, 2**40), (0, 2**33), (-5, 2**31)]:
            out.append((f"s{s} randint {lo} {hi}", s, lambda lo=lo, hi=hi: torch.randint(lo, hi, (300,))))
        out.append((f"s{s} randint i32", s, lambda: torch.randint(0, 1000, (300,), dtype=torch.int32)))
        out.append((f"s{s} random_ i64", s, lambda: torch.empty(100, dtype=torch.int64).random_()))
        out.append((f"s{s} random_ f32", s, lambda: torch.empty(100, dtype=torch.float32).random_()))
        for n in [1, 5, 100, 1000, 30000]:
            out.append((f"s{s} randperm {n}", s, lambda n=n: torch.randperm(n)))
        out.append((f"s{s} multinomial repl", s, lambda: torch.multinomial(torch.arange(1., 11.), 50, True)))
        out.append((f"s{s} multinomial norepl", s, lambda: torch.multinomial(torch.arange(1., 11.), 7)))
        out.append((f"s{s} multinomial 2d", s, lambda: torch.multinomial(torch.rand(4, 30) + 0.1, 5)))
        out.append((f"s{s} normal tensor mean", s, lambda: torch.normal(torch.arange(20.), 2.0)))
        out.append((f"s{s} poisson", s, lambda: torch.poisson(torch.arange(50, dtype=torch.float32) * 0.75 + 0.5)))
        out.append((f"s{s} gamma", s, lambda: torch._standard_gamma(torch.arange(50, dtype=torch.float32) * 0.125 + 0.25)))
        # the shapes of diffusion "CPU noise": a latent of Stable Diffusion 1.x (float32) and an SDXL batch (float16)
        out.append((f"s{s} randn latent f32", s, lambda: torch.randn(1, 4, 64, 64)))
        out.append((f"s{s} randn latent f16", s, lambda: torch.randn(2, 4, 128, 128, dtype=torch.float16)))
    return out


def run():
    """[(name, values, state)] of every case, each after torch.manual_seed(its seed)."""
    res = []
    for name, s, f in cases():
        torch.manual_seed(s)
        try:
            t = f()
            vals = t.to(torch.float64).tolist() if t.is_floating_point() else t.tolist()
        except Exception as e:
            vals = "error: " + type(e).__name__
        st = bytes(torch.get_rng_state().tolist())
        res.append((name, vals, st))
    return res
