"""torch.export of modules drawing from xrng (issue 16): the exported program
holds xrng operators, and saves, loads and runs with eager's values."""
import io

import torch

import xrng


class Noisy(torch.nn.Module):
    """Draws at fixed positions (seed=): the positions are constants of the program."""

    def forward(self, x):
        return xrng.dropout(x, 0.5, seed=3) + xrng.randn(x.shape, seed=3, offset=100)


class Stateful(torch.nn.Module):
    """Draws from a generator whose state tensor is a buffer: the program
    reads and advances it (a mutated buffer), so each run draws afresh."""

    def __init__(self):
        super().__init__()
        self.register_buffer("rng_state", xrng.Generator(11).state_tensor)

    def forward(self, x):
        return xrng.dropout(x, 0.25, generator=self.rng_state) * xrng.rand(x.shape, generator=self.rng_state)


def _roundtrip(ep):
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    return torch.export.load(buf)


def _targets(ep):
    return {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}


def test_export_seeded_module():
    x = torch.arange(12.0).reshape(3, 4)
    ep = torch.export.export(Noisy(), (x,))
    assert {"xrng.dropout.default", "xrng.draw.default"} <= _targets(ep)
    loaded = _roundtrip(ep)
    assert torch.equal(loaded.module()(x), Noisy()(x))


def test_export_generator_buffer_advances():
    x = torch.ones(2, 5)
    eager = Stateful()
    ep = torch.export.export(Stateful(), (x,))
    assert "xrng.take_.default" in _targets(ep)
    m = _roundtrip(ep).module()
    for _ in range(3):
        assert torch.equal(m(x), eager(x))
    assert torch.equal(m.rng_state, eager.rng_state) and eager.rng_state.tolist() == [11, 0, 3 * 20, 2]
    assert not ep.constants  # the state is the buffer, not a constant baked into the program
