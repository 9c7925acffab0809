"""xrng._C.torch_cpu_poisson / torch_cpu_binomial against the installed torch,
bit for bit: the values and the generator state afterwards.

Each test draws a sequence of calls on one torch CPU generator state (from
torch.Generator().manual_seed(seed).get_state()) and the same calls with
torch.poisson / torch.binomial on an identically seeded generator; after
every call the two outputs must have the same bits and the two states the
same bytes (so the number of words each element consumed is checked too).
torch's Distributions.cpp has no per-capability kernels; the subprocess
tests run torch under ATEN_CPU_CAPABILITY=avx2 and =default all the same.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest
import torch

import xrng  # noqa: F401  (loads torch's libraries before xrng._C)
from xrng import _C

SIZES = (1, 2, 16, 17, 1000)
RATES = (0.0, 1e-3, 0.5, 9.999, 10.0, 10.5, 100.0, 1e6, 2.0 ** 31)
COUNTS = (0.0, 1.0, 5.0, 100.0, 1e4, 1e9)
PROBS = (0.0, 1e-6, 0.01, 0.3, 0.5, 0.7, 1.0)
INT_VIEW = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16,
            torch.bfloat16: torch.int16}


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(INT_VIEW[a.dtype]), b.view(INT_VIEW[b.dtype]))


class Pair:
    """xrng's state and torch's generator, seeded alike."""

    def __init__(self, seed: int):
        self.state = torch.Generator().manual_seed(seed).get_state()
        self.g = torch.Generator().manual_seed(seed)

    def poisson(self, rate: torch.Tensor, what: str = ""):
        got = _C.torch_cpu_poisson(self.state, rate)
        want = torch.poisson(rate, generator=self.g)
        assert _same_bits(got, want), (what, rate, got, want)
        assert torch.equal(self.state, self.g.get_state()), what

    def binomial(self, count: torch.Tensor, prob: torch.Tensor, what: str = ""):
        got = _C.torch_cpu_binomial(self.state, count, prob)
        want = torch.binomial(count, prob, generator=self.g)
        assert _same_bits(got, want), (what, count, prob, got, want)
        assert torch.equal(self.state, self.g.get_state()), what


def _random_rates(gen: torch.Generator, n: int, dtype) -> torch.Tensor:
    # a mix over [0, 1e7]: log-uniform magnitudes, exact zeros, rates around 10
    mag = torch.pow(10.0, torch.empty(n, dtype=torch.float64).uniform_(-4, 7, generator=gen))
    pick = torch.randint(0, 8, (n,), generator=gen)
    mag[pick == 0] = 0.0
    near10 = 10.0 + torch.empty(n, dtype=torch.float64).uniform_(-0.01, 0.01, generator=gen)
    mag = torch.where(pick == 1, near10, mag)
    return mag.to(dtype)


def _random_binomial(gen: torch.Generator, n: int, dtype):
    count = torch.floor(torch.pow(10.0, torch.empty(n, dtype=torch.float64).uniform_(0, 9, generator=gen)))
    prob = torch.empty(n, dtype=torch.float64).uniform_(0, 1, generator=gen)
    pick = torch.randint(0, 10, (n,), generator=gen)
    prob[pick == 0] = 0.0
    prob[pick == 1] = 1.0
    prob = torch.where(pick == 2, torch.pow(10.0, -torch.empty(n, dtype=torch.float64).uniform_(1, 8, generator=gen)), prob)
    prob = torch.where(pick == 3, 1 - torch.pow(10.0, -torch.empty(n, dtype=torch.float64).uniform_(1, 8, generator=gen)), prob)
    return count.to(dtype), prob.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_poisson_equals_torch(dtype):
    gen = torch.Generator().manual_seed(2024)
    for seed in (0, 1, 7, 12345, 2 ** 32 - 1, 67280421310721):
        p = Pair(seed)
        for size in SIZES:
            for rate in RATES:
                p.poisson(torch.full((size,), rate, dtype=torch.float64).to(dtype), f"seed {seed} size {size} rate {rate}")
            p.poisson(_random_rates(gen, size, dtype), f"seed {seed} size {size} random")
        # a 2-d contiguous rate tensor keeps its shape
        p.poisson(_random_rates(gen, 60, dtype).reshape(6, 10), f"seed {seed} 2-d")


def test_poisson_past_int64():
    """Rates whose draws pass 2^63: torch's x86-64 build returns INT64_MIN
    (cast to the dtype); so does xrng."""
    for dtype in (torch.float32, torch.float64):
        p = Pair(3)
        p.poisson(torch.tensor([3.0, 1e19, 1e30, float("inf"), 2.0 ** 62, 12.0], dtype=dtype), str(dtype))
        p.poisson(torch.tensor([1e300, float("inf")], dtype=torch.float64), "float64 huge")
    p = Pair(4)
    p.poisson(torch.tensor([65504.0, float("inf"), 3.0], dtype=torch.float16), "half")
    p.poisson(torch.tensor([3e38, 1e10, 3.0], dtype=torch.bfloat16), "bfloat16")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_binomial_equals_torch(dtype):
    gen = torch.Generator().manual_seed(99)
    for seed in (0, 1, 7, 12345, 2 ** 32 - 1):
        p = Pair(seed)
        for size in SIZES:
            for count in COUNTS:
                for prob in PROBS:
                    p.binomial(torch.full((size,), count, dtype=dtype), torch.full((size,), prob, dtype=dtype),
                               f"seed {seed} size {size} count {count} prob {prob}")
            c, q = _random_binomial(gen, size, dtype)
            p.binomial(c, q, f"seed {seed} size {size} random")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_binomial_edges_equal_torch(dtype):
    """Non-integer, negative and infinite counts, probabilities outside [0, 1]
    and NaN, the BTRS / inversion boundary count * p = 10 (both sides of
    p = 1/2), tiny p with huge counts: torch checks none of these values."""
    nan, inf = float("nan"), float("inf")
    p = Pair(11)
    count = torch.tensor([5.5, -3.0, 7.0, 7.0, inf, inf, 20.0, 20.0, 20.0, 20.0, 1e9, 1e15, 3.0, 2.0 ** 24 + 2, 1e30],
                         dtype=dtype)
    prob = torch.tensor([0.5, 0.5, 1.5, -0.2, 0.5, 0.3, 0.5, 0.49999, 0.50001, 0.5, 1e-8, 1e-14, nan, 0.5, 0.25],
                        dtype=dtype)
    for _ in range(50):
        p.binomial(count, prob, "edges")
    for n in (19.0, 20.0, 21.0, 100.0):
        q = torch.tensor([10.0 / n, 1 - 10.0 / n], dtype=dtype)
        p.binomial(torch.full((2,), n, dtype=dtype), q, f"boundary n {n}")
    p.binomial(torch.full((3, 4), 50.0, dtype=dtype), torch.full((3, 4), 0.25, dtype=dtype), "2-d")


def test_errors_before_drawing():
    state = torch.Generator().manual_seed(5).get_state()
    before = state.clone()
    with pytest.raises(ValueError, match="invalid Poisson rate"):
        _C.torch_cpu_poisson(state, torch.tensor([3.0, 20.0, -1.0]))
    with pytest.raises(ValueError, match="invalid Poisson rate"):
        _C.torch_cpu_poisson(state, torch.tensor([3.0, float("nan")], dtype=torch.float64))
    with pytest.raises(ValueError, match="not implemented for 'Long'"):
        _C.torch_cpu_poisson(state, torch.tensor([3]))
    with pytest.raises(ValueError, match="contiguous CPU"):
        _C.torch_cpu_poisson(state, torch.ones(4, 3).t())
    with pytest.raises(ValueError, match="never returns"):
        _C.torch_cpu_binomial(state, torch.tensor([5.0, float("nan")]), torch.tensor([0.5, 0.5]))
    with pytest.raises(ValueError, match="for count, got: Long"):
        _C.torch_cpu_binomial(state, torch.tensor([5]), torch.tensor([0.5]))
    with pytest.raises(ValueError, match="for prob, got: Bool"):
        _C.torch_cpu_binomial(state, torch.tensor([5.0]), torch.tensor([True]))
    with pytest.raises(ValueError, match="Found dtype Double but expected Float"):
        _C.torch_cpu_binomial(state, torch.tensor([5.0]), torch.tensor([0.5], dtype=torch.float64))
    with pytest.raises(ValueError, match="not implemented for 'Half'"):
        _C.torch_cpu_binomial(state, torch.tensor([5.0], dtype=torch.half), torch.tensor([0.5], dtype=torch.half))
    with pytest.raises(ValueError, match="one shape"):
        _C.torch_cpu_binomial(state, torch.tensor([5.0, 6.0]), torch.tensor([0.5]))
    with pytest.raises(ValueError, match="5056 bytes"):
        _C.torch_cpu_poisson(state[:100], torch.tensor([1.0]))
    assert torch.equal(state, before)
    # torch refuses the same arguments (it draws the elements before a bad rate first)
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        torch.poisson(torch.tensor([3.0, 20.0, -1.0]))
    with pytest.raises(NotImplementedError):
        torch.binomial(torch.tensor([5.0], dtype=torch.half), torch.tensor([0.5], dtype=torch.half))
    # NaN count with prob outside (0, 1) draws nothing and equals torch
    p = Pair(6)
    p.binomial(torch.tensor([float("nan")] * 3), torch.tensor([0.0, 1.0, float("nan")]), "nan count")


TORCH_SIDE = r"""
import sys, torch
def program(seed):
    g = torch.Generator().manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1000)
    out = []
    rates = torch.pow(10.0, torch.empty(300, dtype=torch.float64).uniform_(-3, 6, generator=gen))
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        out.append(torch.poisson(rates.to(dt), generator=g))
    count = torch.floor(torch.pow(10.0, torch.empty(300, dtype=torch.float64).uniform_(0, 7, generator=gen)))
    prob = torch.empty(300, dtype=torch.float64).uniform_(0, 1, generator=gen)
    for dt in (torch.float32, torch.float64):
        out.append(torch.binomial(count.to(dt), prob.to(dt), generator=g))
    return out, g.get_state()
res = [program(s) for s in (0, 1, 2)]
torch.save((res, torch.backends.cpu.get_cpu_capability()), sys.argv[1])
"""


def _cpu_has(flag: str) -> bool:
    try:
        return flag in pathlib.Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_equals_torch_at_capability(capability):
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA")
    with tempfile.TemporaryDirectory() as d:
        path = str(pathlib.Path(d) / "p.pt")
        r = subprocess.run([sys.executable, "-c", TORCH_SIDE, path], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY=capability))
        assert r.returncode == 0, r.stderr
        res, cap = torch.load(path)
    assert cap == capability.upper()
    for seed, (want, want_state) in zip((0, 1, 2), res):
        state = torch.Generator().manual_seed(seed).get_state()
        gen = torch.Generator().manual_seed(seed + 1000)
        rates = torch.pow(10.0, torch.empty(300, dtype=torch.float64).uniform_(-3, 6, generator=gen))
        got = [_C.torch_cpu_poisson(state, rates.to(dt))
               for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16)]
        count = torch.floor(torch.pow(10.0, torch.empty(300, dtype=torch.float64).uniform_(0, 7, generator=gen)))
        prob = torch.empty(300, dtype=torch.float64).uniform_(0, 1, generator=gen)
        got += [_C.torch_cpu_binomial(state, count.to(dt), prob.to(dt)) for dt in (torch.float32, torch.float64)]
        for a, b in zip(got, want):
            assert _same_bits(a, b), (seed, a, b)
        assert torch.equal(state, want_state)
