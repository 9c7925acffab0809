"""xrng.torch_cuda's multinomial with replacement (n > 1): torch 2.15's CUDA
kernel (MultinomialKernel.cu, SPEC.md 15.3 "multinomial with replacement").

The CPU tests compare xrng's host model (rng/torch_cuda_multinomial.h)
with a second model written here in numpy from the same torch source:
its own Philox4x32-10 (checked against xrng.bits_), renormRows' warp-
shuffle block reduction, the innermost-dim Sklansky scan, the launch and
the literal bisection, vectorised differently from the C++ loops. The
`cuda` tests compare with torch on a GPU (skipped without one).
"""
import numpy as np
import pytest
import torch

import xrng

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
U32 = np.uint64(0xFFFFFFFF)


def philox_x(seed, subseq, block):
    """Word 0 of Philox4x32-10 at counter (block, subseq) with key seed
    (arrays of uint64 subseq and block)."""
    c0 = (block & U32).astype(np.uint64)
    c1 = (block >> np.uint64(32)).astype(np.uint64)
    c2 = (subseq & U32).astype(np.uint64)
    c3 = (subseq >> np.uint64(32)).astype(np.uint64)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for rnd_i in range(10):
        p0 = np.uint64(M0) * c0
        p1 = np.uint64(M1) * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & U32
        hi1, lo1 = p1 >> np.uint64(32), p1 & U32
        c0, c1, c2, c3 = hi1 ^ c1 ^ np.uint64(k0), lo1, hi0 ^ c3 ^ np.uint64(k1), lo0
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return c0.astype(np.uint32)


def test_numpy_philox_is_xrngs_raw_stream():
    for seed, subseq, off in [(0, 0, 0), (123456789012345, 7, 8), (2 ** 64 - 1, 2 ** 64 - 3, 4 * 1000)]:
        w = torch.empty(4, dtype=torch.uint32)
        xrng.bits_(w, seed=seed, subseq=subseq, offset=off)
        got = philox_x(seed, np.array([subseq], dtype=np.uint64), np.array([off // 4], dtype=np.uint64))
        assert int(got[0]) == int(w[0])


# ---- the second model --------------------------------------------------------------------

def np_dtype(dt):
    return np.float64 if dt == torch.float64 else np.float32


def rnd(dt, a):
    """scalar_t's rounding of float32 results (float16/bfloat16: nearest even)."""
    if dt == torch.float16:
        return a.astype(np.float16).astype(np.float32)
    if dt == torch.bfloat16:
        b = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        b = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000)
        return b.astype(np.uint32).view(np.float32)
    return a


def add(dt, a, b):
    return rnd(dt, a + b)


def renorm(dt, w):
    """renormRowsL1 on a [rows, k] array: per-thread strided sums, the
    shuffle-down tree per warp, the tree over the warp sums."""
    rows, k = w.shape
    B = min(1024, 32 * -(-k // 32))
    part = np.zeros((rows, B), dtype=w.dtype)
    for start in range(0, k, B):
        seg = w[:, start:start + B]
        part[:, :seg.shape[1]] = add(dt, part[:, :seg.shape[1]], seg)

    def tree(lanes):  # [..., 32] -> lane 0 after offsets 16 .. 1
        lanes = lanes.copy()
        off = 16
        while off:
            lanes[..., :off] = add(dt, lanes[..., :off], lanes[..., off:2 * off])
            off //= 2
        return lanes[..., 0]

    ws = tree(part.reshape(rows, B // 32, 32))
    pad = np.zeros((rows, 32), dtype=w.dtype)
    pad[:, :B // 32] = ws
    total = tree(pad)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, rnd(dt, w / np.where(total > 0, total, 1)), w)


def log_threads_x(num_rows, row_size):
    lx = ly = 0
    while (1 << lx) < row_size:
        lx += 1
    while (1 << ly) < num_rows:
        ly += 1
    diff = (lx - ly) & 0xFFFFFFFF  # uint32 arithmetic
    return min(max(((9 + diff) & 0xFFFFFFFF) // 2, 4), 9)


def scan_innermost(dt, x, batch=2048):
    rows, k = x.shape
    L = log_threads_x(rows, k)
    if rows > batch:  # rows are scanned independently (bounded memory here)
        return np.concatenate([scan_rows(dt, x[i:i + batch], L) for i in range(0, rows, batch)])
    return scan_rows(dt, x, L)


def scan_rows(dt, x, L):
    rows, k = x.shape
    nx = 1 << L
    out = np.empty_like(x)
    total = np.zeros(rows, dtype=x.dtype)
    for bc in range(0, k, 2 * nx):
        buf = np.zeros((rows, 2 * nx), dtype=x.dtype)
        seg = x[:, bc:bc + 2 * nx]
        buf[:, :seg.shape[1]] = seg
        buf[:, 0] = add(dt, buf[:, 0], total)
        th = np.arange(nx)
        for m in range(L + 1):
            s = 1 << m
            a = ((th >> m) << (m + 1)) | s
            ti, si = a + th % s, a - 1
            buf[:, ti] = add(dt, buf[:, ti], buf[:, si])
        out[:, bc:bc + seg.shape[1]] = buf[:, :seg.shape[1]]
        total = buf[:, -1].copy()
    return out


def model(seed, offset, w_t, n, uniforms=False):
    """(samples [rows, n], new offset) of torch's CUDA kernel (and the
    uniforms in scalar_t, with uniforms=True)."""
    dt = w_t.dtype
    w = w_t.reshape(-1, w_t.shape[-1]).to(torch.float64 if dt == torch.float64 else torch.float32).numpy()
    rows, k = w.shape
    norm = renorm(dt, w)
    if rows == 1:
        cum = norm.copy()
        for j in range(1, k):
            cum[:, j] = add(dt, cum[:, j - 1], norm[:, j])
    else:
        cum = scan_innermost(dt, norm)
    gy = min(rows, 65535)
    gx = (n - 1) // 128 + 1
    r, j = np.meshgrid(np.arange(rows, dtype=np.int64), np.arange(n, dtype=np.int64), indexing="ij")
    lin = ((r % gy) * gx * 128 + j) & 0xFFFFFFFF
    lin_u = lin.astype(np.uint64)  # an int holds it; curand_init sign-extends it to 64 bits
    subseq = np.where(lin >= 2 ** 31, lin_u + np.uint64(2 ** 64 - 2 ** 32), lin_u)
    block = (offset // 4 + r // gy).astype(np.uint64)
    x = philox_x(seed, subseq.ravel(), block.ravel()).reshape(rows, n)
    u = x.astype(np.float32) * np.float32(2.0 ** -32) + np.float32(2.0 ** -33)
    val = u.astype(np.float64) if dt == torch.float64 else rnd(dt, u)
    # binarySearchForMultinomial, literally (the prefix need not be monotone)
    start = np.zeros((rows, n), dtype=np.int64)
    end = np.full((rows, n), k, dtype=np.int64)
    ri = np.arange(rows)[:, None]
    while (end - start > 0).any():
        act = end - start > 0
        mid = start + (end - start) // 2
        less = cum[ri, np.minimum(mid, k - 1)] < val
        start = np.where(act & less, mid + 1, start)
        end = np.where(act & ~less, mid, end)
    start = np.where(start == k, k - 1, start)
    while True:
        back = (start >= 1) & (norm[ri, start] == 0)
        if not back.any():
            break
        start = np.where(back, start - 1, start)
    new_offset = offset + ((rows - 1) // gy + 1) * 4
    return (start, new_offset, val) if uniforms else (start, new_offset)


def draw(seed, offset, w, n):
    g = xrng.torch_cuda(seed, profile="h100-sxm")
    g.offset = offset
    out = xrng.multinomial(w, n, True, generator=g)
    return out, g.offset


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("rows,k,n", [(2, 3, 5), (3, 33, 130), (5, 1000, 7), (2, 1500, 3), (7, 1, 4),
                                      (4, 2049, 2)])
def test_rows_match_the_second_model(dt, rows, k, n):
    gen = torch.Generator().manual_seed(rows * 1000 + k)
    w = (torch.rand(rows, k, generator=gen, dtype=torch.float64) ** 3).to(dt)
    if k > 1:
        w[0, k // 2] = 0  # a zero category
    seed, off = 1234567 + k, 8
    got, goff = draw(seed, off, w, n)
    ref, roff = model(seed, off, w, n)
    assert got.dtype == torch.int64 and tuple(got.shape) == (rows, n)
    np.testing.assert_array_equal(got.numpy(), ref)
    assert goff == roff == off + 4
    if k > 1:
        assert not (got[0] == k // 2).any()


def test_random_shapes_match_the_second_model():
    rng = np.random.default_rng(2026)
    for case in range(24):
        dt = DTYPES[case % 4]
        rows, k, n = int(rng.integers(2, 40)), int(rng.integers(1, 3000)), int(rng.integers(2, 300))
        w = torch.from_numpy(rng.random((rows, k)) ** int(rng.integers(1, 6))).to(dt)
        if k > 3:
            w[:, rng.integers(0, k, size=3)] = 0
        seed, off = int(rng.integers(0, 2 ** 63)), 4 * int(rng.integers(0, 1000))
        got, goff = draw(seed, off, w, n)
        ref, roff = model(seed, off, w, n)
        np.testing.assert_array_equal(got.numpy(), ref, err_msg=f"{dt} {rows}x{k} n={n}")
        assert goff == roff


def test_many_rows_wrap_the_grid_and_the_scan_width():
    # 65537 rows: grid.y = 65535, rows 65535 and 65536 are each thread's second
    # curand_uniform4 call, the offset moves by 8; k = 16 with 2^17 rows gives
    # get_log_num_threads_x_inner_scan's unsigned wrap (9 + 5 - 17 < 0 -> 9)
    assert log_threads_x(65537, 16) == 9
    gen = torch.Generator().manual_seed(5)
    w = torch.rand(65537, 16, generator=gen)
    got, goff = draw(99, 0, w, 3)
    ref, roff = model(99, 0, w, 3)
    np.testing.assert_array_equal(got.numpy(), ref)
    assert goff == roff == 8


def test_scan_order_is_sklansky_not_sequential():
    # Weights whose innermost-dim scan differs from the left-to-right sums in
    # float32: the model follows the kernel, so the prefix it searches differs
    w = torch.tensor([[1.0, 2 ** -24, 2 ** -24, 2 ** -24] * 8] * 2, dtype=torch.float32)
    x = renorm(torch.float32, w.numpy())
    seq = np.cumsum(x, axis=1, dtype=np.float32)
    assert not np.array_equal(scan_innermost(torch.float32, x), seq)
    got, _ = draw(3, 0, w, 2000)
    ref, _ = model(3, 0, w, 2000)
    np.testing.assert_array_equal(got.numpy(), ref)


@pytest.mark.parametrize("dt", DTYPES)
def test_one_row_exact_sums_and_refusals(dt):
    # one row: torch scans with cub; reproduced where no order can change the sums
    w = torch.tensor([1.0, 2.0, 0.0, 1.0, 4.0], dtype=dt)  # total 8: every partial sum exact
    got, off = draw(11, 4, w, 300)
    ref, roff = model(11, 4, w.reshape(1, -1), 300)
    assert tuple(got.shape) == (300,)
    np.testing.assert_array_equal(got.numpy(), ref[0])
    assert off == roff == 8
    assert not (got == 2).any()
    w2 = torch.tensor([0.3, 0.7], dtype=dt)  # k = 2: one addition
    got2, _ = draw(11, 0, w2, 50)
    np.testing.assert_array_equal(got2.numpy(), model(11, 0, w2.reshape(1, -1), 50)[0][0])
    g = xrng.torch_cuda(11, profile="a100")
    with pytest.raises(NotImplementedError, match="one row"):
        xrng.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=dt), 5, True, generator=g)
    assert g.offset == 0


@pytest.mark.parametrize("bad", [[1.0, -0.5, 1.0], [0.0, 0.0, 0.0], [1.0, float("nan"), 1.0],
                                 [1.0, float("inf"), 1.0]])
def test_bad_weights_are_one_line_errors_before_drawing(bad):
    g = xrng.torch_cuda(5, profile="t4")
    w = torch.tensor([bad, [1.0, 1.0, 1.0]])
    with pytest.raises(ValueError) as e:
        xrng.multinomial(w, 4, True, generator=g)
    assert "\n" not in str(e.value) and "multinomial" in str(e.value)
    assert g.offset == 0


def test_overflowing_total_is_refused():
    g = xrng.torch_cuda(5, profile="t4")
    w = torch.tensor([[6e4, 6e4], [1.0, 1.0]], dtype=torch.float16)  # the half total overflows to inf
    with pytest.raises(ValueError):
        xrng.multinomial(w, 4, True, generator=g)
    assert g.offset == 0


def test_same_on_every_profile_and_offset_continues():
    w = torch.rand(3, 40, generator=torch.Generator().manual_seed(1))
    outs = []
    for prof in ["h100-sxm", "t4", "l4", "b200"]:
        g = xrng.torch_cuda(77, profile=prof)
        a = xrng.multinomial(w, 9, True, generator=g)
        b = xrng.multinomial(w, 9, True, generator=g)
        outs.append(torch.cat([a, b]))
        assert g.offset == 8
        assert not torch.equal(a, b)
    for o in outs[1:]:
        assert torch.equal(o, outs[0])


def test_distribution():
    p = torch.tensor([[0.1, 0.0, 0.2, 0.7], [0.5, 0.25, 0.25, 0.0]], dtype=torch.float32)
    g = xrng.torch_cuda(2024, profile="h100-sxm")
    n = 200_000
    out = xrng.multinomial(p, n, True, generator=g)
    for r in range(2):
        counts = torch.bincount(out[r], minlength=4).double()
        expect = p[r].double() * n
        assert counts[p[r] == 0].sum() == 0
        nz = expect > 0
        chi2 = (((counts[nz] - expect[nz]) ** 2) / expect[nz]).sum().item()
        assert chi2 < 20.0  # 1-3 degrees of freedom: p < 1e-3


def test_half_uniform_rounding_to_one_takes_the_last_nonzero_category():
    # float16: the normalised weights round, the prefix ends at 1 - 2^-11; a
    # uniform rounded to 1.0 (about one in 4096) passes every prefix (start
    # == size) and walks back over the zero weight
    w = torch.tensor([[6.0, 19.0, 2.0, 8.0, 4.0, 0.0]] * 2, dtype=torch.float16)
    x = renorm(torch.float16, w.to(torch.float32).numpy())
    assert scan_innermost(torch.float16, x)[0, -1] == 1 - 2 ** -11
    got, _ = draw(8, 0, w, 40000)
    ref, _, u = model(8, 0, w, 40000, uniforms=True)
    np.testing.assert_array_equal(got.numpy(), ref)
    past = u == 1.0
    assert past.sum() >= 3  # the edge is exercised
    assert (got.numpy()[past] == 4).all()
    assert not (got == 5).any()


@pytest.mark.cuda
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,n", [((2, 3), 5), ((3, 1000), 130), ((70000, 4), 2), ((1, 5), 64)])
def test_matches_torch_on_cuda(dt, shape, n):
    sm = torch.cuda.get_device_properties(0).multi_processor_count
    if shape[0] == 1:
        w = torch.tensor([[1.0, 2.0, 0.0, 1.0, 4.0]], dtype=dt)  # exact prefix sums (cub's order cannot matter)
    else:
        w = torch.rand(shape, generator=torch.Generator().manual_seed(shape[1]), dtype=torch.float64).to(dt)
    wc = w.cuda()
    torch.cuda.manual_seed(31337)
    torch.rand(3, device="cuda")  # a non-zero starting offset
    g = xrng.torch_cuda(31337, sm_count=sm)
    g.set_state(torch.cuda.get_rng_state())
    assert g.offset == 4
    expect = torch.multinomial(wc, n, replacement=True)
    got = xrng.multinomial(wc, n, True, generator=g)
    assert got.device == wc.device
    assert torch.equal(got.cpu(), expect.cpu())
    assert g.offset == int.from_bytes(bytes(torch.cuda.get_rng_state()[8:16].tolist()), "little")
