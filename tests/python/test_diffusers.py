"""xrng.diffusers.randn_tensor: diffusers' signature, xrng values."""
import pytest
import torch

import xrng
from xrng.diffusers import randn_tensor
from conftest import same_bits


def test_single_generator_advances():
    g = xrng.Generator(7)
    a = randn_tensor((2, 4, 8, 8), generator=g)
    b = randn_tensor((2, 4, 8, 8), generator=g)
    ref = xrng.randn(2 * 2 * 4 * 8 * 8, seed=7)
    assert same_bits(torch.cat([a.reshape(-1), b.reshape(-1)]), ref)


def test_per_sample_generators_and_seed_lists():
    shape = (3, 4, 5, 5)
    t = randn_tensor(shape, generator=[xrng.Generator(s) for s in (10, 11, 12)], dtype=torch.float16)
    assert t.shape == shape and t.dtype == torch.float16
    for i, s in enumerate((10, 11, 12)):
        assert same_bits(t[i:i + 1], xrng.randn(1, 4, 5, 5, seed=s, dtype=torch.float16))
    assert same_bits(randn_tensor(shape, generator=[10, 11, 12], dtype=torch.float16), t)
    # sample i does not depend on the batch it is in
    assert same_bits(randn_tensor((1, 4, 5, 5), generator=[11], dtype=torch.float16), t[1:2])


def test_defaults_torch_generators_and_errors():
    xrng.manual_seed(5)
    a = randn_tensor((4,))
    assert a.dtype == torch.float32 and a.device.type == "cpu"
    assert same_bits(a, xrng.randn(4, seed=5))
    tg = torch.Generator().manual_seed(0)
    assert torch.equal(randn_tensor((4,), generator=tg), torch.randn(4, generator=torch.Generator().manual_seed(0)))
    with pytest.raises(ValueError, match="generators for a batch"):
        randn_tensor((3, 2), generator=[1, 2])
    with pytest.raises(ValueError, match="layout"):
        randn_tensor((3, 2), generator=1, layout=torch.sparse_coo)
    with pytest.raises(TypeError):
        randn_tensor((3, 2), generator="seed")


def test_device_does_not_change_noise(xdev):
    g1, g2 = xrng.Generator(9), xrng.Generator(9)
    a = randn_tensor((2, 3, 4), generator=g1, device="xdev")
    b = randn_tensor((2, 3, 4), generator=g2)
    assert a.device.type == "xdev" and same_bits(a.cpu(), b)
