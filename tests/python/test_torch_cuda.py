"""xrng.torch_cuda on the CPU (SPEC.md section 15): the values against an
independent model written here from torch's and cuRAND's source on top of
xrng's raw stream (xrng.bits_ with seed=/subseq=/offset=, nothing of
rng/torch_cuda.h), the offsets torch's generator would have after each draw,
and the property that below one wave the values do not depend on the GPU.
Comparison with torch's own CUDA draws: tests/gpu/test_torch_cuda_gpu.py
(run by tests/gpu/run.sh where a GPU is lent)."""
import hashlib
import subprocess
import warnings

import numpy as np
import pytest
import torch

import xrng

BLOCK = 256


# ---- the independent model ---------------------------------------------------------------
def model_launch(n, unroll, sm, tps):
    """calc_execution_policy: (grid, counter_offset)."""
    grid = min((n + BLOCK - 1) // BLOCK, sm * (tps // BLOCK))
    return grid, ((n - 1) // (BLOCK * grid * unroll) + 1) * 4


def model_words(seed, offset, n, unroll, sm, tps):
    """For each element: the 4 words of its curand4 call and its lane."""
    grid, co = model_launch(n, unroll, sm, tps)
    S = BLOCK * grid
    words = np.empty((n, 4), dtype=np.uint32)
    lanes = np.empty(n, dtype=np.int64)
    cache = {}
    for i in range(n):
        r, j = divmod(i, S * unroll)
        lane, t = divmod(j, S)
        if (t, r) not in cache:
            w = torch.empty(4, dtype=torch.uint32)
            xrng.bits_(w, seed=seed, subseq=t, offset=offset + 4 * r)
            cache[(t, r)] = w.numpy().copy()
        words[i] = cache[(t, r)]
        lanes[i] = lane
    return words, lanes, offset + co


def curand_uniform(x):
    # float(x) * 2^-32 + 2^-33 in binary32 (numpy: one rounding per operation)
    return (x.astype(np.float32) * np.float32(2.0 ** -32) + np.float32(2.0 ** -33)).astype(np.float32)


def curand_uniform_double_hq(x, y):
    z = x.astype(np.uint64) ^ (y.astype(np.uint64) << np.uint64(21))
    return z.astype(np.float64) * 2.0 ** -53 + 2.0 ** -54


@pytest.mark.parametrize("sm,tps", [(132, 2048), (2, 256), (40, 1024)])
@pytest.mark.parametrize("n", [1, 1000, 3001])
def test_rand_f32_matches_model(sm, tps, n):
    g = xrng.torch_cuda(99, sm_count=sm, threads_per_sm=tps)
    g.offset = 8
    got = xrng.rand(n, generator=g).numpy()
    w, lanes, off = model_words(99, 8, n, 4, sm, tps)
    u = curand_uniform(w[np.arange(n), lanes])
    u = np.where(u == np.float32(1.0), np.float32(0.0), u)  # uniform_'s to -> from
    assert np.array_equal(got.view(np.uint32), u.view(np.uint32))
    assert g.offset == off


@pytest.mark.parametrize("n", [7, 2049])
def test_rand_f64_matches_model(n):
    g = xrng.torch_cuda(5, sm_count=2, threads_per_sm=512)
    got = xrng.rand(n, dtype=torch.float64, generator=g).numpy()
    w, lanes, off = model_words(5, 0, n, 2, 2, 512)
    u = curand_uniform_double_hq(w[np.arange(n), 2 * lanes], w[np.arange(n), 2 * lanes + 1])
    u = np.where(u == 1.0, 0.0, u)
    assert np.array_equal(got.view(np.uint64), u.view(np.uint64))
    assert g.offset == off


def test_rand_16bit_is_the_f32_uniform_rounded():
    for dt in (torch.float16, torch.bfloat16):
        g1 = xrng.torch_cuda(3, sm_count=1, threads_per_sm=256)
        g2 = xrng.torch_cuda(3, sm_count=1, threads_per_sm=256)
        a = xrng.rand(1500, dtype=dt, generator=g1)
        b = xrng.rand(1500, generator=g2).to(dt)
        b = torch.where(b == 1, torch.zeros((), dtype=dt), b)
        assert torch.equal(a, b)
        assert g1.offset == g2.offset


def test_randint_both_paths_match_model():
    n, sm, tps = 1200, 2, 256
    g = xrng.torch_cuda(11, sm_count=sm, threads_per_sm=tps)
    got = xrng.randint(-5, 1000, (n,), generator=g).numpy()
    w, lanes, off = model_words(11, 0, n, 4, sm, tps)
    assert np.array_equal(got, w[np.arange(n), lanes].astype(np.int64) % 1005 - 5)
    assert g.offset == off
    got = xrng.randint(0, 2 ** 40, (n,), generator=g).numpy()  # range >= 2^28: random64, unroll 2
    w, lanes, off2 = model_words(11, off, n, 2, sm, tps)
    hi = w[np.arange(n), 2 * lanes].astype(np.uint64)
    lo = w[np.arange(n), 2 * lanes + 1].astype(np.uint64)
    assert np.array_equal(got.astype(np.uint64), ((hi << np.uint64(32)) | lo) % np.uint64(2 ** 40))
    assert g.offset == off2


# random_() without a range (torch 2.15 ATen/native/cuda/DistributionTemplates.h random_kernel,
# TransformationHelper.h uniform_int): float64 / int64 a ulonglong2 (unroll 2, w = x << 32 | y),
# the rest a uint4 (unroll 4); w mod (2^digits + 1) for the floats, mod (max + 1) for the integers,
# w & 1 for bool. Read from source, UNMEASURED on a GPU (SPEC.md 15).
RANDOM_MOD = {torch.float32: 2 ** 24 + 1, torch.float64: 2 ** 53 + 1, torch.float16: 2 ** 11 + 1,
              torch.bfloat16: 2 ** 8 + 1, torch.int8: 2 ** 7, torch.uint8: 2 ** 8, torch.int16: 2 ** 15,
              torch.int32: 2 ** 31, torch.int64: 2 ** 63, torch.bool: 2}


@pytest.mark.parametrize("dt", list(RANDOM_MOD))
@pytest.mark.parametrize("sm,tps,n", [(2, 256, 1500), (132, 2048, 37)])
def test_random_matches_model(dt, sm, tps, n):
    g = xrng.torch_cuda(21, sm_count=sm, threads_per_sm=tps)
    g.offset = 12
    got = xrng.random_(torch.empty(n, dtype=dt), generator=g)
    wide = dt in (torch.float64, torch.int64)
    w, lanes, off = model_words(21, 12, n, 2 if wide else 4, sm, tps)
    if wide:
        v = (w[np.arange(n), 2 * lanes].astype(np.uint64) << np.uint64(32)) | w[np.arange(n), 2 * lanes + 1]
    else:
        v = w[np.arange(n), lanes].astype(np.uint64)
    want = [int(x) % RANDOM_MOD[dt] for x in v]
    if dt == torch.bool:
        want = [int(x) & 1 for x in v]
    assert [int(x) for x in got.to(torch.float64 if dt.is_floating_point else torch.int64).tolist()] == want
    assert g.offset == off


def test_random_and_randint_dtypes_and_refusals():
    n, sm, tps = 700, 2, 256
    for dt, lo, hi in ((torch.bool, 0, 2), (torch.uint16, 3, 60000), (torch.uint32, 0, 2 ** 32 - 1),
                       (torch.uint64, 5, 2 ** 63 - 1)):
        g = xrng.torch_cuda(4, sm_count=sm, threads_per_sm=tps)
        got = xrng.randint(lo, hi, (n,), dtype=dt, generator=g)
        r = hi - lo
        wide = r >= 2 ** 28
        w, lanes, off = model_words(4, 0, n, 2 if wide else 4, sm, tps)
        if wide:
            v = (w[np.arange(n), 2 * lanes].astype(np.uint64) << np.uint64(32)) | w[np.arange(n), 2 * lanes + 1]
        else:
            v = w[np.arange(n), lanes].astype(np.uint64)
        want = [int(x) % r + lo for x in v]
        if dt == torch.bool:
            want = [x != 0 for x in want]
        assert got.dtype == dt and got.tolist() == want, dt
        assert g.offset == off
    g = xrng.torch_cuda(4, sm_count=sm, threads_per_sm=tps)
    for dt in (torch.uint16, torch.uint32, torch.uint64):
        with pytest.raises(ValueError, match="random_"):
            xrng.random_(torch.empty(3, dtype=dt), generator=g)
    with pytest.raises(ValueError, match="does not fit"):
        xrng.randint(0, 3, (3,), dtype=torch.bool, generator=g)
    with pytest.raises(ValueError, match="does not fit"):
        xrng.randint(0, 70000, (3,), dtype=torch.float16, generator=g)
    w = torch.tensor([[0.2, 0.5, 0.3]])
    with pytest.raises(NotImplementedError, match="xrng.torch_cuda: multinomial with replacement"):
        xrng.multinomial(w, 2, True, generator=g)
    for call in (lambda: xrng.gamma(torch.ones(3), generator=g), lambda: xrng.poisson(torch.ones(3), generator=g),
                 lambda: xrng.binomial(torch.ones(3), torch.full((3,), 0.5), generator=g)):
        with pytest.raises(NotImplementedError, match="xrng.torch_cuda: (gamma|poisson|binomial)"):
            call()
    assert g.offset == 0  # nothing drawn


# random_(from, None) (torch 2.15 ATen/native/DistributionTemplates.h random_from_to_impl, to None):
# from = -2**63 is random_full_64_bits_range_kernel (its own launch: a ulonglong2 per two elements,
# unroll 2, each element random64's bits as an int64, cast to the dtype: int64, float64, float32,
# bfloat16 only); any other from is random_from_to_kernel on [from, max] (integers) or [from, 2^digits]
# (floats), range = to_inc - from + 1, 32-bit words below 2^28. Read from source, UNMEASURED on a GPU.
_TO_INC = {torch.int64: 2 ** 63 - 1, torch.int32: 2 ** 31 - 1, torch.int16: 2 ** 15 - 1, torch.int8: 127,
           torch.uint8: 255, torch.bool: 1, torch.uint16: 2 ** 16 - 1, torch.uint32: 2 ** 32 - 1,
           torch.float32: 2 ** 24, torch.float64: 2 ** 53, torch.float16: 2 ** 11, torch.bfloat16: 2 ** 8}


def _model_random_from(seed, offset, n, dt, frm, sm, tps):
    """The values and new offset of random_(frm, None) into n elements of dt
    (frm a value update_from leaves alone), from the raw stream."""
    full = frm == -2 ** 63
    rng = None if full else _TO_INC[dt] - frm + 1
    wide = full or rng >= 2 ** 28
    w, lanes, off = model_words(seed, offset, n, 2 if wide else 4, sm, tps)
    if wide:
        v = [(int(w[i, 2 * lanes[i]]) << 32) | int(w[i, 2 * lanes[i] + 1]) for i in range(n)]
    else:
        v = [int(w[i, lanes[i]]) for i in range(n)]
    if full:
        vals = torch.tensor([x - 2 ** 64 if x >= 2 ** 63 else x for x in v], dtype=torch.int64)
    else:
        vals = torch.tensor([x % rng + frm for x in v], dtype=torch.float64 if dt.is_floating_point else torch.int64)
    return vals.to(dt), off  # torch's casts (int64 -> float32 / bfloat16: rounded as static_cast does)


RANDOM_FROM_CASES = [(torch.int64, -2 ** 63), (torch.float32, -2 ** 63), (torch.float64, -2 ** 63),
                     (torch.bfloat16, -2 ** 63), (torch.int64, -5), (torch.int64, 2 ** 62), (torch.int32, -2 ** 31),
                     (torch.int16, -5), (torch.int8, 100), (torch.uint8, 3), (torch.bool, 0), (torch.uint16, 3),
                     (torch.uint32, 0), (torch.float32, -5), (torch.float64, 7), (torch.float16, 2),
                     (torch.bfloat16, -100)]


@pytest.mark.parametrize("dt,frm", RANDOM_FROM_CASES)
@pytest.mark.parametrize("sm,tps,n", [(2, 256, 1500), (132, 2048, 37)])
def test_random_from_none_matches_model(dt, frm, sm, tps, n):
    g = xrng.torch_cuda(23, sm_count=sm, threads_per_sm=tps)
    g.offset = 8
    got = xrng.random_(torch.empty(n, dtype=dt), frm, None, generator=g)
    want, off = _model_random_from(23, 8, n, dt, frm, sm, tps)
    assert got.dtype == dt and torch.equal(got, want)
    assert g.offset == off
    if frm == -2 ** 63 and dt == torch.int64 and n > 1000:
        assert int((got < 0).sum()) > n // 3  # both signs: the whole 64-bit word


def test_random_from_none_refusals_are_torchs():
    """Where torch's CPU random_(from, None) raises (the same bounds code and
    kernel dtype checks on CUDA), xrng.torch_cuda raises a ValueError and the
    offset does not move; an empty tensor draws nothing, as torch."""
    g = xrng.torch_cuda(4, sm_count=2, threads_per_sm=256)
    refused = 0
    for dt in list(_TO_INC) + [torch.uint64]:
        for frm in (-2 ** 63, -2 ** 62, -1, 0, 128, 2 ** 24, 2 ** 40, 2 ** 60):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # torch warns for floats beyond 2^digits
                    torch.empty(3, dtype=dt).random_(frm, None)
            except RuntimeError:
                refused += 1
                with pytest.raises(ValueError, match="random_"):
                    xrng.random_(torch.empty(3, dtype=dt), frm, None, generator=g)
                continue
            xrng.random_(torch.empty(3, dtype=dt), frm, None, generator=g)
            assert g.offset > 0
            g.manual_seed(4)
    assert refused > 40 and g.offset == 0
    assert xrng.random_(torch.empty(0, dtype=torch.int8), -2 ** 63, None, generator=g).numel() == 0
    assert g.offset == 0


@pytest.mark.parametrize("sm_count", [40, 132])
def test_mode_torch_cuda_random_from_none_equals_xrng_torch_cuda(sm_count):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with xrng.reproducible(stream="torch-cuda", sm_count=sm_count, strict=True) as m:
            torch.manual_seed(6)
            got = [torch.empty(300_000, dtype=torch.int64).random_(-2 ** 63, None),
                   torch.empty(6, 5, dtype=torch.float32).t().random_(-2 ** 63, None),
                   torch.empty(40, dtype=torch.int16).random_(-5, None),
                   torch.empty(40, dtype=torch.float16).random_(2, None), torch.rand(5)]
    assert m.reported == {} and not w
    g = xrng.torch_cuda(6, sm_count=sm_count)
    want = [xrng.random_(torch.empty(300_000, dtype=torch.int64), -2 ** 63, None, generator=g),
            xrng.random_(torch.empty(6, 5, dtype=torch.float32).t(), -2 ** 63, None, generator=g),
            xrng.random_(torch.empty(40, dtype=torch.int16), -5, None, generator=g),
            xrng.random_(torch.empty(40, dtype=torch.float16), 2, None, generator=g), xrng.rand(5, generator=g)]
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.stride() == b.stride() and torch.equal(a, b), i


@pytest.mark.cuda
def test_random_from_none_equals_torchs_cuda_draws():
    """On a GPU: torch's own random_(from, None) (the full 64-bit range
    included) after torch.cuda.manual_seed equals xrng.torch_cuda's host
    model for this GPU's SM count, values and (seed, offset) after each call."""
    prop = torch.cuda.get_device_properties(torch.cuda.current_device())
    g = xrng.torch_cuda(31, sm_count=prop.multi_processor_count, threads_per_sm=prop.max_threads_per_multi_processor)
    torch.cuda.manual_seed(31)
    n_wave = 256 * prop.multi_processor_count * (prop.max_threads_per_multi_processor // 256)
    for n in (37, 5000, 2 * n_wave + 11):
        for dt, frm in RANDOM_FROM_CASES:
            t = torch.empty(n, dtype=dt, device="cuda").random_(frm, None)
            x = xrng.random_(torch.empty(n, dtype=dt), frm, None, generator=g)
            assert torch.equal(t.cpu(), x), (n, dt, frm)
            assert torch.equal(torch.cuda.get_rng_state().cpu(), g.get_state()), (n, dt, frm)


def test_multinomial_without_replacement_is_the_exponential_composite():
    # torch's multinomial_out (every device): q = empty_like(w).exponential_(1), then
    # argmax(w / q) (one sample) or topk(w / q, n)'s indices
    w = torch.tensor([[0.1, 2.0, 0.0, 1.0, 0.5], [1.0, 1.0, 1.0, 1.0, 1.0]])
    for n, repl in ((3, False), (1, True), (5, False)):
        g, h = xrng.torch_cuda(8, profile="a100"), xrng.torch_cuda(8, profile="a100")
        got = xrng.multinomial(w, n, repl, generator=g)
        q = xrng.exponential_(torch.empty_like(w), 1.0, generator=h)
        want = (w / q).argmax(-1, keepdim=True) if n == 1 else torch.topk(w / q, n)[1]
        assert torch.equal(got, want) and g.offset == h.offset > 0


def test_bernoulli_is_uniform_below_p():
    for dt, p in ((torch.float32, 0.3), (torch.float64, 0.7), (torch.bool, 0.5)):
        g1 = xrng.torch_cuda(8, sm_count=3, threads_per_sm=256)
        g2 = xrng.torch_cuda(8, sm_count=3, threads_per_sm=256)
        t = torch.empty(5000, dtype=dt)
        xrng.bernoulli_(t, p, generator=g1)
        # the uniforms of rand before its `to -> from` (a uniform of exactly 1 is never < p)
        u = xrng.rand(5000, dtype=torch.float64 if dt == torch.float64 else torch.float32, generator=g2)
        ref = u < (p if dt == torch.float64 else np.float32(p))
        assert torch.equal(t.to(torch.bool), ref)
        assert g1.offset == g2.offset


@pytest.mark.parametrize("n", [4096, 4100, 4098, 4099])
def test_dropout_matches_model(n):
    sm, tps, p = 2, 256, 0.4
    x = torch.arange(1, n + 1, dtype=torch.float32)
    g = xrng.torch_cuda(21, sm_count=sm, threads_per_sm=tps)
    g.offset = 4
    y = xrng.dropout(x, p, generator=g)
    vec = 4 if n % 4 == 0 else 2 if n % 2 == 0 else 1
    grid, co = model_launch(n, 4, sm, tps)
    S = BLOCK * grid
    keep = np.empty(n, dtype=bool)
    for i in range(n):
        if vec == 1:
            r, j = divmod(i, S * 4)
            lane, t = divmod(j, S)
        else:
            chunk, e = divmod(i, vec)
            t, k = chunk % S, chunk // S
            r, lane = k * ((vec + 3) // 4) + e // 4, e % 4
        w = torch.empty(4, dtype=torch.uint32)
        xrng.bits_(w, seed=21, subseq=t, offset=4 + 4 * r)
        keep[i] = curand_uniform(w.numpy()[lane:lane + 1])[0] < np.float32(1 - p)
    scale = np.float32(1.0 / np.float64(np.float32(1 - p)))
    ref = np.where(keep, x.numpy() * scale, np.float32(0.0))
    assert np.array_equal(y.numpy(), ref)
    assert g.offset == 4 + co


def test_values_do_not_depend_on_the_gpu_below_one_wave():
    # the smallest wave here: t4, 40 SMs x 1024 threads = 40960 elements
    for dt in (torch.float32, torch.float64):
        ref = None
        for prof in xrng.torch_cuda.PROFILES:  # the public name (docs/reproducible.md)
            g = xrng.torch_cuda(1234, profile=prof)
            v = xrng.rand(40960, dtype=dt, generator=g)
            if ref is None:
                ref = v
            assert torch.equal(v, ref), prof
            assert g.offset == 4
    a = xrng.rand(40961 * 2, generator=xrng.torch_cuda(1234, profile="t4"))
    b = xrng.rand(40961 * 2, generator=xrng.torch_cuda(1234, profile="h100-sxm"))
    assert not torch.equal(a, b)


def test_offsets_follow_philox_cuda_state():
    g = xrng.torch_cuda(0, profile="h100-sxm")  # wave: 1056 blocks x 256 = 270336 threads
    xrng.rand(270336 * 4, generator=g)
    assert g.offset == 4
    xrng.rand(270336 * 4 + 1, generator=g)
    assert g.offset == 12
    xrng.randn(10, dtype=torch.float32, generator=g)
    assert g.offset == 16
    xrng.rand(270336 * 2 + 1, dtype=torch.float64, generator=g)
    assert g.offset == 24
    assert xrng._C.torch_cuda_launch(10 ** 6, 4, 132, 2048) == (1056, 4)


def test_state_round_trip_and_errors():
    g = xrng.torch_cuda(2 ** 63 + 5, sm_count=10)
    xrng.rand(100, generator=g)
    st = g.get_state()
    assert st.dtype == torch.uint8 and st.numel() == 16
    h = xrng.torch_cuda(0, sm_count=10)
    h.set_state(st)
    assert (h.seed, h.offset) == (2 ** 63 + 5, 4)
    with pytest.raises(TypeError):
        xrng.torch_cuda(1)
    with pytest.raises(ValueError):
        xrng.torch_cuda(1, profile="nonesuch")
    with pytest.raises(ValueError):
        xrng.torch_cuda(1, profile="a100", sm_count=5)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        xrng.cauchy_(torch.empty(5), 0.0, 0.0, generator=g)
    with pytest.raises(ValueError, match="std must be > 0"):
        xrng.log_normal_(torch.empty(5), 0.0, -1.0, generator=g)
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\)"):
        xrng.geometric_(torch.empty(5), 1.0, generator=g)
    with pytest.raises(ValueError, match="every p must be in"):
        xrng.bernoulli_(torch.empty(5), torch.full((5,), 1.5), generator=g)
    with pytest.raises(NotImplementedError):
        xrng.bernoulli_(torch.empty(5, 2).t(), torch.full((2, 5), 0.5), generator=g)
    assert g.offset == 4  # refused before advancing


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.float16, torch.bool])
def test_bernoulli_tensor_p_matches_model(dt):
    """bernoulli_(p tensor): offset + 12 (philox_cuda_state(10)); element i is
    lane i % 4 of thread i // 4's first curand_uniform4, u <= p (p as
    float32, or float64 for a float64 output): the same on every GPU."""
    n = 4001
    pt = torch.rand(n, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    pt[::9] = 0.0
    pt[1::9] = 1.0
    pw = torch.empty(n // 4 * 4 + 4, dtype=torch.uint32)
    pe = torch.float64 if dt == torch.float64 else torch.float32
    p = pt.to(pe)
    ref_off = None
    for prof in ("t4", "h100-sxm"):
        g = xrng.torch_cuda(71, profile=prof)
        g.offset = 8
        out = torch.empty(n, dtype=dt)
        xrng.bernoulli_(out, p, generator=g)
        assert g.offset == 8 + 12
        words = np.empty((n // 4 + 1, 4), dtype=np.uint32)
        for t in range(n // 4 + 1):
            xrng.bits_(pw[:4], seed=71, subseq=t, offset=8)
            words[t] = pw[:4].numpy()
        u = curand_uniform(words.reshape(-1)[:n])
        # u equal to p tests the comparison's `<=`: put a few uniforms in p
        ref = (u.astype(np.float64) <= p.numpy().astype(np.float64)) if dt == torch.float64 else (u <= p.numpy())
        assert np.array_equal(out.to(torch.bool).numpy(), ref), prof
        if ref_off is None:
            ref_off = out
        assert torch.equal(out, ref_off)
    # p equal to the uniform itself gives 1 (<=, not <)
    g = xrng.torch_cuda(71, sm_count=1, threads_per_sm=256)
    g.offset = 8
    out = torch.empty(n, dtype=torch.float32)
    xrng.bernoulli_(out, torch.from_numpy(u.copy()), generator=g)
    assert bool(out.eq(1).all())
    # torch.bernoulli(p): p's shape and dtype, broadcast p for bernoulli_
    g = xrng.torch_cuda(3, sm_count=7)
    b = xrng.bernoulli(p=torch.full((3, 5), 0.5, dtype=torch.float16), generator=g)
    assert b.dtype == torch.float16 and b.shape == (3, 5) and g.offset == 12
    g1 = xrng.torch_cuda(3, sm_count=7)
    g2 = xrng.torch_cuda(3, sm_count=7)
    row = torch.linspace(0, 1, 30)
    a = xrng.bernoulli_(torch.empty(20, 30), row[None], generator=g1)
    c = xrng.bernoulli_(torch.empty(20, 30), row.expand(20, 30).contiguous(), generator=g2)
    assert torch.equal(a, c)


def _uniforms(seed, offset, n, unroll, sm, tps):
    """The curand uniforms of each element (float32 lanes, or the float64 hq pair)."""
    w, lanes, off = model_words(seed, offset, n, unroll, sm, tps)
    if unroll == 4:
        return curand_uniform(w[np.arange(n), lanes]), off
    return curand_uniform_double_hq(w[np.arange(n), 2 * lanes], w[np.arange(n), 2 * lanes + 1]), off


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.bfloat16])
def test_cauchy_layout_and_formula(dt):
    """cauchy_ takes element i's uniform from its slot (15.2) and gives median
    + sigma tan(pi (u - 1/2)) (float32: u clipped to [2^-23, 1 - 2^-23]):
    checked against numpy's tan within a relative 1e-5 (float32; the
    modelled __tanf) or 1e-13 (float64), away from the poles."""
    n, sm, tps = 3000, 2, 256
    g = xrng.torch_cuda(19, sm_count=sm, threads_per_sm=tps)
    got = xrng.cauchy_(torch.empty(n, dtype=dt), 1.5, 0.25, generator=g).to(torch.float64).numpy()
    u, off = _uniforms(19, 0, n, 2 if dt == torch.float64 else 4, sm, tps)
    assert g.offset == off
    if dt == torch.float64:
        ref = 1.5 + 0.25 * np.tan(np.pi * (u - 0.5))
        tol = 1e-13
    else:
        uc = np.clip(u, np.float32(2.0 ** -23), np.float32(1 - 2.0 ** -23)).astype(np.float64)
        ref = 1.5 + 0.25 * np.tan(np.float32(np.pi) * (uc - 0.5))
        tol = 1e-5 if dt == torch.float32 else 2 ** -7
    ok = np.abs(u - 0.5) < 0.49
    assert ok.sum() > 0.9 * n
    assert np.all(np.abs(got[ok] - ref[ok]) <= tol * np.maximum(np.abs(ref[ok]), 1.0))


@pytest.mark.parametrize("dt", [torch.float32, torch.int64, torch.float64, torch.float16])
def test_geometric_layout_and_formula(dt):
    """geometric_: ceil(log u / log1p(-p)) from each element's uniform slot
    (float accscalar and unroll 4 for every dtype but float64): equal to
    numpy's binary64 formula but where the quotient lies within 1e-4 of an
    integer (the modelled __logf)."""
    n, sm, tps, pp = 3000, 3, 256, 0.3
    g = xrng.torch_cuda(23, sm_count=sm, threads_per_sm=tps)
    got = xrng.geometric_(torch.empty(n, dtype=dt), pp, generator=g).to(torch.float64).numpy()
    u, off = _uniforms(23, 0, n, 2 if dt == torch.float64 else 4, sm, tps)
    assert g.offset == off
    q = np.log(u.astype(np.float64)) / np.log1p(-pp)
    ref = np.ceil(q)
    clear = np.abs(q - np.round(q)) > 1e-4
    assert np.array_equal(got[clear], ref[clear])
    assert np.all(np.abs(got - ref) <= 1)
    assert got.min() >= 0 and (got >= 1).mean() > 0.99


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.float16])
def test_log_normal_is_exp_of_the_normal(dt):
    """log_normal_(mean, std) is exp of the same normal_(mean, std) draw (the
    same words, lanes and offsets)."""
    n = 5000
    g1 = xrng.torch_cuda(29, sm_count=2, threads_per_sm=512)
    g2 = xrng.torch_cuda(29, sm_count=2, threads_per_sm=512)
    a = xrng.log_normal_(torch.empty(n, dtype=dt), 0.25, 0.5, generator=g1).to(torch.float64)
    b = xrng.normal_(torch.empty(n, dtype=torch.float64 if dt == torch.float64 else torch.float32), 0.25, 0.5,
                     generator=g2).to(torch.float64)
    assert g1.offset == g2.offset
    tol = {torch.float32: 2e-6, torch.float64: 1e-14, torch.float16: 2 ** -10}[dt]
    assert torch.all((a - torch.exp(b)).abs() <= tol * torch.exp(b))



def test_non_contiguous_output_in_memory_order():
    g1 = xrng.torch_cuda(4, sm_count=2, threads_per_sm=256)
    g2 = xrng.torch_cuda(4, sm_count=2, threads_per_sm=256)
    out = torch.empty(40, 50).t()  # (50, 40), strides (1, 50): memory order is out.t()'s row-major order
    xrng.rand(50, 40, generator=g1, out=out)
    ref = xrng.rand(2000, generator=g2)
    assert torch.equal(out.t().reshape(-1), ref)
    assert g1.offset == g2.offset
    sl = torch.zeros(30, 8)[:, ::2]  # a gap: TensorIterator still counts elements, row-major here
    xrng.uniform_(sl, generator=g1)
    assert torch.equal(sl.reshape(-1), xrng.rand(120, generator=g2))


@pytest.mark.parametrize("dt,name", [(torch.float32, "f32"), (torch.float64, "f64"), (torch.bfloat16, "bf16")])
def test_cli_torch_cuda_equals_python(cli, dt, name):
    n = 50000  # above one wave of a T4 (40960)
    g = xrng.torch_cuda(77, profile="t4")
    ref = xrng.rand(n, dtype=dt, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 40, "--threads-per-sm", 1024, "--dist", "uniform",
                  "--dtype", name, "--count", n, "--seed", 77)
    assert out == ref.view(torch.uint8).numpy().tobytes()
    g = xrng.torch_cuda(77, sm_count=132)
    ref = xrng.randn(1001, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 132, "--dist", "normal", "--count", 1001, "--seed", 77)
    assert out == ref.numpy().tobytes()
    g = xrng.torch_cuda(77, sm_count=132)
    ref = xrng.randn(1001, dtype=torch.float64, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 132, "--dist", "normal", "--dtype", "f64", "--count", 1001,
                  "--seed", 77)
    assert g.offset == 4 and out == ref.numpy().tobytes()
    g = xrng.torch_cuda(77, profile="t4")
    ref = xrng.uniform_(torch.empty(n, dtype=dt), -2.0, 5.5, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 40, "--threads-per-sm", 1024, "--dist", "uniform",
                  "--low", -2, "--high", 5.5, "--dtype", name, "--count", n, "--seed", 77)
    assert out == ref.view(torch.uint8).numpy().tobytes()
    g = xrng.torch_cuda(77, profile="t4")
    ref = xrng.exponential_(torch.empty(n, dtype=dt), 0.5, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 40, "--threads-per-sm", 1024, "--dist", "exponential",
                  "--lambda", 0.5, "--dtype", name, "--count", n, "--seed", 77)
    assert out == ref.view(torch.uint8).numpy().tobytes()
    g = xrng.torch_cuda(77, profile="t4")
    ref = xrng.cauchy_(torch.empty(n, dtype=dt), -1.0, 0.3, generator=g)
    out = cli.bin("--stream", "torch-cuda", "--sm-count", 40, "--threads-per-sm", 1024, "--dist", "cauchy",
                  "--median", -1, "--sigma", 0.3, "--dtype", name, "--count", n, "--seed", 77)
    assert out == ref.view(torch.uint8).numpy().tobytes()


def test_randperm_matches_model():
    """Keys from random_(INT_MIN, INT_MAX) (64-bit words), a stable sort by
    the low `bits` bits of the sign-flipped keys, Fisher-Yates inside each
    island of equal keys from its first position's own subsequence."""
    import math
    n, sm, tps = 1000, 1, 256
    bits = math.ceil(math.log2(n - (6 * n * n + 1) / (math.log(0.9) * 12)))
    mask = (1 << bits) - 1
    islands_seen = 0
    for seed in range(40):
        g = xrng.torch_cuda(seed, sm_count=sm, threads_per_sm=tps)
        got = xrng.randperm(n, generator=g).tolist()
        w, lanes, off = model_words(seed, 0, n, 2, sm, tps)
        hi = w[np.arange(n), 2 * lanes].astype(np.uint64)
        lo = w[np.arange(n), 2 * lanes + 1].astype(np.uint64)
        w64 = [int(v) for v in (hi << np.uint64(32)) | lo]
        keys = [((v % (2 ** 32 - 1)) + 2 ** 64 - 2 ** 31) % 2 ** 64 & 0xFFFFFFFF for v in w64]
        sk = [(k ^ 0x80000000) & mask for k in keys]
        order = sorted(range(n), key=lambda i: sk[i])  # Python's sort is stable
        ks = [sk[i] for i in order]
        t = 0
        while t < n - 1:
            if ks[t] == ks[t + 1] and (t == 0 or ks[t - 1] != ks[t]):
                size = 1
                while t + size < n and ks[t + size] == ks[t]:
                    size += 1
                islands_seen += 1
                words = torch.empty(size - 1, dtype=torch.uint32)
                xrng.bits_(words, seed=seed, subseq=t, offset=off)
                for k, i in enumerate(range(size - 1, 0, -1)):
                    r = int(words[k]) % (i + 1)
                    order[t + i], order[t + r] = order[t + r], order[t + i]
            t += 1
        assert got == order, seed
        assert g.offset == off + (n + 3) // 4 * 4
    assert islands_seen > 0  # the island shuffle was exercised


@pytest.mark.parametrize("dt,name", [(torch.float32, "f32"), (torch.float64, "f64"), (torch.float16, "f16"),
                                     (torch.bfloat16, "bf16")])
def test_cli_torch_cuda_normal_mean_std_equals_python(cli, dt, name):
    """--mean/--std are read as double (f64: used as double, as torch's kernel does; the others: rounded to
    float by the draw, as torch's kernel does), so the CLI equals normal_(mean, std) in every dtype; a
    fingerprint's description names only the flags given."""
    g = xrng.torch_cuda(5, sm_count=132)
    ref = xrng.normal_(torch.empty(3001, dtype=dt), 0.1, 0.3, generator=g)
    args = ("--stream", "torch-cuda", "--sm-count", 132, "--dist", "normal", "--dtype", name, "--mean", 0.1,
            "--std", 0.3, "--count", 3001, "--seed", 5)
    assert cli.bin(*args) == ref.view(torch.uint8).numpy().tobytes()
    assert cli.fingerprint(*args) == hashlib.sha256(ref.view(torch.uint8).numpy().tobytes()).hexdigest()
    r = subprocess.run([cli.path, "fingerprint", "--stream", "torch-cuda", "--sm-count", "132", "--dist", "normal", "--std", "2",
                        "--count", "4"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("count=4 std=2"), r.stdout
    r = subprocess.run([cli.path, "gen", "--stream", "torch-cuda", "--sm-count", "132", "--dist", "normal", "--mean",
                        "abc", "--count", "4"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and r.stderr.strip() == "xrng: error: --mean: expected a number, got 'abc'"


@pytest.mark.parametrize("dt,name", [(torch.float32, "f32"), (torch.float64, "f64"), (torch.float16, "f16"),
                                     (torch.bfloat16, "bf16")])
def test_cli_torch_cuda_log_normal_geometric_bernoulli_equal_python(cli, dt, name):
    """The CLI's log_normal, geometric and bernoulli (rng/torch_cuda.h's whole draws) == xrng.torch_cuda's
    log_normal_, geometric_, bernoulli_ for the same seed, parameters, dtype and size; --rate == --lambda."""
    base = ("--stream", "torch-cuda", "--sm-count", 132, "--count", 3001, "--seed", 3, "--dtype", name)
    for fill, args in ((lambda t, g: xrng.log_normal_(t, 0.1, 0.3, generator=g), ("--dist", "log_normal", "--mean",
                                                                                  0.1, "--std", 0.3)),
                       (lambda t, g: xrng.geometric_(t, 0.3, generator=g), ("--dist", "geometric", "--p", 0.3)),
                       (lambda t, g: xrng.bernoulli_(t, 0.3, generator=g), ("--dist", "bernoulli", "--p", 0.3)),
                       (lambda t, g: xrng.exponential_(t, 2.0, generator=g), ("--dist", "exponential", "--rate", 2))):
        ref = fill(torch.empty(3001, dtype=dt), xrng.torch_cuda(3, sm_count=132))
        assert cli.bin(*base, *args) == ref.view(torch.uint8).numpy().tobytes(), args



def test_cli_torch_cuda_randint_randperm_equal_python(cli):
    """The CLI's randint (32- and 64-bit words) and perm/randperm on torch-cuda == xrng.torch_cuda's randint
    and randperm (int64) for the same seed, bounds and size."""
    for lo, hi, n in ((-5, 1000, 3001), (0, 2 ** 40, 3001), (3, 4, 10)):
        ref = xrng.randint(lo, hi, (n,), generator=xrng.torch_cuda(3, sm_count=132))
        assert cli.bin("--stream", "torch-cuda", "--sm-count", 132, "--dist", "randint", "--low", lo, "--high", hi,
                       "--count", n, "--seed", 3) == ref.numpy().tobytes()
    for n in (10, 5000, 100000):
        ref = xrng.randperm(n, generator=xrng.torch_cuda(3, sm_count=132))
        assert cli.bin("--stream", "torch-cuda", "--sm-count", 132, "--dist", "randperm", "--n", n,
                       "--seed", 3) == ref.numpy().tobytes()
    r = subprocess.run([cli.path, "gen", "--stream", "torch-cuda", "--sm-count", "132", "--dist", "randint",
                        "--high", "5", "--dtype", "f32", "--count", "4"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and r.stderr == "xrng: error: --dtype f32: torch-cuda gives i64 for --dist randint\n"


def test_torch_cuda_device(xdev):
    # another device (the xdev PrivateUse1 test backend): filled on the host, then moved
    a = xrng.randn(64, generator=xrng.torch_cuda(5, profile="h100-sxm"), device="xdev")
    b = xrng.randn(64, generator=xrng.torch_cuda(5, profile="h100-sxm"))
    assert a.device.type == "xdev" and torch.equal(a.cpu(), b)
    g, h = xrng.torch_cuda(6, sm_count=3), xrng.torch_cuda(6, sm_count=3)
    t = xrng.random_(torch.empty(4, 10, dtype=torch.int32, device="xdev").t(), generator=g)
    u = xrng.random_(torch.empty(4, 10, dtype=torch.int32).t(), generator=h)
    assert t.device.type == "xdev" and torch.equal(t.cpu(), u)
    r = xrng.randint(0, 2, (33,), dtype=torch.bool, device="xdev", generator=g)
    assert r.device.type == "xdev" and torch.equal(r.cpu(), xrng.randint(0, 2, (33,), dtype=torch.bool, generator=h))
    assert g.offset == h.offset > 0
