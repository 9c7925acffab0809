"""The reproducible mode's torch streams (issue 26, SPEC.md 8.5):
``xrng.reproducible(stream="torch-cpu-x86" | "torch-cpu-scalar" | "torch-cuda")``.

An unmodified program (PROGRAM below: manual_seed, the factories, the
in-place fills, bernoulli, multinomial, dropout, nn.init, an nn.Module, an
explicit generator, fork_rng, get/set_rng_state) runs under the mode in this
process, and with plain torch in subprocesses with ATEN_CPU_CAPABILITY=avx2
(torch's x86 normal kernel) and =default (its scalar kernel, what ARM runs):
"torch-cpu-x86" equals the first bit for bit, "torch-cpu-scalar" the second,
whichever kernel this process's torch would run, and so does the program on
another device (the xdev PrivateUse1 test backend: filled on the host). The
torch-cuda stream equals xrng.torch_cuda's values for the same calls.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import warnings

import pytest
import torch
import torch.nn.functional as F

import xrng

warnings.filterwarnings("ignore", message=".*torch.jit.script. is deprecated", category=FutureWarning)

PROGRAM = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F


def program(dev="cpu"):
    out = []
    torch.manual_seed(0)
    out += [torch.randn(3, device=dev), torch.randn(16, device=dev), torch.randn(1000, device=dev),
            torch.rand(7, device=dev), torch.rand(5, dtype=torch.float64, device=dev),
            torch.randn(40, dtype=torch.float64, device=dev), torch.randn(21, dtype=torch.float16, device=dev),
            torch.randn(5, 8, device=dev).t(),
            torch.randint(0, 10, (20,), device=dev), torch.randint(-2 ** 40, 2 ** 40, (5,), device=dev),
            torch.randint(3, 300, (9,), dtype=torch.int16, device=dev), torch.randperm(50, device=dev),
            torch.empty(40, device=dev).normal_(1.0, 2.0), torch.empty(33, device=dev).uniform_(-1, 3),
            torch.empty(20, device=dev).exponential_(0.5), torch.empty(6, 5, device=dev).t().normal_(),
            torch.empty(12, device=dev).geometric_(0.3), torch.empty(12, device=dev).log_normal_(0.5, 0.25),
            torch.empty(8, dtype=torch.int64, device=dev).random_(5, 17),
            torch.bernoulli(torch.rand(30, device=dev)), torch.empty(25, device=dev).bernoulli_(0.3),
            torch.multinomial(torch.tensor([0.1, 0.2, 0.7], device=dev), 10, replacement=True),
            torch.multinomial(torch.rand(10, device=dev), 4), torch.multinomial(torch.rand(3, 6, device=dev), 1),
            F.dropout(torch.ones(50, device=dev), 0.3), F.dropout(torch.ones(4, 6, device=dev), 0.5),
            torch.normal(torch.zeros(10, device=dev), torch.ones(10, device=dev)),
            torch.normal(2.0, torch.ones(7, device=dev)), torch.randn(3, 4, dtype=torch.complex64, device=dev),
            F.rrelu(torch.randn(30, device=dev), training=True),
            F.rrelu(torch.randn(5, 4, dtype=torch.float64, device=dev).t(), 0.1, 0.6, training=True),
            F.rrelu(torch.randn(9, dtype=torch.bfloat16, device=dev), training=True),
            # torch.distributions' draws: _standard_gamma, _sample_dirichlet, poisson, binomial
            torch.distributions.Gamma(torch.tensor([0.3, 1.0, 4.5], device=dev), 2.0).sample((3,)),
            torch.distributions.Beta(torch.tensor([0.5, 2.0], device=dev), 1.5).sample(),
            torch.distributions.Dirichlet(torch.rand(4, 6, dtype=torch.float64, device=dev) + 0.1).sample(),
            torch.distributions.StudentT(3.0).sample((5,)).to(dev), torch.poisson(torch.rand(12, device=dev) * 30),
            torch.poisson(torch.rand(7, dtype=torch.float16, device=dev) * 20),
            torch.distributions.Binomial(torch.tensor([10.0, 1000.0], device=dev),
                                         torch.tensor([0.3, 0.9], device=dev)).sample((4,))]
    w = torch.empty(8, 6, device=dev)
    nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    out.append(w.clone())
    nn.init.xavier_normal_(w)
    out.append(w.clone())
    nn.init.trunc_normal_(w, std=0.02)
    out.append(w.clone())
    m = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Dropout(0.2), nn.Linear(20, 3)).to(dev)
    out += [p.detach().clone() for p in m.parameters()]
    out.append(m(torch.randn(4, 10, device=dev)).detach())
    g = torch.Generator().manual_seed(7)
    out += [torch.randn(10, generator=g).to(dev), torch.randperm(12, generator=g).to(dev), g.get_state()]
    with torch.random.fork_rng(devices=[]):
        out.append(torch.randn(5, device=dev))
    out.append(torch.randn(5, device=dev))
    s = torch.get_rng_state()
    a = torch.randn(20, device=dev)
    torch.set_rng_state(s)
    out += [a, torch.randn(20, device=dev)]
    out.append(torch.get_rng_state())
    return [t.cpu() for t in out]
'''
_NS: dict = {}
exec(compile(PROGRAM, "PROGRAM", "exec"), _NS)
program = _NS["program"]

TORCH_SIDE = PROGRAM + r'''
import sys
torch.save(program(), sys.argv[1])
'''


def _torch_values(capability: str) -> list:
    """PROGRAM's values from plain torch with ATEN_CPU_CAPABILITY=capability."""
    with tempfile.TemporaryDirectory() as d:
        path = str(pathlib.Path(d) / "v.pt")
        r = subprocess.run([sys.executable, "-c", TORCH_SIDE, path], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY=capability))
        assert r.returncode == 0, r.stderr
        return torch.load(path)


_CACHE: dict = {}


def torch_values(capability: str) -> list:
    if capability not in _CACHE:
        _CACHE[capability] = _torch_values(capability)
    return _CACHE[capability]


def _assert_equal(got, want, what):
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, (what, i, a.dtype, b.dtype, a.shape, b.shape)
        assert torch.equal(a.view(torch.uint8) if a.is_complex() else a, b.view(torch.uint8) if b.is_complex() else b), \
            (what, i, a, b)


@pytest.mark.slow
@pytest.mark.parametrize("stream,capability", [("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")])
def test_an_unmodified_program_gives_torchs_cpu_values(stream, capability):
    """PROGRAM under the mode equals plain torch on a CPU running that kernel,
    bit for bit, torch's generator state afterwards included; nothing reported."""
    with xrng.reproducible(stream=stream, strict=True) as m:
        got = program()
    assert m.reported == {}
    _assert_equal(got, torch_values(capability), stream)


@pytest.mark.slow
def test_the_x86_stream_does_not_depend_on_the_hosts_kernel():
    """The mode in a process whose torch runs the scalar kernel
    (ATEN_CPU_CAPABILITY=default, as on ARM) still gives the x86 values."""
    code = PROGRAM + r'''
import sys, xrng
with xrng.reproducible(stream="torch-cpu-x86", strict=True):
    v = program()
torch.save(v, sys.argv[1])
'''
    with tempfile.TemporaryDirectory() as d:
        path = str(pathlib.Path(d) / "v.pt")
        r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY="default"))
        assert r.returncode == 0, r.stderr
        got = torch.load(path)
    _assert_equal(got, torch_values("avx2"), "x86 under default")


@pytest.mark.slow
def test_another_device_gets_the_host_values(xdev):
    """On the xdev PrivateUse1 backend the same program gives the CPU's
    torch values: draws filled on the host from torch's CPU generator, its
    dropout (native_dropout there) made as the CPU's composite makes it."""
    with xrng.reproducible(stream="torch-cpu-x86", strict=True) as m:
        got = program("xdev")
    assert m.reported == {}
    _assert_equal(got, torch_values("avx2"), "xdev")


def test_the_state_is_torchs_generator():
    """Seeds, fork_rng and set_rng_state are torch's own; a seed= seeds the
    default CPU generator at entry; the generator ends where torch's would."""
    torch.manual_seed(11)
    want = [torch.randn(20), torch.randint(0, 5, (10,))]
    state = torch.get_rng_state()
    torch.manual_seed(123)  # replaced by seed=11 at entry
    with xrng.reproducible(seed=11, stream="torch-cpu-x86", strict=True):
        got = [torch.randn(20), torch.randint(0, 5, (10,))]
    assert all(torch.equal(a, b) for a, b in zip(got, want))
    assert torch.equal(torch.get_rng_state(), state)
    with xrng.reproducible(stream="torch-cpu-x86", strict=True):  # no seed: continues the generator
        x = torch.rand(9)
    torch.set_rng_state(state)
    assert torch.equal(x, xrng.rand(9, generator=xrng.torch_cpu(torch.default_generator)))


def test_a_non_reproduced_op_is_reported_by_name_and_stream():
    # one Dirichlet row of 32768 or more categories: torch sums it across its threads (SPEC.md 14.4)
    alpha = torch.ones(40000, dtype=torch.float64)
    with xrng.reproducible(stream="torch-cpu-x86", strict=True):
        with pytest.raises(xrng.NotReproducibleError, match=r"aten\._sample_dirichlet is not reproduced by the "
                                                              r"torch-cpu-x86 stream \(a single Dirichlet row"):
            torch._sample_dirichlet(alpha)
    torch.manual_seed(2)
    state = torch.get_rng_state()
    want = torch._sample_dirichlet(alpha)
    torch.set_rng_state(state)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with xrng.reproducible(stream="torch-cpu-scalar") as m:
            got = torch._sample_dirichlet(alpha)  # torch's own kernel, on torch's generator
    assert "aten._sample_dirichlet" in m.reported and "torch-cpu-scalar" in m.reported["aten._sample_dirichlet"]
    assert any("_sample_dirichlet" in str(x.message) for x in w)
    assert torch.equal(got, want)
    with xrng.reproducible(stream="torch-cuda", sm_count=132, strict=True):
        with pytest.raises(xrng.NotReproducibleError, match=r"multinomial.*torch-cuda \(132 SMs x 2048 threads\)"):
            torch.multinomial(torch.rand(4), 6, replacement=True)
        # what xrng.torch_cuda refuses, the mode reports
        with pytest.raises(xrng.NotReproducibleError, match=r"bernoulli.*torch-cuda.*non-contiguous"):
            torch.empty(5, 4).t().bernoulli_(torch.rand(4, 5))


CAUCHY = r'''
import torch


def cauchy_program():
    torch.manual_seed(4)
    out = [torch.empty(37).cauchy_(1.5, 0.5), torch.empty(23, dtype=torch.float64).cauchy_(),
           torch.empty(40, dtype=torch.float16).cauchy_(-2.0, 3.0), torch.empty(19, dtype=torch.bfloat16).cauchy_(),
           torch.empty(6, 5).t().cauchy_(0.0, 2.0), torch.empty(4, 7, dtype=torch.float64).t().cauchy_(1.0, 0.25)]
    return out + [torch.get_rng_state()]
'''
_CAUCHY_NS: dict = {}
exec(compile(CAUCHY, "CAUCHY", "exec"), _CAUCHY_NS)


@pytest.mark.slow
@pytest.mark.parametrize("stream,capability", [("torch-cpu-x86", "avx2"), ("torch-cpu-scalar", "default")])
def test_cauchy_gives_torchs_cpu_values(stream, capability):
    """cauchy_ under the torch-cpu streams (float32/64/16, bfloat16, transposed
    views) equals plain torch on a CPU running that kernel, generator state
    included; nothing reported."""
    with tempfile.TemporaryDirectory() as d:
        path = str(pathlib.Path(d) / "c.pt")
        r = subprocess.run([sys.executable, "-c", CAUCHY + "\nimport sys\ntorch.save(cauchy_program(), sys.argv[1])\n",
                            path], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY=capability))
        assert r.returncode == 0, r.stderr
        want = torch.load(path)
    with xrng.reproducible(stream=stream, strict=True) as m:
        got = _CAUCHY_NS["cauchy_program"]()
    assert m.reported == {}
    _assert_equal(got, want, stream + " cauchy_")


@pytest.mark.parametrize("sm_count", [40, 132])
def test_torch_cuda_serves_log_normal_geometric_cauchy_and_tensor_p_bernoulli(sm_count):
    """log_normal_, geometric_, cauchy_ and bernoulli with a tensor p under
    stream="torch-cuda" give xrng.torch_cuda's values for the same seed and
    GPU, and the philox offset continues after them (the following draws
    equal xrng.torch_cuda's next ones)."""
    p = torch.rand(3, 50)
    p64 = torch.rand(70, dtype=torch.float64)
    with xrng.reproducible(stream="torch-cuda", sm_count=sm_count, strict=True) as m:
        torch.manual_seed(9)
        got = [torch.empty(300).log_normal_(0.5, 0.25), torch.empty(31, dtype=torch.float64).log_normal_(),
               torch.empty(300_000, dtype=torch.float16).log_normal_(), torch.rand(5),
               torch.empty(100).geometric_(0.3), torch.empty(45, dtype=torch.float64).geometric_(0.05),
               torch.empty(64, dtype=torch.int64).geometric_(0.6), torch.rand(5),
               torch.empty(200).cauchy_(1.5, 0.5), torch.empty(29, dtype=torch.float64).cauchy_(),
               torch.empty(6, 5, dtype=torch.bfloat16).t().cauchy_(-1.0, 2.0), torch.rand(5),
               torch.bernoulli(p), torch.bernoulli(p64), torch.empty(4, 3, 50, dtype=torch.float16).bernoulli_(p),
               torch.bernoulli(p, out=torch.empty(0, dtype=torch.bool)),
               torch.empty(70, dtype=torch.float64).bernoulli_(p64), torch.rand(7), torch.randn(3)]
    assert m.reported == {}
    g = xrng.torch_cuda(9, sm_count=sm_count)
    want = [xrng.log_normal_(torch.empty(300), 0.5, 0.25, generator=g),
            xrng.log_normal_(torch.empty(31, dtype=torch.float64), generator=g),
            xrng.log_normal_(torch.empty(300_000, dtype=torch.float16), generator=g), xrng.rand(5, generator=g),
            xrng.geometric_(torch.empty(100), 0.3, generator=g),
            xrng.geometric_(torch.empty(45, dtype=torch.float64), 0.05, generator=g),
            xrng.geometric_(torch.empty(64, dtype=torch.int64), 0.6, generator=g), xrng.rand(5, generator=g),
            xrng.cauchy_(torch.empty(200), 1.5, 0.5, generator=g),
            xrng.cauchy_(torch.empty(29, dtype=torch.float64), generator=g),
            xrng.cauchy_(torch.empty(6, 5, dtype=torch.bfloat16).t(), -1.0, 2.0, generator=g),
            xrng.rand(5, generator=g),
            xrng.bernoulli_(torch.empty(3, 50), p, generator=g),
            xrng.bernoulli_(torch.empty(70, dtype=torch.float64), p64, generator=g),
            xrng.bernoulli_(torch.empty(4, 3, 50, dtype=torch.float16), p, generator=g),
            xrng.bernoulli_(torch.empty(3, 50, dtype=torch.bool), p, generator=g),
            xrng.bernoulli_(torch.empty(70, dtype=torch.float64), p64, generator=g),
            xrng.rand(7, generator=g), xrng.randn(3, generator=g)]
    for i, (u, v) in enumerate(zip(got, want)):
        assert u.dtype == v.dtype and u.shape == v.shape and torch.equal(u, v), i


@pytest.mark.parametrize("sm_count", [40, 132])
def test_torch_cuda_equals_xrng_torch_cuda(sm_count):
    """Under stream="torch-cuda", CPU draws give xrng.torch_cuda's values (what
    a GPU of that many SMs draws) for the same calls, the offset advancing
    from one call to the next; manual_seed and fork_rng restart / restore it."""
    x = torch.randn(1000)
    with xrng.reproducible(stream="torch-cuda", sm_count=sm_count, strict=True) as m:
        assert m.stream == f"torch-cuda:{sm_count}:2048"
        torch.manual_seed(5)
        got = [torch.randn(1000), torch.rand(300_000), torch.randint(0, 10, (50,)), torch.randperm(100),
               torch.empty(20).exponential_(), torch.empty(64).bernoulli_(0.3), torch.randn(7, dtype=torch.float64),
               torch.native_dropout(x, 0.3, True)[0], torch.empty(4, 5).t().uniform_(-1, 1),
               torch.empty(30, dtype=torch.int64).random_(), torch.empty(30, dtype=torch.float16).random_(),
               torch.randint(0, 2, (30,), dtype=torch.bool)]
        with torch.random.fork_rng(devices=[]):
            a = torch.randn(10)
        b = torch.randn(10)
        torch.manual_seed(5)
        again = torch.randn(1000)
    g = xrng.torch_cuda(5, sm_count=sm_count)
    want = [xrng.randn(1000, generator=g), xrng.rand(300_000, generator=g), xrng.randint(0, 10, (50,), generator=g),
            xrng.randperm(100, generator=g), xrng.exponential_(torch.empty(20), generator=g),
            xrng.bernoulli(64, p=0.3, generator=g, dtype=torch.float32), xrng.randn(7, generator=g, dtype=torch.float64),
            xrng.dropout(x, 0.3, generator=g), xrng.uniform_(torch.empty(4, 5).t(), -1, 1, generator=g),
            xrng.random_(torch.empty(30, dtype=torch.int64), generator=g),
            xrng.random_(torch.empty(30, dtype=torch.float16), generator=g),
            xrng.randint(0, 2, (30,), dtype=torch.bool, generator=g)]
    for i, (u, v) in enumerate(zip(got, want)):
        assert torch.equal(u, v), i
    assert torch.equal(a, b) and torch.equal(a, xrng.randn(10, generator=g))
    assert torch.equal(again, got[0])



@pytest.mark.parametrize("sm_count", [40, 132])
def test_torch_cuda_multinomial_with_replacement_equals_xrng_torch_cuda(sm_count):
    """torch.multinomial(..., n > 1, replacement=True) of two or more rows under
    stream="torch-cuda" is torch's CUDA kernel as xrng.torch_cuda models it
    (every dtype, the out= form, a 3-row batch of float16), and the offset
    continues after it; one row whose prefix sums are not exact stays reported."""
    w32, w64 = torch.rand(3, 17), torch.rand(2, 1000, dtype=torch.float64)
    w16 = torch.rand(4, 9).to(torch.float16)
    with xrng.reproducible(stream="torch-cuda", sm_count=sm_count, strict=True) as m:
        torch.manual_seed(11)
        got = [torch.multinomial(w32, 40, replacement=True), torch.rand(3),
               torch.multinomial(w64, 5, True), torch.multinomial(w16, 300, True),
               torch.multinomial(w32, 7, True, out=torch.empty(0, dtype=torch.long)), torch.randn(4)]
    assert m.reported == {}
    g = xrng.torch_cuda(11, sm_count=sm_count)
    want = [xrng.multinomial(w32, 40, replacement=True, generator=g), xrng.rand(3, generator=g),
            xrng.multinomial(w64, 5, replacement=True, generator=g),
            xrng.multinomial(w16, 300, replacement=True, generator=g),
            xrng.multinomial(w32, 7, replacement=True, generator=g), xrng.randn(4, generator=g)]
    for i, (u, v) in enumerate(zip(got, want)):
        assert u.dtype == v.dtype and u.shape == v.shape and torch.equal(u, v), i


def test_stream_argument():
    assert xrng.reproducible(stream="torch-cuda", profile="h100-sxm").stream == "torch-cuda:132:2048"
    assert xrng.reproducible(stream="torch-cuda:58:1536").stream == "torch-cuda:58:1536"
    assert xrng.reproducible(stream="torch-cpu-scalar").stream == "torch-cpu-scalar"
    assert xrng.reproducible(stream=1).stream == 1
    with pytest.raises(ValueError, match="stream must be"):
        xrng.reproducible(stream="torch-gpu")
    with pytest.raises(TypeError, match="go with stream='torch-cuda'"):
        xrng.reproducible(stream="torch-cpu-x86", sm_count=3)
    with pytest.raises(TypeError, match="sm_count"):
        xrng.reproducible(stream="torch-cuda")
    with xrng.reproducible(stream="torch-cpu-x86") as m:
        with pytest.raises(RuntimeError, match="do not nest"):
            with xrng.reproducible(stream=2):
                pass
        with pytest.raises(RuntimeError, match="no xrng position"):
            m.global_position()
        with xrng.reproducible(stream="torch-cpu-x86"):  # the same kind nests
            torch.randn(3)


def test_torch_cuda_with_a_generator_and_then_xrngs_stream():
    """A torch.Generator under torch-cuda draws from (its seed, offset 0); a
    later mode on xrng's streams does not take over its torch-cuda position."""
    g = torch.Generator().manual_seed(3)
    with xrng.reproducible(stream="torch-cuda", sm_count=40, strict=True):
        a = torch.randn(5, generator=g)
        b = torch.rand(6, generator=g)
    tg = xrng.torch_cuda(3, sm_count=40)
    assert torch.equal(a, xrng.randn(5, generator=tg)) and torch.equal(b, xrng.rand(6, generator=tg))
    with xrng.reproducible(seed=0, strict=True):
        c = torch.randn(5, generator=g)
    assert torch.equal(c, xrng.randn(5, generator=xrng.reproducible.generator_for(3)))


def _calls():
    """Calls whose torch CPU values do not depend on the CPU's kernel, or
    (normals) are x86's on an x86-64 host: this process's own torch is the
    reference for "torch-cpu-x86" here."""
    return [
        lambda: torch.empty(40, dtype=torch.int8).random_(-3, None),   # random_(from), to = the dtype's max
        lambda: torch.empty(40, dtype=torch.uint8).random_(7, None),
        lambda: torch.empty(40, dtype=torch.float32).random_(-5, None),  # floats: to = 2^24
        lambda: torch.empty(40, dtype=torch.float16).random_(2, None),
        lambda: torch.empty(40, dtype=torch.bfloat16).random_(0, 100),
        lambda: torch.empty(30, dtype=torch.int64).random_(2 ** 40),   # random_(to)
        lambda: torch.empty(30, dtype=torch.float64).random_(-2 ** 52, 2 ** 52),
        # random_() without a range (issue 26): every dtype torch draws it for
        *[lambda dt=dt: torch.empty(25, dtype=dt).random_() for dt in (
            torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
            torch.int32, torch.int64, torch.bool)],
        lambda: torch.empty(5, 6, dtype=torch.int16).t().random_(),
        # random_(from, to) / randint into bool and the unsigned dtypes; random_(from) into bool, uint16/32
        lambda: torch.randint(0, 2, (30,), dtype=torch.bool), lambda: torch.empty(20, dtype=torch.bool).random_(0, None),
        lambda: torch.randint(1, 60000, (20,), dtype=torch.uint16),
        lambda: torch.empty(20, dtype=torch.uint32).random_(9, None),
        lambda: torch.randint(0, 2 ** 62, (20,), dtype=torch.uint64),
        lambda: torch.randperm(300, dtype=torch.float32), lambda: torch.randperm(70, dtype=torch.int16),
        lambda: torch.randperm(100, dtype=torch.int8), lambda: torch.randperm(700, dtype=torch.bfloat16),  # rounds
        lambda: torch.bernoulli(torch.rand(20, dtype=torch.float64)),
        lambda: torch.empty(4, 5, dtype=torch.float16).bernoulli_(torch.rand(5)),
        lambda: torch.multinomial(torch.rand(2, 9), 20, replacement=True, out=torch.empty(0, dtype=torch.long)),
        lambda: torch.multinomial(torch.rand(5, dtype=torch.float64), 5),
        lambda: torch.normal(torch.ones(6, 3), 0.5), lambda: torch.normal(torch.ones(3), torch.ones(5, 1)),
        lambda: torch.empty(3, 7, dtype=torch.complex128).uniform_(), lambda: torch.randn(9, dtype=torch.complex64),
        lambda: torch.empty(6, 4, dtype=torch.float64).t().exponential_(2.0),
        lambda: torch.empty(33, dtype=torch.bfloat16).log_normal_(), lambda: torch.empty(17).uniform_(2.0, 2.0),
        lambda: torch.rand(0), lambda: torch.randn(15), lambda: torch.randn(2, 3, 4).permute(2, 0, 1).normal_(),
        lambda: torch.dropout(torch.ones(3, 8), 0.25, True), lambda: torch.nn.functional.alpha_dropout(
            torch.ones(40), 0.2, True), lambda: torch.nn.functional.dropout2d(torch.ones(2, 3, 4, 4), 0.5),
        lambda: torch.nn.functional.scaled_dot_product_attention(*[torch.ones(1, 2, 4, 8)] * 3, dropout_p=0.3),
        # rrelu in training: one uniform per element <= 0 (in-place, out= with its noise, double, bfloat16)
        lambda: F.rrelu_(torch.randn(40, dtype=torch.float64), 0.2, 0.7, training=True),
        lambda: _rrelu_out(torch.randn(6, 5).t()), lambda: F.rrelu(torch.zeros(8, dtype=torch.bfloat16), training=True),
        lambda: F.rrelu(torch.randn(10), training=False),  # leaky_relu: no draw
    ]


def _rrelu_out(x):
    noise, out = torch.empty(x.shape), torch.empty(x.shape)  # (torch does not resize out: it writes numel values)
    torch.ops.aten.rrelu_with_noise.out(x, noise, 0.125, 0.5, True, out=out)
    return torch.stack([out, noise])


def test_a_sweep_of_calls_equals_this_hosts_torch():
    torch.manual_seed(21)
    want = [f() for f in _calls()] + [torch.get_rng_state()]
    with xrng.reproducible(seed=21, stream="torch-cpu-x86", strict=True) as m:
        got = [f() for f in _calls()] + [torch.get_rng_state()]
    assert m.reported == {}
    _assert_equal(got, want, "sweep")


def _torch_and_mode(run, seed: int):
    """run()'s values under reproducible(stream="torch-cpu-x86", strict=True)
    (nothing reported) and with plain torch, each after manual_seed(seed)."""
    torch.manual_seed(seed)
    want = run()
    with xrng.reproducible(seed=seed, stream="torch-cpu-x86", strict=True) as m:
        torch.manual_seed(seed)
        got = run()
    assert m.reported == {}
    return got, want


@torch.jit.script
def _scripted_fills(t: torch.Tensor, g: torch.Generator, n: int):
    out = []
    for _ in range(n):
        out.append(t.normal_(2.0, 3.0).clone())
        out.append(t.uniform_(-1.0, 2.0).clone())
        out.append(t.exponential_(1.5).clone())
        out.append(t.geometric_(0.3).clone())
        out.append(t.log_normal_(0.5, 0.25).clone())
        out.append(t.cauchy_(1.0, 2.0).clone())
        out.append(t.bernoulli_(0.3).clone())
        out.append(t.normal_(0.0, 1.0, generator=g).clone())
        out.append(t.random_(0, 200).clone())
        out.append(t.random_(7, generator=g).clone())
    return out


@torch.jit.script
def _scripted_randoms(t: torch.Tensor, g: torch.Generator, n: int, lo: int, hi: int):
    out = []
    for _ in range(n):
        out.append(t.random_().clone())
        out.append(t.random_(lo, hi).clone())
        out.append(t.random_(2).clone())
        out.append(t.random_(1, None, generator=g).clone())
    return out


def test_the_typed_fill_path_equals_torch():
    """The fill rows' and random_'s typed entries (Kernel::fill_typed,
    random_typed; torch_cpu_fill_fast, torch_cpu_random_fast: what Python's
    and TorchScript's t.normal_() & co. reach) give torch's values and state
    under torch-cpu-x86: every fill row, random_'s four forms, the dtypes, the
    default generator and an explicit one, sizes below and above 16 and past
    the mt19937 refills (624 words); an argument torch refuses raises
    torch's error and draws nothing; the general path (a non-contiguous
    tensor) follows from the same state."""
    def run():
        vals = []
        g = torch.Generator().manual_seed(3)
        for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            for n in (5, 16, 37, 700):
                vals += _scripted_fills(torch.empty(n, dtype=dt), g, 3)
        for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool):
            lo, hi = (0, 2) if dt == torch.bool else (3, 90)
            vals += _scripted_randoms(torch.empty(40, dtype=dt), g, 2, lo, hi)
        vals += _scripted_randoms(torch.empty(40, dtype=torch.float64), g, 2, -3, 90)
        with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
            torch.empty(4, dtype=torch.int64).random_(5, 2)
        with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
            torch.empty(8).uniform_(2.0, 1.0)
        vals.append(torch.empty(6, 5).t().normal_())
        return vals + [torch.get_rng_state(), g.get_state()]

    got, want = _torch_and_mode(run, 8)
    _assert_equal(got, want, "typed fills")


def _edge_calls():
    """randperm at every dtype's overflow and precision edges, multinomial's
    forms and errors: (description, call) pairs."""
    calls = []
    for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.float16, torch.bfloat16,
               torch.float32, torch.float64):
        for n in (1, 2, 10, 128, 129, 256, 257, 2049, 2050, 32768, 32769, 65505, 65506):
            calls.append((f"randperm({n}, {dt})", lambda n=n, dt=dt: torch.randperm(n, dtype=dt)))
    calls += [("multinomial empty rows", lambda: torch.multinomial(torch.rand(0, 5), 3, True)),
              ("multinomial 4x5 repl", lambda: torch.multinomial(torch.rand(4, 5), 3, True)),
              ("multinomial 1-d repl", lambda: torch.multinomial(torch.rand(5), 7, True)),
              ("multinomial one", lambda: torch.multinomial(torch.rand(5), 1)),
              ("multinomial strided repl", lambda: torch.multinomial(torch.rand(5, 3).t(), 4, True)),
              ("multinomial out resized", lambda: torch.multinomial(torch.rand(5, dtype=torch.float64), 3, True,
                                                                    out=torch.empty(0, dtype=torch.long))),
              ("multinomial no rows", lambda: torch.multinomial(torch.rand(0, 5), 2)),
              ("multinomial n = 0", lambda: torch.multinomial(torch.rand(5), 0)),
              ("multinomial float out", lambda: torch.multinomial(torch.rand(5), 3, True, out=torch.empty(3))),
              ("multinomial zero sum", lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 3, True))]
    return calls


def test_randperm_and_multinomial_edges_equal_torch():
    """Values, shapes and torch's errors (the same type and first line) of
    randperm at each dtype's edges and multinomial's forms, and the state."""
    def run():
        out = []
        for what, call in _edge_calls():
            try:
                r = call()
                out.append((what, r.dtype, tuple(r.shape), r.tolist()))
            except RuntimeError as e:
                out.append((what, str(e).splitlines()[0]))
        return out + [torch.get_rng_state()]

    got, want = _torch_and_mode(run, 5)
    for a, b in zip(got[:-1], want[:-1]):
        assert a == b
    assert torch.equal(got[-1], want[-1])


def test_torchs_errors_stay_torchs():
    with xrng.reproducible(stream="torch-cpu-x86", strict=True):
        with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
            torch.empty(4).normal_(0, -1)
        with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
            torch.empty(4).random_(5, 2)
        with pytest.raises(RuntimeError, match="n cannot be greater than 2049 for Half type"):
            torch.randperm(3000, dtype=torch.float16)
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
            torch.randperm(300, dtype=torch.int8)
        with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
            torch.multinomial(torch.rand(3), 5)


@pytest.mark.slow
def test_compiled_code_draws_torchs_eager_values():
    """Inside torch.compile (Inductor's fallback_random under the mode) the
    torch-cpu stream gives torch's eager values and generator state."""
    def f(x):
        return x * torch.randn(16) + F.dropout(x, 0.5) + torch.rand_like(x)
    x = torch.ones(16)
    with xrng.reproducible(stream="torch-cpu-x86", strict=True) as m:
        torch.manual_seed(0)
        a = torch.compile(f)(x)
        sa = torch.get_rng_state()
    torch.manual_seed(0)
    b = f(x)
    assert m.reported == {} and torch.equal(a, b) and torch.equal(sa, torch.get_rng_state())
