"""xrng's CUDA kernels for the torch CUDA stream (SPEC.md 15.5), through the
Python entry points: a CUDA tensor filled by ``xrng.torch_cuda``'s draws and
by the mode's "torch-cuda" stream equals, bit for bit, the host model's CPU
tensor for the same state, and the generator's offset moves the same way.
GPU only (marker ``cuda``); skipped where the package has no CUDA kernels
(CUDA tensors are then filled on the host and copied: nothing to compare)."""
import pytest
import torch

import xrng

pytestmark = pytest.mark.cuda

SM = 8  # one wave = 4096 threads: sizes above it are small


def _needs_kernels():
    if not xrng.has_cuda_kernels():
        pytest.skip("this build of xrng has no CUDA kernels (XRNG_TORCH_CUDA off)")


def _same(a, b):
    a, b = a.cpu().contiguous(), b.cpu().contiguous()
    if a.dtype == torch.bool:
        return torch.equal(a, b)
    return a.dtype == b.dtype and torch.equal(a.view(torch.uint8), b.view(torch.uint8))


FILLS = [
    ("uniform_", lambda t, g: xrng.uniform_(t, -2, 3, generator=g), (torch.float32, torch.float64, torch.float16, torch.bfloat16)),
    ("normal_", lambda t, g: xrng.normal_(t, 0.5, 2.0, generator=g), (torch.float32, torch.float64, torch.float16, torch.bfloat16)),
    ("exponential_", lambda t, g: xrng.exponential_(t, 1.5, generator=g), (torch.float32, torch.float64, torch.bfloat16)),
    ("log_normal_", lambda t, g: xrng.log_normal_(t, 0.5, 0.8, generator=g), (torch.float32, torch.float64, torch.float16)),
    ("cauchy_", lambda t, g: xrng.cauchy_(t, 1.0, 0.5, generator=g), (torch.float32, torch.float64, torch.bfloat16)),
    ("geometric_", lambda t, g: xrng.geometric_(t, 0.3, generator=g), (torch.float32, torch.float64, torch.int64, torch.uint8)),
    ("bernoulli_", lambda t, g: xrng.bernoulli_(t, 0.3, generator=g), (torch.float32, torch.float64, torch.bool, torch.int32)),
]


@pytest.mark.parametrize("n", [1, 1000, 3 * 4096 * 4 + 17])
@pytest.mark.parametrize("name,fill,dtypes", FILLS, ids=[f[0] for f in FILLS])
def test_fills_on_gpu_equal_host(n, name, fill, dtypes):
    _needs_kernels()
    for dt in dtypes:
        g = xrng.torch_cuda(7, sm_count=SM)
        h = fill(torch.empty(n, dtype=dt), g)
        oh = g.offset
        g.manual_seed(7)
        d = fill(torch.empty(n, dtype=dt, device="cuda"), g)
        assert d.is_cuda
        assert _same(h, d), f"{name} {dt} n={n}"
        assert g.offset == oh


def test_factories_randint_tensor_p_dropout_on_gpu_equal_host():
    _needs_kernels()
    n = 5 * 4096 * 4 + 3
    for f in (lambda g, dev: xrng.rand(n, dtype=torch.float16, generator=g, device=dev),
              lambda g, dev: xrng.randn(n, dtype=torch.float64, generator=g, device=dev),
              lambda g, dev: xrng.randint(-100, 2 ** 28 + 3, (n,), generator=g, device=dev),
              lambda g, dev: xrng.randint(0, 10, (n,), dtype=torch.int32, generator=g, device=dev),
              lambda g, dev: xrng.uniform_(torch.empty(300, 200, device=dev).t(), generator=g),  # non-contiguous
              lambda g, dev: xrng.bernoulli_(torch.empty(n, device=dev), torch.linspace(0, 1, n, device=dev), generator=g),
              lambda g, dev: xrng.dropout(torch.randn(n + 1, generator=torch.Generator().manual_seed(1)).to(dev), 0.2,
                                          generator=g)):
        g = xrng.torch_cuda(11, sm_count=SM)
        h = f(g, "cpu")
        oh = g.offset
        g.manual_seed(11)
        d = f(g, "cuda")
        assert d.is_cuda and _same(h, d)
        assert g.offset == oh


def test_mode_torch_cuda_on_gpu_equals_host():
    _needs_kernels()
    n = 3 * 4096 * 4 + 5

    def program(dev):
        torch.manual_seed(5)
        return [torch.rand(n, device=dev), torch.randn(n, dtype=torch.float16, device=dev),
                torch.empty(n, device=dev).exponential_(2.0), torch.randint(0, 7, (n,), device=dev),
                torch.empty(n, device=dev).bernoulli_(torch.rand(n, device=dev)),
                torch.nn.functional.dropout(torch.ones(n, device=dev), 0.3), torch.empty(50, 40, device=dev).t().normal_()]

    with xrng.reproducible(stream="torch-cuda", sm_count=SM, strict=True):
        host = program("cpu")
        gpu = program("cuda")
    for i, (h, d) in enumerate(zip(host, gpu)):
        assert d.is_cuda and _same(h, d), f"draw {i}"
