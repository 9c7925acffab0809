"""Values: equality with the xrng CLI, generator semantics, strided outputs,
thread/SIMD independence, and errors raised as Python exceptions."""
import pytest
import torch

import xrng
from conftest import as_bytes, same_bits

# (xrng call producing n elements, the CLI arguments of the same draw)
CASES = {
    "normal-f32": (lambda n, **k: xrng.randn(n, **k), ["--dist", "normal", "--dtype", "f32"]),
    "normal-f64-moments": (lambda n, **k: xrng.randn(n, dtype=torch.float64, mean=-2.5, std=3.0, **k),
                           ["--dist", "normal", "--dtype", "f64", "--mean", "-2.5", "--std", "3"]),
    "normal-f16": (lambda n, **k: xrng.randn(n, dtype=torch.float16, **k), ["--dist", "normal", "--dtype", "f16"]),
    "normal-bf16": (lambda n, **k: xrng.randn(n, dtype=torch.bfloat16, **k), ["--dist", "normal", "--dtype", "bf16"]),
    "uniform-f32": (lambda n, **k: xrng.rand(n, **k), ["--dist", "uniform", "--dtype", "f32"]),
    "uniform-f64-range": (lambda n, **k: xrng.rand(n, dtype=torch.float64, low=-1.0, high=4.0, **k),
                          ["--dist", "uniform", "--dtype", "f64", "--low", "-1", "--high", "4"]),
    "uniform-f16": (lambda n, **k: xrng.rand(n, dtype=torch.float16, **k), ["--dist", "uniform", "--dtype", "f16"]),
    "uniform-bf16": (lambda n, **k: xrng.rand(n, dtype=torch.bfloat16, **k), ["--dist", "uniform", "--dtype", "bf16"]),
    "randint-i64": (lambda n, **k: xrng.randint(-5, 1000, (n,), **k),
                    ["--dist", "randint", "--dtype", "i64", "--low", "-5", "--high", "1000"]),
    "randint-i32": (lambda n, **k: xrng.randint(-5, 1000, (n,), dtype=torch.int32, **k),
                    ["--dist", "randint", "--dtype", "i32", "--low", "-5", "--high", "1000"]),
    "bernoulli": (lambda n, **k: xrng.bernoulli(n, p=0.3, dtype=torch.uint8, **k),
                  ["--dist", "bernoulli", "--p", "0.3"]),
    "bernoulli-bool": (lambda n, **k: xrng.bernoulli(n, p=0.7, **k), ["--dist", "bernoulli", "--p", "0.7"]),
    "bits-u32": (lambda n, **k: xrng.bits_(torch.empty(n, dtype=torch.uint32), **k), ["--dist", "bits", "--dtype", "u32"]),
    "bits-u64": (lambda n, **k: xrng.bits_(torch.empty(n, dtype=torch.uint64), **k), ["--dist", "bits", "--dtype", "u64"]),
    "exponential-f32": (lambda n, **k: xrng.exponential_(torch.empty(n), rate=2.5, **k),
                        ["--dist", "exponential", "--dtype", "f32", "--rate", "2.5"]),
    "geometric-i64": (lambda n, **k: xrng.geometric_(torch.empty(n, dtype=torch.int64), 0.125, **k),
                      ["--dist", "geometric", "--dtype", "i64", "--p", "0.125"]),
    "geometric-f16": (lambda n, **k: xrng.geometric_(torch.empty(n, dtype=torch.float16), 0.125, **k),
                      ["--dist", "geometric", "--dtype", "f16", "--p", "0.125"]),
    "log_normal-bf16": (lambda n, **k: xrng.log_normal_(torch.empty(n, dtype=torch.bfloat16), mean=-0.5, std=0.75, **k),
                        ["--dist", "log_normal", "--dtype", "bf16", "--mean", "-0.5", "--std", "0.75"]),
    "cauchy-f64": (lambda n, **k: xrng.cauchy_(torch.empty(n, dtype=torch.float64), median=3.0, sigma=0.25, **k),
                   ["--dist", "cauchy", "--dtype", "f64", "--median", "3", "--sigma", "0.25"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_cli(cli, name):
    make, args = CASES[name]
    n = 1001  # odd: the last normal pair is cut
    key = ["--seed", "12345", "--subseq", "3", "--offset", "7"]
    t = make(n, seed=12345, subseq=3, offset=7)
    assert as_bytes(t) == cli.bin(*args, *key, "--count", n)
    # element i of the tensor is `xrng gen --start i`
    assert as_bytes(t[37:137]) == cli.bin(*args, *key, "--start", 37, "--count", 100)
    assert as_bytes(t[-1:]) == cli.bin(*args, *key, "--start", n - 1, "--count", 1)


@pytest.mark.parametrize("dtype,cli_dtype", [(torch.int64, "i64"), (torch.int32, "i32")])
def test_randperm_equals_cli(cli, dtype, cli_dtype):
    p = xrng.randperm(5000, seed=99, offset=4, dtype=dtype)
    assert as_bytes(p) == cli.bin("--dist", "perm", "--dtype", cli_dtype, "--n", 5000, "--seed", 99, "--offset", 4,
                                  "--count", 5000)
    assert sorted(p.tolist()) == list(range(5000))


def test_perm_shard_equals_cli(cli):
    s = xrng.perm_shard(1003, rank=2, world=4, start=5, count=200, seed=8)
    assert as_bytes(s) == cli.bin("--dist", "perm", "--n", 1003, "--rank", 2, "--world", 4, "--seed", 8, "--start", 5,
                                  "--count", 200)


def test_fingerprint_matches_cli(cli):
    import hashlib
    t = xrng.randn(4096, seed=2024)
    assert hashlib.sha256(as_bytes(t)).hexdigest() == cli.fingerprint("--dist", "normal", "--dtype", "f32",
                                                                        "--seed", 2024, "--count", 4096)


def test_randint_narrow_dtypes_are_the_i32_draw():
    ref = xrng.randint(-100, 100, (777,), dtype=torch.int32, seed=5)
    for dt in (torch.int16, torch.int8):
        t = xrng.randint(-100, 100, (777,), dtype=dt, seed=5)
        assert t.dtype == dt and torch.equal(t.to(torch.int32), ref)
    u = xrng.randint(0, 256, (777,), dtype=torch.uint8, seed=5)
    assert torch.equal(u.to(torch.int32), xrng.randint(0, 256, (777,), dtype=torch.int32, seed=5))


def test_dropout_is_the_bernoulli_mask():
    x = xrng.randn(4097, seed=1)
    for p in (0.0, 0.1, 0.5, 1.0):
        y = xrng.dropout(x, p, seed=77, offset=3)
        mask = xrng.bernoulli(4097, p=p, seed=77, offset=3)
        assert torch.all(y[mask] == 0)
        if p < 1.0:
            scale = torch.tensor(1.0 / (1.0 - p), dtype=torch.float32)
            assert same_bits(y[~mask], x[~mask] * scale)
    # in place, and eval mode
    z = x.clone()
    assert xrng.dropout(z, 0.25, inplace=True, seed=77) is z
    assert same_bits(z, xrng.dropout(x, 0.25, seed=77))
    assert xrng.dropout(x, 0.5, training=False) is x


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_dropout_dtypes(dtype):
    x = xrng.randn(1000, dtype=dtype, seed=3)
    y = xrng.dropout(x, 0.4, seed=4)
    mask = xrng.bernoulli(1000, p=0.4, seed=4)
    assert torch.all(y[mask] == 0) and y.dtype == dtype
    assert torch.count_nonzero(y[~mask]).item() == torch.count_nonzero(x[~mask]).item()


def test_generator_advances_by_words_consumed():
    g = xrng.Generator(7, subseq=1)
    a = xrng.randn(5, generator=g)          # 3 normal pairs: 6 words
    assert g.offset == 6
    b = xrng.rand(3, dtype=torch.float64, generator=g)  # 2 words each
    assert g.offset == 12
    c = xrng.randint(0, 10, (4,), generator=g)          # 4 words each (i64)
    assert g.offset == 28
    d = xrng.randperm(100, generator=g)                 # 12 words whatever n
    assert g.offset == 40
    e = xrng.bernoulli(3, p=0.5, generator=g)           # 1 word each
    assert g.offset == 43
    assert same_bits(a, xrng.randn(5, seed=7, subseq=1))
    assert same_bits(b, xrng.rand(3, dtype=torch.float64, seed=7, subseq=1, offset=6))
    assert same_bits(c, xrng.randint(0, 10, (4,), seed=7, subseq=1, offset=12))
    assert same_bits(d, xrng.randperm(100, seed=7, subseq=1, offset=28))
    assert same_bits(e, xrng.bernoulli(3, p=0.5, seed=7, subseq=1, offset=40))


def test_generator_draws_equal_one_big_draw():
    g = xrng.Generator(3)
    parts = [xrng.randn(n, generator=g) for n in (2, 10, 64, 4)]
    assert same_bits(torch.cat(parts), xrng.randn(80, seed=3))


def test_default_generator_and_manual_seed():
    xrng.manual_seed(11)
    a = xrng.randn(10)
    b = xrng.randn(10)
    xrng.manual_seed(11)
    assert same_bits(torch.cat([a, b]), xrng.randn(20))
    assert same_bits(a, xrng.randn(10, seed=11))


def test_strided_outputs_follow_logical_order():
    base = torch.zeros(6, 8)
    t = base.t()  # 8 x 6, column-major in memory
    xrng.normal_(t, seed=21)
    assert same_bits(t.reshape(-1), xrng.randn(48, seed=21))
    u = torch.zeros(5, 12, dtype=torch.float64)[:, ::3]
    xrng.uniform_(u, seed=22, low=2.0, high=3.0)
    assert same_bits(u.reshape(-1), xrng.rand(20, seed=22, low=2.0, high=3.0, dtype=torch.float64))
    m = torch.zeros(4, 10, dtype=torch.bool)[:, 1::2]
    xrng.bernoulli_(m, p=0.5, seed=23)
    assert same_bits(m.reshape(-1), xrng.bernoulli(20, p=0.5, seed=23))
    k = torch.zeros(3, 8, dtype=torch.int16).t()
    xrng.randint_(k, -3, 3, seed=24)
    assert torch.equal(k.reshape(-1), xrng.randint(-3, 3, (24,), dtype=torch.int16, seed=24))


def test_shapes_like_and_out():
    t = xrng.randn(2, 3, 4, seed=1)
    assert t.shape == (2, 3, 4) and same_bits(t, xrng.randn((2, 3, 4), seed=1))
    assert same_bits(t.reshape(-1), xrng.randn(24, seed=1))
    assert same_bits(xrng.randn_like(t, seed=1), t)
    assert xrng.rand_like(t, seed=1, dtype=torch.float64).dtype == torch.float64
    r = xrng.randint_like(t.to(torch.int32), 5, seed=2)
    assert r.dtype == torch.int32 and r.shape == t.shape and int(r.max()) < 5
    assert xrng.bernoulli_like(t, 0.5, seed=3).dtype == torch.bool
    out = torch.empty(2, 3, 4)
    assert xrng.randn(2, 3, 4, seed=1, out=out) is out and same_bits(out, t)
    assert xrng.randn(0, seed=1).numel() == 0
    assert xrng.randn(seed=1).shape == ()  # a 0-d tensor, one element
    assert xrng.randn(3, seed=4, requires_grad=True).requires_grad


def test_threads_and_simd_do_not_change_values():
    n = 300_001
    ref = xrng.randn(n, seed=9, threads=1)
    assert same_bits(xrng.randn(n, seed=9, threads=2), ref)
    assert same_bits(xrng.randn(n, seed=9, threads=7), ref)
    isa = xrng.simd_isa()
    try:
        assert xrng._C.set_simd_isa("none")
        assert same_bits(xrng.randn(n, seed=9, threads=2), ref)
        assert same_bits(xrng.randperm(10_000, seed=9), xrng.randperm(10_000, seed=9))
    finally:
        xrng._C.set_simd_isa(isa)


def test_perm_random_access():
    p = xrng.randperm(1000, seed=5, offset=2)
    assert xrng.perm_element(1000, 17, seed=5, offset=2) == p[17].item()
    assert xrng.perm_position(1000, int(p[17]), seed=5, offset=2) == 17


@pytest.mark.parametrize("call,match", [
    (lambda: xrng.randn(-1, seed=0), "negative dimension"),
    (lambda: xrng.bernoulli(3, p=1.5, seed=0), r"p must be in \[0, 1\]"),
    (lambda: xrng.bernoulli(3, p=-0.1, seed=0), r"p must be in \[0, 1\]"),
    (lambda: xrng.dropout(torch.ones(3), 2.0, seed=0), r"p must be in \[0, 1\]"),
    (lambda: xrng.randint(5, 5, (3,), seed=0), "empty range"),
    (lambda: xrng.randint(0, 300, (3,), dtype=torch.int8, seed=0), "does not fit"),
    (lambda: xrng.randint(0, 2**40, (3,), dtype=torch.int32, seed=0), "does not fit"),
    (lambda: xrng.randn(3, dtype=torch.int64, seed=0), "not available for distribution normal"),
    (lambda: xrng.rand(3, dtype=torch.int32, seed=0), "not available for distribution uniform"),
    (lambda: xrng.bernoulli(3, dtype=torch.float32, seed=0), "not available for distribution bernoulli"),
    (lambda: xrng.randint(0, 3, (3,), dtype=torch.float32, seed=0), "not available for distribution randint"),
    (lambda: xrng.randperm(10, dtype=torch.int16, seed=0), "not available for distribution perm"),
    (lambda: xrng.randperm(0, seed=0), "n must be"),
    (lambda: xrng.rand(3, low=1.0, high=1.0, seed=0), "empty range"),
    (lambda: xrng.randn(3, std=-1.0, seed=0), "std"),
    (lambda: xrng.randn(3, seed=-1), r"seed must be in \[0, 2\*\*64\)"),
    (lambda: xrng.randn(3, seed=1, generator=xrng.Generator(1)), "not both"),
    (lambda: xrng.randn(3, offset=4), "need seed"),
    (lambda: xrng.randn(3, seed=1, path="teleport"), "path must be"),
    (lambda: xrng.randn(3, seed=1, offset=2**64 - 2), "counter overflow|exhausted"),
    (lambda: xrng.randn(3, out=torch.empty(4), seed=1), "shape"),
    # a meta tensor is drawn by the operators' Meta kernel (no values); a forced path has none
    (lambda: xrng.randn(3, device="meta", seed=1, path="host_transfer"), "no path for device meta"),
    (lambda: xrng.normal_(torch.empty(3).to_sparse(), seed=1), "strided"),
    (lambda: xrng.perm_shard(10, rank=3, world=3, seed=1), "rank"),
])
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_stateless_draws_reach_the_last_word_generators_do_not():
    # seed=...: (key, offset) only, so a draw may end exactly at word 2**64;
    # a Generator cannot advance there (SPEC.md section 3: "generator exhausted").
    t = xrng.rand(6, seed=3, offset=2**64 - 6)
    assert same_bits(t[-1:], xrng.rand(1, seed=3, offset=2**64 - 1))
    with pytest.raises(ValueError, match="counter overflow"):
        xrng.rand(7, seed=3, offset=2**64 - 6)
    g = xrng.Generator(3, offset=2**64 - 6)
    with pytest.raises(ValueError, match="exhausted"):
        xrng.rand(6, generator=g)
    assert same_bits(xrng.rand(5, generator=g), t[:5]) and g.offset == 2**64 - 1
    # dropout too: the last 4 of 5 elements are the 4 elements one word later
    tail = xrng.dropout(torch.ones(4), 0.5, seed=3, offset=2**64 - 4)
    assert same_bits(tail, xrng.dropout(torch.ones(5), 0.5, seed=3, offset=2**64 - 5)[1:])


def test_failed_draw_leaves_generator_unchanged():
    g = xrng.Generator(1, offset=5)
    with pytest.raises(ValueError):
        xrng.randint(0, 300, (3,), dtype=torch.int8, generator=g)
    with pytest.raises(ValueError):
        xrng.randn(3, dtype=torch.int64, generator=g)
    assert g.offset == 5


# ---- every row of the registry ---------------------------------------------------------------
REGISTRY = xrng._C.registry()
TORCH_DTYPE = REGISTRY["dtypes"]
# A value for every parameter of the registry, by name (XRNG_PARAMS): a new
# parameter without one here fails with a KeyError naming it.
SAMPLE = {"low": -1.5, "high": 2.0, "mean": 0.5, "std": 2.0, "p": 0.25, "ilow": -5, "ihigh": 1000, "rate": 1.5,
          "median": 1.0, "sigma": 0.5}
DRAWABLE_ROWS = [r for r in REGISTRY["rows"] if REGISTRY["dists"][r[0]]["kind"] != "transform"]


def sample_params(dist, n):
    return {p: (n if p == "n" else SAMPLE[p]) for p in REGISTRY["dists"][dist]["params"]}


@pytest.mark.parametrize("row", DRAWABLE_ROWS, ids=lambda r: f"{r[0]}-{r[1]}")
def test_every_row_advances_by_its_words_and_splits_freely(row):
    dist, dtype, group, words, _ = row
    perm = REGISTRY["dists"][dist]["kind"] == "permutation"
    n = 37  # odd: not a multiple of any group
    g = xrng.Generator(5, offset=3)
    whole = torch.empty(n, dtype=TORCH_DTYPE[dtype])
    xrng._C.draw_(whole, g, dist, sample_params(dist, n), "auto", 1)
    assert g.offset == 3 + (words if perm else words * -(-n // group))
    again = torch.empty(n, dtype=TORCH_DTYPE[dtype])
    xrng._C.draw_(again, xrng.Generator(5, offset=3), dist, sample_params(dist, n), "auto", 2)
    assert same_bits(whole, again), "the thread count changed a value"
    if not perm:
        # two draws from a generator at a group boundary equal one draw
        g = xrng.Generator(5, offset=3)
        a, b = torch.empty(group * 5, dtype=whole.dtype), torch.empty(n - group * 5, dtype=whole.dtype)
        xrng._C.draw_(a, g, dist, sample_params(dist, n), "auto", 1)
        xrng._C.draw_(b, g, dist, sample_params(dist, n), "auto", 1)
        assert same_bits(torch.cat([a, b]), whole)


def test_registry_is_consistent():
    for name, d in REGISTRY["dists"].items():
        assert any(r[0] == name and r[1] == d["default_dtype"] for r in REGISTRY["rows"]), name
        assert set(d["params"]) <= set(REGISTRY["params"])
    assert {r[1] for r in REGISTRY["rows"]} <= set(TORCH_DTYPE)


def test_docstrings_state_the_registrys_word_counts():
    words = {(r[0], r[1]): r[3] for r in REGISTRY["rows"]}
    doc = lambda f: " ".join(f.__doc__.split())
    assert f"consumes {words['perm', 'i64']} stream words" in doc(xrng.randperm)
    assert (f"the same {words['normal', 'f32']} stream words (f64: {words['normal', 'f64']} words)"
            in doc(xrng.randn))
    assert f"an i64 draw: {words['randint', 'i64']} stream words" in doc(xrng.randint)
    assert f"an i32 draw: {words['randint', 'i32']} words" in doc(xrng.randint)


# ---- the in-place fills of the newer distributions ------------------------------------------------
NAMED = {  # public function, its keyword parameters -> the registry's parameters
    "exponential": (xrng.exponential_, {"rate": 2.5}, {"rate": 2.5}),
    "geometric": (xrng.geometric_, {"p": 0.125}, {"p": 0.125}),
    "log_normal": (xrng.log_normal_, {"mean": -0.5, "std": 0.75}, {"mean": -0.5, "std": 0.75}),
    "cauchy": (xrng.cauchy_, {"median": 3.0, "sigma": 0.25}, {"median": 3.0, "sigma": 0.25}),
}


@pytest.mark.parametrize("dist", sorted(NAMED))
def test_named_fills_equal_the_generic_draw(dist):
    fill, kw, params = NAMED[dist]
    for dtype in [r[1] for r in REGISTRY["rows"] if r[0] == dist]:
        t = fill(torch.empty(2, 51, dtype=TORCH_DTYPE[dtype]), seed=9, subseq=2, offset=11, **kw)
        ref = torch.empty(102, dtype=TORCH_DTYPE[dtype])
        xrng._C.draw_(ref, xrng.Generator(9, 2, 11), dist, params, "auto", 0)
        assert same_bits(t.reshape(-1), ref), dtype
        # a strided tensor is filled in row-major order too
        s = torch.empty(51, 2, dtype=TORCH_DTYPE[dtype]).t()
        fill(s, seed=9, subseq=2, offset=11, **kw)
        assert same_bits(s.reshape(-1), ref), dtype
    # the defaults are the documented ones
    d = fill(torch.empty(64), seed=1, **({"p": 0.5} if dist == "geometric" else {}))
    ref = torch.empty(64)
    defaults = {"exponential": {"rate": 1.0}, "geometric": {"p": 0.5}, "log_normal": {"mean": 1.0, "std": 2.0},
                "cauchy": {"median": 0.0, "sigma": 1.0}}[dist]
    xrng._C.draw_(ref, xrng.Generator(1), dist, defaults, "auto", 0)
    assert same_bits(d, ref)


def test_new_fills_reject_what_they_cannot_draw():
    with pytest.raises(ValueError, match="not available for distribution geometric"):
        xrng.geometric_(torch.empty(4, dtype=torch.int16), 0.5, seed=1)  # unbounded values: no narrowing
    with pytest.raises(ValueError, match="not available for distribution exponential"):
        xrng.exponential_(torch.empty(4, dtype=torch.int64), seed=1)
    with pytest.raises(ValueError, match="rate"):
        xrng.exponential_(torch.empty(4), rate=0.0, seed=1)
    with pytest.raises(ValueError, match="p must be in"):
        xrng.geometric_(torch.empty(4), 0.0, seed=1)
    with pytest.raises(ValueError, match="sigma"):
        xrng.cauchy_(torch.empty(4), sigma=-1.0, seed=1)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        xrng.cauchy_(torch.empty(4), scale=2.0, seed=1)
    with pytest.raises(ValueError, match="unknown parameter 'scale'"):
        xrng._C.draw_(torch.empty(4), xrng.Generator(1), "cauchy", {"scale": 2.0}, "auto", 0)
    with pytest.raises(ValueError, match="use dropout_out"):
        xrng._C.draw_(torch.empty(4), xrng.Generator(1), "dropout", {"p": 0.5}, "auto", 0)
