"""xrng's draws as torch operators (bindings/ops.cpp, issue 16): the schemas,
the kernels against the native draws, dropout's autograd, the Meta device,
FakeTensor tracing, and the Generator's state tensor."""
import pickle

import pytest
import torch

import xrng


def test_operators_registered_and_tagged():
    for name in ("take_", "draw", "draw_", "dropout", "perm_shard"):
        op = getattr(torch.ops.xrng, name).default
        assert torch.Tag.nondeterministic_seeded in op.tags, name
    assert torch.ops.xrng.take_.default._schema.is_mutable
    assert not torch.ops.xrng.draw.default._schema.is_mutable


def _pos(seed, subseq=0, offset=0, stream=xrng.stream_version):
    return torch.tensor([seed, subseq, offset, stream], dtype=torch.int64)


@pytest.mark.parametrize("dist,params,dtype", [
    ("normal", {"mean": 0.0, "std": 1.0}, torch.float32),
    ("uniform", {"low": -2.0, "high": 3.0}, torch.float16),
    ("randint", {"ilow": -5, "ihigh": 100}, torch.int64),
    ("bernoulli", {"p": 0.3}, torch.bool),
    ("exponential", {"rate": 2.0}, torch.float64),
    ("perm", {"n": 13}, torch.int64),
])
def test_draw_op_equals_native(dist, params, dtype):
    n = 13
    ref = xrng._C.draw_(torch.empty(n, dtype=dtype), (7, 1, 40), dist, params, "auto", 0)
    reals, ints = xrng._op_params(dist, params)
    got = torch.ops.xrng.draw([n], dist, reals, ints, _pos(7, 1, 40), dtype, torch.device("cpu"))
    assert torch.equal(got, ref)
    out = torch.empty(n, dtype=dtype)
    assert torch.ops.xrng.draw_(out, dist, reals, ints, _pos(7, 1, 40)) is out
    assert torch.equal(out, ref)


def test_u64_seed_by_bit_pattern():
    big = 2**64 - 3
    ref = xrng.randn(5, seed=big, offset=9)
    got = torch.ops.xrng.draw([5], "normal", [0.0, 1.0], [], _pos(big - 2**64, 0, 9), torch.float32,
                              torch.device("cpu"))
    assert torch.equal(got, ref)


def test_take_advances_like_a_generator():
    g = xrng.Generator(3)
    pos = torch.ops.xrng.take_(g._state, "normal", [0.0, 1.0], [], torch.float32, 5)
    assert pos.tolist() == [3, 0, 0, 2] and g.offset == 6  # 5 normals: 3 pairs, 6 words
    pos = torch.ops.xrng.take_(g._state, "randint", [], [0, 10], torch.int64, 2)
    assert pos.tolist()[2] == 6 and g.offset == 6 + 8
    with pytest.raises(ValueError):
        torch.ops.xrng.take_(g._state, "uniform", [1.0, 0.0], [], torch.float32, 3)  # empty range
    assert g.offset == 14  # unchanged by the refused draw
    h = xrng.Generator(3, offset=2**64 - 4)
    with pytest.raises(ValueError, match="overflow|exhaust"):
        torch.ops.xrng.take_(h._state, "uniform", [0.0, 1.0], [], torch.float32, 8)
    assert h.offset == 2**64 - 4


def test_generator_sequence_equals_offsets():
    g = xrng.Generator(11, 2)
    a = xrng.randn(3, 4, generator=g)
    b = xrng.rand(7, generator=g, dtype=torch.float64)
    c = xrng.dropout(torch.ones(5), 0.5, generator=g)
    assert torch.equal(a, xrng.randn(3, 4, seed=11, subseq=2))
    assert torch.equal(b, xrng.rand(7, seed=11, subseq=2, offset=12, dtype=torch.float64))
    assert torch.equal(c, xrng.dropout(torch.ones(5), 0.5, seed=11, subseq=2, offset=26))
    assert g.offset == 31


def test_generator_state_api():
    g = xrng.Generator(2**64 - 1, 5, 7, stream=1)
    assert (g.seed, g.subseq, g.offset, g.stream) == (2**64 - 1, 5, 7, 1)
    n = xrng._C.Generator(2**64 - 1, 5, 7, 1)
    assert g.state_bytes() == n.state_bytes() and torch.equal(g.get_state(), n.get_state())
    assert g == n and g == g.clone() and g.clone() is not g
    h = xrng.Generator()
    h.set_state(g.get_state())
    assert h == g and h.stream == 1
    assert pickle.loads(pickle.dumps(g)) == g
    assert g.split(3) == xrng.Generator._of(n.split(3)) and g.fold_in(4) == xrng.Generator._of(n.fold_in(4))
    assert repr(g) == repr(n)
    with pytest.raises(TypeError):
        xrng.Generator("x")
    with pytest.raises(ValueError):
        xrng.Generator(-1)


def test_native_generator_still_accepted():
    n = xrng._C.Generator(4)
    a = xrng.randn(6, generator=n)
    d = xrng.dropout(torch.ones(4, requires_grad=True), 0.5, generator=n)
    assert torch.equal(a, xrng.randn(6, seed=4)) and n.offset == 10
    assert torch.equal(d.detach(), xrng.dropout(torch.ones(4), 0.5, seed=4, offset=6))


def test_dropout_autograd_regenerates_mask():
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    y = xrng.dropout(x, 0.4, seed=5)
    assert y.grad_fn is not None
    gy = torch.randn(4, 5, dtype=torch.float64)
    y.backward(gy)
    keep = y.detach() != 0
    expect = torch.where(keep, gy / 0.6, torch.zeros_like(gy))
    assert torch.allclose(x.grad, expect, rtol=0, atol=1e-15)
    assert torch.equal(x.grad, xrng.dropout(gy, 0.4, seed=5))  # bitwise: the same op on the gradient
    # gradcheck (double backward too: the backward is the same differentiable op)
    xs = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    pos = torch.tensor([1, 0, 0, 2], dtype=torch.int64)
    assert torch.autograd.gradcheck(lambda t: torch.ops.xrng.dropout(t, 0.3, pos), (xs,))
    assert torch.autograd.gradgradcheck(lambda t: torch.ops.xrng.dropout(t, 0.3, pos), (xs,))


def test_dropout_through_a_layer_gets_gradients():
    lin = torch.nn.Linear(6, 6)
    out = xrng.dropout(lin(torch.randn(2, 6)), 0.5, seed=1).sum()
    out.backward()
    assert lin.weight.grad is not None and lin.weight.grad.abs().sum() > 0


def test_dropout_inplace_with_grad():
    x = torch.randn(8, requires_grad=True)
    y = x * 1
    xrng.dropout(y, 0.5, inplace=True, seed=2)
    assert torch.equal(y.detach(), xrng.dropout(x.detach() * 1, 0.5, seed=2))
    y.sum().backward()
    assert torch.equal(x.grad, xrng.dropout(torch.ones(8), 0.5, seed=2))


def test_meta_device():
    t = xrng.randn(2, 3, device="meta")
    assert t.device.type == "meta" and t.shape == (2, 3) and t.dtype == torch.float32
    g = xrng.Generator(1)
    xrng.rand(4, device="meta", generator=g, dtype=torch.float64)
    assert g.offset == 8  # a meta draw advances its generator as the real one would
    with pytest.raises(ValueError):
        xrng.rand(2, device="meta", low=1.0, high=0.0)  # validated even without values
    x = torch.empty(3, 4, device="meta")
    assert xrng.dropout(x, 0.5, seed=0).device.type == "meta"
    with torch.device("meta"):
        lin = torch.nn.Linear(4, 4)
    xrng.normal_(lin.weight, seed=0)


def test_fake_tensor_tracing():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(5, 2)
        y = xrng.dropout(x, 0.5, seed=0)
        z = xrng.randn(3, 4, seed=1, device="cpu")
    assert y.shape == (5, 2) and z.shape == (3, 4)


def test_make_fx_graph_has_xrng_ops():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, state):
        return torch.ops.xrng.dropout(x, 0.5, torch.ops.xrng.take_(state, "dropout", [0.5], [], x.dtype, x.numel()))
    gm = make_fx(f)(torch.ones(4), xrng.Generator(0)._state)
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert "xrng.dropout.default" in targets and "xrng.take_.default" in targets


def test_cpp_entries_call_the_dispatcher():
    # the LibTorch factory dropout (via _C's native Generator) keeps the graph too
    n = xrng._C.Generator(9)
    x = torch.ones(6, requires_grad=True)
    y = xrng.dropout(x, 0.5, generator=n)
    assert y.grad_fn is not None
