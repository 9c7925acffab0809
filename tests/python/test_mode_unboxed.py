"""The reproducible mode's per-call path (bindings/mode/kernels.cpp): the
in-place fill and random_ rows have unboxed kernels (C++ callers, Python's
bindings among them, pass their arguments without an IValue stack) and
torch boxes them for the callers that box (torch.ops, TorchScript); a
thread's last plan and each kernel's passed argument checks are reused.
Every path must draw the same values, and torch's errors must stay torch's."""
import pytest
import torch

import xrng

G = xrng.reproducible.global_generator


def _calls():
    """(name, eager call, torch.ops call) for every row with an unboxed kernel."""
    a = torch.ops.aten
    random_from = getattr(a.random_, "from")  # (a Python keyword)
    f32 = lambda n=6: torch.empty(n)  # noqa: E731
    i64 = lambda n=6: torch.empty(n, dtype=torch.int64)  # noqa: E731
    return [
        ("normal_", lambda: f32().normal_(2.0, 3.0), lambda: a.normal_.default(f32(), 2.0, 3.0)),
        ("uniform_", lambda: f32().uniform_(-1.0, 2.0), lambda: a.uniform_.default(f32(), -1.0, 2.0)),
        ("log_normal_", lambda: f32().log_normal_(0.5, 0.25), lambda: a.log_normal_.default(f32(), 0.5, 0.25)),
        ("cauchy_", lambda: f32().cauchy_(1.0, 2.0), lambda: a.cauchy_.default(f32(), 1.0, 2.0)),
        ("exponential_", lambda: f32().exponential_(1.5), lambda: a.exponential_.default(f32(), 1.5)),
        ("geometric_", lambda: f32().geometric_(0.3), lambda: a.geometric_.default(f32(), 0.3)),
        ("bernoulli_.float", lambda: f32(40).bernoulli_(0.3), lambda: a.bernoulli_.float(f32(40), 0.3)),
        ("random_", lambda: i64().random_(), lambda: a.random_.default(i64())),
        ("random_.to", lambda: i64().random_(1000), lambda: a.random_.to(i64(), 1000)),
        ("random_.from", lambda: i64().random_(-5, 7), lambda: random_from(i64(), -5, 7)),
        ("random_.from (to None)", lambda: torch.empty(6, dtype=torch.int16).random_(100, None),
         lambda: random_from(torch.empty(6, dtype=torch.int16), 100, None)),
    ]


@pytest.mark.parametrize("stream", [None, "torch-cpu-x86"])
def test_unboxed_and_boxed_calls_draw_the_same(stream):
    kw = {"seed": 4} if stream is None else {"stream": stream}
    for name, eager, boxed in _calls():
        torch.manual_seed(11)
        with xrng.reproducible(**kw):
            torch.manual_seed(11)
            first = [eager(), eager()]
        with xrng.reproducible(**kw):
            torch.manual_seed(11)
            second = [boxed(), boxed()]
        for x, y in zip(first, second):
            assert torch.equal(x, y), name
        assert not torch.equal(first[0], first[1]) or first[0].dtype == torch.bool, name  # the stream moved


def test_torchscript_calls_box_the_unboxed_kernels():
    @torch.jit.script
    def prog(t: torch.Tensor, i: torch.Tensor):
        return t.normal_(1.0, 2.0).clone(), t.uniform_(0.0, 4.0).clone(), i.random_(3, 9).clone()

    def eager(t, i):
        return t.normal_(1.0, 2.0).clone(), t.uniform_(0.0, 4.0).clone(), i.random_(3, 9).clone()

    outs = []
    for fn in (prog, eager):
        with xrng.reproducible(seed=0):
            torch.manual_seed(2)
            outs.append(fn(torch.empty(33), torch.empty(5, dtype=torch.int64)))
    for x, y in zip(*outs):
        assert torch.equal(x, y)


def test_alternating_parameters_and_dtypes_draw_xrngs_values():
    """A thread's plan is reused only for an identical call: alternating
    parameters and dtypes draw what xrng's public functions draw."""
    with xrng.reproducible(seed=0):
        torch.manual_seed(5)
        got = []
        for _ in range(2):
            got += [torch.empty(5).normal_(0.0, 1.0), torch.empty(5).normal_(5.0, 2.0),
                    torch.empty(5, dtype=torch.float64).normal_(0.0, 1.0), torch.empty(5).normal_(0.0, 1.0),
                    torch.empty(5).uniform_(-1.0, 1.0), torch.empty(5).uniform_(-1.0, 3.0),
                    torch.empty(5).normal_(-0.0, 1.0)]
    g = G(5)
    e = lambda dtype=torch.float32: torch.empty(5, dtype=dtype)  # noqa: E731
    want = []
    for _ in range(2):
        want += [xrng.normal_(e(), 0.0, 1.0, generator=g), xrng.normal_(e(), 5.0, 2.0, generator=g),
                 xrng.normal_(e(torch.float64), 0.0, 1.0, generator=g), xrng.normal_(e(), 0.0, 1.0, generator=g),
                 xrng.uniform_(e(), -1.0, 1.0, generator=g), xrng.uniform_(e(), -1.0, 3.0, generator=g),
                 xrng.normal_(e(), -0.0, 1.0, generator=g)]
    for i, (x, y) in enumerate(zip(got, want)):
        assert torch.equal(x, y), i


def _message(fn):
    with pytest.raises(RuntimeError) as e:
        fn()
    return str(e.value)


@pytest.mark.parametrize("stream", [None, "torch-cpu-x86"])
def test_torchs_errors_after_a_passed_check_of_the_same_call(stream):
    """The argument checks passed for one set of scalars are kept; other
    scalars (and the same refused ones, every time) get torch's own error."""
    t = torch.empty(4)
    bad = [lambda: t.normal_(0.0, -1.0), lambda: t.uniform_(2.0, 1.0), lambda: t.random_(5, 2),
           lambda: torch.empty(3, dtype=torch.int8).random_(0, 1000), lambda: t.bernoulli_(1.5),
           lambda: t.exponential_(-1.0), lambda: t.geometric_(0.0)]
    own = [_message(f) for f in bad]
    kw = {"seed": 0} if stream is None else {"stream": stream}
    with xrng.reproducible(**kw):
        t.normal_(0.0, 1.0), t.uniform_(1.0, 2.0), t.random_(2, 5), t.bernoulli_(0.5)
        t.exponential_(1.0), t.geometric_(0.5)
        for _ in range(2):
            assert [_message(f) for f in bad] == own


def test_repeated_fills_keep_recognising_seeds_and_restores():
    """Identical repeated fills (after the first, torch's checks are known to
    pass and the call is drawn from its typed arguments) still recognise
    manual_seed and a restored state, and draw xrng's values."""
    e = lambda: torch.empty(7)  # noqa: E731
    with xrng.reproducible(seed=0):
        torch.manual_seed(5)
        a = [e().normal_(0.0, 1.0) for _ in range(3)]
        s = torch.get_rng_state()
        b = [e().normal_(0.0, 1.0) for _ in range(2)]
        torch.set_rng_state(s)
        c = [e().normal_(0.0, 1.0) for _ in range(2)]
        torch.manual_seed(5)
        d = e().normal_(0.0, 1.0)
        gen = torch.Generator().manual_seed(9)
        h = [e().exponential_(2.0, generator=gen) for _ in range(2)]
        gen.manual_seed(9)
        h2 = e().exponential_(2.0, generator=gen)
    g = G(5)
    want = [xrng.normal_(e(), 0.0, 1.0, generator=g) for _ in range(5)]
    for i, (x, y) in enumerate(zip(a + b, want)):
        assert torch.equal(x, y), i
    for x, y in zip(c, b):
        assert torch.equal(x, y)
    assert torch.equal(d, a[0])
    assert not torch.equal(h[0], h[1]) and torch.equal(h2, h[0])


def test_a_refused_fill_repeated_is_refused_every_time():
    """A fill whose checks torch passed and xrng refuses (std = inf in
    float32) is torch's own draw, reported: raised in strict mode on the
    first call and on every identical one after it (the typed path hands it
    to the same handling), and the stream is still recognised afterwards."""
    with xrng.reproducible(seed=0, strict=True):
        for _ in range(3):
            with pytest.raises(xrng.NotReproducibleError, match="not drawn from xrng here"):
                torch.empty(4).normal_(0.0, float("inf"))
    with xrng.reproducible(seed=0):
        with pytest.warns(xrng.ReproducibilityWarning):
            torch.empty(4).normal_(0.0, float("inf"))
        got = [torch.empty(4).normal_(0.0, float("inf")) for _ in range(2)]
        torch.manual_seed(3)
        after = torch.empty(4).normal_(0.0, 1.0)
    assert all(bool(torch.isinf(x).all()) for x in got)  # torch's kernel: every value infinite
    assert torch.equal(after, xrng.normal_(torch.empty(4), 0.0, 1.0, generator=G(3)))
