"""torch.compile (Inductor, CPU) of code drawing from xrng, issue 16: no graph
break, and every call gives eager's bits, advancing the stream as eager does.

Kept small (tiny shapes, few graphs): each test compiles once or twice."""
import pytest
import torch
import torch._dynamo

import xrng


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _draws(x, g):
    # x is ones: a * x + c is exact, also where a compiler fuses it into an FMA
    a = xrng.randn(x.shape, generator=g, device=x.device)
    b = xrng.rand(x.shape[0], generator=g, dtype=torch.float64, device=x.device)
    c = xrng.dropout(x, 0.5, generator=g)
    d = xrng.randn(x.shape, generator=g, device=x.device)  # same arguments as a: must not merge
    return a * x + c, b, d


def test_generator_five_calls_compiled_equals_eager():
    ge, gc = xrng.Generator(42), xrng.Generator(42)
    f = torch.compile(_draws, backend="inductor", fullgraph=True)
    x = torch.arange(6.0).reshape(2, 3)
    for _ in range(5):
        e = _draws(x, ge)
        c = f(x, gc)
        for u, v in zip(e, c):
            assert torch.equal(u, v)
        assert not torch.equal(e[2], xrng.randn(x.shape, seed=42))  # d is not a's repeat
        assert ge.offset == gc.offset
    assert gc.offset == 5 * (6 + 4 + 6 + 6)


def test_dynamic_shapes_and_graph_breaks():
    def f(x, g):
        return x + xrng.randn(x.shape, generator=g) + xrng.dropout(x, 0.25, generator=g)
    ex = torch._dynamo.explain(f)(torch.ones(3, 2), xrng.Generator(0))
    assert ex.graph_break_count == 0 and ex.graph_count == 1
    torch._dynamo.reset()
    ge, gc = xrng.Generator(1), xrng.Generator(1)
    fc = torch.compile(f, dynamic=True, fullgraph=True)
    for n in (3, 5, 8):
        x = torch.ones(n, 2)
        assert torch.equal(fc(x, gc), f(x, ge))
    assert ge.offset == gc.offset


def test_seed_draws_and_default_generator():
    def f(x):
        return x + xrng.randn(x.shape, seed=7, offset=4) + xrng.rand(x.shape, seed=7, subseq=1)
    x = torch.zeros(4)
    assert torch.equal(torch.compile(f, fullgraph=True)(x), f(x))

    def h(x):
        return x + xrng.randn(x.shape)  # the default generator
    hc = torch.compile(h, fullgraph=True)
    xrng.manual_seed(3)
    e = [h(x) for _ in range(3)]
    xrng.manual_seed(3)
    c = [hc(x) for _ in range(3)]
    assert all(torch.equal(u, v) for u, v in zip(e, c))
    assert not torch.equal(c[0], c[1])


def test_compiled_dropout_training_step():
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 5)

    def step(x, g):
        y = xrng.dropout(lin(x), 0.3, generator=g)
        y.sum().backward()
        return y

    ge, gc = xrng.Generator(8), xrng.Generator(8)
    x = torch.randn(4, 5)
    fc = torch.compile(step)
    for _ in range(2):
        lin.zero_grad()
        ye = step(x, ge)
        we = lin.weight.grad.clone()
        lin.zero_grad()
        yc = fc(x, gc)
        assert torch.equal((ye != 0), (yc != 0))  # the same mask
        torch.testing.assert_close(yc, ye)
        torch.testing.assert_close(lin.weight.grad, we)


def test_inplace_fills_compile():
    def f(w, g):
        xrng.normal_(w, 0.0, 0.02, generator=g)
        return w * 2
    ge, gc = xrng.Generator(5), xrng.Generator(5)
    we, wc = torch.empty(3, 3), torch.empty(3, 3)
    assert torch.equal(torch.compile(f, fullgraph=True)(wc, gc), f(we, ge))
    assert torch.equal(we, wc) and ge.offset == gc.offset


# ---- CUDA (tests/gpu/run.sh runs these on a GPU machine: pytest -m cuda) ------------------------------
@pytest.mark.cuda
def test_cuda_operators_and_compile_equal_cpu():
    g_cpu, g_cuda, g_comp = xrng.Generator(3), xrng.Generator(3), xrng.Generator(3)
    x = torch.ones(64, 3)
    a = _draws(x, g_cpu)
    b = _draws(x.cuda(), g_cuda)
    c = torch.compile(_draws, fullgraph=True)(x.cuda(), g_comp)
    for u, v, w in zip(a, b, c):
        assert torch.equal(u, v.cpu()) and torch.equal(u, w.cpu())
    assert g_cpu.offset == g_cuda.offset == g_comp.offset


@pytest.mark.cuda
def test_cuda_graph_replays_draw_fresh_values():
    # a generator whose state is on the GPU (device="cuda"): each replay
    # advances it and draws at the new position (more in test_cudagraph.py)
    g = xrng.Generator(4, device="cuda")
    x = torch.ones(16, device="cuda")
    graph = torch.cuda.CUDAGraph()
    static = xrng.dropout(x, 0.5, generator=g)  # warm-up
    with torch.cuda.graph(graph):
        static = xrng.dropout(x, 0.5, generator=g)
    eager = xrng.Generator(4)
    xrng.dropout(x.cpu(), 0.5, generator=eager)  # the warm-up's draw
    graph.replay()
    first = static.clone()
    assert torch.equal(first.cpu(), xrng.dropout(x.cpu(), 0.5, generator=eager))
    graph.replay()
    assert not torch.equal(first, static)
    assert torch.equal(static.cpu(), xrng.dropout(x.cpu(), 0.5, generator=eager))
