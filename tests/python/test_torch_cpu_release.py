"""The torch CPU streams' `release` (SPEC.md 14.7): the float16/bfloat16 rand,
uniform_ and randn/normal_ of torch 1.13 to 2.12, and the default build's
unfused float32/float64 16-wide normal before 2.13, through every entry point
(xrng.torch_cpu(release=), the mode's stream="torch-cpu-x86@R", the CLI's
--stream torch-cpu-x86@R, the diffusers drop-in), each against the others and
against the numbers the releases themselves gave: tests/data/golden_torch_cpu.txt
(C++, test_torch_cpu) and tests/torch_versions/recorded.json
(test_torch_versions.py) hold those; a first check here is spelled out from the
MT19937 words (numpy's RandomState seeds as torch does).
"""
import hashlib
import struct

import numpy as np
import pytest
import torch

import xrng

RELEASES = ["1.13.1", "2.0", "2.4", "2.11.0", "2.12.1", None]


def _words(seed, n):
    return np.random.RandomState(seed & 0xFFFFFFFF).randint(0, 2 ** 32, size=n, dtype=np.uint64)


def test_legacy_uniforms_are_the_low_bits_of_the_words():
    # torch <= 2.11: uniform_real_distribution<Half | BFloat16> takes the type's own 11 or 8 bits
    w = _words(5, 64)
    for release in ("1.13", "2.4", "2.11"):
        h = xrng.rand(64, generator=xrng.torch_cpu(5, release=release), dtype=torch.float16)
        b = xrng.rand(64, generator=xrng.torch_cpu(5, release=release), dtype=torch.bfloat16)
        assert h.double().tolist() == [float(v & 2047) / 2048 for v in w]
        assert b.double().tolist() == [float(v & 255) / 256 for v in w]
    # 2.12 on: the float32 uniform (24 bits), rounded
    h = xrng.rand(64, generator=xrng.torch_cpu(5, release="2.12"), dtype=torch.float16)
    assert h.tolist() == torch.tensor([float(v & 0xFFFFFF) / 2 ** 24 for v in w]).to(torch.float16).tolist()


def _draws(gen_fn):
    """A sequence on one generator: 16-bit draws on both paths of randn, rand, uniform_, normal_ into a
    contiguous and a non-contiguous tensor, then float32 and float64 draws (the generator's advance)."""
    out = []
    for dt in (torch.float16, torch.bfloat16):
        out.append(gen_fn("randn", 7, dt))
        out.append(gen_fn("randn", 33, dt))
        out.append(gen_fn("randn", 1000, dt))
        out.append(gen_fn("rand", 17, dt))
        out.append(gen_fn("uniform", 257, dt, 256.0, 258.0))
        out.append(gen_fn("normal", 100, dt, 1.5, 0.3))
        out.append(gen_fn("normal_strided", 40, dt, -1.0, 2.0))
    out.append(gen_fn("randn", 40, torch.float32))
    out.append(gen_fn("rand", 5, torch.float64))
    return out


def _via_generator(g):
    def draw(kind, n, dt, a=0.0, b=1.0):
        if kind == "randn":
            return xrng.randn(n, generator=g, dtype=dt)
        if kind == "rand":
            return xrng.rand(n, generator=g, dtype=dt)
        if kind == "uniform":
            return xrng.uniform_(torch.empty(n, dtype=dt), a, b, generator=g)
        if kind == "normal":
            return xrng.normal_(torch.empty(n, dtype=dt), a, b, generator=g)
        return xrng.normal_(torch.empty(n, 2, dtype=dt)[:, 0], a, b, generator=g)  # non-contiguous
    return draw


def _via_torch(kind, n, dt, a=0.0, b=1.0):
    if kind == "randn":
        return torch.randn(n, dtype=dt)
    if kind == "rand":
        return torch.rand(n, dtype=dt)
    if kind == "uniform":
        return torch.empty(n, dtype=dt).uniform_(a, b)
    if kind == "normal":
        return torch.empty(n, dtype=dt).normal_(a, b)
    return torch.empty(n, 2, dtype=dt)[:, 0].normal_(a, b)


def _same(xs, ys):
    assert len(xs) == len(ys)
    for i, (x, y) in enumerate(zip(xs, ys)):
        assert x.dtype == y.dtype and x.shape == y.shape, i
        assert torch.equal(x.contiguous().view(torch.uint8), y.contiguous().view(torch.uint8)), f"draw {i}"


@pytest.mark.parametrize("kernel", ["x86", "scalar", "arm", "arm-sve256"])
@pytest.mark.parametrize("release", RELEASES)
def test_generator_mode_and_state_agree(kernel, release):
    g = xrng.torch_cpu(1234, kernel=kernel, release=release)
    mine = _draws(_via_generator(g))
    stream = f"torch-cpu-{kernel}" + ("" if release is None else f"@{release}")
    with xrng.reproducible(seed=1234, stream=stream, strict=True) as mode:
        assert mode.stream == stream
        theirs = _draws(_via_torch)
        state = torch.get_rng_state()
    _same(mine, theirs)
    assert torch.equal(g.state, state)  # the same words consumed, the same cached normals
    assert torch.equal(g.to_torch().get_state(), state)


def test_release_changes_only_the_16_bit_draws():
    draws = {r: _draws(_via_generator(xrng.torch_cpu(7, release=r))) for r in ("1.13", "2.4", "2.12")}
    n16 = len(draws["2.4"]) - 2
    for a, b in [("1.13", "2.4"), ("2.4", "2.12")]:
        assert any(not torch.equal(x.view(torch.int16), y.view(torch.int16))
                   for x, y in zip(draws[a][:n16], draws[b][:n16]))
    # 1.13 and 2.4 consume the same words (the float32 and float64 draws after them equal) and differ only in
    # float16's 16-wide normal (bfloat16's and every uniform the same)
    _same(draws["1.13"][n16:], draws["2.4"][n16:])
    for i, (x, y) in enumerate(zip(draws["1.13"][:n16], draws["2.4"][:n16])):
        if x.dtype == torch.bfloat16 or i in (0, 3, 4, 6):  # bfloat16; float16 randn(7), rand, uniform_, strided
            assert torch.equal(x.view(torch.int16), y.view(torch.int16)), i


def test_scalar_kernel_fuses_the_normal_from_2_13_on():
    # radius c std + mean: one rounding (fma) in torch's AVX2 build always, in its default build from 2.13 on
    for dt in (torch.float32, torch.float64):
        draws = {(k, r): xrng.normal_(torch.empty(4096, dtype=dt), 1.5, 0.3, generator=xrng.torch_cpu(0, k, r))
                 for k in ("x86", "scalar") for r in ("2.4", "2.12", "2.13", None)}
        for r in ("2.4", "2.12", "2.13"):
            assert torch.equal(draws[("x86", r)], draws[("x86", None)])
        assert torch.equal(draws[("scalar", "2.13")], draws[("scalar", None)])
        assert torch.equal(draws[("scalar", "2.4")], draws[("scalar", "2.12")])
        assert not torch.equal(draws[("scalar", "2.12")], draws[("scalar", None)])
        # a power-of-two std: the product is exact, fused or not
        a = xrng.normal_(torch.empty(4096, dtype=dt), 1.5, 2.0, generator=xrng.torch_cpu(0, "scalar", "2.12"))
        assert torch.equal(a, xrng.normal_(torch.empty(4096, dtype=dt), 1.5, 2.0, generator=xrng.torch_cpu(0, "scalar")))


def test_2_12_sixteen_bit_normal_is_the_scalar_kernels():
    # torch 2.12 ran the scalar kernel for float16/bfloat16 on x86 too (with mean and std in the 16-bit type)
    for dt in (torch.float16, torch.bfloat16):
        a = xrng.randn(65536, generator=xrng.torch_cpu(5, "x86", "2.12"), dtype=dt)
        assert torch.equal(a, xrng.randn(65536, generator=xrng.torch_cpu(5, "scalar"), dtype=dt))
        assert not torch.equal(a, xrng.randn(65536, generator=xrng.torch_cpu(5, "x86"), dtype=dt))


@pytest.mark.parametrize("release,words", [("2.11", 33 + 16), ("2.12", 32 + 16)])
def test_sixteen_bit_randn_words(release, words):
    # randn(33) in float16: up to 2.11 all 33 uniforms, then 16 for the last 16 elements; from 2.12 the two
    # blocks of 16, then the last 16 (the 33rd uniform never drawn)
    g = xrng.torch_cpu(21, release=release)
    xrng.randn(33, generator=g, dtype=torch.float16)
    nxt = xrng.rand(1, generator=g, dtype=torch.float32).item()
    assert nxt == float(_words(21, words + 1)[words] & 0xFFFFFF) / 2 ** 24


def test_diffusers_randn_tensor_takes_the_release():
    from xrng.diffusers import randn_tensor
    shape = (2, 4, 32, 32)
    got = randn_tensor(shape, generator=xrng.torch_cpu(3, release="2.4"), dtype=torch.float16)
    with xrng.reproducible(seed=3, stream="torch-cpu-x86@2.4"):
        want = torch.randn(shape, dtype=torch.float16)
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))
    newer = randn_tensor(shape, generator=xrng.torch_cpu(3), dtype=torch.float16)
    assert not torch.equal(got.view(torch.int16), newer.view(torch.int16))


def test_cli_release_equals_generator(cli):
    for release, dt, tdt in [("2.4", "f16", torch.float16), ("2.0.1", "bf16", torch.bfloat16)]:
        raw = cli.bin("--stream", f"torch-cpu-x86@{release}", "--dist", "normal", "--dtype", dt, "--seed", 9,
                      "--count", 1001, "--mean", 1.5, "--std", 0.3)
        want = xrng.normal_(torch.empty(1001, dtype=tdt), 1.5, 0.3,
                            generator=xrng.torch_cpu(9, release=release))
        assert raw == want.view(torch.int16).numpy().tobytes()
        raw = cli.bin("--stream", f"torch-cpu-scalar@{release}", "--dist", "uniform", "--dtype", dt, "--seed", 9,
                      "--count", 300, "--low", -2, "--high", 5.5)
        want = xrng.uniform_(torch.empty(300, dtype=tdt), -2, 5.5,
                             generator=xrng.torch_cpu(9, kernel="scalar", release=release))
        assert raw == want.view(torch.int16).numpy().tobytes()
    for release in ("2.4", "2.7"):  # the scalar-p bernoulli_ (MKL's in 2.4) and randint's one word below 2^32
        raw = cli.bin("--stream", f"torch-cpu-x86@{release}", "--dist", "bernoulli", "--p", 0.3, "--seed", 9,
                      "--count", 1001)
        want = xrng.bernoulli(1001, p=0.3, dtype=torch.float32, generator=xrng.torch_cpu(9, release=release))
        assert raw == want.numpy().tobytes()
        raw = cli.bin("--stream", f"torch-cpu-x86@{release}", "--dist", "randint", "--low", -5, "--high", 2 ** 31,
                      "--seed", 9, "--count", 50)
        want = xrng.randint(-5, 2 ** 31, (50,), generator=xrng.torch_cpu(9, release=release))
        assert raw == want.numpy().tobytes()
    with pytest.raises(RuntimeError, match="checked from 1.13 on"):
        cli.bin("--stream", "torch-cpu-x86@1.12", "--dist", "normal", "--count", 4)
    with pytest.raises(RuntimeError, match="torch-cuda takes no @release"):
        cli.bin("--stream", "torch-cuda@2.4", "--dist", "normal", "--count", 4, "--sm-count", 8)


def test_release_errors_are_one_line_and_draw_nothing():
    for bad, err in [("1.12.1", ValueError), ("2", ValueError), ("2.4.", ValueError), ("two", ValueError),
                     (2.4, TypeError)]:
        with pytest.raises(err) as e:
            xrng.torch_cpu(0, release=bad)
        assert "\n" not in str(e.value)
        if isinstance(bad, str):
            with pytest.raises(ValueError):
                xrng.reproducible(seed=0, stream=f"torch-cpu-x86@{bad}")
    for bad in ("torch-cuda@2.4", "torch-cpu-x86@", "torch-cpu-avx@2.4"):
        with pytest.raises(ValueError):
            xrng.reproducible(seed=0, stream=bad)
    assert repr(xrng.torch_cpu(0, release="2.4")) == "xrng.torch_cpu(kernel='x86', release='2.4')"
    assert repr(xrng.torch_cpu(0)) == "xrng.torch_cpu(kernel='x86')"


def test_nested_entries_keep_one_release():
    with xrng.reproducible(seed=0, stream="torch-cpu-x86@2.4"):
        with xrng.reproducible(seed=None, stream="torch-cpu-x86@2.6"):  # the same releases' draws
            torch.randn(20, dtype=torch.float16)
        with pytest.raises(RuntimeError, match="do not nest"):
            with xrng.reproducible(seed=None, stream="torch-cpu-x86"):
                pass


# torch 2.0.1's x86-64 wheel: torch.manual_seed(0); torch.empty(20).bernoulli_(0.3) (Intel MKL's MCG31 generator)
_BERNOULLI_2_0 = [1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0]
# ... and torch.manual_seed(0); torch.randint(-5, 2**31, (6,)) (one 32-bit word per element below a range of 2^32)
_RANDINT_2_0 = [209652386, 398764581, 924231275, 1478610102, 441365305, 1537364721]


def _discrete(gen_fn):
    """Scalar-p bernoulli_ (contiguous, transposed, channels_last, empty), dropout (contiguous, channels_last)
    and randint across 2^28 and 2^31, then a float32 rand (the generator's advance)."""
    return [gen_fn("bernoulli", (20,), 0.3), gen_fn("bernoulli", (37, 41), 0.6, "t"), gen_fn("bernoulli", (0,), 0.5),
            gen_fn("bernoulli", (2, 3, 5, 7), 0.9, "cl"), gen_fn("dropout", (64, 33), 0.25),
            gen_fn("dropout", (2, 3, 5, 7), 0.4, "cl"), gen_fn("randint", (6,), (-5, 2 ** 31)),
            gen_fn("randint", (50,), (0, 2 ** 28 + 3)), gen_fn("rand", (5,), None)]


def _discrete_empty(shape, layout):
    if layout == "t":
        return torch.empty(shape[::-1]).t()
    if layout == "cl":
        return torch.empty(shape).to(memory_format=torch.channels_last)
    return torch.empty(shape)


def _discrete_via_generator(g):
    def draw(kind, shape, a, layout=""):
        if kind == "bernoulli":
            return xrng.bernoulli_(_discrete_empty(shape, layout), a, generator=g)
        if kind == "dropout":
            return xrng.dropout(torch.ones(1).expand(shape).contiguous() if layout != "cl"
                                else torch.ones(shape).to(memory_format=torch.channels_last), a, generator=g)
        if kind == "randint":
            return xrng.randint(a[0], a[1], shape, generator=g)
        return xrng.rand(*shape, generator=g)
    return draw


def _discrete_via_torch(kind, shape, a, layout=""):
    if kind == "bernoulli":
        return _discrete_empty(shape, layout).bernoulli_(a)
    if kind == "dropout":
        x = torch.ones(shape)
        return torch.nn.functional.dropout(x.to(memory_format=torch.channels_last) if layout == "cl" else x, a)
    if kind == "randint":
        return torch.randint(a[0], a[1], shape)
    return torch.rand(*shape)


def _generator_equals_mode(draws, via_generator, via_torch, seed, kernel="x86", release=None):
    """draws(via_generator(g)) with g = xrng.torch_cpu(seed, kernel, release), and draws(via_torch) under
    xrng.reproducible(seed=seed, stream=torch-cpu-<kernel>[@release], strict=True): the same tensors, and g's state
    torch's after them. Returns the generator's draws."""
    g = xrng.torch_cpu(seed, kernel=kernel, release=release)
    mine = draws(via_generator(g))
    stream = f"torch-cpu-{kernel}" + ("" if release is None else f"@{release}")
    with xrng.reproducible(seed=seed, stream=stream, strict=True):
        theirs = draws(via_torch)
        state = torch.get_rng_state()
    _same(mine, theirs)
    assert torch.equal(g.state, state)
    return mine


@pytest.mark.parametrize("release", ["1.13", "2.0", "2.4", "2.6.0", "2.7", "2.11", None])
def test_bernoulli_dropout_randint_by_release(release):
    # torch 2.0 to 2.6 (x86-64 wheels): bernoulli_(p) and so dropout from MKL's MCG31 seeded with one word (for
    # no elements too), row-major whatever the strides; randint with one word below a range of 2^32
    mine = _generator_equals_mode(_discrete, _discrete_via_generator, _discrete_via_torch, 0, release=release)
    mkl = release in ("2.0", "2.4", "2.6.0")
    assert (mine[0].tolist() == _BERNOULLI_2_0) == mkl
    ri = xrng.randint(-5, 2 ** 31, (6,), generator=xrng.torch_cpu(0, release=release))
    assert (ri.tolist() == _RANDINT_2_0) == (release in ("1.13", "2.0", "2.4", "2.6.0"))
    if not mkl:  # 2.7 on: the float64 uniform of two words against p
        w = _words(0, 40)
        u = [((int(w[2 * i]) << 32 | int(w[2 * i + 1])) & (2 ** 53 - 1)) * 2.0 ** -53 for i in range(20)]
        assert mine[0].tolist() == [float(x < 0.3) for x in u]


def test_mkl_bernoulli_generator_pickles_with_its_release():
    import pickle
    g = xrng.torch_cpu(3, release="2.4")
    h = pickle.loads(pickle.dumps(g))
    h.__dict__["_release"] = 0  # a number from another xrng: the name decides
    h = pickle.loads(pickle.dumps(h))
    assert h.release == "2.4"
    assert xrng.bernoulli(50, p=0.5, generator=h, dtype=torch.float32).tolist() == \
        xrng.bernoulli(50, p=0.5, generator=g, dtype=torch.float32).tolist()


# torch 2.0.1 (x86-64 wheel, AMD host): torch.manual_seed(0); torch.empty(8).exponential_(1.5), and
# torch.multinomial(torch.arange(1., 11.), 7) after torch.manual_seed(0) (MKL's exponential race)
_EXPONENTIAL_2_0 = [1.5510673522949219, 0.3433859348297119, 0.00886962004005909, 1.0471267700195312,
                    0.6152616739273071, 0.17725613713264465, 0.4252314269542694, 1.5900768041610718]
_MULTINOMIAL_2_0 = [2, 5, 9, 6, 4, 8, 1]


def _exponentials(draw, dtypes=(torch.float32, torch.float64, torch.float16, torch.bfloat16)):
    """exponential_ contiguous, transposed, channels_last and empty in every floating dtype (of `dtypes`), an
    infinite lambda, multinomial without replacement and of one sample, then a float32 rand (the generator's
    advance)."""
    out = []
    for dt in dtypes:
        out += [draw("exponential", (300,), 1.5, "", dt), draw("exponential", (37, 29), 0.7, "t", dt),
                draw("exponential", (2, 3, 5, 7), 2.0, "cl", dt), draw("exponential", (0,), 1.0, "", dt)]
    out += [draw("exponential", (40,), float("inf"), "", torch.float32),
            draw("multinomial", (10,), 7), draw("multinomial", (3, 1000), 1), draw("rand", (5,), None)]
    return out


def _exponential_empty(shape, layout, dt):
    return _discrete_empty(shape, layout).to(dt) if layout != "t" else torch.empty(shape[::-1], dtype=dt).t()


def _exponentials_via_generator(g):
    def draw(kind, shape, a, layout="", dt=torch.float32):
        if kind == "exponential":
            return xrng.exponential_(_exponential_empty(shape, layout, dt), a, generator=g)
        if kind == "multinomial":
            w = torch.arange(1.0, 11.0) if shape == (10,) else torch.linspace(0.5, 3.0, 3000).reshape(shape)
            return xrng.multinomial(w, a, generator=g)
        return xrng.rand(*shape, generator=g)
    return draw


def _exponentials_via_torch(kind, shape, a, layout="", dt=torch.float32):
    if kind == "exponential":
        return _exponential_empty(shape, layout, dt).exponential_(a)
    if kind == "multinomial":
        w = torch.arange(1.0, 11.0) if shape == (10,) else torch.linspace(0.5, 3.0, 3000).reshape(shape)
        return torch.multinomial(w, a)
    return torch.rand(*shape)


@pytest.mark.parametrize("release", ["1.13", "2.0", "2.4", "2.6.0", "2.7", None])
def test_exponential_and_multinomial_by_release(release):
    # torch 2.0 to 2.6 (x86-64 wheels): exponential_ (so multinomial) from MKL's MCG31 seeded with one word (for
    # no elements too; float64: random64's low half), row-major whatever the strides, MKL's float logarithm
    mine = _generator_equals_mode(_exponentials, _exponentials_via_generator, _exponentials_via_torch, 0,
                                  release=release)
    mkl = release in ("2.0", "2.4", "2.6.0")
    assert (mine[0][:8].tolist() == _EXPONENTIAL_2_0) == mkl
    m = xrng.multinomial(torch.arange(1.0, 11.0), 7, generator=xrng.torch_cpu(0, release=release))
    assert (m.tolist() == _MULTINOMIAL_2_0) == mkl
    # the row-major order of the MKL releases: a transposed output holds the contiguous draw's values
    a = xrng.exponential_(torch.empty(29, 37).t(), 0.7, generator=xrng.torch_cpu(9, release=release))
    b = xrng.exponential_(torch.empty(37, 29), 0.7, generator=xrng.torch_cpu(9, release=release))
    c = xrng.exponential_(torch.empty(29, 37), 0.7, generator=xrng.torch_cpu(9, release=release))
    assert torch.equal(a, b) == mkl and torch.equal(a.t(), c) == (not mkl)


# ---- kernels "x86-intel" and "x86-intel-avx512": torch's AVX2 build on an Intel CPU (SPEC.md 14.7) ----

# torch 2.0.1 (x86-64 wheel) with its static MKL told the CPU is Intel's (tests/torch_versions/mkl/intel_cpu.c), as
# on an Intel CPU with AVX2 and without AVX-512: torch.manual_seed(0); torch.empty(4096).exponential_(1.5): the
# first 16 hex digits of the sha256 of its float32 bytes, and element 4 (0.6152616739273071 on the AMD host, as
# 1626 others of the 4096: MKL's Intel uniform and logarithm)
_EXPONENTIAL_2_0_INTEL = ("352b293d0535ce2c", 0.6152616143226624)


def _f32_digest(t):
    return hashlib.sha256(struct.pack(f"{t.numel()}f", *t.tolist())).hexdigest()[:16]


def _not_mkl(draw):
    """Draws no MKL release takes from MKL: the Intel kernels give x86's."""
    return [draw(lambda g: xrng.randn(300, generator=g)), draw(lambda g: xrng.randn(7, dtype=torch.float64, generator=g)),
            draw(lambda g: xrng.rand(100, dtype=torch.float16, generator=g)),
            draw(lambda g: xrng.randint(0, 2 ** 40, (9,), generator=g)), draw(lambda g: xrng.randperm(50, generator=g)),
            draw(lambda g: xrng.normal_(torch.empty(40), 0.5, 2.0, generator=g)),
            draw(lambda g: xrng.cauchy_(torch.empty(40), 0.5, 2.0, generator=g))]


@pytest.mark.parametrize("release", ["2.0", "2.4", "2.6.0", "2.7", None])
@pytest.mark.parametrize("kernel", ["x86-intel", "x86-intel-avx512"])
def test_intel_kernels(kernel, release):
    # the generator API and the mode agree (the dtypes but float64, layouts, multinomial) and leave torch's state
    no_f64 = (torch.float32, torch.float16, torch.bfloat16)
    mine = _generator_equals_mode(lambda d: _exponentials(d, no_f64), _exponentials_via_generator,
                                  _exponentials_via_torch, 0, kernel=kernel, release=release)
    mkl = release in ("2.0", "2.4", "2.6.0")
    x86 = _exponentials(_exponentials_via_generator(xrng.torch_cpu(0, release=release)), no_f64)
    assert torch.equal(mine[0], x86[0]) == (not mkl)  # float32: MKL's Intel uniform and logarithm
    # float64: MKL's reduced-accuracy vdLn on an Intel CPU is not modelled: refused before the generator advances
    # (the generator API: ValueError; the mode: reported, and torch's own kernel draws), an infinite lambda drawn
    g = xrng.torch_cpu(0, kernel=kernel, release=release)
    before = g.state.clone()
    if mkl:
        with pytest.raises(ValueError, match="float64 exponential_ on an Intel CPU"):
            xrng.exponential_(torch.empty(5, 3, dtype=torch.float64).t(), 1.5, generator=g)
        assert torch.equal(g.state, before)
        with pytest.raises(xrng.NotReproducibleError, match="float64 exponential_ on an Intel CPU"):
            with xrng.reproducible(seed=0, stream=f"torch-cpu-{kernel}@{release}", strict=True):
                torch.empty(5, dtype=torch.float64).exponential_(1.5)
    else:
        x = xrng.exponential_(torch.empty(5, dtype=torch.float64), 1.5, generator=g)
        assert torch.equal(x, xrng.exponential_(torch.empty(5, dtype=torch.float64), 1.5,
                                                generator=xrng.torch_cpu(0, release=release)))
    xrng.exponential_(torch.empty(5, dtype=torch.float64), float("inf"), generator=g)
    x = xrng.exponential_(torch.empty(4096), 1.5, generator=xrng.torch_cpu(0, kernel=kernel, release=release))
    if kernel == "x86-intel":
        assert (_f32_digest(x) == _EXPONENTIAL_2_0_INTEL[0]) == mkl
        assert (x[4].item() == _EXPONENTIAL_2_0_INTEL[1]) == mkl
    else:  # AVX-512's logarithm (MKL's AVX-512 code, run by emulate_ln.py): Intel's uniform, another rounding of some values
        y = xrng.exponential_(torch.empty(4096), 1.5, generator=xrng.torch_cpu(0, kernel="x86-intel", release=release))
        assert (not torch.equal(x, y)) == mkl
    # bernoulli_ and dropout (MKL's with Intel's threshold: tests/test_torch_cpu.cpp holds the x it moves) through
    # the generator API and the mode alike
    _generator_equals_mode(_discrete, _discrete_via_generator, _discrete_via_torch, 0, kernel=kernel, release=release)
    # every draw no release takes from MKL is x86's, and advances the generator as x86's
    gi, gx = xrng.torch_cpu(5, kernel=kernel, release=release), xrng.torch_cpu(5, release=release)
    _same(_not_mkl(lambda f: f(gi)), _not_mkl(lambda f: f(gx)))
    assert torch.equal(gi.state, gx.state)
    assert f"kernel={kernel!r}" in repr(gi)


def test_cli_intel_streams(cli):
    # the CLI's torch-cpu-x86-intel@2.4: torch 2.0.1's exponential_ with its MKL told the CPU is Intel's (the
    # sha256 of its 4096 float32 values, _EXPONENTIAL_2_0_INTEL's first 16 hex digits); x86's is the AMD host's
    args = ("--dist", "exponential", "--lambda", 1.5, "--seed", 0, "--count", 4096)
    assert cli.fingerprint("--stream", "torch-cpu-x86-intel@2.4", *args).startswith(_EXPONENTIAL_2_0_INTEL[0])
    x = xrng.exponential_(torch.empty(4096), 1.5, generator=xrng.torch_cpu(0, release="2.4"))
    assert cli.fingerprint("--stream", "torch-cpu-x86@2.4", *args).startswith(_f32_digest(x))
    z = xrng.exponential_(torch.empty(4096), 1.5, generator=xrng.torch_cpu(0, kernel="x86-intel-avx512", release="2.4"))
    assert cli.fingerprint("--stream", "torch-cpu-x86-intel-avx512@2.4", *args).startswith(_f32_digest(z))


# ---- kernel "scalar-intel": torch's default build on an Intel CPU without AVX2 (SPEC.md 14.7) ----

# torch 2.0.1 with its static MKL told the CPU is Intel's and limited to AVX (MKL_ENABLE_INSTRUCTIONS=AVX: its e9
# kernels, as on a Sandy Bridge) under ATEN_CPU_CAPABILITY=default: torch.manual_seed(0);
# torch.empty(4096).exponential_(1.5): the first 16 hex digits of the sha256 of its float32 bytes (1601 of the 4096
# differ from the AMD host's)
_EXPONENTIAL_2_0_INTEL_NO_AVX2 = "5c1fd5603717e794"


@pytest.mark.parametrize("release", ["2.0", "2.6.0", "2.7", None])
def test_scalar_intel_kernel(release):
    kernel = "scalar-intel"
    no_f64 = (torch.float32, torch.float16, torch.bfloat16)
    mine = _generator_equals_mode(lambda d: _exponentials(d, no_f64), _exponentials_via_generator,
                                  _exponentials_via_torch, 0, kernel=kernel, release=release)
    mkl = release in ("2.0", "2.6.0")
    scalar = _exponentials(_exponentials_via_generator(xrng.torch_cpu(0, kernel="scalar", release=release)), no_f64)
    assert torch.equal(mine[0], scalar[0]) == (not mkl)  # float32: MKL's AVX / SSE4.2 logarithm
    g = xrng.torch_cpu(0, kernel=kernel, release=release)
    before = g.state.clone()
    if mkl:  # float64: Intel's vdLn, refused before the generator advances
        with pytest.raises(ValueError, match="float64 exponential_ on an Intel CPU"):
            xrng.exponential_(torch.empty(5, dtype=torch.float64), 1.5, generator=g)
        assert torch.equal(g.state, before)
    x = xrng.exponential_(torch.empty(4096), 1.5, generator=xrng.torch_cpu(0, kernel=kernel, release=release))
    assert (_f32_digest(x) == _EXPONENTIAL_2_0_INTEL_NO_AVX2) == mkl
    # bernoulli_ and dropout: the generic uniform, so the scalar kernel's threshold; every other draw scalar's
    _generator_equals_mode(_discrete, _discrete_via_generator, _discrete_via_torch, 0, kernel=kernel, release=release)
    draws = [lambda g: xrng.bernoulli(3000, p=0.1, generator=g), lambda g: xrng.randn(300, generator=g),
             lambda g: xrng.normal_(torch.empty(40), 0.5, 2.0, generator=g),
             lambda g: xrng.rand(100, dtype=torch.float16, generator=g)]
    for draw in draws:
        gi, gs = xrng.torch_cpu(5, kernel=kernel, release=release), xrng.torch_cpu(5, kernel="scalar", release=release)
        assert torch.equal(draw(gi), draw(gs))
        assert torch.equal(gi.state, gs.state)
    assert f"kernel={kernel!r}" in repr(g)


def test_cli_scalar_intel_stream(cli):
    args = ("--dist", "exponential", "--lambda", 1.5, "--seed", 0, "--count", 4096)
    assert cli.fingerprint("--stream", "torch-cpu-scalar-intel@2.0", *args).startswith(_EXPONENTIAL_2_0_INTEL_NO_AVX2)


# ---- kernel "arm": torch's AArch64 wheels (SPEC.md 14.8) ----

def _arm_draws(draw):
    """Draws where the AArch64 wheels differ from the x86-64 default build (fused multiply-adds, float16 from
    float64 in one rounding, no MKL bernoulli_): values and the generator's advance."""
    out = []
    for dt in (torch.float32, torch.float64):
        out.append(draw(lambda t: t.uniform_(-2.3, 5.1), 1000, dt))
        out.append(draw(lambda t: t.normal_(0.7, 0.3), 1000, dt))
        out.append(draw(lambda t: t.cauchy_(0.5, 2.3), 300, dt))
        out.append(draw(lambda t: t.log_normal_(0.3, 0.7), 300, dt))
    for dt in (torch.float16, torch.bfloat16):
        out.append(draw(lambda t: t.exponential_(1.7), 3000, dt))
        out.append(draw(lambda t: t.normal_(0.7, 0.3), 7, dt))
        out.append(draw(lambda t: t.cauchy_(0.5, 2.3), 300, dt))
        out.append(draw(lambda t: t.log_normal_(0.3, 0.7), 300, dt))
    out.append(draw(lambda t: t.bernoulli_(0.3), 500, torch.float32))
    return out


_ARM_METHODS = {"uniform_": xrng.uniform_, "normal_": xrng.normal_, "cauchy_": xrng.cauchy_,
                "log_normal_": xrng.log_normal_, "exponential_": xrng.exponential_, "bernoulli_": xrng.bernoulli_}


def _arm_via_generator(g):
    def draw(f, n, dt):
        rec = []

        class T:  # records the method and its arguments, then calls xrng's with the generator
            def __getattr__(self, name):
                return lambda *a: rec.append((name, a))
        f(T())
        (name, args), = rec
        return _ARM_METHODS[name](torch.empty(n, dtype=dt), *args, generator=g)
    return draw


@pytest.mark.parametrize("release", ["2.0", "2.2", "2.4", "2.7", "2.12", None])
def test_arm_kernel_generator_and_mode_agree(release):
    _generator_equals_mode(_arm_draws, _arm_via_generator, lambda f, n, dt: f(torch.empty(n, dtype=dt)), 21,
                           kernel="arm", release=release)


def test_arm_kernel_is_scalar_functions_fused_no_mkl():
    # measured on torch 2.4.1's and 2.7.1's AArch64 wheels (qemu-aarch64, seed 0): uniform_(-2.3, 5.1) float32
    for release in ("2.4", "2.7", None):
        u = xrng.uniform_(torch.empty(1000), -2.3, 5.1, generator=xrng.torch_cpu(0, kernel="arm", release=release))
        assert u[:3].tolist() == [1.3722985982894897, 3.384840965270996, -1.6452670097351074]
        x86 = xrng.uniform_(torch.empty(1000), -2.3, 5.1, generator=xrng.torch_cpu(0, release=release))
        scalar = xrng.uniform_(torch.empty(1000), -2.3, 5.1,
                               generator=xrng.torch_cpu(0, kernel="scalar", release=release))
        assert torch.equal(u, x86) and not torch.equal(u, scalar)  # fused, as torch's AVX2 build
    # 2.7.1: normal_(0.7, 0.3) of 1000 float32 (glibc's functions, the last step fused), cauchy_ float64
    g = xrng.torch_cpu(0, kernel="arm", release="2.7")
    assert xrng.normal_(torch.empty(1000), 0.7, 0.3, generator=g)[:3].tolist() == \
        [0.362248033285141, 0.3542919158935547, 0.6248264312744141]
    g = xrng.torch_cpu(0, kernel="arm", release="2.7")
    assert xrng.cauchy_(torch.empty(1000, dtype=torch.float64), 0.5, 2.3, generator=g)[:2].tolist() == \
        [24.87477745136928, 2.2589646970935697]
    # 2.4.1: exponential_(1.7) float16, element 806 of seed 0: the float64 value 0.37976073... rounded once
    # (0.3796386...); through float it would be 0.3798828...
    e = xrng.exponential_(torch.empty(1000, dtype=torch.float16), 1.7, generator=xrng.torch_cpu(0, kernel="arm",
                                                                                                release="2.4"))
    assert e[806].item() == 0.379638671875
    e22 = xrng.exponential_(torch.empty(1000, dtype=torch.float16), 1.7,
                            generator=xrng.torch_cpu(0, kernel="arm", release="2.2"))
    assert e22[806].item() == 0.3798828125 and torch.equal(e[:806], e22[:806])
    # no MKL: bernoulli_ and dropout of 2.0 to 2.6 are the generator's per element (2.7's), unlike x86's
    for release in ("2.0", "2.4", "2.6"):
        arm = xrng.bernoulli(300, p=0.3, generator=xrng.torch_cpu(5, kernel="arm", release=release))
        assert torch.equal(arm, xrng.bernoulli(300, p=0.3, generator=xrng.torch_cpu(5, kernel="arm", release="2.7")))
        assert not torch.equal(arm, xrng.bernoulli(300, p=0.3, generator=xrng.torch_cpu(5, release=release)))
    with pytest.raises(ValueError, match="'x86', 'scalar', 'arm', 'arm-sve256', 'x86-windows', 'x86-intel', 'x86-intel-avx512' "
                                         "or 'scalar-intel'"):
        xrng.torch_cpu(0, kernel="aarch64")
    assert repr(xrng.torch_cpu(0, kernel="arm", release="2.4")) == "xrng.torch_cpu(kernel='arm', release='2.4')"


def test_arm_kernel_casts_a_float64_argument_to_float16_once():
    # torch's static_cast<Half>(double) of a mean, std or bound (the 16-bit 16-wide normal of 2.1 to 2.12, the
    # 16-bit uniforms up to 2.11) is one rounding on AArch64 from 2.3 on: 1 + 2^-11 + 2^-30 (float: the midpoint
    # 1 + 2^-11, then to even: 1) is 1 + 2^-10 there. Measured on 2.11.0's and 2.12.1's AArch64 wheels (qemu,
    # seed 0): uniform_(m, 2.0) and normal_(m, 0.5) of 16 float16, their bits
    m = 1 + 2 ** -11 + 2 ** -30
    measured = {
        "2.11": ([15703, 15640, 16187, 15968, 15778, 15742, 16226, 16052, 15877, 16234, 15499, 16249, 16274, 15660,
                  15907, 16108],
                 [14439, 15608, 15974, 15825, 15770, 15101, 11088, 15174, 15336, 14710, 16058, 14348, 14708, 15838,
                  14942, 13338]),
        "2.12": ([15868, 16147, 15451, 15496, 15675, 16009, 15862, 16278, 15827, 16008, 15718, 15772, 15383, 15533,
                  15661, 15891],
                 [14082, 14028, 15105, 14918, 15796, 15715, 15038, 43840, 15526, 13801, 15540, 15519, 15422, 15995,
                  15933, 15109])}

    def bits(t):
        return [x & 0xffff for x in t.view(torch.int16).tolist()]
    for release, (uniform, normal) in measured.items():
        for kernel in ("arm", "arm-sve256"):
            g = xrng.torch_cpu(0, kernel=kernel, release=release)
            assert bits(xrng.uniform_(torch.empty(16, dtype=torch.float16), m, 2.0, generator=g)) == uniform
            g = xrng.torch_cpu(0, kernel=kernel, release=release)
            assert bits(xrng.normal_(torch.empty(16, dtype=torch.float16), m, 0.5, generator=g)) == normal
    # normal_(m, 0): 1 + 2^-10 on the AArch64 kernels of 2.3 to 2.12 (and element-wise from 2.3 on), 1 through
    # float (x86, AArch64 before 2.3, and 2.13 on, whose 16-wide normal takes float's mean); measured on 2.11.0,
    # 2.12.1 and 2.15.0's AArch64 wheels and 2.15.0 here
    for kernel, release, want in (("arm", "2.11", [15361, 15361]), ("arm", "2.12", [15361, 15361]),
                                  ("arm", None, [15360, 15361]), ("arm", "2.2", [15360, 15360]),
                                  ("x86", "2.11", [15360, 15360]), ("x86", None, [15360, 15360])):
        got = [bits(xrng.normal_(torch.empty(n, dtype=torch.float16), m, 0.0,
                                 generator=xrng.torch_cpu(0, kernel=kernel, release=release)))[0] for n in (16, 4)]
        assert got == want, (kernel, release)


# ---- kernel "arm-sve256": the AArch64 wheels' SVE256 build (Graviton3; SPEC.md 14.8) ----

def _f16_normal(seed, kernel, release, mean, std):
    return xrng.normal_(torch.empty(1000, dtype=torch.float16), mean, std,
                        generator=xrng.torch_cpu(seed, kernel=kernel, release=release))


def test_arm_sve256_kernel_float16_normal_is_one_float16_fma():
    # measured: torch 2.11.0's AArch64 wheel under qemu-aarch64 -cpu max,sve256=on (its SVE256 capability):
    # manual_seed(s); torch.empty(1000, dtype=torch.float16).normal_(0.7, 0.3), the sha256 of its 2000 bytes;
    # DEFAULT (kernel "arm") gives other values, 160 and 146 of them
    for seed, sve, default in ((0, "ebbf91e610de2c9a", "605a029a54b37ff4"),
                               (1, "8e29b69cca61482e", "57c13e2caf87157f")):
        v = _f16_normal(seed, "arm-sve256", "2.11", 0.7, 0.3)
        a = _f16_normal(seed, "arm", "2.11", 0.7, 0.3)
        assert hashlib.sha256(v.view(torch.int16).numpy().tobytes()).hexdigest()[:16] == sve
        assert hashlib.sha256(a.view(torch.int16).numpy().tobytes()).hexdigest()[:16] == default
        assert int((v != a).sum()) == (160, 146)[seed]
        # each value the float16 fma of randn's (mean 0, std 1), computed here exactly in float64 (22-bit
        # product plus a float16 mean: exact; numpy rounds float64 to float16 once)
        z = _f16_normal(seed, "arm-sve256", "2.11", 0.0, 1.0)
        assert torch.equal(z, _f16_normal(seed, "arm", "2.11", 0.0, 1.0))
        sd, m = float(torch.tensor(0.3, dtype=torch.float16)), float(torch.tensor(0.7, dtype=torch.float16))
        want = torch.from_numpy((z.double().numpy() * sd + m).astype("float16"))
        assert torch.equal(v, want)
    # only where torch computed that normal in float16 (2.1 to 2.11); bfloat16, the 2.12 on releases and the
    # other draws as arm
    for release in ("2.12", None):
        assert torch.equal(_f16_normal(0, "arm-sve256", release, 0.7, 0.3), _f16_normal(0, "arm", release, 0.7, 0.3))
    b = [xrng.normal_(torch.empty(1000, dtype=torch.bfloat16), 0.7, 0.3,
                      generator=xrng.torch_cpu(0, kernel=k, release="2.7")) for k in ("arm-sve256", "arm")]
    assert torch.equal(b[0], b[1])
    assert repr(xrng.torch_cpu(0, kernel="arm-sve256")) == "xrng.torch_cpu(kernel='arm-sve256')"


@pytest.mark.parametrize("release", ["2.7", "2.11", None])
def test_arm_sve256_generator_mode_and_cli_agree(release, cli):
    stream = "torch-cpu-arm-sve256" + ("" if release is None else f"@{release}")
    g = xrng.torch_cpu(4, kernel="arm-sve256", release=release)
    mine = [xrng.normal_(torch.empty(n, dtype=torch.float16), 0.7, 0.3, generator=g) for n in (16, 1000, 37)]
    with xrng.reproducible(seed=4, stream=stream, strict=True) as mode:
        assert mode.stream == stream
        theirs = [torch.empty(n, dtype=torch.float16).normal_(0.7, 0.3) for n in (16, 1000, 37)]
        state = torch.get_rng_state()
    _same(mine, theirs)
    assert torch.equal(g.state, state)
    raw = cli.bin("--stream", stream, "--dist", "normal", "--mean", 0.7, "--std", 0.3, "--dtype", "f16",
                  "--seed", 4, "--count", 1000)
    assert raw == _f16_normal(4, "arm-sve256", release, 0.7, 0.3).view(torch.int16).numpy().tobytes()


def test_cli_arm_stream_equals_generator(cli):
    raw = cli.bin("--stream", "torch-cpu-arm@2.4", "--dist", "exponential", "--lambda", 1.7, "--dtype", "f16",
                  "--seed", 0, "--count", 1000)
    want = xrng.exponential_(torch.empty(1000, dtype=torch.float16), 1.7,
                             generator=xrng.torch_cpu(0, kernel="arm", release="2.4"))
    assert raw == want.view(torch.int16).numpy().tobytes()
    for dist, args in [("uniform", ("--low", -2.3, "--high", 5.1)), ("normal", ("--mean", 0.7, "--std", 0.3)),
                       ("cauchy", ("--median", 0.5, "--sigma", 2.3)), ("bernoulli", ("--p", 0.3))]:
        raw = cli.bin("--stream", "torch-cpu-arm@2.4", "--dist", dist, *args, "--seed", 3, "--count", 1001)
        g = xrng.torch_cpu(3, kernel="arm", release="2.4")
        t = torch.empty(1001)
        want = {"uniform": lambda: xrng.uniform_(t, -2.3, 5.1, generator=g),
                "normal": lambda: xrng.normal_(t, 0.7, 0.3, generator=g),
                "cauchy": lambda: xrng.cauchy_(t, 0.5, 2.3, generator=g),
                "bernoulli": lambda: xrng.bernoulli_(t, 0.3, generator=g)}[dist]()
        assert raw == want.numpy().tobytes(), dist
