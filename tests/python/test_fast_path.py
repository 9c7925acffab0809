"""The factories' eager fast path (bindings/python.cpp, fast_draw): xrng.rand /
xrng.randn take one native call for the common eager draw and fall back to the
general path for anything else. Both must give the same values, advance
generators alike and raise the same errors."""
import pytest
import torch

import xrng


def general(fn, *size, **kw):
    """The same draw through the general path: path="host_transfer" is not
    the fast path's (on the CPU it is the same host fill; values never depend
    on the path)."""
    return fn(*size, path="host_transfer", **kw)


def fast(kind, size, seed=None, generator=None, threads=0, device=None):
    """_fast_draw called directly (kind 0 rand, 1 randn): NotImplemented where it steps aside."""
    return xrng._C._fast_draw(kind, 0.0, 1.0, size, seed, 0, 0, generator, xrng.default_generator, None, None,
                              device, False, "auto", threads, None)


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


@pytest.mark.parametrize("threads", [1, 2, 1024])
@pytest.mark.parametrize("n", [16, 70000])
def test_a_thread_count_takes_the_fast_path_with_the_same_values(threads, n):
    """threads= (a valid count, a CPU draw) is the fast path's too, the host
    fill with that many threads (70000 elements: more than one thread's share);
    values and the generator's advance equal the general path's."""
    g1, g2 = xrng.Generator(5, 1), xrng.Generator(5, 1)
    for fn, kind in ((xrng.rand, 0), (xrng.randn, 1)):
        a = fn(n, generator=g1, threads=threads)
        b = general(fn, n, generator=g2, threads=threads)
        assert torch.equal(a, b) and g1.offset == g2.offset
        t = fast(kind, (n,), seed=3, threads=threads)
        assert t is not NotImplemented and torch.equal(t, fn(n, seed=3, path="host_transfer"))
    # the calls it leaves to the general path, which checks and reports
    assert fast(1, (4,), seed=3, threads=-1) is NotImplemented
    assert fast(1, (4,), seed=3, threads=1025) is NotImplemented
    assert fast(1, (4,), seed=3, threads=True) is NotImplemented
    assert fast(1, (4,), seed=3, threads=1, device="cuda") is NotImplemented


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
    (lambda: xrng.randn(2, threads=-1), ValueError),
    (lambda: xrng.randn(2, threads=1025), ValueError),
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
