"""Generator state: save/restore (tensor, bytes, pickle, copy), the byte format, split/fold_in."""
import copy
import pickle
import struct
import warnings

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
    for bad in (99, 0, 3):
        s[4] = bad
        with pytest.raises(ValueError, match=f"stream version {bad}"):
            xrng.Generator().set_state(s)


def test_split_and_fold_in():
    g = xrng.Generator(42, offset=100)
    s0, s1, d0 = g.split(0), g.split(1), g.fold_in(0)
    assert g.offset == 100 and s0.offset == 0
    keys = {(x.seed, x.subseq) for x in (g, s0, s1, d0)}
    assert len(keys) == 4  # split(0) != split(1) != fold_in(0) != parent
    assert g.split(0) == s0 and g.fold_in(0) == d0  # deterministic
    a = xrng.randn(64, generator=s0)
    assert same_bits(a, xrng.randn(64, seed=s0.seed, subseq=s0.subseq))
    assert not torch.equal(a, xrng.randn(64, generator=s1))
    # only the key matters, not the parent's offset
    assert xrng.Generator(42).split(0) == g.split(0)


def test_derived_keys_are_the_cores():
    # SPEC.md section 6: split(i) and fold_in(data) are Philox4x32-10 of (data, subseq)
    # under the seed xored with SHA-256 initial hash words; pinned here so that the
    # Python Generator cannot drift from the C++ Key (values of xrng::Key(42)).
    g = xrng.Generator(42)
    assert (g.split(0).seed, g.split(0).subseq) == (4475247830929125586, 15612237438151480142)
    assert (g.fold_in(0).seed, g.fold_in(0).subseq) == (6007125326237580219, 15657353116779805086)


def test_fork_is_a_deprecated_alias_of_split():
    g = xrng.Generator(7, offset=3)
    with pytest.warns(DeprecationWarning, match="use Generator.split"):
        f = g.fork(5)
    assert f == g.split(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.split(5)  # the new name does not warn


def test_state_bytes_format_is_stable():
    # "XRNG", the generator's stream version (u32), seed, subseq, offset (u64), little
    # endian: the layout of every release (SPEC.md section 7), so old checkpoints keep loading.
    for stream in (1, 2):
        g = xrng.Generator(0x0123456789ABCDEF, subseq=0xFEDCBA9876543210, offset=0x1122334455667788, stream=stream)
        want = b"XRNG" + struct.pack("<IQQQ", stream, 0x0123456789ABCDEF, 0xFEDCBA9876543210, 0x1122334455667788)
        assert g.state_bytes() == want
        assert bytes(g.get_state().tolist()) == want
        h = xrng.Generator()
        h.set_state_bytes(want)
        assert h == g and h.stream == stream
    assert xrng.Generator().stream == xrng.stream_version == 2


def test_a_v1_state_keeps_drawing_v1():
    # a state written by a release before stream 2 (version field 1) restores a stream-1
    # generator, whose normals are golden_v1.txt's (normal f32 seed 0: 3f7dbb33, bf6cb6b0)
    old = b"XRNG" + struct.pack("<IQQQ", 1, 0, 0, 0)
    g = xrng.Generator(5)
    g.set_state_bytes(old)
    assert g.stream == 1
    z = xrng.randn(2, generator=g)
    assert [int(x) for x in z.view(torch.int32).tolist()] == [0x3f7dbb33, 0xbf6cb6b0 - 2**32]
    assert g.offset == 2 and g.split(1).stream == 1 and g.fold_in(3).stream == 1
    h = xrng.Generator(5)
    h.set_state(torch.tensor(list(old), dtype=torch.uint8))
    assert h.stream == 1 and torch.equal(xrng.randn(2, generator=h), z)
    # the newest stream differs for normal, not for uniform
    assert not torch.equal(xrng.randn(2, seed=0), z)
    assert torch.equal(xrng.rand(8, seed=4, stream=1), xrng.rand(8, seed=4, stream=2))


def test_stream_argument():
    assert xrng.stream_versions == (1, 2)
    a = xrng.randn(6, seed=3, stream=1)
    assert torch.equal(a, xrng.randn(6, generator=xrng.Generator(3, stream=1)))
    assert torch.equal(xrng.randn(6, seed=3), xrng.randn(6, seed=3, stream=2))
    t = torch.empty(6)
    assert torch.equal(xrng.normal_(t, seed=3, stream=1), a)
    for bad, err, match in ((0, ValueError, r"stream versions \(1, 2\), got 0"),
                            (3, ValueError, r"stream versions \(1, 2\), got 3"),
                            ("2", TypeError, "stream must be an int"), (1.5, TypeError, "stream must be an int"),
                            (True, TypeError, "stream must be an int")):
        with pytest.raises(err, match=match):
            xrng.randn(2, seed=0, stream=bad)
        with pytest.raises(err, match=match):
            xrng.exponential_(torch.empty(2), seed=0, stream=bad)
        with pytest.raises(err, match=match):
            xrng.Generator(0, stream=bad)
        with pytest.raises(err, match=match):
            xrng.manual_seed(0, stream=bad)
    with pytest.raises(ValueError, match="stream=1 but the generator draws stream 2"):
        xrng.randn(2, generator=xrng.Generator(0), stream=1)
    g = xrng.manual_seed(9, stream=1)
    assert g.stream == 1 and xrng.default_generator.stream == 1
    assert torch.equal(xrng.randn(4), xrng.randn(4, seed=9, stream=1))
    xrng.manual_seed(0)
    assert xrng.default_generator.stream == 2
    # pickles keep the stream; the 3-tuples of earlier releases load as stream 1
    import pickle
    g1 = xrng.Generator(7, 1, 2, stream=1)
    assert pickle.loads(pickle.dumps(g1)) == g1
    assert "stream=1" in repr(g1)
    old = xrng.Generator.__new__(xrng.Generator)
    old.__setstate__((7, 1, 2))  # what pickle does with a pickle of an earlier release
    assert old == g1 and old.stream == 1


def test_offset_is_settable_and_repr():
    g = xrng.Generator(3)
    g.offset = 1000
    assert same_bits(xrng.rand(5, generator=g), xrng.rand(5, seed=3, offset=1000))
    assert repr(g) == "xrng.Generator(seed=3, subseq=0, offset=1005, stream=2)"
