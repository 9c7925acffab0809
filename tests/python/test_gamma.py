"""The gamma family, Poisson and binomial (issue 20; SPEC.md sections 11-13):
xrng.gamma, xrng.dirichlet, xrng.poisson and xrng.binomial (torch.ops.xrng.gamma
/ dirichlet / poisson_counts / binomial_counts) against the committed known
answers; their distributions (Kolmogorov-Smirnov against scipy's exact CDFs,
chi-square for Poisson and binomial);
gradients (torch's reparameterisation); the word layout, generators, errors,
dtypes, threads, FakeTensor, torch.compile, the xdev test device; and the
reproducible mode with the real clients (torch.distributions Gamma, Beta,
Dirichlet, Chi2, StudentT, Poisson, Binomial; torchvision transforms v2 MixUp and CutMix) at 1
and 2 threads, following the mode's seed, not torch's."""
import contextlib
import pathlib

import pytest
import torch

import xrng
from conftest import same_bits

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "data" / "golden_v2_gamma.txt"
G = xrng.reproducible.global_generator
DT = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
BITS = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


@contextlib.contextmanager
def threads(n):
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def bits_of(t):
    w = 8 * t.element_size()
    return [int(v) % 2**w for v in t.contiguous().view(BITS[t.dtype]).reshape(-1).tolist()]


def golden_cases():
    cases = []
    for line in GOLDEN.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        tok = dict(t.split("=", 1) for t in line.split())
        cases.append(dict(op=tok["op"], seed=int(tok["seed"], 16), subseq=int(tok["subseq"], 16),
                          offset=int(tok["offset"], 16), rows=int(tok["rows"]), k=int(tok["k"]), dtype=DT[tok["dtype"]],
                          alpha=[float.fromhex(x) for x in tok["alpha"].split(",")],
                          prob=[float.fromhex(x) for x in tok["prob"].split(",")] if "prob" in tok else None,
                          out=[int(x, 16) for x in tok["out"].split(",")]))
    return cases


CASES = golden_cases()


def _alpha(c, device="cpu"):
    a = torch.tensor(c["alpha"], dtype=torch.float64)
    return (a if c["op"] != "dirichlet" else a.reshape(c["rows"], c["k"])).to(c["dtype"]).to(device)


def _golden_draw(c, a, **kw):
    if c["op"] == "binomial":
        return xrng.binomial(a, torch.tensor(c["prob"], dtype=torch.float64).to(c["dtype"]).to(a.device), **kw)
    return {"gamma": xrng.gamma, "dirichlet": xrng.dirichlet, "poisson": xrng.poisson}[c["op"]](a, **kw)


def test_golden_file_covers_every_op_and_every_dtype():
    assert {c["op"] for c in CASES} == {"gamma", "dirichlet", "poisson", "binomial"}
    assert {c["dtype"] for c in CASES} == set(DT.values())


@pytest.mark.parametrize("i", range(len(CASES)))
def test_golden_cases(i):
    c = CASES[i]
    a = _alpha(c)
    assert a.to(torch.float64).reshape(-1).tolist() == c["alpha"]  # every alpha is a value of the dtype
    got = _golden_draw(c, a, seed=c["seed"], subseq=c["subseq"], offset=c["offset"])
    assert got.dtype == c["dtype"] and got.shape == a.shape
    assert bits_of(got) == c["out"]


# ---- distributions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.02, 0.3, 0.999, 1.0, 2.5, 10.0, 400.0])
def test_gamma_kolmogorov_smirnov(alpha):
    scipy_stats = pytest.importorskip("scipy.stats")
    x = xrng.gamma(torch.full((40000,), alpha, dtype=torch.float64), seed=11).numpy()
    p = scipy_stats.kstest(x, scipy_stats.gamma(alpha).cdf).pvalue
    assert p > 1e-4, (alpha, p)
    assert (x >= 2.0**-1022).all()


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (2.0, 5.0), (0.05, 3.0)])
def test_dirichlet_marginal_is_beta(a, b):
    scipy_stats = pytest.importorskip("scipy.stats")
    alpha = torch.tensor([[a, b]], dtype=torch.float64).expand(30000, 2).contiguous()
    x = xrng.dirichlet(alpha, seed=12)
    assert torch.allclose(x.sum(-1), torch.ones(30000, dtype=torch.float64))
    p = scipy_stats.kstest(x[:, 0].numpy(), scipy_stats.beta(a, b).cdf).pvalue
    assert p > 1e-4, (a, b, p)


def test_float32_is_the_float64_variate_rounded():
    a = torch.tensor([1e-3, 0.2, 1.0, 7.0, 1e5]).double()  # float32 values
    g64 = xrng.gamma(a, seed=3)
    g32 = xrng.gamma(a.float(), seed=3)
    assert torch.equal(g32, g64.float().clamp_min(torch.finfo(torch.float32).tiny))


@pytest.mark.parametrize("rate", [0.3, 4.0, 9.99, 10.0, 25.0, 1000.0, 2.0**31])
def test_poisson_chi_square(rate):
    scipy_stats = pytest.importorskip("scipy.stats")
    import numpy as np
    n = 40000
    x = xrng.poisson(torch.full((n,), rate, dtype=torch.float64), seed=13).numpy()
    assert (x == np.floor(x)).all() and (x >= 0).all()
    dist = scipy_stats.poisson(rate)
    # bins of about equal probability (at least 5 expected counts each), in quantiles of the distribution
    edges = np.unique(dist.ppf(np.linspace(0, 1, 41)[1:-1]))
    bins = np.searchsorted(edges, x, side="right")  # bin i: edges[i-1] <= x < edges[i]
    observed = np.bincount(bins, minlength=len(edges) + 1)
    cdf = np.concatenate([[0.0], dist.cdf(edges - 1), [1.0]])  # P(x < edge) = cdf(edge - 1)
    expected = n * np.diff(cdf)
    keep = expected > 5
    assert keep.sum() >= 2
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    p = scipy_stats.chi2(int(keep.sum()) - 1).sf(chi2)
    assert p > 1e-4, (rate, p)


def test_poisson_words_errors_and_zero_gradient():
    r = torch.linspace(0.0, 60.0, 50, dtype=torch.float64)
    assert same_bits(xrng.poisson(r, seed=5, offset=3)[17:31], xrng.poisson(r[17:31], seed=5, offset=3 + 64 * 17))
    assert torch.equal(xrng.poisson(torch.zeros(4), seed=1), torch.zeros(4))
    with pytest.raises(ValueError, match=r"^poisson: rate must be >= 0 and <= 2\^32, got -1 at element 1$"):
        xrng.poisson(torch.tensor([1.0, -1.0]), seed=0)
    g = xrng.Generator(2)
    with pytest.raises(ValueError):
        xrng.poisson(torch.tensor([float("nan")]), generator=g)
    assert g.offset == 0
    rate = torch.tensor([3.0, 30.0], requires_grad=True)
    y = xrng.poisson(rate, seed=1)
    assert y.grad_fn is not None
    y.sum().backward()
    assert torch.equal(rate.grad, torch.zeros(2))


@pytest.mark.parametrize("n,p", [(5, 0.3), (19, 0.5), (20, 0.5), (40, 0.9), (1000, 0.01), (2**31, 0.3), (10**6, 0.999)])
def test_binomial_chi_square(n, p):
    scipy_stats = pytest.importorskip("scipy.stats")
    import numpy as np
    N = 40000
    x = xrng.binomial(torch.full((N,), float(n), dtype=torch.float64), torch.full((N,), p, dtype=torch.float64),
                      seed=14).numpy()
    assert (x == np.floor(x)).all() and (x >= 0).all() and (x <= n).all()
    dist = scipy_stats.binom(n, p)
    edges = np.unique(dist.ppf(np.linspace(0, 1, 41)[1:-1]))
    bins = np.searchsorted(edges, x, side="right")
    observed = np.bincount(bins, minlength=len(edges) + 1)
    cdf = np.concatenate([[0.0], dist.cdf(edges - 1), [1.0]])
    expected = N * np.diff(cdf)
    keep = expected > 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    pv = scipy_stats.chi2(int(keep.sum()) - 1).sf(chi2)
    assert pv > 1e-4, (n, p, pv)


def test_binomial_broadcast_errors_and_zero_gradients():
    c = torch.tensor([[10.0], [30.0]])
    pr = torch.tensor([0.2, 0.5, 0.9])
    y = xrng.binomial(c, pr, seed=3)
    assert y.shape == (2, 3) and y.dtype == torch.float32
    assert same_bits(y, xrng.binomial(c.expand(2, 3).contiguous(), pr.expand(2, 3).contiguous(), seed=3))
    with pytest.raises(ValueError, match="count must be an integer in"):
        xrng.binomial(torch.tensor([2.5]), torch.tensor([0.5]), seed=0)
    with pytest.raises(ValueError, match="do not broadcast"):
        xrng.binomial(torch.ones(2), torch.ones(3) / 2, seed=0)
    cc = torch.tensor([10.0, 40.0], requires_grad=True)
    pp = torch.tensor([0.3, 0.6], requires_grad=True)
    xrng.binomial(cc, pp, seed=1).sum().backward()
    assert torch.equal(cc.grad, torch.zeros(2)) and torch.equal(pp.grad, torch.zeros(2))


# ---- words, generators, errors ----------------------------------------------------------------------------
def test_each_element_reads_64_words_of_its_own():
    a = torch.linspace(0.1, 20.0, 50, dtype=torch.float64)
    full = xrng.gamma(a, seed=5, offset=3)
    part = xrng.gamma(a[17:31], seed=5, offset=3 + 64 * 17)
    assert same_bits(full[17:31], part)
    with threads(1):
        one = xrng.gamma(torch.linspace(0.1, 20.0, 9000), seed=5)
    with threads(2):
        two = xrng.gamma(torch.linspace(0.1, 20.0, 9000), seed=5)
    assert same_bits(one, two)


def test_generator_advances_and_a_refused_draw_does_not():
    g = xrng.Generator(7)
    a = torch.rand(3, 4) + 0.5
    x = xrng.gamma(a, generator=g)
    assert g.offset == 64 * 12
    assert same_bits(x, xrng.gamma(a, seed=7))
    assert same_bits(xrng.dirichlet(a, generator=g), xrng.dirichlet(a, seed=7, offset=64 * 12))
    with pytest.raises(ValueError, match="alpha must be finite and > 0"):
        xrng.gamma(torch.tensor([1.0, 0.0]), generator=g)
    assert g.offset == 2 * 64 * 12


@pytest.mark.parametrize("bad", [0.0, -2.0, float("nan"), float("inf")])
def test_bad_alpha_one_line_error_before_writing(bad):
    out = torch.full((3,), 7.0)
    with pytest.raises(ValueError, match=r"^gamma: alpha must be finite and > 0, got .* at element 1$"):
        xrng.gamma(torch.tensor([1.0, bad, 2.0]), seed=0, out=out)
    assert torch.equal(out, torch.full((3,), 7.0))
    with pytest.raises(ValueError, match="alpha must be finite"):
        torch.ops.xrng.gamma(torch.tensor([1.0, bad]), torch.tensor([0, 0, 0, 2]))


def test_other_errors():
    with pytest.raises(ValueError, match="float16, bfloat16, float32 or float64"):
        xrng.gamma(torch.tensor([1, 2]), seed=0)
    with pytest.raises(TypeError):
        xrng.gamma([1.0, 2.0], seed=0)
    with pytest.raises(ValueError, match="at least one dimension"):
        xrng.dirichlet(torch.tensor(1.0), seed=0)
    with pytest.raises(ValueError, match="out must have alpha's dtype"):
        xrng.gamma(torch.ones(2), seed=0, out=torch.empty(2, dtype=torch.float64))
    assert xrng.gamma(torch.empty(0, 3), seed=0).shape == (0, 3)


def test_gradients_are_torchs_reparameterisation():
    a = torch.tensor([0.3, 1.0, 4.0], dtype=torch.float64, requires_grad=True)
    x = xrng.gamma(a, seed=9)
    assert x.grad_fn is not None
    x.backward(torch.ones(3, dtype=torch.float64))
    assert torch.equal(a.grad, torch._standard_gamma_grad(a.detach(), x.detach()))
    c = torch.tensor([[0.5, 2.0, 3.0]], requires_grad=True)
    d = xrng.dirichlet(c, seed=9)
    assert d.grad_fn is not None
    (d * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert c.grad is not None and torch.isfinite(c.grad).all()


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
def test_half_gradients_are_torchs_formula_in_float32(dt):
    """torch's CPU gradient kernels have no float16 / bfloat16 form: xrng's
    backward computes them in float32 and rounds (torch's own _standard_gamma
    has no CPU half kernel at all)."""
    a = torch.tensor([0.5, 1.5, 4.0]).to(dt).requires_grad_()
    y = xrng.gamma(a, seed=2)
    y.sum().backward()
    assert a.grad.dtype == dt
    assert torch.equal(a.grad, torch._standard_gamma_grad(a.detach().float(), y.detach().float()).to(dt))
    c = torch.tensor([[0.5, 2.0, 3.0]]).to(dt).requires_grad_()
    (xrng.dirichlet(c, seed=2) * torch.arange(3)).sum().backward()
    assert c.grad.dtype == dt and torch.isfinite(c.grad).all()


# ---- tracing, compile, devices ------------------------------------------------------------------------------
def test_fake_tensors_and_meta():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        f = torch.ops.xrng.gamma(torch.empty(5, 2, dtype=torch.float16), torch.tensor([1, 0, 0, 2]))
        assert f.shape == (5, 2) and f.dtype == torch.float16
    m = torch.ops.xrng.dirichlet(torch.empty(3, 4, device="meta"), torch.tensor([1, 0, 0, 2]))
    assert m.device.type == "meta" and m.shape == (3, 4)


def test_compiled_with_a_generator_equals_eager():
    torch._dynamo.reset()
    a = torch.tensor([0.5, 1.5, 8.0])

    def f(alpha, g):
        return xrng.gamma(alpha, generator=g) + xrng.dirichlet(alpha, generator=g)

    ge, gc = xrng.Generator(4), xrng.Generator(4)
    cf = torch.compile(f, fullgraph=True, backend="aot_eager")
    for _ in range(2):
        assert same_bits(f(a, ge), cf(a, gc))
    assert ge.offset == gc.offset == 2 * 2 * 64 * 3


def test_xdev_equals_cpu(xdev):
    a = torch.rand(4, 9, generator=torch.Generator().manual_seed(2)) * 3 + 0.01
    before = xdev.copies_in()
    d = xrng.gamma(a.to("xdev"), seed=4, offset=1)
    assert d.device.type == "xdev" and xdev.copies_in() > before
    assert same_bits(d.cpu(), xrng.gamma(a, seed=4, offset=1))
    assert same_bits(xrng.dirichlet(a.to("xdev"), seed=4).cpu(), xrng.dirichlet(a, seed=4))


@pytest.mark.cuda
@pytest.mark.parametrize("i", range(len(CASES)))
def test_cuda_golden_cases(i):
    c = CASES[i]
    a = _alpha(c)
    got = _golden_draw(c, a.cuda(), seed=c["seed"], subseq=c["subseq"], offset=c["offset"])
    assert got.device.type == "cuda" and bits_of(got.cpu()) == c["out"]


@pytest.mark.cuda
def test_cuda_equals_cpu_every_dtype():
    gen = torch.Generator().manual_seed(5)
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        a = (torch.rand(37, 300, generator=gen) * 5 + 1e-3).to(dt)
        assert same_bits(xrng.gamma(a.cuda(), seed=6).cpu(), xrng.gamma(a, seed=6))
        assert same_bits(xrng.dirichlet(a.cuda(), seed=6).cpu(), xrng.dirichlet(a, seed=6))
        r = (torch.rand(1000, generator=gen) * 40).to(dt)
        assert same_bits(xrng.poisson(r.cuda(), seed=6).cpu(), xrng.poisson(r, seed=6))


# ---- the reproducible mode ------------------------------------------------------------------------------------
def _distributions(outer_seed, n_threads):
    from torch.distributions import Beta, Chi2, Dirichlet, Gamma, StudentT
    with threads(n_threads):
        torch.manual_seed(outer_seed)
        with xrng.reproducible(seed=0, strict=True) as m:
            out = [Gamma(torch.tensor([0.5, 2.0]), torch.tensor([1.0, 3.0])).sample((3,)),
                   Beta(torch.tensor(0.4), torch.tensor(0.4)).sample((4,)),
                   Dirichlet(torch.ones(5, dtype=torch.float64)).sample(),
                   Chi2(torch.tensor(3.0)).sample((2,)),
                   StudentT(torch.tensor(4.0)).sample((3,)),
                   torch.distributions.Poisson(torch.tensor([0.5, 40.0])).sample((3,)),
                   torch.poisson(torch.tensor([2.0, 200.0], dtype=torch.float64)),
                   torch.distributions.Binomial(torch.tensor([10.0, 500.0]), torch.tensor([0.3, 0.6])).sample((2,))]
            c = torch.tensor([1.5, 2.5], requires_grad=True)
            torch.distributions.Gamma(c, torch.ones(2)).rsample().sum().backward()
            b = torch.tensor([0.7], requires_grad=True)
            Beta(b, torch.tensor([2.0])).rsample().sum().backward()
            out += [c.grad, b.grad]
        assert m.reported == {}
    return out


def test_mode_distributions_follow_the_mode_seed_at_any_thread_count():
    ref = _distributions(123, 1)
    for outer, n in ((123, 2), (999, 1)):
        assert all(same_bits(x, y) for x, y in zip(ref, _distributions(outer, n)))
    # the first draw is xrng.gamma of the global stream at its start
    with xrng.reproducible(seed=5, strict=True):
        x = torch._standard_gamma(torch.tensor([0.5, 2.0, 9.0]))
    assert same_bits(x, xrng.gamma(torch.tensor([0.5, 2.0, 9.0]), generator=G(5)))


def test_mode_torch_generator_argument():
    g = torch.Generator().manual_seed(77)
    with xrng.reproducible(seed=0, strict=True):
        x = torch._sample_dirichlet(torch.tensor([[1.0, 2.0, 3.0]]), generator=g)
        y = torch.poisson(torch.tensor([5.0, 50.0]), generator=g)
    gg = xrng.reproducible.generator_for(77)
    assert same_bits(x, xrng.dirichlet(torch.tensor([[1.0, 2.0, 3.0]]), generator=gg))
    assert same_bits(y, xrng.poisson(torch.tensor([5.0, 50.0]), generator=gg))


def test_mode_invalid_alpha_is_torchs_business():
    """torch decides what an alpha xrng refuses gives (its kernel returns a value): reported, not silent."""
    with xrng.reproducible(seed=0) as m:
        with pytest.warns(xrng.ReproducibilityWarning):
            torch._standard_gamma(torch.tensor([1.0, -1.0]))
    assert "aten._standard_gamma" in m.reported


def _mixup_cutmix(outer_seed, n_threads):
    v2 = pytest.importorskip("torchvision.transforms.v2")
    imgs = torch.rand(4, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    labels = torch.tensor([0, 1, 2, 1])
    with threads(n_threads):
        torch.manual_seed(outer_seed)
        with xrng.reproducible(seed=0, strict=True) as m:
            out = [t for tr in (v2.MixUp(num_classes=3), v2.CutMix(num_classes=3)) for t in tr(imgs, labels)]
        assert m.reported == {}
    return out


def test_mode_transforms_v2_mixup_cutmix():
    ref = _mixup_cutmix(1, 1)
    for outer, n in ((1, 2), (2, 1)):
        assert all(same_bits(x, y) for x, y in zip(ref, _mixup_cutmix(outer, n)))


# ---- the clients on the xdev test device ---------------------------------------------------------------------
def test_mode_clients_on_xdev_equal_cpu(xdev):
    from torch.distributions import Beta, Gamma, Poisson

    def clients(device):
        with xrng.reproducible(seed=3, strict=True):
            return [Gamma(torch.tensor([0.5, 4.0], device=device), torch.ones(2, device=device),
                          validate_args=False).sample((2,)),  # (xdev lacks the check ops)
                    Beta(torch.tensor([0.4], device=device), torch.tensor([0.7], device=device),
                         validate_args=False).sample((3,)),
                    Poisson(torch.tensor([2.0, 30.0], device=device), validate_args=False).sample()]

    before = xdev.copies_in()
    on_xdev = clients("xdev")
    assert all(t.device.type == "xdev" for t in on_xdev) and xdev.copies_in() > before
    assert all(same_bits(a.cpu(), b) for a, b in zip(on_xdev, clients("cpu")))
