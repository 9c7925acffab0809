"""multinomial, the gamma family, Poisson and binomial inside torch.compile'd
regions under the reproducible mode (issues 16 and 20): torch.multinomial /
Tensor.multinomial, torch._standard_gamma, torch._sample_dirichlet,
torch.poisson and torch.binomial (so Categorical, Gamma, Beta, Dirichlet,
Chi2, StudentT, Poisson, Binomial in torch.distributions) compile to calls of
torch's aten operators (Inductor's fallback_random, which the mode turns on),
which the mode's kernels serve: eager's words from eager's position (with generator= too),
so the compiled program's samples equal the eager program's bit for bit,
call after call, with Inductor and with aot_eager, and gradients through
rsample are torch's formulas on the same samples."""
import time

import pytest
import torch
import torch._dynamo
from torch.distributions import Beta, Binomial, Categorical, Chi2, Dirichlet, Gamma, Poisson, StudentT

import xrng

# generator= breaks the graph (Dynamo cannot put a torch.Generator in one):
# those calls run eagerly, drawn by the mode's kernels (same values)
@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _sample(w, a, g):
    return (torch.multinomial(w, 3, True), w.multinomial(2), torch.multinomial(w, 2, generator=g),
            torch._standard_gamma(a), torch._sample_dirichlet(a), torch.poisson(a * 10, generator=g),
            Gamma(a, torch.ones(3)).sample((2,)), Beta(a[0], a[1]).sample(), Dirichlet(a).sample(),
            Chi2(a).sample(), StudentT(a).sample(), Poisson(a).sample(), Categorical(probs=w).sample((4,)),
            torch.binomial(torch.tensor([5.0, 20.0, 100.0]), w, generator=g),
            Binomial(torch.tensor([30.0]), torch.tensor([0.4])).sample((3,)))


def _run(fn):
    out = []
    # check_dispatch=False: under a dispatch mode (strict=True's default) Dynamo compiles nothing
    with xrng.reproducible(seed=0, strict=True, check_dispatch=False):
        g = torch.Generator().manual_seed(5)
        for _ in range(2):
            out += fn(torch.tensor([0.1, 0.5, 0.4]), torch.tensor([0.5, 2.0, 9.0]), g)
    return out


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_sampling_compiled_equals_eager(backend):
    eager = _run(_sample)
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    t0 = time.perf_counter()
    compiled = _run(torch.compile(_sample, backend=backend))
    secs = time.perf_counter() - t0
    assert len(eager) == len(compiled) == 30
    assert all(torch.equal(a, b) for a, b in zip(eager, compiled))
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] - graphs >= 1  # it was compiled
    print(f"sampling compiled ({backend}): {secs:.1f} s")


def test_rsample_gradients_compiled():
    def f(c, b):
        return Gamma(c, torch.ones(2)).rsample().sum() + Beta(b, torch.tensor([2.0])).rsample().sum()

    def run(fn):
        with xrng.reproducible(seed=1, strict=True, check_dispatch=False):
            c = torch.tensor([1.5, 2.5], requires_grad=True)
            b = torch.tensor([0.7], requires_grad=True)
            y = fn(c, b)
            y.backward()
            return y.detach(), c.grad, b.grad

    e, c = run(f), run(torch.compile(f, fullgraph=True, backend="aot_eager"))
    assert all(torch.equal(x, y) for x, y in zip(e, c))
