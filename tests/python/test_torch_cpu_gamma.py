"""torch._standard_gamma and torch._sample_dirichlet on the torch CPU stream
(xrng._C.torch_cpu_standard_gamma / torch_cpu_dirichlet) against the
installed torch, bit for bit: the values and the generator's state after.

torch's gamma (ATen/native/Distributions.cpp) is no per-capability kernel.
Dirichlet's row sums are torch's CPU sum kernel (SumKernel.cpp cascade_sum,
4-double vectors in its AVX2 and default builds; its AVX-512 build registers
no sum kernel and runs AVX2's): the last tests run torch under
ATEN_CPU_CAPABILITY=avx2, =default and =avx512.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest
import torch

import xrng

_C = xrng._C

SEEDS = [0, 1, 2024, 2 ** 40 + 3]
SIZES = [1, 2, 15, 16, 17, 1000]
ALPHAS = [1e-30, 0.01, 0.1, 0.5, 0.999, 1.0, 1.5, 10.0, 1e6, 1e30, "mixed"]
DTYPES = [torch.float32, torch.float64]


def _alpha(a, n, dtype, seed):
    if a == "mixed":  # log-uniform over 1e-8 .. 1e4, a few exact edges among them
        g = torch.Generator().manual_seed(1000 + seed)
        t = torch.exp(torch.empty(n, dtype=torch.float64).uniform_(-18.4, 9.3, generator=g))
        if n >= 4:
            t[:: max(1, n // 4)] = 1.0
        return t.to(dtype)
    return torch.full((n,), a, dtype=dtype)


def _bits(t):
    return t.contiguous().view(torch.int32 if t.dtype == torch.float32 else torch.int64)


def _same(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape
    assert torch.equal(_bits(x), _bits(y)), (x, y)


def _xrng_and_torch(fn_x, fn_t, alpha, seed, state=None):
    g = torch.Generator().manual_seed(seed)
    if state is not None:
        g.set_state(state)
    st = g.get_state()
    got = fn_x(st, alpha)
    want = fn_t(alpha, generator=g)
    _same(got, want)
    assert torch.equal(st, g.get_state()), "generator state after the draw differs"
    return got


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("a", ALPHAS, ids=str)
def test_standard_gamma_matches_torch(dtype, a):
    for seed in SEEDS:
        for n in SIZES:
            _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, _alpha(a, n, dtype, seed), seed)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_standard_gamma_edges_and_shapes(dtype):
    inf, nan = float("inf"), float("nan")
    edge = torch.tensor([0.0, 1e-45 if dtype == torch.float32 else 5e-324, 1e-38, 1e-300 if dtype == torch.float64 else 1e-37,
                         0.9999999, 1.0 - 2 ** -24, 1.0 + 2 ** -23, 1 / 3, 2 ** -20, inf, nan, -1.0, -0.5], dtype=dtype)
    for seed in SEEDS:
        _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, edge, seed)
        _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, torch.full((3, 4, 5), 0.7, dtype=dtype), seed)
        _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, torch.tensor(2.5, dtype=dtype), seed)
        _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, torch.empty(0, 3, dtype=dtype), seed)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_standard_gamma_uses_cached_normal(dtype):
    for seed in SEEDS:
        g = torch.Generator().manual_seed(seed)
        torch.randn(1, dtype=torch.float64, generator=g)  # leaves its second normal cached
        st = g.get_state()
        assert int.from_bytes(bytes(st[5040:5044].tolist()), "little") == 1  # has_next_double_normal
        for a in (0.3, 4.0):
            _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, torch.full((17,), a, dtype=dtype), seed,
                            state=st)
        # a sequence of calls on one state: the cache carried across calls both ways
        g1 = torch.Generator().set_state(st)
        s2 = st.clone()
        for a in (0.3, 4.0, 0.01, 123.0):
            alpha = torch.full((3,), a, dtype=dtype)
            _same(_C.torch_cpu_standard_gamma(s2, alpha), torch._standard_gamma(alpha, generator=g1))
            assert torch.equal(s2, g1.get_state())


def _dirichlet_alpha(a, rows, k, dtype, seed):
    return _alpha(a, rows * k, dtype, seed).reshape(rows, k)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("k", [1, 2])
def test_dirichlet_matches_torch(dtype, k):
    for seed in SEEDS:
        for rows in SIZES:
            for a in ALPHAS:
                _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet,
                                _dirichlet_alpha(a, rows, k, dtype, seed), seed)
        for shape in [(), (2,), (1,), (3, 4, 2), (5, 1), (0, 2), (0, 7)]:
            alpha = torch.full(shape, 0.4, dtype=dtype)
            _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet, alpha, seed)
        # Beta(a, b) with unequal parameters, tiny ones included (gamma in double: no underflow)
        alpha = torch.tensor([[1e-30, 1e-30], [1e-3, 5.0], [2.0, 1e6], [0.5, 0.5], [1e30, 1.0]], dtype=dtype)
        _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet, alpha, seed)


DIRICHLET_KS = list(range(3, 41)) + [63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4099]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_dirichlet_rows_of_3_and_more_match_torch(dtype):
    # the row sums in torch's cascade order (k < 4: in order; k >= 4: four
    # lanes of vectors, the left-overs, the lanes; levels of 16 and more)
    for seed in SEEDS[:2]:
        for k in DIRICHLET_KS:
            for rows in (1, 3):
                for a in (0.1, 1.0, "mixed"):
                    _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet,
                                    _dirichlet_alpha(a, rows, k, dtype, seed), seed)
        # 3-d, and a tensor of 32768+ elements in several rows (torch's
        # threads take whole rows), a single row just under the split
        for shape in [(2, 3, 7), (4, 1, 33), (5, 10000), (1, 32767), (32767,)]:
            numel = 1
            for d in shape:
                numel *= d
            alpha = torch.exp(torch.linspace(-5, 5, numel, dtype=torch.float64)).reshape(shape).to(dtype)
            _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet, alpha, seed)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_many_seeds(dtype):
    for seed in range(100, 200):
        _xrng_and_torch(_C.torch_cpu_standard_gamma, torch._standard_gamma, _alpha("mixed", 17, dtype, seed), seed)
        k = 2 + seed % 7
        _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet, _dirichlet_alpha("mixed", 5, k, dtype, seed),
                        seed)


def test_dirichlet_uses_cached_normal():
    g = torch.Generator().manual_seed(5)
    torch.randn(3, dtype=torch.float64, generator=g)
    st = g.get_state()
    _xrng_and_torch(_C.torch_cpu_dirichlet, torch._sample_dirichlet, torch.full((9, 2), 2.5), 5, state=st)


def test_refusals_leave_the_state():
    st = torch.Generator().manual_seed(3).get_state()
    before = st.clone()
    with pytest.raises(ValueError, match="32768"):  # one row torch splits over its threads
        _C.torch_cpu_dirichlet(st, torch.ones(32768))
    with pytest.raises(ValueError, match="32768"):
        _C.torch_cpu_dirichlet(st, torch.ones(1, 1, 40000, dtype=torch.float64))
    for dt in (torch.float16, torch.bfloat16, torch.int64):
        with pytest.raises(NotImplementedError, match="gamma_cpu"):
            _C.torch_cpu_standard_gamma(st, torch.ones(3, dtype=dt))
        with pytest.raises(NotImplementedError, match="gamma_cpu"):  # torch's own words and kind
            torch._standard_gamma(torch.ones(3, dtype=dt))
        with pytest.raises(NotImplementedError, match="dirichlet"):
            _C.torch_cpu_dirichlet(st, torch.ones(3, 2, dtype=dt))
    with pytest.raises(ValueError, match="contiguous"):
        _C.torch_cpu_standard_gamma(st, torch.ones(4, 3).t())
    with pytest.raises(ValueError, match="5056"):
        _C.torch_cpu_standard_gamma(st[:100], torch.ones(3))
    assert torch.equal(st, before)


_SUB = r"""
import sys, torch
torch.manual_seed(0)
out = {"cap": torch.backends.cpu.get_cpu_capability(), "g": [], "d": []}
for seed in (0, 1, 2024):
    for dt in (torch.float32, torch.float64):
        a = torch.exp(torch.linspace(-20, 8, 301, dtype=torch.float64)).to(dt)
        g = torch.Generator().manual_seed(seed)
        torch.randn(1, dtype=torch.float64, generator=g)
        st = g.get_state()
        out["g"].append((st, a, torch._standard_gamma(a, generator=g), g.get_state()))
        for k in (2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 100, 257, 1000, 5000):
            b = a.repeat(5000 // 301 + 2)[: k * (1 + 600 // k)].reshape(-1, k)
            st = g.get_state()
            out["d"].append((st, b, torch._sample_dirichlet(b, generator=g), g.get_state()))
torch.save(out, sys.argv[1])
"""


@pytest.mark.parametrize("cap", ["avx2", "default", "avx512"])
def test_same_under_cpu_capability(cap):
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "out.pt"
        env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
        subprocess.run([sys.executable, "-c", _SUB, str(path)], env=env, check=True, timeout=300)
        out = torch.load(path)
    if cap == "avx512" and out["cap"].lower() != "avx512":
        pytest.skip(f"this CPU has no AVX-512 (torch ran {out['cap']})")
    assert out["cap"].lower() == cap.lower(), out["cap"]
    for key, fn in (("g", _C.torch_cpu_standard_gamma), ("d", _C.torch_cpu_dirichlet)):
        for st, a, want, st_after in out[key]:
            st = st.clone()
            _same(fn(st, a), want)
            assert torch.equal(st, st_after)
