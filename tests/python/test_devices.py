"""Device paths give the same bits: CPU, the other-device path through the
xdev PrivateUse1 test backend, CUDA and forced host-then-transfer on CUDA."""
import pytest
import torch

import xrng
from conftest import same_bits

# name -> f(device, **kw) drawing the same values on any device
DRAWS = {
    "randn-f32": lambda d, **k: xrng.randn(3, 333, device=d, seed=5, **k),
    "randn-bf16": lambda d, **k: xrng.randn(1001, dtype=torch.bfloat16, device=d, seed=5, offset=3, **k),
    "randn-f16": lambda d, **k: xrng.randn(1001, dtype=torch.float16, device=d, seed=5, **k),
    "randn-f64": lambda d, **k: xrng.randn(999, dtype=torch.float64, mean=1.0, std=2.0, device=d, seed=6, **k),
    "rand-f32": lambda d, **k: xrng.rand(1000, low=-3.0, high=3.0, device=d, seed=7, **k),
    "randint-i64": lambda d, **k: xrng.randint(-9, 2**40, (1000,), device=d, seed=8, **k),
    "randint-i8": lambda d, **k: xrng.randint(-9, 9, (1000,), dtype=torch.int8, device=d, seed=8, **k),
    "bernoulli": lambda d, **k: xrng.bernoulli(1000, p=0.25, device=d, seed=9, **k),
    "randperm": lambda d, **k: xrng.randperm(4096, device=d, seed=10, **k),
    "randperm-i32": lambda d, **k: xrng.randperm(4096, dtype=torch.int32, device=d, seed=10, **k),
    "perm_shard": lambda d, **k: xrng.perm_shard(4099, rank=1, world=3, device=d, seed=11, **k),
    "dropout": lambda d, **k: xrng.dropout(torch.arange(1000, dtype=torch.float32).to(d), 0.3, seed=12, **k),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_xdev_equals_cpu(xdev, name):
    before = xdev.copies_in()
    t = DRAWS[name]("xdev")
    assert t.device.type == "xdev"
    assert xdev.copies_in() > before, "the values must reach xdev by a host-to-device copy"
    assert same_bits(t.cpu(), DRAWS[name]("cpu"))


def test_xdev_large_tensor_is_chunked(xdev):
    n = 5_000_000  # 20 MB of float32: three 8 MiB chunks
    before = xdev.copies_in()
    t = xrng.randn(n, device="xdev", seed=13)
    assert xdev.copies_in() - before >= 3
    assert same_bits(t.cpu(), xrng.randn(n, seed=13))


def test_xdev_strided_and_inplace(xdev):
    base = torch.zeros(6, 8).to("xdev")
    t = base.t()
    xrng.normal_(t, seed=14)
    assert same_bits(t.cpu().reshape(-1), xrng.randn(48, seed=14))
    s = torch.zeros(4, 10).to("xdev")[:, ::2]
    xrng.uniform_(s, seed=15)
    assert same_bits(s.cpu().reshape(-1), xrng.rand(20, seed=15))
    z = torch.ones(100).to("xdev")
    xrng.dropout(z, 0.5, inplace=True, seed=16)
    assert same_bits(z.cpu(), xrng.dropout(torch.ones(100), 0.5, seed=16))


def test_xdev_generator_advances_like_cpu(xdev):
    g1, g2 = xrng.Generator(3), xrng.Generator(3)
    for _ in range(3):
        a = xrng.randn(17, device="xdev", generator=g1)
        b = xrng.randn(17, generator=g2)
        assert same_bits(a.cpu(), b)
    assert g1.offset == g2.offset == 3 * 18


# ---- CUDA (run on the device machine) -----------------------------------------------------
@pytest.mark.cuda
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_cuda_equals_cpu(name):
    t = DRAWS[name]("cuda")
    assert t.device.type == "cuda"
    assert same_bits(t.cpu(), DRAWS[name]("cpu"))


@pytest.mark.cuda
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_cuda_host_transfer_equals_direct(name):
    direct = DRAWS[name]("cuda")
    forced = DRAWS[name]("cuda", path="host_transfer")
    assert same_bits(direct.cpu(), forced.cpu())


@pytest.mark.cuda
def test_cuda_large_and_strided():
    n = 6_000_001
    for path in ("auto", "host_transfer"):
        t = xrng.randn(n, device="cuda", seed=17, path=path)
        assert same_bits(t.cpu(), xrng.randn(n, seed=17))
        s = torch.zeros(6, 8, device="cuda").t()
        xrng.normal_(s, seed=18, path=path)
        assert same_bits(s.cpu().reshape(-1), xrng.randn(48, seed=18))


@pytest.mark.cuda
def test_cuda_uses_kernels_when_built():
    # Reported, not assumed: the package says whether it was built with the CUDA kernels.
    assert isinstance(xrng.has_cuda_kernels(), bool)
    if not xrng.has_cuda_kernels():
        pytest.skip("this build of xrng has no CUDA kernels (CUDA tensors take the host-then-transfer path)")
    t = xrng.randn(1 << 20, device="cuda", seed=19)
    torch.cuda.synchronize()
    assert same_bits(t.cpu(), xrng.randn(1 << 20, seed=19))


@pytest.mark.cuda
def test_cuda_current_stream_is_used():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = xrng.randn(1 << 16, device="cuda", seed=20)
    s.synchronize()
    assert same_bits(t.cpu(), xrng.randn(1 << 16, seed=20))


def test_xdev_pinned_double_buffered_path(xdev):
    n = 5_000_000  # three 8 MiB chunks of float32
    ref = xrng.randn(n, seed=21)
    xdev.set_pinning(True)
    try:
        allocs, events = xdev.pinned_allocs(), xdev.events()
        t = xrng.randn(n, device="xdev", seed=21)
        assert xdev.pinned_allocs() - allocs == 2, "two pinned staging buffers"
        assert xdev.events() - events >= 3, "one event per chunk copy"
        assert same_bits(t.cpu(), ref)
        small = xrng.randint(0, 7, (1000,), dtype=torch.int16, device="xdev", seed=22)
        assert torch.equal(small.cpu(), xrng.randint(0, 7, (1000,), dtype=torch.int16, seed=22))
    finally:
        xdev.set_pinning(False)
    allocs = xdev.pinned_allocs()
    assert same_bits(xrng.randn(n, device="xdev", seed=21).cpu(), ref)
    assert xdev.pinned_allocs() == allocs, "plain memory when the device cannot pin"


# ---- host_transfer: every registry row, chunk boundaries at odd sizes --------------------------
# Parameters by distribution, for draws through the generic _C.draw_ (any
# distribution the registry adds takes its defaults; a new one that needs a
# parameter without a default shows up here as a ValueError).
_PARAMS = {"randint": {"ilow": -5, "ihigh": 1000}, "geometric": {"p": 0.3}, "bernoulli": {"p": 0.3}}


def _rows(kind):
    reg = xrng._C.registry()
    for dist, dtype, _g, _k, version in reg["rows"]:
        if version == 1 and reg["dists"][dist]["kind"] == kind:
            yield dist, reg["dtypes"][dtype]


@pytest.mark.parametrize("pinning", [False, True])
def test_xdev_host_transfer_every_row_odd_chunks(xdev, pinning):
    # Sizes across several transfer chunks (1 MiB at least, a multiple of 4096
    # elements), none a multiple of the chunk: every row's last chunk is
    # partial, and chunk boundaries fall inside the host's thread split.
    xdev.set_pinning(pinning)
    try:
        seen = 0
        for dist, dtype in _rows("element"):
            es = torch.empty(0, dtype=dtype).element_size()
            n = 3 * ((1 << 20) // es) + 4099
            params = _PARAMS.get(dist, {})
            t = torch.empty(n, dtype=dtype).to("xdev")
            before = xdev.copies_in()
            xrng._C.draw_(t, (31, 2, 5), dist, params, "auto", 0)
            assert xdev.copies_in() - before >= 4, (dist, dtype)
            ref = xrng._C.draw_(torch.empty(n, dtype=dtype), (31, 2, 5), dist, params, "auto", 0)
            assert same_bits(t.cpu(), ref), (dist, dtype)
            seen += 1
        for dist, dtype in _rows("transform"):
            es = torch.empty(0, dtype=dtype).element_size()
            n = 3 * ((1 << 20) // es) + 4099
            x = torch.arange(n, dtype=torch.float64).to(dtype)
            got = xrng.dropout(x.to("xdev"), 0.3, seed=32, offset=1)
            assert same_bits(got.cpu(), xrng.dropout(x, 0.3, seed=32, offset=1)), (dist, dtype)
            seen += 1
        n = (1 << 20) + 4099
        got = xrng.randperm(n, device="xdev", seed=33)
        assert same_bits(got.cpu(), xrng.randperm(n, seed=33))
        assert seen > 0
    finally:
        xdev.set_pinning(False)


def test_host_threads_do_not_change_values():
    # The host path splits a draw over torch's thread pool (threads=0) or
    # xrng's own threads (threads=k): the same bits either way.
    n = (1 << 18) + 77
    ref = xrng.randn(n, seed=34, threads=1)
    for threads in (0, 2, 3):
        assert same_bits(xrng.randn(n, seed=34, threads=threads), ref)
    old = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        assert same_bits(xrng.randn(n, seed=34), ref)
        assert same_bits(xrng.randint(0, 7, (n,), seed=35), xrng.randint(0, 7, (n,), seed=35, threads=1))
    finally:
        torch.set_num_threads(old)
