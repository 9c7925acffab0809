"""Generator state: save/restore (tensor, bytes, pickle, copy), fork/fold_in."""
import copy
import pickle

import pytest
import torch

import xrng
from conftest import same_bits


def test_state_round_trip_resumes_the_stream():
    g = xrng.Generator(1234, subseq=5)
    xrng.randn(10, generator=g)
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.shape == (32,)
    assert bytes(state.tolist()[:4]) == b"XRNG"
    after = [xrng.randn(7, generator=g), xrng.randint(0, 9, (5,), generator=g), xrng.randperm(20, generator=g)]

    h = xrng.Generator()
    h.set_state(state)
    assert (h.seed, h.subseq, h.offset) == (1234, 5, 10)
    again = [xrng.randn(7, generator=h), xrng.randint(0, 9, (5,), generator=h), xrng.randperm(20, generator=h)]
    for a, b in zip(after, again):
        assert same_bits(a, b)
    assert h == g


def test_state_through_torch_save_bytes_and_pickle(tmp_path):
    g = xrng.Generator(2**64 - 1, subseq=2**63, offset=2**40)
    path = tmp_path / "ckpt.pt"
    torch.save({"rng": g.get_state()}, path)
    h = xrng.Generator()
    h.set_state(torch.load(path)["rng"])
    assert (h.seed, h.subseq, h.offset) == (2**64 - 1, 2**63, 2**40)
    k = xrng.Generator()
    k.set_state_bytes(g.state_bytes())
    assert k == g
    p = pickle.loads(pickle.dumps(g))
    assert p == g and p is not g
    c = copy.deepcopy(g)
    xrng.randn(3, generator=c)
    assert c.offset != g.offset  # copies are independent


@pytest.mark.parametrize("bad,match", [
    (torch.zeros(32, dtype=torch.uint8), "not an xrng generator state"),
    (torch.zeros(31, dtype=torch.uint8), "not an xrng generator state"),
    (torch.zeros(32, dtype=torch.int64), "uint8"),
])
def test_bad_state_raises(bad, match):
    with pytest.raises(ValueError, match=match):
        xrng.Generator().set_state(bad)


def test_other_stream_version_is_refused():
    s = xrng.Generator(1).get_state()
    s[4] = 99
    with pytest.raises(ValueError, match="stream version 99"):
        xrng.Generator().set_state(s)


def test_fork_and_fold_in():
    g = xrng.Generator(42, offset=100)
    f0, f1, d0 = g.fork(0), g.fork(1), g.fold_in(0)
    assert g.offset == 100 and f0.offset == 0
    keys = {(x.seed, x.subseq) for x in (g, f0, f1, d0)}
    assert len(keys) == 4  # fork(0) != fork(1) != fold_in(0) != parent
    assert g.fork(0) == f0 and g.fold_in(0) == d0  # deterministic
    a = xrng.randn(64, generator=f0)
    assert same_bits(a, xrng.randn(64, seed=f0.seed, subseq=f0.subseq))
    assert not torch.equal(a, xrng.randn(64, generator=f1))
    # only the key matters, not the parent's offset
    assert xrng.Generator(42).fork(0) == g.fork(0)


def test_offset_is_settable_and_repr():
    g = xrng.Generator(3)
    g.offset = 1000
    assert same_bits(xrng.rand(5, generator=g), xrng.rand(5, seed=3, offset=1000))
    assert repr(g) == "xrng.Generator(seed=3, subseq=0, offset=1005)"
