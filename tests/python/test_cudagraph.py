"""CUDA graphs (issue 16, item 4): a captured region that draws from xrng gives
new values on each replay, equal to the same sequence of eager calls.

A generator made with ``device="cuda"`` keeps its state in GPU memory: each
draw advances it with a kernel (``xrng::take_``) and the draw kernels read the
position when they run (device/position.h), so a replay advances and reads
the counter afresh. The CPU tests prove what a machine without a GPU can:
a recorded region (make_fx's graph, which like a CUDA graph holds the ops and
not the values) re-run against one state tensor equals the eager sequence,
the counter arithmetic to the last word, and the argument checks. The
kernel-level emulation of replays is in tests/gpu/test_cuda_host.cpp
(ctest cuda_host). The `cuda` tests run on a GPU machine (tests/gpu/run.sh).
"""
import os
import subprocess
import sys

import pytest
import torch
import torch._dynamo
from torch.fx.experimental.proxy_tensor import make_fx

import xrng

U = 2**64


def _region(x, g):
    """Draws of every kind from one generator (state tensor or Generator)."""
    a = xrng.randn(x.shape, generator=g, device=x.device)
    b = xrng.rand(5, generator=g, dtype=torch.float64, device=x.device)
    c = xrng.dropout(x, 0.5, generator=g)
    d = xrng.randint(0, 1000, (7,), generator=g, device=x.device)
    e = xrng.bernoulli(9, p=0.3, generator=g, device=x.device)
    f = xrng.randn(x.shape, generator=g, dtype=torch.float16, device=x.device)
    w = torch.empty(3, 4, device=x.device)
    xrng.normal_(w, 1.0, 2.0, generator=g)
    p = xrng.randperm(11, generator=g, device=x.device)
    return a * x + c, b, d, e, f, w, p


def _same(u, v):
    assert len(u) == len(v)
    for s, t in zip(u, v):
        assert s.dtype == t.dtype and s.shape == t.shape
        assert torch.equal(s.cpu(), t.cpu())


# ---- CPU: what can be proven without a GPU -------------------------------------------------------
def test_recorded_region_rerun_equals_eager_sequence():
    # make_fx records the region as operators on the state tensor, as a
    # capture records kernels: re-running the recording must advance and read
    # the state each time (no position baked in as a constant).
    x = torch.arange(6.0).reshape(2, 3)
    state = xrng.Generator(11).state_tensor
    gm = make_fx(_region)(x, state.clone())
    eager = xrng.Generator(11)
    outs = []
    for _ in range(4):
        got = gm(x, state)
        _same(got, _region(x, eager))
        outs.append(got)
        assert torch.equal(state, eager.state_tensor)
    assert not torch.equal(outs[0][0], outs[1][0])  # fresh values each run


def test_take_advances_to_the_last_word_and_refuses_past_it():
    # the counter arithmetic the CUDA take kernel shares (device/position.h, take_words)
    state = xrng.Generator(3, offset=U - 10).state_tensor
    pos = torch.ops.xrng.take_(state, "uniform", [0.0, 1.0], [], torch.float32, 9)
    assert pos.tolist()[2] == U - 10 - U and state.tolist()[2] == -1  # offset 2**64 - 1 (int64 bits)
    with pytest.raises(ValueError, match="exhausted"):
        torch.ops.xrng.take_(state, "uniform", [0.0, 1.0], [], torch.float32, 1)
    assert state.tolist()[2] == -1  # unchanged by the refusal
    pos = torch.ops.xrng.take_(state, "uniform", [0.0, 1.0], [], torch.float32, 0)
    assert state.tolist()[2] == -1 and pos.tolist() == state.tolist()
    # the draw at the returned position is the stateless draw there
    g = xrng.Generator(3, offset=U - 10)
    t = xrng.rand(9, generator=g)
    assert torch.equal(t, xrng.rand(9, seed=3, offset=U - 10))


def test_device_generator_arguments():
    with pytest.raises(ValueError, match="draws stream 2"):
        xrng.Generator(1, stream=1, device="cuda")
    g = xrng.Generator(5, device="cpu")
    assert g.device == torch.device("cpu") and g == xrng.Generator(5)
    assert torch.equal(xrng.rand(4, generator=g), xrng.rand(4, seed=5))


# ---- GPU (tests/gpu/run.sh runs these: pytest -m cuda) ------------------------------------------
def _capture(fn, *args):
    """torch.cuda.graph capture of fn(*args) after torch's side-stream warm-up
    (one eager call); returns (graph, static outputs)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn(*args)  # warm-up (draws: the eager reference does it too)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn(*args)
    return graph, out


@pytest.mark.cuda
def test_graph_replays_generator_draws_equal_eager_sequence():
    x = torch.arange(6.0, device="cuda").reshape(2, 3)
    g = xrng.Generator(7, device="cuda")
    graph, static = _capture(_region, x, g)
    eager = xrng.Generator(7)  # a host state: the same values
    _region(x, eager)  # the warm-up's draws
    first = None
    for _ in range(5):
        graph.replay()
        want = _region(x, eager)
        _same(static, want)
        if first is None:
            first = static[0].clone()
        assert g.offset == eager.offset
    assert not torch.equal(first, static[0])


@pytest.mark.cuda
def test_graph_seed_draws_replay_the_eager_values():
    x = torch.ones(64, device="cuda")

    def f(x):
        return xrng.randn(8, seed=3, device="cuda"), xrng.dropout(x, 0.25, seed=4, offset=12)

    graph, static = _capture(f, x)
    for _ in range(3):
        graph.replay()
        _same(static, f(x))  # a stateless draw: the same values on every call, eager or replayed


@pytest.mark.cuda
def test_graph_module_buffer_state_and_dropout():
    # the documented pattern: the generator's state a module buffer, drawn
    # from with generator=self.rng_state (elementwise work only, so the
    # comparison is of the draws, not of a matmul's algorithm choice)
    class Net(torch.nn.Module):
        def __init__(self, device):
            super().__init__()
            self.w = torch.nn.Parameter(torch.linspace(0.5, 2.0, 16))
            self.register_buffer("rng_state", xrng.Generator(21, device=device).state_tensor)

        def forward(self, x):
            h = xrng.dropout(x * self.w, 0.5, generator=self.rng_state)
            return h + xrng.rand(16, generator=self.rng_state, device=x.device)

    net = Net("cuda").cuda()
    ref = Net("cpu").cuda()  # the buffer moves with .cuda(): set it back to a host state
    ref.rng_state = xrng.Generator(21).state_tensor
    x = torch.randn(4, 16, device="cuda")
    with torch.no_grad():
        graph, static = _capture(net, x)
        ref(x)  # the warm-up
        for _ in range(4):
            graph.replay()
            assert torch.equal(static, ref(x))
    assert torch.equal(net.rng_state.cpu(), ref.rng_state)


@pytest.mark.cuda
def test_device_generator_draws_do_not_synchronize():
    # no host read of the position: an eager draw from a device generator
    # never waits for the GPU (torch raises on a synchronizing call in "error" mode)
    g = xrng.Generator(1, device="cuda")
    x = torch.ones(1000, device="cuda")
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        a = xrng.randn(1000, generator=g, device="cuda")
        b = xrng.dropout(x, 0.1, generator=g)
        xrng.uniform_(x, generator=g)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    h = xrng.Generator(1)
    assert torch.equal(a.cpu(), xrng.randn(1000, generator=h))
    assert torch.equal(b.cpu(), xrng.dropout(torch.ones(1000), 0.1, generator=h))
    assert torch.equal(x.cpu(), xrng.rand(1000, generator=h))
    assert g.offset == h.offset


@pytest.mark.cuda
def test_host_generator_under_capture_is_refused():
    g = xrng.Generator(2)  # state on the host: a replay could not advance it
    graph = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with pytest.raises(ValueError, match="CUDA graph"):
        with torch.cuda.graph(graph):
            xrng.randn(8, generator=g, device="cuda")
    assert g.offset == 0


@pytest.mark.cuda
def test_reduce_overhead_compile_equals_eager_sequence():
    torch._dynamo.reset()
    from torch._dynamo.utils import counters
    counters.clear()

    def f(x, g):
        # no add after the multiply: Triton fuses a * x + y into an FMA, which
        # eager's two kernels round twice (seen on an H100 as 1-ulp differences)
        return torch.stack([xrng.randn(x.shape, generator=g, device=x.device) * x, xrng.dropout(x, 0.5, generator=g)])

    x = torch.arange(1.0, 33.0, device="cuda")
    g = xrng.Generator(9, device="cuda")
    eager = xrng.Generator(9, device="cuda")
    cf = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(6):  # warm-up, recording, then replays of the CUDA graph
        got = cf(x, g).clone()  # a replay overwrites its static output
        assert torch.equal(got, f(x, eager))
        assert g.offset == eager.offset
    assert not counters["inductor"]["cudagraph_skips"], dict(counters["inductor"])
    torch._dynamo.reset()


@pytest.mark.cuda
def test_reduce_overhead_with_a_host_generator_stays_right():
    # a host state is a CPU input: torch leaves the graph out of CUDA graphs
    torch._dynamo.reset()

    def f(x, g):
        return xrng.dropout(x, 0.5, generator=g) + xrng.rand(x.shape, generator=g, device=x.device)

    x = torch.ones(32, device="cuda")
    g, eager = xrng.Generator(5), xrng.Generator(5)
    cf = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):
        assert torch.equal(cf(x, g).clone(), f(x, eager))
    assert g.offset == eager.offset
    torch._dynamo.reset()


@pytest.mark.cuda
def test_exhausted_device_generator_is_a_device_side_error():
    # a draw the device state cannot make fails its kernel (the context is
    # lost, as with torch's device-side asserts), in a child process
    code = ("import torch, xrng\n"
            "g = xrng.Generator(1, offset=2**64 - 4, device='cuda')\n"
            "xrng.rand(8, generator=g, device='cuda')\n"
            "torch.cuda.synchronize()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "device-side assert" in out and "generator exhausted" in out, out[-2000:]


def test_state_on_another_device_draws_the_host_sequence(xdev):
    # a generator whose state is not on the CPU (here the xdev test backend,
    # whose kernels are the host's: its take copies the state to the host and
    # back) goes through the operators from the eager entries, the path a CUDA
    # state takes without a host read; values and offsets are the host generator's
    g, h = xrng.Generator(5, device="xdev"), xrng.Generator(5)
    assert g.device.type == "xdev"
    x = torch.ones(10)
    for _ in range(2):
        assert torch.equal(xrng.randn(7, generator=g, device="xdev").cpu(), xrng.randn(7, generator=h))
        assert torch.equal(xrng.dropout(x.to("xdev"), 0.5, generator=g).cpu(), xrng.dropout(x, 0.5, generator=h))
        w = torch.empty(3, device="xdev")
        xrng.uniform_(w, generator=g)
        assert torch.equal(w.cpu(), xrng.rand(3, generator=h))
        assert torch.equal(xrng.randn(4, generator=g), xrng.randn(4, generator=h))  # a CPU output
    assert g.offset == h.offset and g == h
    with pytest.raises(ValueError, match="draws stream 2"):
        xrng.randn(3, generator=g, stream=1)
