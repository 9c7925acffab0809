"""xrng.torch_cpu against the installed torch, bit for bit.

torch runs in subprocesses with ATEN_CPU_CAPABILITY set (avx2, default, and
avx512 where the CPU has it); each prints which capability it ran, and the
values must equal xrng.torch_cpu's with the kernel that capability uses
(x86: avx2 and avx512, whose build registers no normal kernel and falls back
to AVX2's; scalar: default). The calls run in sequence on one generator, so
the generator's advance (the words each draw consumes, the redrawn last 16 of
randn) is checked too, and at the end torch's own generator state.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import warnings

import pytest
import torch

import xrng

# (call, size, dtype, a, b): a sequence drawn on one generator per seed.
CALLS = [
    ("randn", 16, torch.float32, 0.0, 1.0),
    ("randn", 17, torch.float32, 0.0, 1.0),
    ("rand", 5, torch.float32, 0, 0),
    ("randn", 1000, torch.float32, 0.0, 1.0),
    ("randn", 4099, torch.float32, 1.5, 0.25),
    ("rand", 333, torch.float64, 0, 0),
    ("randn", 45, torch.float16, 0.0, 1.0),
    ("randn", 64, torch.bfloat16, -2.0, 3.0),
    ("rand", 77, torch.float16, 0, 0),
    ("rand", 77, torch.bfloat16, 0, 0),
    ("randint", 100, torch.int64, 0, 10),
    ("randint", 50, torch.int64, -(2 ** 40), 2 ** 40),
    ("randint", 50, torch.int64, 5, 5 + 2 ** 28),
    ("randint", 50, torch.int32, -3, 1000),
    ("randint", 40, torch.float32, -7, 2 ** 30),
    ("randint", 40, torch.int16, 0, 300),
    ("randint", 40, torch.int64, -(2 ** 63), 2 ** 63 - 1),
    ("bernoulli", 200, torch.float32, 0.3, 0),
    ("randn", 100003, torch.float32, 0.0, 1.0),
    ("randn", 31, torch.float32, 0.0, 1.0),
    ("randperm", 1, torch.int64, 0, 0),
    ("randperm", 1000, torch.int64, 0, 0),
    ("randperm", 300, torch.float32, 0, 0),
    ("randperm", 77, torch.int32, 0, 0),
    # torch's float64 normal paths: normal_fill<double> (n >= 16 contiguous)
    # and normal_distribution<double> (fewer, or non-contiguous: "normal_t",
    # a transposed (n/5, 5) view), whose cached second normal carries over
    # from one call to the next (an odd count leaves one behind) and is
    # untouched by the 16-wide fills in between.
    ("randn", 8, torch.float64, 0.0, 1.0),
    ("randn", 5, torch.float32, 0.0, 1.0),
    ("randn", 1000, torch.float64, 0.0, 1.0),
    ("randn", 3, torch.float64, 0.1, 0.3),
    ("randn", 3, torch.float16, 0.0, 1.0),
    ("randn", 7, torch.bfloat16, -1.0, 2.0),
    ("randn", 33, torch.float64, 1.5, 0.7),
    ("normal_t", 40, torch.float32, 0.0, 1.0),
    ("normal_t", 45, torch.float64, -0.3, 1.7),
    ("normal_t", 35, torch.float16, 0.0, 1.0),
    ("exponential", 100, torch.float32, 1.5, 0),
    ("exponential", 51, torch.float64, 0.3, 0),
    ("exponential", 40, torch.bfloat16, 1.0, 0),
    ("uniform", 100, torch.float32, -2.0, 5.5),
    ("uniform", 60, torch.float64, 0.1, 0.3),
    ("uniform", 77, torch.float16, -1.0, 1.0),
    ("uniform", 50, torch.bfloat16, 3.0, 3.25),
    ("randn", 1, torch.float64, 0.0, 1.0),
    ("geometric", 60, torch.int64, 0.3, 0),
    ("geometric", 40, torch.float32, 0.05, 0),
    ("geometric", 30, torch.float16, 0.5, 0),
    ("geometric", 30, torch.int32, 0.999, 0),
    ("log_normal", 7, torch.float64, 1.0, 2.0),  # odd: leaves a cached normal for the next
    ("log_normal", 40, torch.float32, -0.5, 0.3),
    ("randn", 3, torch.float64, 0.0, 1.0),
    ("log_normal", 25, torch.bfloat16, 0.0, 1.0),
    # cauchy_: glibc's binary64 tan (kernel x86 fuses median + sigma tan)
    ("cauchy", 100, torch.float32, 0.0, 1.0),
    ("cauchy", 1001, torch.float64, 1.5, 0.3),
    ("cauchy", 40, torch.float16, -2.0, 0.5),
    ("cauchy", 40, torch.bfloat16, 0.25, 3.0),
    ("cauchy_t", 45, torch.float64, 0.0, 0.1),
    ("randn", 3, torch.float64, 0.0, 1.0),
    # random_() without a range (issue 26): w mod (2^digits + 1) for the floats,
    # mod (max + 1) for the integers (float64 and int64 from random64), w & 1 for bool
    ("random", 50, torch.float32, 0, 0),
    ("random", 33, torch.float64, 0, 0),
    ("random", 50, torch.float16, 0, 0),
    ("random", 50, torch.bfloat16, 0, 0),
    ("random", 40, torch.int8, 0, 0),
    ("random", 40, torch.uint8, 0, 0),
    ("random", 40, torch.int16, 0, 0),
    ("random", 40, torch.int32, 0, 0),
    ("random", 41, torch.int64, 0, 0),
    ("random", 40, torch.bool, 0, 0),
    ("random_t", 45, torch.int32, 0, 0),
    # randint / random_(from, to) into bool and the unsigned dtypes
    ("randint", 60, torch.bool, 0, 2),
    ("randint", 20, torch.bool, 1, 2),
    ("randint", 40, torch.uint16, 0, 60000),
    ("randint", 40, torch.uint32, 7, 2 ** 32 - 1),
    ("randint", 40, torch.uint32, 0, 1000),
    ("randint", 40, torch.uint64, 0, 2 ** 63 - 1),
    ("randint", 40, torch.uint64, 3, 2 ** 20),
    # random_(from, None): [from, max] (integers), [from, 2^digits] (floats: from moved up by update_from), the
    # random_from_to kernel on that range; from = -2**63: the full 64-bit range kernel (one random64 each)
    ("random_from", 41, torch.int64, -(2 ** 63), 0),
    ("random_from", 30, torch.float32, -(2 ** 63), 0),
    ("random_from", 30, torch.float64, -(2 ** 63), 0),
    ("random_from", 30, torch.bfloat16, -(2 ** 63), 0),
    ("random_from_t", 45, torch.int64, -(2 ** 63), 0),
    ("random_from", 40, torch.int64, -5, 0),
    ("random_from", 40, torch.int64, 2 ** 62, 0),
    ("random_from", 40, torch.int32, -(2 ** 31), 0),
    ("random_from", 40, torch.int16, -5, 0),
    ("random_from", 40, torch.int8, 100, 0),
    ("random_from", 40, torch.uint8, 3, 0),
    ("random_from", 40, torch.bool, 0, 0),
    ("random_from", 40, torch.uint16, 3, 0),
    ("random_from", 40, torch.uint32, 0, 0),
    ("random_from", 40, torch.float32, -5, 0),
    ("random_from", 40, torch.float64, 2 ** 40, 0),
    ("random_from", 40, torch.float16, 2, 0),
    ("random_from", 40, torch.bfloat16, -300, 0),
    ("random_from_t", 45, torch.int16, -7, 0),
]
SEEDS = [0, 1, 42, 2 ** 32 + 5, 123456789, 2 ** 64 - 1]

TORCH_SIDE = r"""
import sys, torch
calls, seeds, path = eval(sys.argv[1]), eval(sys.argv[2]), sys.argv[3]
out = {"capability": torch.backends.cpu.get_cpu_capability(), "runs": []}
for seed in seeds:
    g = torch.Generator().manual_seed(seed)
    vals = []
    for call, n, dtype, a, b in calls:
        dtype = getattr(torch, dtype)
        if call == "randn":
            vals.append(torch.empty(n, dtype=dtype).normal_(a, b, generator=g))
        elif call == "rand":
            vals.append(torch.rand(n, dtype=dtype, generator=g))
        elif call == "randint":
            vals.append(torch.randint(a, b, (n,), dtype=dtype, generator=g))
        elif call == "bernoulli":
            vals.append(torch.empty(n, dtype=dtype).bernoulli_(a, generator=g))
        elif call == "randperm":
            vals.append(torch.randperm(n, dtype=dtype, generator=g))
        elif call == "normal_t":
            vals.append(torch.empty(5, n // 5, dtype=dtype).t().normal_(a, b, generator=g))
        elif call == "exponential":
            vals.append(torch.empty(n, dtype=dtype).exponential_(a, generator=g))
        elif call == "uniform":
            vals.append(torch.empty(n, dtype=dtype).uniform_(a, b, generator=g))
        elif call == "geometric":
            vals.append(torch.empty(n, dtype=dtype).geometric_(a, generator=g))
        elif call == "log_normal":
            vals.append(torch.empty(n, dtype=dtype).log_normal_(a, b, generator=g))
        elif call == "cauchy":
            vals.append(torch.empty(n, dtype=dtype).cauchy_(a, b, generator=g))
        elif call == "cauchy_t":
            vals.append(torch.empty(5, n // 5, dtype=dtype).t().cauchy_(a, b, generator=g))
        elif call == "random":
            vals.append(torch.empty(n, dtype=dtype).random_(generator=g))
        elif call == "random_t":
            vals.append(torch.empty(5, n // 5, dtype=dtype).t().random_(generator=g))
        elif call == "random_from":
            vals.append(torch.empty(n, dtype=dtype).random_(a, None, generator=g))
        elif call == "random_from_t":
            vals.append(torch.empty(5, n // 5, dtype=dtype).t().random_(a, None, generator=g))
    out["runs"].append((vals, g.get_state()))
torch.save(out, path)
"""


def _cpu_has(flag: str) -> bool:
    try:
        return flag in pathlib.Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


def _torch_values(capability: str):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.pt")
        spec = repr([(c, n, str(dt).split(".")[1], a, b) for c, n, dt, a, b in CALLS])
        env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
        r = subprocess.run([sys.executable, "-c", TORCH_SIDE, spec, repr(SEEDS), path], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return torch.load(path)


def _xrng_values(seed: int, kernel: str):
    g = xrng.torch_cpu(seed, kernel=kernel)
    vals = []
    for call, n, dtype, a, b in CALLS:
        if call == "randn":
            vals.append(xrng.randn(n, dtype=dtype, mean=a, std=b, generator=g))
        elif call == "rand":
            vals.append(xrng.rand(n, dtype=dtype, generator=g))
        elif call == "randint":
            vals.append(xrng.randint(a, b, (n,), dtype=dtype, generator=g))
        elif call == "bernoulli":
            vals.append(xrng.bernoulli(n, p=a, dtype=dtype, generator=g))
        elif call == "randperm":
            vals.append(xrng.randperm(n, dtype=dtype, generator=g))
        elif call == "normal_t":
            vals.append(xrng.normal_(torch.empty(5, n // 5, dtype=dtype).t(), a, b, generator=g))
        elif call == "exponential":
            vals.append(xrng.exponential_(torch.empty(n, dtype=dtype), a, generator=g))
        elif call == "uniform":
            vals.append(xrng.rand(n, dtype=dtype, low=a, high=b, generator=g))
        elif call == "geometric":
            vals.append(xrng.geometric_(torch.empty(n, dtype=dtype), a, generator=g))
        elif call == "log_normal":
            vals.append(xrng.log_normal_(torch.empty(n, dtype=dtype), a, b, generator=g))
        elif call == "cauchy":
            vals.append(xrng.cauchy_(torch.empty(n, dtype=dtype), a, b, generator=g))
        elif call == "cauchy_t":
            vals.append(xrng.cauchy_(torch.empty(5, n // 5, dtype=dtype).t(), a, b, generator=g))
        elif call == "random":
            vals.append(xrng.random_(torch.empty(n, dtype=dtype), generator=g))
        elif call == "random_t":
            vals.append(xrng.random_(torch.empty(5, n // 5, dtype=dtype).t(), generator=g))
        elif call == "random_from":
            vals.append(xrng.random_(torch.empty(n, dtype=dtype), a, None, generator=g))
        elif call == "random_from_t":
            vals.append(xrng.random_(torch.empty(5, n // 5, dtype=dtype).t(), a, None, generator=g))
    return vals, g


CAPABILITIES = [("avx2", "x86"), ("default", "scalar"), ("avx512", "x86")]


@pytest.mark.slow
@pytest.mark.parametrize("capability,kernel", CAPABILITIES)
def test_torch_cpu_sweep_equals_torch(capability, kernel):
    if capability in ("avx2", "avx512") and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA: torch cannot run its x86 normal kernel here")
    if capability == "avx512" and not _cpu_has("avx512f"):
        pytest.skip("this CPU has no AVX-512: torch's avx512 build cannot run here")
    ref = _torch_values(capability)
    # torch runs the capability asked for (it falls back silently otherwise).
    assert ref["capability"] == capability.upper(), ref["capability"]
    for seed, (tvals, tstate) in zip(SEEDS, ref["runs"]):
        xvals, g = _xrng_values(seed, kernel)
        assert len(tvals) == len(xvals) == len(CALLS)
        for (call, n, dtype, a, b), t, x in zip(CALLS, tvals, xvals):
            assert x.dtype == t.dtype and x.shape == t.shape, (call, n, dtype)
            # bit for bit: compare the raw bytes (NaN-safe, signed zeros).
            assert x.stride() == t.stride(), (call, n, dtype)
            x, t = x.contiguous(), t.contiguous()
            assert torch.equal(x.view(torch.uint8) if x.dtype != torch.bool else x,
                               t.view(torch.uint8) if t.dtype != torch.bool else t), \
                f"seed {seed}: {call}({n}, {dtype}, {a}, {b}) differs from torch {capability}"
        # the generator stands where torch's does: mt19937 words and position,
        # and the cached float64 normal (value and flag), all 5056 bytes.
        assert torch.equal(g.state, tstate), f"seed {seed}: generator state differs"


def test_torch_cpu_continues_and_writes_back_torch_generator():
    g = torch.Generator().manual_seed(7)
    torch.randn(100, generator=g)
    torch.rand(3, generator=g)
    x = xrng.torch_cpu(g, kernel="x86" if _cpu_has("avx2") else "scalar")
    a = xrng.rand(1000, generator=x)
    b = torch.rand(1000, generator=g)
    assert torch.equal(a, b)
    # xrng draws on; torch continues after it from the written-back state.
    xrng.randint(0, 2 ** 40, (10,), generator=x)
    torch.randint(0, 2 ** 40, (10,), generator=g)
    t = x.to_torch()
    assert torch.equal(torch.rand(50, generator=t), torch.rand(50, generator=g))
    assert torch.equal(t.get_state(), g.get_state())


def test_torch_cpu_seeding_equals_torch_state():
    for seed in (0, 1, 2 ** 63 + 11):
        assert torch.equal(xrng.torch_cpu(seed).state[:5016], torch.Generator().manual_seed(seed).get_state()[:5016])


def test_torch_cpu_strided_out_in_torch_order():
    # torch fills a transposed or sliced tensor in memory order (TensorIterator).
    for make in (lambda: torch.empty(4, 8).t(), lambda: torch.empty(10, 10)[:, ::2],
                 lambda: torch.empty(3, 4, 5).permute(2, 0, 1)):
        tg = torch.Generator().manual_seed(11)
        t = make().uniform_(generator=tg)
        g = xrng.torch_cpu(11)
        x = xrng.uniform_(make(), generator=g)
        assert torch.equal(x, t)
        assert torch.equal(g.state[:5016], tg.get_state()[:5016])


def test_torch_cpu_device(xdev):
    # another device (the xdev PrivateUse1 test backend): filled on the host, then moved
    a = xrng.randn(64, generator=xrng.torch_cpu(5), device="xdev")
    b = xrng.randn(64, generator=xrng.torch_cpu(5))
    assert a.device.type == "xdev" and torch.equal(a.cpu(), b)
    g, h = xrng.torch_cpu(6), xrng.torch_cpu(6)
    t = xrng.random_(torch.empty(4, 10, dtype=torch.int32, device="xdev").t(), generator=g)
    u = xrng.random_(torch.empty(4, 10, dtype=torch.int32).t(), generator=h)
    assert t.device.type == "xdev" and torch.equal(t.cpu(), u)
    r = xrng.randint(0, 2, (33,), dtype=torch.bool, device="xdev", generator=g)
    assert r.device.type == "xdev" and torch.equal(r.cpu(), xrng.randint(0, 2, (33,), dtype=torch.bool, generator=h))
    assert torch.equal(g.state, h.state)


def test_torch_cpu_random_equals_torch():
    # the default capability here (random_ has no capability-dependent path)
    g, x = torch.Generator().manual_seed(9), xrng.torch_cpu(9)
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
               torch.int32, torch.int64, torch.bool):
        t = torch.empty(300, dtype=dt).random_(generator=g)
        v = xrng.random_(torch.empty(300, dtype=dt), generator=x)
        assert torch.equal(t, v), dt
        assert torch.equal(g.get_state(), x.state), dt
    # the ranges: every value in [0, 2^digits] / [0, max] and the top reached for the small ones
    assert int(t.sum()) > 0
    h = xrng.random_(torch.empty(20000, dtype=torch.bfloat16), generator=xrng.torch_cpu(10))
    assert float(h.max()) == 256.0 and float(h.min()) == 0.0
    # random_(to) and random_(from, to) are randint_
    t = torch.empty(50, dtype=torch.int16).random_(7, 300, generator=g)
    assert torch.equal(xrng.random_(torch.empty(50, dtype=torch.int16), 7, 300, generator=x), t)
    t = torch.empty(50, dtype=torch.uint8).random_(100, generator=g)
    assert torch.equal(xrng.random_(torch.empty(50, dtype=torch.uint8), 100, generator=x), t)
    assert torch.equal(g.get_state(), x.state)


def test_torch_cpu_random_and_randint_refusals():
    x = xrng.torch_cpu(3)
    before = x.state.clone()
    for dt in (torch.uint16, torch.uint32, torch.uint64):
        with pytest.raises(RuntimeError):  # torch: no random_() without a range for them
            torch.empty(3, dtype=dt).random_()
        with pytest.raises(ValueError, match="random_"):
            xrng.random_(torch.empty(3, dtype=dt), generator=x)
    for dt, lo, hi in ((torch.bool, 0, 3), (torch.uint16, 0, 2 ** 16 + 1), (torch.uint64, -1, 5),
                       (torch.uint64, 0, 2 ** 63)):
        with pytest.raises(RuntimeError):
            torch.randint(lo, hi, (3,), dtype=dt) if hi < 2 ** 63 else torch.empty(3, dtype=dt).random_(lo, None)
        if hi < 2 ** 63:
            with pytest.raises(ValueError, match="does not fit"):
                xrng.randint(lo, hi, (3,), dtype=dt, generator=x)
    for dt, lo, hi in ((torch.float16, 0, 70000), (torch.float16, -70000, 0)):  # beyond the dtype's finite range
        with pytest.raises(RuntimeError, match="out of bounds"):
            torch.randint(lo, hi, (3,), dtype=dt)
        with pytest.raises(ValueError, match="does not fit"):
            xrng.randint(lo, hi, (3,), dtype=dt, generator=x)
    assert torch.equal(x.state, before)  # nothing drawn
    with pytest.raises(NotImplementedError, match="without a range"):
        xrng.random_(torch.empty(3, dtype=torch.int32))  # xrng's own streams have no such draw
    # the tensor-parameter draws refuse what torch's CPU kernels refuse (SPEC.md 14.4, 14.5)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        xrng.gamma(torch.ones(3, dtype=torch.float16), generator=x)
    with pytest.raises(ValueError):
        xrng.poisson(torch.tensor([1.0, -1.0]), generator=x)
    with pytest.raises(TypeError, match="do not apply to a torch_cpu generator"):
        xrng.binomial(torch.ones(3), torch.full((3,), 0.5), generator=x, seed=3)
    assert torch.equal(x.state, before)


RANDOM_FROM_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool, torch.uint16,
                      torch.uint32, torch.uint64, torch.float32, torch.float64, torch.float16, torch.bfloat16)
RANDOM_FROM_FROMS = (-(2 ** 63), -(2 ** 62), -(2 ** 31), -5, 0, 3, 255, 2 ** 24 - 1, 2 ** 24, 2 ** 40, 2 ** 53, 2 ** 62)


def test_torch_cpu_random_from_none_equals_torch():
    """random_(from, None) for every dtype and a spread of `from`s (the full
    64-bit range at -2**63) against this process's torch (random_ has no
    capability-dependent path; the slow sweep checks avx2/default/avx512):
    the same values and generator state where torch draws, a ValueError with
    the generator untouched exactly where torch raises."""
    for kernel in ("x86", "scalar"):
        for frm in RANDOM_FROM_FROMS:
            for dt in RANDOM_FROM_DTYPES:
                for shape, t_view in (((37,), False), ((6, 7), True)):
                    g = torch.Generator().manual_seed(frm % 1000 + 7)
                    x = xrng.torch_cpu(g, kernel=kernel)
                    before = x.state.clone()
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")  # torch warns for floats beyond 2^digits
                            e = torch.empty(shape, dtype=dt)
                            t = (e.t() if t_view else e).random_(frm, None, generator=g)
                    except RuntimeError:
                        with pytest.raises(ValueError, match="random_"):
                            e = torch.empty(shape, dtype=dt)
                            xrng.random_(e.t() if t_view else e, frm, None, generator=x)
                        assert torch.equal(x.state, before), (frm, dt)
                        continue
                    e = torch.empty(shape, dtype=dt)
                    v = xrng.random_(e.t() if t_view else e, frm, None, generator=x)
                    assert v.stride() == t.stride()
                    assert torch.equal(v, t), (kernel, frm, dt, shape)
                    assert torch.equal(x.state, g.get_state()), (kernel, frm, dt, shape)
    # the full range covers both signs and both halves of the words
    v = xrng.random_(torch.empty(4000, dtype=torch.int64), -(2 ** 63), None, generator=xrng.torch_cpu(1))
    assert int((v < 0).sum()) > 1800 and int((v > 2 ** 62).sum()) > 800


def test_torch_cpu_random_from_none_refusals():
    x = xrng.torch_cpu(3)
    before = x.state.clone()
    for dt, frm, msg in ((torch.int32, -(2 ** 63), "full 64-bit range"), (torch.float16, -(2 ** 63), "full 64-bit"),
                         (torch.bool, -(2 ** 63), "full 64-bit"), (torch.uint64, 0, "uint64"),
                         (torch.uint8, -1, "does not fit"), (torch.int8, 128, "does not fit"),
                         (torch.float32, 2 ** 40, "below 2\\^24"), (torch.float16, 70000, "does not fit")):
        with pytest.raises(RuntimeError):
            torch.empty(3, dtype=dt).random_(frm, None)
        with pytest.raises(ValueError, match=msg):
            xrng.random_(torch.empty(3, dtype=dt), frm, None, generator=x)
    assert torch.equal(x.state, before)
    with pytest.raises(TypeError, match="from must be an int"):
        xrng.random_(torch.empty(3, dtype=torch.int64), 1.5, None, generator=x)
    with pytest.raises(ValueError, match="from must be in"):
        xrng.random_(torch.empty(3, dtype=torch.int64), 2 ** 63, None, generator=x)
    with pytest.raises(NotImplementedError, match="random_\\(from, None\\) is torch's draw"):
        xrng.random_(torch.empty(3, dtype=torch.int64), 0, None, seed=1)  # xrng's own streams have none
    # an empty tensor: torch returns before its full-range kernel checks the dtype
    assert xrng.random_(torch.empty(0, dtype=torch.int32), -(2 ** 63), None, generator=x).numel() == 0
    assert torch.equal(x.state, before)


MODE_PROGRAM = r"""
import torch


def program():
    torch.manual_seed(17)
    return [torch.empty(50, dtype=torch.int64).random_(-2 ** 63, None),
            torch.empty(9, 4, dtype=torch.int64).t().random_(-2 ** 63, None),
            torch.empty(30, dtype=torch.float32).random_(-2 ** 63, None),
            torch.empty(30, dtype=torch.int16).random_(-5, None), torch.empty(30, dtype=torch.float16).random_(3, None),
            torch.randn(20)]
"""


@pytest.mark.parametrize("stream,capability", [("torch-cpu-scalar", "default"), ("torch-cpu-x86", "avx2")])
def test_mode_torch_cpu_random_from_none_equals_torch(stream, capability):
    """Under xrng.reproducible(stream=...), random_(from, None), the full 64-bit
    range included, gives torch's own values at that capability (a subprocess),
    generator state included, with no warning and nothing reported."""
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA")
    code = MODE_PROGRAM + ("\nimport sys\ntorch.save((program(), torch.get_rng_state(), "
                           "torch.backends.cpu.get_cpu_capability()), sys.argv[1])\n")
    with tempfile.TemporaryDirectory() as d:
        path = str(pathlib.Path(d) / "m.pt")
        r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY=capability))
        assert r.returncode == 0, r.stderr
        want, want_state, cap = torch.load(path)
    assert cap == capability.upper()
    ns: dict = {}
    exec(compile(MODE_PROGRAM, "MODE_PROGRAM", "exec"), ns)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with xrng.reproducible(stream=stream, strict=True) as m:
            got = ns["program"]()
            state = torch.get_rng_state()
    assert m.reported == {}
    assert not w, [str(x.message) for x in w]
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.stride() == b.stride() and torch.equal(a, b), i
    assert torch.equal(state, want_state)


def test_torch_cpu_errors():
    with pytest.raises(ValueError, match="kernel must be"):
        xrng.torch_cpu(0, kernel="avx")
    with pytest.raises(TypeError, match="int seed or a CPU torch.Generator"):
        xrng.torch_cpu(1.5)
    with pytest.raises(ValueError, match="seed must be in"):
        xrng.torch_cpu(-1)
    g = xrng.torch_cpu(0)
    xrng.randn(1, dtype=torch.float64, generator=g)  # leaves a cached normal: refusals keep it too
    before = g.state.clone()
    with pytest.raises(ValueError, match="lambda > 0"):
        xrng.exponential_(torch.empty(4), 0.0, generator=g)
    with pytest.raises(ValueError, match="from=2.0 > to=1.0"):
        xrng.rand(4, low=2.0, high=1.0, generator=g)
    with pytest.raises(ValueError, match="finite"):
        xrng.uniform_(torch.empty(4), 0.0, float("inf"), generator=g)
    with pytest.raises(ValueError, match="std >= 0"):
        xrng.normal_(torch.empty(4), 0.0, -1.0, generator=g)
    with pytest.raises(ValueError, match="floating"):
        xrng.normal_(torch.empty(4, dtype=torch.int32), generator=g)
    with pytest.raises(ValueError, match=r"p to be in \(0, 1\)"):
        xrng.geometric_(torch.empty(4), 1.0, generator=g)
    with pytest.raises(ValueError, match="std > 0"):
        xrng.log_normal_(torch.empty(4), 0.0, 0.0, generator=g)
    with pytest.raises(ValueError, match="sigma > 0"):
        xrng.cauchy_(torch.empty(4), 0.0, 0.0, generator=g)
    with pytest.raises(ValueError, match="floating dtype"):
        xrng.cauchy_(torch.empty(4, dtype=torch.int64), generator=g)
    assert torch.equal(g.state, before)  # refused before anything advanced


@pytest.mark.parametrize("stream,capability", [("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")])
def test_cli_torch_stream_fingerprint_equals_torch(cli, stream, capability):
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA: torch cannot run its x86 normal kernel here")
    code = ("import hashlib, torch; torch.manual_seed(9); a = torch.randn(100001).numpy().tobytes(); "
            "torch.manual_seed(9); b = torch.rand(1000).numpy().tobytes(); "
            "print(hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want_n, want_u = r.stdout.split()
    assert cli.fingerprint("--stream", stream, "--dist", "normal", "--seed", 9, "--count", 100001) == want_n
    assert cli.fingerprint("--stream", stream, "--dist", "uniform", "--seed", 9, "--count", 1000) == want_u
    code = ("import hashlib, torch; torch.manual_seed(9); a = torch.randn(15, dtype=torch.float64).numpy().tobytes(); "
            "torch.manual_seed(9); b = torch.empty(999).exponential_(0.5).numpy().tobytes(); "
            "print(hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want_n, want_e = r.stdout.split()
    assert cli.fingerprint("--stream", stream, "--dist", "normal", "--dtype", "f64", "--seed", 9, "--count", 15) == want_n
    assert cli.fingerprint("--stream", stream, "--dist", "exponential", "--lambda", 0.5, "--seed", 9,
                           "--count", 999) == want_e
    code = ("import hashlib, torch; torch.manual_seed(9); a = torch.empty(1001, dtype=torch.float64).cauchy_(1.5, 0.3)"
            ".numpy().tobytes(); torch.manual_seed(9); b = torch.empty(999).cauchy_().numpy().tobytes(); "
            "print(hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want_c64, want_c32 = r.stdout.split()
    assert cli.fingerprint("--stream", stream, "--dist", "cauchy", "--dtype", "f64", "--median", 1.5, "--sigma", 0.3,
                           "--seed", 9, "--count", 1001) == want_c64
    assert cli.fingerprint("--stream", stream, "--dist", "cauchy", "--seed", 9, "--count", 999) == want_c32
    with pytest.raises(RuntimeError, match="lambda must be > 0"):
        cli.fingerprint("--stream", stream, "--dist", "exponential", "--lambda", 0, "--count", 15)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_torch_cpu_dropout_and_bernoulli_equal_torch(dtype):
    x = torch.linspace(-3, 3, 1000, dtype=torch.float32).to(dtype).reshape(20, 50)
    for seed, p in ((0, 0.5), (3, 0.1), (4, 0.9)):
        torch.manual_seed(seed)
        want = torch.nn.functional.dropout(x, p, training=True)
        want_t = torch.nn.functional.dropout(x.t(), p, training=True)  # strided: noise like the input
        want_b = torch.empty(333, dtype=dtype).bernoulli_(p)
        want_bt = torch.empty(7, 50, dtype=dtype).t().bernoulli_(p)  # in place, memory order
        want_next = torch.rand(5)
        g = xrng.torch_cpu(seed)
        got = xrng.dropout(x, p, generator=g)
        got_t = xrng.dropout(x.t(), p, generator=g)
        got_b = xrng.bernoulli(333, p=p, dtype=dtype, generator=g)
        got_bt = xrng.bernoulli_(torch.empty(7, 50, dtype=dtype).t(), p, generator=g)
        assert torch.equal(got.view(torch.uint8), want.view(torch.uint8)), (seed, p)
        assert torch.equal(got_t.contiguous(), want_t.contiguous()), (seed, p)
        assert torch.equal(got_b, want_b), (seed, p)
        assert got_bt.stride() == want_bt.stride() and torch.equal(got_bt, want_bt), (seed, p)
        assert torch.equal(xrng.rand(5, generator=g), want_next)
    g = xrng.torch_cpu(0)
    assert xrng.dropout(x, 0.5, training=False, generator=g) is x
    y = x.clone()
    torch.manual_seed(1)
    want = torch.nn.functional.dropout(x.clone(), 1.0)
    assert torch.equal(xrng.dropout(y, 1.0, inplace=True, generator=xrng.torch_cpu(1)), want)
    assert torch.equal(y, want)


# torch run with cpuinfo reporting another vendor (tests/torch_ref/cpuinfo_vendor_shim.c,
# preloaded): older torch sent scalar-p bernoulli_ (and so CPU dropout) to MKL's
# VSL on Intel CPUs; torch 2.15 has no such path (SPEC.md section 14.2), which
# this checks on any x86-64 Linux host by making torch see an Intel (and an AMD) CPU.
SHIM_SIDE = r"""
import ctypes, os, sys, torch
path = sys.argv[1]
class Core(ctypes.Structure):  # struct cpuinfo_core, up to vendor (torch/include/cpuinfo.h)
    _fields_ = [("processor_start", ctypes.c_uint32), ("processor_count", ctypes.c_uint32),
                ("core_id", ctypes.c_uint32), ("cluster", ctypes.c_void_p), ("package", ctypes.c_void_p),
                ("vendor", ctypes.c_int)]
class Processor(ctypes.Structure):  # struct cpuinfo_processor, up to core
    _fields_ = [("smt_id", ctypes.c_uint32), ("core", ctypes.POINTER(Core))]
# torch's first call into cpuinfo (through the shim, which patches every copy)
cpu_name = torch.cpu.get_capabilities()["cpu_name"]
vendors = []
for name in ("libc10.so", "libtorch.so"):  # every copy of cpuinfo torch 2.15 links
    so = os.path.join(os.path.dirname(torch.__file__), "lib", name)
    if not os.path.exists(so):
        continue
    lib = ctypes.CDLL(so)
    try:
        get = lib.cpuinfo_get_processor
    except AttributeError:
        continue
    get.restype, get.argtypes = ctypes.POINTER(Processor), [ctypes.c_uint32]
    lib.cpuinfo_initialize()
    vendors.append(get(0).contents.core.contents.vendor)
out = {"cpu_name": cpu_name, "vendors": vendors, "runs": []}
x = torch.linspace(-3, 3, 2400).reshape(40, 60)
for threads in (1, 2):
    torch.set_num_threads(threads)
    for seed in (0, 2 ** 32 + 3):
        torch.manual_seed(seed)
        vals = []
        for i, dt in enumerate(%s):
            for j, n in enumerate((1, 799, 800, 801, 2001)):
                vals.append(torch.empty(n, dtype=dt).bernoulli_((0.3, 0.5, 0.9, 0.0, 1.0)[(i + j) %% 5]))
            vals.append(torch.empty(7, 300, dtype=dt).t().bernoulli_(0.25))  # strided output
        vals.append(torch.bernoulli(x.t(), 0.6))  # torch.bernoulli(input, float p)
        vals.append(torch.nn.functional.dropout(x, 0.2))
        vals.append(torch.nn.functional.dropout(x.t().to(torch.bfloat16), 0.7))
        out["runs"].append((threads, seed, vals, torch.get_rng_state()))
torch.save(out, path)
"""
SHIM_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64,
               torch.uint8, torch.int8, torch.int16, torch.bool]


def _shim(tmp_path) -> str:
    """Builds tests/torch_ref/cpuinfo_vendor_shim.c against torch's cpuinfo.h."""
    import platform
    import shutil
    if sys.platform != "linux" or platform.machine() != "x86_64":
        pytest.skip("the cpuinfo vendor shim is for x86-64 Linux")
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    inc = pathlib.Path(torch.__file__).parent / "include"
    if cc is None or not (inc / "cpuinfo.h").exists():
        pytest.skip("no C compiler or no torch/include/cpuinfo.h to build the cpuinfo vendor shim")
    src = pathlib.Path(__file__).resolve().parents[1] / "torch_ref" / "cpuinfo_vendor_shim.c"
    so = str(tmp_path / "cpuinfo_vendor_shim.so")
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", f"-I{inc}", str(src), "-o", so, "-ldl", "-lpthread"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return so


@pytest.mark.parametrize("vendor,code", [("intel", 1), ("amd", 2)])
def test_torch_cpu_bernoulli_and_dropout_same_on_intel(tmp_path, vendor, code):
    shim = _shim(tmp_path)
    path = str(tmp_path / "out.pt")
    env = dict(os.environ, LD_PRELOAD=shim, XRNG_CPUINFO_VENDOR=vendor)
    dts = "[" + ", ".join(f"torch.{str(d).split('.')[1]}" for d in SHIM_DTYPES) + "]"
    r = subprocess.run([sys.executable, "-c", SHIM_SIDE % dts, path], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    ref = torch.load(path)
    # the shim took: torch's own cpuinfo reports the vendor (every copy) and its name
    assert ref["vendors"] and all(v == code for v in ref["vendors"]), ref["vendors"]
    assert ref["cpu_name"].endswith("(xrng cpuinfo shim)"), ref["cpu_name"]
    x = torch.linspace(-3, 3, 2400).reshape(40, 60)
    for threads, seed, tvals, tstate in ref["runs"]:
        g = xrng.torch_cpu(seed)
        vals = []
        for i, dt in enumerate(SHIM_DTYPES):
            for j, n in enumerate((1, 799, 800, 801, 2001)):
                vals.append(xrng.bernoulli(n, p=(0.3, 0.5, 0.9, 0.0, 1.0)[(i + j) % 5], dtype=dt, generator=g))
            vals.append(xrng.bernoulli_(torch.empty(7, 300, dtype=dt).t(), 0.25, generator=g))
        vals.append(xrng.bernoulli(60, 40, p=0.6, dtype=torch.float32, generator=g))  # (contiguous, like torch's)
        vals.append(xrng.dropout(x, 0.2, generator=g))
        vals.append(xrng.dropout(x.t().to(torch.bfloat16), 0.7, generator=g))
        assert len(vals) == len(tvals)
        for k, (a, b) in enumerate(zip(vals, tvals)):
            assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride(), (vendor, threads, seed, k)
            assert torch.equal(a.contiguous(), b.contiguous()), (vendor, threads, seed, k)
        # two words per element, the CPU generator's own: torch's whole state equal
        assert torch.equal(g.state, tstate), (vendor, threads, seed)


def test_torch_cpu_inplace_fills_and_out_equal_torch():
    tg = torch.Generator().manual_seed(21)
    want = [torch.empty(8, 40).normal_(0.5, 2.0, generator=tg), torch.empty(100).uniform_(generator=tg),
            torch.randn(64, generator=tg, dtype=torch.bfloat16)]
    g = xrng.torch_cpu(21, kernel="x86" if _cpu_has("avx2") else "scalar")
    got = [xrng.normal_(torch.empty(8, 40), 0.5, 2.0, generator=g), xrng.uniform_(torch.empty(100), generator=g)]
    out = torch.empty(64, dtype=torch.bfloat16)
    assert xrng.randn(64, generator=g, dtype=torch.bfloat16, out=out) is out
    got.append(out)
    for a, b in zip(got, want):
        assert torch.equal(a, b)
    assert torch.equal(g.state[:5016], tg.get_state()[:5016])
    # a non-contiguous normal_ takes torch's element-wise float64 path
    tg2 = torch.Generator().manual_seed(3)
    want = torch.empty(40, 8).t().normal_(0.5, 2.0, generator=tg2)
    g2 = xrng.torch_cpu(3, kernel="x86" if _cpu_has("avx2") else "scalar")
    assert torch.equal(xrng.normal_(torch.empty(40, 8).t(), 0.5, 2.0, generator=g2), want)
    assert torch.equal(g2.state, tg2.get_state())


def test_torch_cpu_cached_normal_crosses_get_state_and_set_state():
    # torch leaves a float64 normal in its generator's state (randn of an odd
    # count below 16); xrng.torch_cpu(g) continues with it, and to_torch()
    # hands xrng's cached value back to torch.
    kernel = "x86" if _cpu_has("avx2") else "scalar"
    g = torch.Generator().manual_seed(12)
    torch.randn(3, dtype=torch.float64, generator=g)
    x = xrng.torch_cpu(g, kernel=kernel)
    assert torch.equal(xrng.randn(4, dtype=torch.float64, generator=x), torch.randn(4, dtype=torch.float64, generator=g))
    xrng.randn(1, dtype=torch.float64, generator=x)  # xrng now holds the cached one
    torch.randn(1, dtype=torch.float64, generator=g)
    t = x.to_torch()
    assert torch.equal(t.get_state(), g.get_state())
    assert torch.equal(torch.randn(5, generator=t), torch.randn(5, generator=g))  # 5 < 16: uses the cache
    # a manual_seed clears the cache in torch; a fresh xrng.torch_cpu(seed) has none
    g.manual_seed(12)
    assert torch.equal(xrng.torch_cpu(12).state, g.get_state())


@pytest.mark.parametrize("pdtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_torch_cpu_bernoulli_tensor_p_equals_torch(pdtype):
    # torch's bernoulli_(p) with a tensor p: every CPU (Intel's too), a float32
    # uniform per element for float/half/bfloat16 p, a float64 one for double.
    p = torch.rand(6, 7, generator=torch.Generator().manual_seed(1)).to(pdtype)
    p[0, 0], p[1, 1] = 0.0, 1.0
    tg = torch.Generator().manual_seed(5)
    want = [torch.bernoulli(p, generator=tg),
            torch.empty(4, 7, dtype=torch.bool).bernoulli_(p[2], generator=tg),  # broadcast p
            torch.empty(7, 6, dtype=torch.float32).t().bernoulli_(p, generator=tg),  # strided self
            torch.rand(3, generator=tg)]
    g = xrng.torch_cpu(5)
    got = [xrng.bernoulli(p=p, generator=g),
           xrng.bernoulli_(torch.empty(4, 7, dtype=torch.bool), p[2], generator=g),
           xrng.bernoulli_(torch.empty(7, 6, dtype=torch.float32).t(), p, generator=g),
           xrng.rand(3, generator=g)]
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and torch.equal(a, b)
    assert torch.equal(g.state, tg.get_state())
    before = g.state.clone()
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        xrng.bernoulli(p=torch.tensor([0.5, 1.5], dtype=pdtype), generator=g)
    with pytest.raises(ValueError, match="floating"):
        xrng.bernoulli_(torch.empty(2), torch.tensor([0, 1]), generator=g)
    assert torch.equal(g.state, before)


@pytest.mark.parametrize("wdtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_torch_cpu_multinomial_equals_torch(wdtype):
    # torch.multinomial on CPU (every CPU): with replacement and n > 1 its
    # cumulative-sum kernel (2 words per sample); otherwise its Gumbel-max
    # path (exponential_ like the weights, 2 words each, then argmax/topk).
    w = torch.rand(3, 9, generator=torch.Generator().manual_seed(2)).to(wdtype)
    w[0, 4] = 0.0
    w[2] *= 1000.0
    tg = torch.Generator().manual_seed(8)
    want = [torch.multinomial(w, 7, True, generator=tg), torch.multinomial(w[1], 5, True, generator=tg),
            torch.multinomial(w, 1, True, generator=tg), torch.multinomial(w, 4, False, generator=tg),
            torch.multinomial(w[2], 1, False, generator=tg), torch.multinomial(w.t().contiguous().t(), 3, False,
                                                                                generator=tg),
            torch.rand(2, generator=tg)]
    g = xrng.torch_cpu(8)
    got = [xrng.multinomial(w, 7, True, generator=g), xrng.multinomial(w[1], 5, True, generator=g),
           xrng.multinomial(w, 1, True, generator=g), xrng.multinomial(w, 4, False, generator=g),
           xrng.multinomial(w[2], 1, False, generator=g), xrng.multinomial(w.t().contiguous().t(), 3, False,
                                                                            generator=g),
           xrng.rand(2, generator=g)]
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and torch.equal(a, b)
    assert torch.equal(g.state, tg.get_state())
    before = g.state.clone()
    bad = w.clone()
    bad[1, 1] = -1.0
    with pytest.raises(ValueError, match="< 0"):
        xrng.multinomial(bad, 3, True, generator=g)
    with pytest.raises(ValueError, match="< 0"):
        xrng.multinomial(bad, 3, False, generator=g)
    with pytest.raises(ValueError, match="sum of probabilities"):
        xrng.multinomial(torch.zeros(2, 3, dtype=wdtype), 2, True, generator=g)
    assert torch.equal(g.state, before)


@pytest.mark.parametrize("wdtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_torch_cpu_multinomial_replacement_long_rows_equal_torch(wdtype):
    # The with-replacement kernel's branch-free search, 8 samples in lockstep
    # (rng/torch_cpu.h multinomial_row), against torch's own binary search:
    # rows of 1000 and 4097 weights (dense, half zeros, a few non-zero ones),
    # sample counts below, at and off a multiple of 8, 1-d and 2-d.
    gen = torch.Generator().manual_seed(5)
    w = torch.rand(4, 1000, generator=gen, dtype=torch.float64)
    w[1, ::2] = 0.0
    w[2] = torch.where(w[2] > 0.99, w[2], torch.zeros_like(w[2]))
    w[3, :10] = 0.0
    w[3, -10:] = 0.0
    w = w.to(wdtype)
    long = torch.rand(4097, generator=gen).to(wdtype)
    tg = torch.Generator().manual_seed(11)
    g = xrng.torch_cpu(11)
    for args in [(w, 100), (w, 3), (w, 8), (w, 17), (w[2], 64), (w[0], 2), (long, 1001)]:
        want = torch.multinomial(*args, True, generator=tg)
        got = xrng.multinomial(*args, True, generator=g)
        assert got.dtype == want.dtype and torch.equal(got, want), args[1]
    assert torch.equal(g.state, tg.get_state())
    if wdtype in (torch.float32, torch.float64):
        # a total beyond the largest float of the accumulation type: NaN (inf / inf) among the
        # normalised sums, torch's own probe order then decides.
        big = torch.rand(2, 300, generator=gen, dtype=wdtype) * torch.finfo(wdtype).max / 16
        want = torch.multinomial(big, 50, True, generator=tg)
        got = xrng.multinomial(big, 50, True, generator=g)
        assert torch.equal(got, want) and torch.equal(g.state, tg.get_state())
    # torch's message is its first bad weight's: an infinity before a negative, NaN as "< 0"
    before = g.state.clone()
    bad = w.clone()
    bad[1, 3] = float("inf")
    bad[1, 7] = -1.0
    with pytest.raises(ValueError, match="infinity or NaN"):
        xrng.multinomial(bad, 3, True, generator=g)
    bad[1, 2] = float("nan")
    with pytest.raises(ValueError, match="< 0"):
        xrng.multinomial(bad, 3, True, generator=g)
    assert torch.equal(g.state, before)


@pytest.mark.parametrize("stream,capability", [("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")])
def test_cli_torch_stream_normal_mean_std_f64_equals_torch(cli, stream, capability):
    """--mean 0.1 --std 0.3 in f64 (read as double, as torch's Python arguments are) equals torch's
    normal_(0.1, 0.3); a non-number is a one-line error."""
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA: torch cannot run its x86 normal kernel here")
    code = ("import hashlib, torch; torch.manual_seed(5); "
            "a = torch.empty(3001, dtype=torch.float64).normal_(0.1, 0.3).numpy().tobytes(); "
            "torch.manual_seed(5); b = torch.empty(20, dtype=torch.float64).normal_(0.1, 0.3).numpy().tobytes(); "
            "print(hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest())")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want_big, want_small = r.stdout.split()
    for n, want in ((3001, want_big), (20, want_small)):
        assert cli.fingerprint("--stream", stream, "--dist", "normal", "--dtype", "f64", "--mean", 0.1, "--std", 0.3,
                               "--seed", 5, "--count", n) == want
    r = subprocess.run([cli.path, "gen", "--stream", stream, "--dist", "normal", "--std", "abc", "--count", "4"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and r.stderr.strip() == "xrng: error: --std: expected a number, got 'abc'"


@pytest.mark.parametrize("stream,capability", [("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")])
def test_cli_torch_stream_discrete_equals_torch(cli, stream, capability):
    """randint, randperm, bernoulli_, geometric_, log_normal_ (and the 16-bit dtypes, --rate) on the CLI's
    torch CPU streams (host/torch_cpu.h's whole draws) give torch's own values: fingerprints equal."""
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA: torch cannot run its x86 kernels here")
    cases = [  # (torch expression after torch.manual_seed(3), CLI arguments)
        ("torch.randint(-5, 1000, (777,))", ("--dist", "randint", "--low", -5, "--high", 1000, "--count", 777)),
        ("torch.randint(0, 2**40, (77,))", ("--dist", "randint", "--high", 2 ** 40, "--count", 77)),
        ("torch.randint(-5, 9, (77,), dtype=torch.int32)",
         ("--dist", "randint", "--low", -5, "--high", 9, "--dtype", "i32", "--count", 77)),
        ("torch.randperm(1000)", ("--dist", "perm", "--n", 1000)),
        ("torch.randperm(1000)", ("--dist", "randperm", "--n", 1000, "--count", 1000)),
        ("torch.empty(55, dtype=torch.int64).bernoulli_(0.3)", ("--dist", "bernoulli", "--p", 0.3, "--dtype", "i64",
                                                                 "--count", 55)),
        ("torch.empty(55, dtype=torch.bool).bernoulli_(0.3)", ("--dist", "bernoulli", "--p", 0.3, "--dtype", "u8",
                                                                "--count", 55)),
        ("torch.empty(55, dtype=torch.int64).geometric_(0.3)", ("--dist", "geometric", "--p", 0.3, "--dtype", "i64",
                                                                 "--count", 55)),
    ]
    for tname, name in (("float32", "f32"), ("float64", "f64"), ("float16", "f16"), ("bfloat16", "bf16")):
        e = f"torch.empty(555, dtype=torch.{tname})"
        cases += [
            (f"{e}.bernoulli_(0.3)", ("--dist", "bernoulli", "--p", 0.3, "--dtype", name, "--count", 555)),
            (f"{e}.geometric_(0.3)", ("--dist", "geometric", "--p", 0.3, "--dtype", name, "--count", 555)),
            (f"{e}.log_normal_(0.1, 0.3)", ("--dist", "log_normal", "--mean", 0.1, "--std", 0.3, "--dtype", name,
                                            "--count", 555)),
            (f"{e}.normal_(0.1, 0.3)", ("--dist", "normal", "--mean", 0.1, "--std", 0.3, "--dtype", name,
                                        "--count", 555)),
            (f"{e}.exponential_(2.0)", ("--dist", "exponential", "--rate", 2, "--dtype", name, "--count", 555)),
        ]
    code = ("import hashlib, torch\nfor e in %r:\n    torch.manual_seed(3); t = eval(e)\n"
            "    b = t.numpy().tobytes() if t.dtype == torch.bool else t.view(torch.uint8).numpy().tobytes()\n"
            "    print(hashlib.sha256(b).hexdigest())\n" % [c[0] for c in cases])
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for (expr, args), want in zip(cases, r.stdout.split()):
        assert cli.fingerprint("--stream", stream, "--seed", 3, *args) == want, expr
    for bad, msg in ((("--dist", "bernoulli", "--count", 4), "--p is required for --dist bernoulli"),
                     (("--dist", "geometric", "--p", "x", "--count", 4), "--p: expected a number, got 'x'"),
                     (("--dist", "geometric", "--p", 1.5, "--count", 4), "--dist geometric: p must be in (0, 1)"),
                     (("--dist", "randint", "--low", 3, "--high", 3, "--count", 4),
                      "--dist randint: high must exceed low"),
                     (("--dist", "perm", "--n", 5, "--count", 4), "--count: a torch randperm is drawn whole")):
        r = subprocess.run([cli.path, "gen", "--stream", stream, *map(str, bad)], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode != 0 and r.stderr.startswith("xrng: error: " + msg) and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_gamma_dirichlet_poisson_binomial_through_the_api_equal_torch(dt):
    """xrng.gamma / dirichlet / poisson / binomial with a torch_cpu generator give
    torch's CPU kernels' values and advance (SPEC.md 14.4, 14.5), for a
    transposed alpha, broadcast binomial parameters, and with torch's
    gradient of the gamma and Dirichlet samples."""
    alpha = torch.rand(6, 3, dtype=dt, generator=torch.Generator().manual_seed(99)) * 3 + 0.05
    count, prob = torch.tensor([[5.0], [40.0]], dtype=dt), torch.tensor([0.1, 0.5, 0.95], dtype=dt)
    for seed in (0, 5):
        g, x = torch.Generator().manual_seed(seed), xrng.torch_cpu(seed)
        want = [torch._standard_gamma(alpha, generator=g), torch._standard_gamma(alpha.t(), generator=g),
                torch._sample_dirichlet(alpha, generator=g), torch.poisson(alpha * 10, generator=g),
                torch.binomial(count.expand(2, 3).contiguous(), prob.expand(2, 3).contiguous(), generator=g)]
        got = [xrng.gamma(alpha, generator=x), xrng.gamma(alpha.t(), generator=x), xrng.dirichlet(alpha, generator=x),
               xrng.poisson(alpha * 10, generator=x), xrng.binomial(count, prob, generator=x)]
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and torch.equal(a, b)
        assert torch.equal(x.state, g.get_state())
    a1, a2 = alpha.clone().requires_grad_(), alpha.clone().requires_grad_()
    g, x = torch.Generator().manual_seed(3), xrng.torch_cpu(3)
    (torch._standard_gamma(a1, generator=g) * torch.arange(3, dtype=dt)).sum().backward()
    (xrng.gamma(a2, generator=x) * torch.arange(3, dtype=dt)).sum().backward()
    assert torch.equal(a1.grad, a2.grad)
    a1.grad = a2.grad = None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(3)
        want = torch.distributions.Dirichlet(a1).rsample()  # torch's global generator
    got = xrng.dirichlet(a2, generator=xrng.torch_cpu(3))
    assert torch.equal(got, want)
    (want * torch.arange(3, dtype=dt)).sum().backward()
    (got * torch.arange(3, dtype=dt)).sum().backward()
    assert torch.equal(a1.grad, a2.grad)


def test_gamma_family_one_call_path_equals_the_general_path():
    """xrng.gamma / dirichlet / poisson / binomial with a torch_cpu generator
    take one C++ call (_torch_cpu_param) for contiguous CPU parameters that
    need no grad; a generator of a subclass takes the general Python path
    (_torch_cpu.tensor_param). Both give torch's values and advance; what
    the one call refuses gives the general path's error, the state unchanged."""

    class Sub(xrng._torch_cpu.TorchCPUGenerator):
        pass

    gen = torch.Generator().manual_seed(7)
    for dt in (torch.float32, torch.float64):
        alpha = torch.rand(5, 4, dtype=dt, generator=gen) * 4 + 0.01
        count, prob = torch.full((5, 4), 30.0, dtype=dt), torch.rand(5, 4, dtype=dt, generator=gen)
        calls = [("gamma", (alpha,)), ("dirichlet", (alpha,)), ("poisson", (alpha * 7,)),
                 ("binomial", (count, prob))]
        for what, params in calls:
            one, general, g = xrng.torch_cpu(11), Sub(11), torch.Generator().manual_seed(11)
            a = getattr(xrng, what)(*params, generator=one)
            b = getattr(xrng, what)(*params, generator=general)
            want = {"gamma": torch._standard_gamma, "dirichlet": torch._sample_dirichlet, "poisson": torch.poisson,
                    "binomial": torch.binomial}[what](*params, generator=g)
            assert torch.equal(a, want) and torch.equal(b, want), (what, dt)
            assert torch.equal(one.state, g.get_state()) and torch.equal(general.state, g.get_state())
    one_call = xrng._gamma._param
    assert one_call(xrng.torch_cpu(0), "gamma", alpha) is not NotImplemented  # the C++ call taken
    assert one_call(xrng.torch_cpu(0), "gamma", alpha.t()) is NotImplemented
    rate16 = torch.tensor([0.5, 3.0, 40.0], dtype=torch.float16)
    one, g = xrng.torch_cpu(2), torch.Generator().manual_seed(2)
    assert torch.equal(xrng.poisson(rate16, generator=one), torch.poisson(rate16, generator=g))
    assert torch.equal(one.state, g.get_state())
    refused = [(lambda x: xrng.poisson(torch.tensor([1.0, -1.0]), generator=x), ValueError, "non-negative"),
               (lambda x: xrng.gamma(rate16, generator=x), NotImplementedError, "not implemented for 'Half'"),
               (lambda x: xrng.dirichlet(torch.tensor(2.0), generator=x), ValueError, "at least one dimension"),
               (lambda x: xrng.binomial(torch.ones(3), torch.ones(3, dtype=torch.float64), generator=x), ValueError,
                "expected")]
    for call, err, msg in refused:
        x = xrng.torch_cpu(4)
        before = x.state.clone()
        with pytest.raises(err, match=msg):
            call(x)
        assert torch.equal(x.state, before), msg
    # broadcast binomial parameters, a parameter that needs grad, out=: the general path
    x, g = xrng.torch_cpu(9), torch.Generator().manual_seed(9)
    c, p = torch.tensor([[3.0], [50.0]]), torch.tensor([0.2, 0.7]).requires_grad_()
    got = xrng.binomial(c, p, generator=x)
    assert torch.equal(got, torch.binomial(c.expand(2, 2).contiguous(), p.detach().expand(2, 2).contiguous(),
                                           generator=g))
    assert got.requires_grad
    out = torch.empty(2, 2)
    xrng.poisson(c.expand(2, 2).contiguous(), generator=x, out=out)
    assert torch.equal(out, torch.poisson(c.expand(2, 2).contiguous(), generator=g))
    assert torch.equal(x.state, g.get_state())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_dropout_one_call_path_equals_torch_with_gradient(dtype):
    """xrng.dropout with a torch_cpu generator takes one C++ call
    (_torch_cpu_dropout) for a contiguous CPU input and p in (0, 1); a
    subclass's generator takes the general Python path. Both equal torch's
    F.dropout (values, state, gradient), out of place and in place."""

    class Sub(xrng._torch_cpu.TorchCPUGenerator):
        pass

    x = torch.linspace(-2, 2, 96, dtype=torch.float32).to(dtype).reshape(8, 12)
    for p, inplace in ((0.1, False), (0.5, True), (0.9, False)):
        torch.manual_seed(5)
        xt = x.clone().requires_grad_()
        want = torch.nn.functional.dropout(xt * 1, p, training=True, inplace=inplace)
        want.sum().backward()
        state = torch.get_rng_state()
        for gen in (xrng.torch_cpu(5), Sub(5)):
            xg = x.clone().requires_grad_()
            got = xrng.dropout(xg * 1, p, inplace=inplace, generator=gen)
            got.sum().backward()
            assert got.dtype == dtype and torch.equal(got.detach(), want.detach()), (p, inplace, type(gen))
            assert torch.equal(xg.grad, xt.grad) and torch.equal(gen.state, state), (p, inplace, type(gen))
    assert xrng._torch_cpu._dropout(xrng.torch_cpu(0), x, 0.5, True, False) is not NotImplemented  # the C++ call
    assert xrng._torch_cpu._dropout(xrng.torch_cpu(0), x.t(), 0.5, True, False) is NotImplemented
    # an int p, a non-contiguous input, p = 0 and training=False: the same as torch, the general path where needed
    torch.manual_seed(6)
    want = [torch.nn.functional.dropout(x, 0, training=True), torch.nn.functional.dropout(x.t(), 0.3)]
    g = xrng.torch_cpu(6)
    got = [xrng.dropout(x, 0, generator=g), xrng.dropout(x.t(), 0.3, generator=g)]
    assert all(torch.equal(a, b) for a, b in zip(got, want)) and torch.equal(g.state, torch.get_rng_state())
    before = g.state.clone()
    with pytest.raises(ValueError, match="between 0 and 1"):
        xrng.dropout(x, 1.5, generator=g)
    assert xrng.dropout(x, 0.3, training=False, generator=g) is x and torch.equal(g.state, before)
