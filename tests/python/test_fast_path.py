"""The factories' eager fast path (bindings/python.cpp, fast_draw): xrng.rand /
xrng.randn take one native call for the common eager draw and fall back to the
general path for anything else. Both must give the same values, advance
generators alike and raise the same errors."""
import pytest
import torch

import xrng


def general(fn, *size, **kw):
    """The same draw through the general path: threads=1 is not the fast path's
    default (values never depend on threads)."""
    return fn(*size, threads=1, **kw)


@pytest.mark.parametrize("fn,params", [(xrng.rand, {}), (xrng.rand, {"low": -2, "high": 3.5}),
                                       (xrng.randn, {}), (xrng.randn, {"mean": 1.5, "std": 2})])
@pytest.mark.parametrize("dtype", [None, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("size", [(), (1,), (7,), (3, 5), ((2, 3),), ([4, 1],), (0,)])
def test_fast_equals_general(fn, params, dtype, size):
    g1, g2 = xrng.Generator(11, 2, 5), xrng.Generator(11, 2, 5)
    a = fn(*size, generator=g1, dtype=dtype, device=torch.device("cpu"), **params)
    b = general(fn, *size, generator=g2, dtype=dtype, device="cpu", **params)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a, b)
    assert g1.offset == g2.offset
    a = fn(*size, seed=9, subseq=1, offset=3, dtype=dtype, **params)
    b = general(fn, *size, seed=9, subseq=1, offset=3, dtype=dtype, **params)
    assert torch.equal(a, b)


def test_default_generator_and_stream1():
    xrng.manual_seed(4)
    a = xrng.randn(5)
    xrng.manual_seed(4)
    b = general(xrng.randn, 5)
    assert torch.equal(a, b) and xrng.default_generator.offset == 6
    g1, g2 = xrng.Generator(3, stream=1), xrng.Generator(3, stream=1)
    assert torch.equal(xrng.randn(9, generator=g1), general(xrng.randn, 9, generator=g2))
    assert torch.equal(xrng.randn(9, generator=g1), xrng.randn(9, generator=g2, stream=1))
    xrng.manual_seed(0)


def test_a_call_each_path_in_sequence_continues_the_generator():
    g, h = xrng.Generator(8), xrng.Generator(8)
    seq = [xrng.rand(3, generator=g), general(xrng.randn, 4, generator=g), xrng.randn(2, generator=g)]
    ref = [xrng.rand(3, offset=0, seed=8), xrng.randn(4, seed=8, offset=3), xrng.randn(2, seed=8, offset=7)]
    for x, y in zip(seq, ref):
        assert torch.equal(x, y)
    assert g.offset == 9 and h.offset == 0


@pytest.mark.parametrize("call,exc", [
    (lambda: xrng.randn(-1), ValueError),
    (lambda: xrng.randn(2**70), ValueError),
    (lambda: xrng.randn(2, seed=-1), ValueError),
    (lambda: xrng.randn(2, seed=2**64), ValueError),
    (lambda: xrng.randn(2, subseq=1), ValueError),
    (lambda: xrng.randn(2, threads=2**80), ValueError),
    (lambda: xrng.randn(2, dtype=torch.int32), ValueError),
    (lambda: xrng.rand(2, seed=True), TypeError),
    (lambda: xrng.rand(2.0), TypeError),
])
def test_errors_are_the_general_paths(call, exc):
    """A rejected argument leaves no pending exception behind the fallback:
    the general path's one-line error."""
    with pytest.raises(exc) as e:
        call()
    assert "\n" not in str(e.value)
    assert torch.equal(xrng.randn(3, seed=1), general(xrng.randn, 3, seed=1))  # nothing left set


def test_traced_calls_take_the_operators():
    """Under a dispatch mode (make_fx) the fast path steps aside: the trace records xrng's operators."""
    from torch.fx.experimental.proxy_tensor import make_fx
    g = xrng.Generator(2)

    def f(x):
        return x + xrng.randn(3, generator=g)
    gm = make_fx(f)(torch.zeros(3))
    assert "xrng.draw" in gm.code and "xrng.take_" in gm.code


def test_device_forms():
    for dev in ("cpu", torch.device("cpu"), None):
        assert torch.equal(xrng.randn(5, seed=3, device=dev), general(xrng.randn, 5, seed=3, device="cpu"))
    with pytest.raises(RuntimeError):
        xrng.randn(5, device="nonsense")


def test_default_device_mode_is_honoured():
    """torch.set_default_device is a torch function mode: the general path, which allocates on that device."""
    with torch.device("meta"):
        t = xrng.randn(4)
    assert t.device.type == "meta"
