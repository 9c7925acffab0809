"""Categorical sampling (issue 20; SPEC.md section 10): xrng.multinomial and
torch.ops.xrng.categorical against the committed known answers, the exact
rational selection (with replacement) and 40-digit race keys (without), the
word layout, errors, dtypes, threads, the xdev test device, and the
reproducible mode with the real clients (transformers generate with
sampling, WeightedRandomSampler in a DataLoader, Categorical, transforms v2
RandomChoice) at 1 and 2 threads."""
import contextlib
import decimal
import pathlib
import random
from fractions import Fraction

import pytest
import torch

import xrng
from conftest import same_bits

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "data" / "golden_v2_multinomial.txt"
G = xrng.reproducible.global_generator


@contextlib.contextmanager
def threads(n):
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def golden_cases():
    cases = []
    for line in GOLDEN.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        tok = dict(t.split("=", 1) for t in line.split())
        assert tok["op"] == "multinomial"
        cases.append(dict(seed=int(tok["seed"], 16), subseq=int(tok["subseq"], 16), offset=int(tok["offset"], 16),
                          rows=int(tok["rows"]), k=int(tok["k"]), ns=int(tok["num_samples"]),
                          repl=tok["replacement"] == "1", weights=[float.fromhex(x) for x in tok["weights"].split(",")],
                          out=[int(x) for x in tok["out"].split(",")]))
    return cases


CASES = golden_cases()


def test_golden_file_has_both_kinds():
    assert len(CASES) >= 16 and {c["repl"] for c in CASES} == {True, False}


@pytest.mark.parametrize("i", range(len(CASES)))
def test_golden_cases(i):
    c = CASES[i]
    w = torch.tensor(c["weights"], dtype=torch.float64).reshape(c["rows"], c["k"])
    got = xrng.multinomial(w, c["ns"], c["repl"], seed=c["seed"], subseq=c["subseq"], offset=c["offset"])
    assert got.dtype == torch.int64 and got.shape == (c["rows"], c["ns"])
    assert got.reshape(-1).tolist() == c["out"]
    # the operator directly, at a position tensor
    pos = torch.tensor([c["seed"] - (2**64 if c["seed"] >= 2**63 else 0), c["subseq"], c["offset"], 2])
    assert torch.ops.xrng.categorical(w, c["ns"], c["repl"], pos).reshape(-1).tolist() == c["out"]
    if c["rows"] == 1:  # 1-d weights: the same samples, shape [ns]
        one = xrng.multinomial(w[0], c["ns"], c["repl"], seed=c["seed"], subseq=c["subseq"], offset=c["offset"])
        assert one.shape == (c["ns"],) and one.tolist() == c["out"]
    # every dtype whose values are exact gives the same (the widening to binary64 is exact)
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        n = w.to(dt)
        if torch.equal(n.double(), w) and bool((n.double().sum(-1) > 0).all()):
            assert xrng.multinomial(n, c["ns"], c["repl"], seed=c["seed"], subseq=c["subseq"],
                                    offset=c["offset"]).reshape(-1).tolist() == c["out"]


# ---- accuracy: against exact rational arithmetic -------------------------------------------------------
def _words64(n, seed, offset):
    """The 64-bit values a + 2^32 b of the word pairs at offset, offset + 2, ..."""
    t = xrng.bits_(torch.empty(n, dtype=torch.uint64), seed=seed, offset=offset)
    return [int(v) % 2**64 for v in t.view(torch.int64).tolist()]


def _random_weights(rng, k):
    kind = rng.randrange(5)
    if kind == 0:
        w = [rng.random() for _ in range(k)]
    elif kind == 1:  # wide dynamic range
        w = [rng.random() * 2.0 ** rng.randint(-60, 60) for _ in range(k)]
    elif kind == 2:  # a few dominant categories and zeros
        w = [rng.choice([0.0, 1e-9, 1.0, 1e6]) * rng.random() for _ in range(k)]
    elif kind == 3:  # float32-rounded softmax-like
        w = [float(torch.tensor(rng.gauss(0, 3)).exp().float()) for _ in range(k)]
    else:  # the whole binary64 range, subnormals included (tiny rows take the scaled path)
        top = rng.choice([-1074, -1000, -300, 0, 900])
        w = [rng.random() * 2.0 ** rng.randint(top - 60, top) if rng.random() < 0.9 else 0.0 for _ in range(k)]
    if sum(w) == 0:
        w[rng.randrange(k)] = 1.0
    return w


def test_with_replacement_equals_the_exact_rational_selection():
    """Each sample against the exact selection min{i : u W < S_i} (u the 52-bit
    variate, W and S_i the exact sums): any difference must lie within the
    rounding bound of SPEC 10.3 of a boundary. Measured on this corpus: no
    sample differs (the assertion allows the bound)."""
    rng = random.Random(20)
    differ = total = 0
    for t in range(150):
        k = rng.randint(1, 60)
        ns = 64
        w = _random_weights(rng, k)
        got = xrng.multinomial(torch.tensor(w, dtype=torch.float64), ns, True, seed=t, offset=t).tolist()
        S, acc = [], Fraction(0)
        for x in w:
            acc += Fraction(x)
            S.append(acc)
        W = S[-1]
        for j, v in enumerate(_words64(ns, t, t)):
            u = Fraction(2 * (v >> 12) + 1, 2**53)
            x = u * W
            exact = next(i for i in range(k) if x < S[i])
            total += 1
            assert w[got[j]] > 0
            if got[j] != exact:
                differ += 1
                # within (2k + 1) 2^-52 (relative to W) of a boundary between the two
                lo, hi = sorted((got[j], exact))
                gap = min(abs(x - S[i]) for i in range(lo, hi + 1)) / W
                assert gap <= (2 * k + 1) * Fraction(1, 2**52), (t, j, float(gap))
    assert total == 150 * 64
    assert differ <= 2, differ


def _race_order(w, E):
    pos = [i for i in range(len(w)) if w[i] > 0]
    zero = [i for i in range(len(w)) if w[i] == 0]
    return sorted(pos, key=lambda i: (Fraction(E[i]) / Fraction(w[i]), i)) + zero


def test_without_replacement_is_the_exact_race_order():
    """The selection is the order of the exact keys E_i / w_i of xrng's own E_i
    (its exponential f64 values at rate 1, the same words): no rounding."""
    rng = random.Random(21)
    for t in range(100):
        k = rng.randint(1, 40)
        w = _random_weights(rng, k)
        ns = rng.randint(1, k)
        got = xrng.multinomial(torch.tensor(w, dtype=torch.float64), ns, False, seed=t, offset=3 * t).tolist()
        E = xrng.exponential_(torch.empty(k, dtype=torch.float64), 1.0, seed=t, offset=3 * t).tolist()
        assert got == _race_order(w, E)[:ns]


def test_race_against_40_digit_keys():
    """The same race with E = -ln u in 40 decimal digits: xrng's order equals it
    (measured: every row of this corpus)."""
    rng = random.Random(22)
    ctx = decimal.Context(prec=40)
    for t in range(60):
        k = rng.randint(2, 30)
        w = _random_weights(rng, k)
        got = xrng.multinomial(torch.tensor(w, dtype=torch.float64), k, False, seed=100 + t).tolist()
        E = [-(ctx.divide(decimal.Decimal(2 * (v >> 12) + 1), decimal.Decimal(2**53))).ln(ctx)
             for v in _words64(k, 100 + t, 0)]
        pos = sorted((i for i in range(k) if w[i] > 0), key=lambda i: (E[i] / decimal.Decimal(w[i]), i))
        assert got == pos + [i for i in range(k) if w[i] == 0]


# ---- layout, generator, errors, threads, devices ---------------------------------------------------------
def test_words_and_generator_advance():
    w = torch.rand(3, 7, generator=torch.Generator().manual_seed(0))
    g = xrng.Generator(9)
    a = xrng.multinomial(w, 5, True, generator=g)
    assert g.offset == 2 * 3 * 5
    b = xrng.multinomial(w, 4, False, generator=g)
    assert g.offset == 30 + 2 * 3 * 7
    assert same_bits(a, xrng.multinomial(w, 5, True, seed=9))
    assert same_bits(b, xrng.multinomial(w, 4, False, seed=9, offset=30))
    # row 2 alone, at its own words
    assert same_bits(a[2:], xrng.multinomial(w[2:], 5, True, seed=9, offset=2 * 2 * 5))
    assert same_bits(b[1:], xrng.multinomial(w[1:], 4, False, seed=9, offset=30 + 2 * 7))


@pytest.mark.parametrize("args, msg", [
    ((torch.tensor([1.0, -1.0]), 1, True), "element < 0"),
    ((torch.tensor([1.0, float("nan")]), 1, True), "nan"),
    ((torch.tensor([[1.0, 1.0], [0.0, 0.0]]), 1, True), "row 1: invalid multinomial distribution"),
    ((torch.tensor([1.0, 2.0]), 3, False), "cannot sample num_samples = 3 > 2"),
    ((torch.tensor([1.0, 2.0]), 0, True), "num_samples <= 0"),
    ((torch.ones(2, 2, 2), 1, True), "1 or 2 dim"),
    ((torch.ones(3, dtype=torch.int64), 1, True), "floating-point"),
    ((torch.ones(2, 0), 1, True), "no categories"),
    ((torch.tensor([1e308, 1e308], dtype=torch.float64), 1, True), "overflows"),
])
def test_errors_leave_the_generator_unchanged(args, msg):
    g = xrng.Generator(1)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
        xrng.multinomial(*args, generator=g)
    assert g.offset == 0


def test_types_and_out_and_rows_zero():
    with pytest.raises(TypeError):
        xrng.multinomial([0.5, 0.5], 1)
    with pytest.raises(TypeError):
        xrng.multinomial(torch.ones(2), 1.0)
    out = torch.empty(0, dtype=torch.int64)
    r = xrng.multinomial(torch.ones(4), 3, out=out, seed=2)
    assert r is out and out.tolist() == xrng.multinomial(torch.ones(4), 3, seed=2).tolist()
    assert xrng.multinomial(torch.ones(0, 3), 2, True, seed=1).shape == (0, 2)
    w = torch.ones(5, requires_grad=True)
    assert not xrng.multinomial(w, 2, seed=1).requires_grad


def test_threads_do_not_change_values():
    w = torch.rand(64, 500, generator=torch.Generator().manual_seed(1))
    for repl, ns in ((True, 400), (False, 200)):
        with threads(1):
            a = xrng.multinomial(w, ns, repl, seed=3)
        with threads(2):
            b = xrng.multinomial(w, ns, repl, seed=3)
        assert same_bits(a, b)


def test_fake_and_meta():
    w = torch.empty(3, 5, device="meta")
    pos = torch.tensor([1, 0, 0, 2])
    assert torch.ops.xrng.categorical(w, 4, True, pos).shape == (3, 4)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        f = torch.ops.xrng.categorical(torch.empty(5), 2, False, torch.tensor([1, 0, 0, 2]))
        assert f.shape == (2,) and f.dtype == torch.int64


def test_xdev_equals_cpu(xdev):
    w = torch.rand(4, 33, generator=torch.Generator().manual_seed(2))
    for repl, ns in ((True, 50), (False, 20)):
        before = xdev.copies_in()
        d = xrng.multinomial(w.to("xdev"), ns, repl, seed=4, offset=1)
        assert d.device.type == "xdev" and xdev.copies_in() > before
        assert same_bits(d.cpu(), xrng.multinomial(w, ns, repl, seed=4, offset=1))


# ---- the reproducible mode ---------------------------------------------------------------------------------
def test_mode_draws_torch_multinomial_from_xrng():
    w = torch.tensor([[0.1, 0.0, 0.5, 0.4], [1.0, 2.0, 3.0, 4.0]])
    with xrng.reproducible(seed=5, strict=True):
        a = torch.multinomial(w, 6, True)
        b = w.multinomial(3)
        gen = torch.Generator().manual_seed(77)
        c = torch.multinomial(w[0], 2, generator=gen)
    g = G(5)
    assert same_bits(a, xrng.multinomial(w, 6, True, generator=g))
    assert same_bits(b, xrng.multinomial(w, 3, False, generator=g))
    assert same_bits(c, xrng.multinomial(w[0], 2, False, generator=xrng.reproducible.generator_for(77)))


def test_mode_follows_its_seed_not_the_outer_manual_seed():
    w = torch.rand(50)

    def run(mode_seed, outer):
        torch.manual_seed(outer)
        with xrng.reproducible(seed=mode_seed, strict=True):
            return torch.multinomial(w, 40, True)
    assert same_bits(run(1, 0), run(1, 123))
    assert not same_bits(run(1, 0), run(2, 0))


def test_mode_refused_arguments_raise_torchs_error():
    with xrng.reproducible(seed=0):
        with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
            torch.multinomial(torch.zeros(3), 1)


# ---- real clients ---------------------------------------------------------------------------------------------
def _categorical(seed):
    d = torch.distributions.Categorical(probs=torch.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]))
    with xrng.reproducible(seed=seed, strict=True):
        return d.sample((25,))


def _weighted_loader(seed):
    sampler = torch.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], num_samples=30, replacement=True)
    loader = torch.utils.data.DataLoader(list(range(5)), batch_size=6, sampler=sampler)
    with xrng.reproducible(seed=seed, strict=True):
        return torch.cat([b for b in loader])


def _random_choice(seed):
    v2 = pytest.importorskip("torchvision.transforms.v2")
    t = v2.RandomChoice([lambda x: x + 1, lambda x: x + 2, lambda x: x + 3], p=[0.2, 0.5, 0.3])
    with xrng.reproducible(seed=seed, strict=True):
        return torch.tensor([int(t(torch.zeros(()))) for _ in range(30)])


def _gpt2_generate(seed):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
    with xrng.reproducible(seed=seed, strict=True):
        return model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=True, top_k=20, top_p=0.9,
                              max_new_tokens=8, pad_token_id=0)


@pytest.mark.parametrize("client", [_categorical, _weighted_loader, _random_choice, _gpt2_generate])
def test_clients_are_thread_independent_and_follow_the_mode_seed(client):
    with threads(1):
        a = client(0)
    with threads(2):
        b = client(0)
    assert same_bits(a, b)
    torch.manual_seed(999)  # the outer seed does not enter
    assert same_bits(client(0), a)
    assert not same_bits(client(1), a)


def test_categorical_and_sampler_equal_xrng_multinomial():
    probs = torch.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])
    # Categorical.sample((25,)) is multinomial(probs_2d, 25, True).T
    assert same_bits(_categorical(3), xrng.multinomial(probs, 25, True, generator=G(3)).T)
    w = torch.tensor([0.1, 0.9, 0.4, 0.0, 2.0], dtype=torch.float64)
    g = G(4)
    g.offset = 4  # the loader's iterator first draws its base seed: a random_() of int64, 4 words (SPEC 8.2)
    assert same_bits(_weighted_loader(4), xrng.multinomial(w, 30, True, generator=g))


# ---- CUDA (tests/gpu; skipped with a reason where there is no GPU) -------------------------------------------
@pytest.mark.cuda
@pytest.mark.parametrize("i", range(len(CASES)))
def test_cuda_golden_cases(i):
    c = CASES[i]
    w = torch.tensor(c["weights"], dtype=torch.float64).reshape(c["rows"], c["k"]).cuda()
    got = xrng.multinomial(w, c["ns"], c["repl"], seed=c["seed"], subseq=c["subseq"], offset=c["offset"])
    assert got.device.type == "cuda" and got.cpu().reshape(-1).tolist() == c["out"]


@pytest.mark.cuda
def test_cuda_equals_cpu_every_dtype_and_the_mode():
    gen = torch.Generator().manual_seed(5)
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        w = torch.rand(37, 300, generator=gen).to(dt)
        for repl, ns in ((True, 257), (False, 300), (False, 3)):
            assert same_bits(xrng.multinomial(w.cuda(), ns, repl, seed=6).cpu(),
                             xrng.multinomial(w, ns, repl, seed=6))
    probs = torch.softmax(torch.randn(4, 50, generator=gen), -1)
    with xrng.reproducible(seed=3, strict=True):
        a = torch.multinomial(probs.cuda(), 5).cpu()
        b = torch.distributions.Categorical(probs=probs.cuda()).sample((7,)).cpu()
    with xrng.reproducible(seed=3, strict=True):
        assert same_bits(torch.multinomial(probs, 5), a)
        assert same_bits(torch.distributions.Categorical(probs=probs).sample((7,)), b)
    with pytest.raises(ValueError, match="row 0"):
        xrng.multinomial(torch.tensor([[1.0, -1.0]], device="cuda"), 1, True, seed=0)


# ---- torch.compile -------------------------------------------------------------------------------------------
def test_compiled_xrng_multinomial_equals_eager_and_advances():
    g = xrng.Generator(3)
    w = torch.rand(4, 10, generator=torch.Generator().manual_seed(3))
    f = torch.compile(lambda w: xrng.multinomial(w, 3, True, generator=g), backend="aot_eager", fullgraph=True)
    a, b = f(w), f(w)
    ref = xrng.Generator(3)
    assert same_bits(a, xrng.multinomial(w, 3, True, generator=ref))
    assert same_bits(b, xrng.multinomial(w, 3, True, generator=ref))
    assert g.offset == ref.offset == 2 * 2 * 4 * 3


def test_mode_draws_torch_multinomial_inside_a_compiled_region():
    """Compiled, torch.multinomial draws eager's words from eager's position
    (it used to be reported there; tests/python/test_compile_sampling.py has more)."""
    w = torch.rand(4, 10, generator=torch.Generator().manual_seed(1))
    f = lambda w: (torch.multinomial(w, 2), torch.multinomial(w, 3, True))  # noqa: E731
    h = torch.compile(f, fullgraph=True, backend="aot_eager")
    with xrng.reproducible(seed=0, strict=True, check_dispatch=False):
        eager = f(w) + f(w)
    with xrng.reproducible(seed=0, strict=True, check_dispatch=False):
        compiled = h(w) + h(w)
    assert all(same_bits(a, b) for a, b in zip(eager, compiled))


# ---- the clients on the xdev test device ---------------------------------------------------------------------
def test_clients_on_xdev_equal_cpu(xdev):
    probs = torch.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])

    def categorical(device):
        d = torch.distributions.Categorical(probs=probs.to(device), validate_args=False)  # (xdev lacks its check ops)
        with xrng.reproducible(seed=8, strict=True):
            return d.sample((25,)).cpu(), torch.multinomial(probs.to(device), 3).cpu()
    assert all(same_bits(a, b) for a, b in zip(categorical("xdev"), categorical("cpu")))
    # (transformers' generate does not run on xdev: the test backend cannot resize in a copy, which
    # generate's cache update needs; the tokens it samples are torch.multinomial's, checked here)


def test_weighted_sampler_with_its_own_generator_draws_that_generators_stream():
    w = [0.5, 0.0, 1.5, 3.0]
    gen = torch.Generator().manual_seed(11)
    sampler = torch.utils.data.WeightedRandomSampler(w, num_samples=12, replacement=True,
                                                     generator=gen)
    with xrng.reproducible(seed=0, strict=True):
        first, second = list(sampler), list(sampler)
    g = xrng.reproducible.generator_for(11)
    wt = torch.tensor(w, dtype=torch.float64)
    assert first == xrng.multinomial(wt, 12, True, generator=g).tolist()
    assert second == xrng.multinomial(wt, 12, True, generator=g).tolist()  # the generator's stream continues
    no_repl = torch.utils.data.WeightedRandomSampler(w, num_samples=3, replacement=False,
                                                     generator=torch.Generator().manual_seed(12))
    with xrng.reproducible(seed=0, strict=True):
        got = list(no_repl)
    assert got == xrng.multinomial(wt, 3, False, generator=xrng.reproducible.generator_for(12)).tolist()
    assert 1 not in got  # the zero weight is drawn only after the three positive ones


def test_registry_lists_the_tensor_draws():
    t = xrng._C.registry()["tensor_draws"]
    assert t["multinomial_replacement"]["unit"] == "sample" and t["multinomial"]["unit"] == "category"
    assert t["multinomial_replacement"]["words"] == t["multinomial"]["words"] == 2
