"""torch.func._random keys as xrng positions (python/xrng/_keys.py, issue 16):
the raw words of a key are xrng's at the converted position, the key stays a
graph input under torch.compile and torch.export, and the relation of the two
APIs' values (which words are equal, which are not) is the one the docs state."""
import io

import pytest
import torch
import torch._dynamo

import xrng

R = pytest.importorskip("torch.func._random", reason="torch.func._random (torch 2.15) is not in this torch")


def _bits32(key, n):
    return R.bits(key, (n,), dtype=torch.uint32)


def _xbits32(pos, n):
    t = torch.empty(n, dtype=torch.uint32)
    return xrng.bits_(t, generator=pos)


def _keys():
    """key(s), an explicit [seed, block] key, and the split / fold_in children
    xrng can address (offset below 2**62 blocks)."""
    ks = [R.key(42), R.key(0), torch.tensor([2**64 - 1, 12345], dtype=torch.uint64)]
    kids = list(R.split(R.key(7), 16)) + [R.fold_in(R.key(3), d) for d in range(16)]
    ks += [k for k in kids if k.tolist()[1] < xrng._keys.KEY_OFFSET_LIMIT]
    assert len(ks) > 6
    return ks


def test_raw_words_equal_torch_func_random():
    for k in _keys():
        pos = xrng.position_from_key(k)
        seed, block = (int(v) for v in k.tolist())
        assert [xrng._u(v) for v in pos.tolist()] == [seed, 0, 4 * block, xrng.stream_version]
        assert torch.equal(_xbits32(pos, 37), _bits32(k, 37))  # 37: not a whole number of blocks
        assert int(pos[2]) == xrng._bits64(4 * block + 37)  # the position advanced, the key not
    k = R.key(9)
    t = torch.empty(3, 5, dtype=torch.uint32)  # row-major element order in both
    assert torch.equal(xrng.bits_(t, generator=xrng.position_from_key(k)), R.bits(k, (3, 5), dtype=torch.uint32))
    # the words at the key's offset are those of the stateless (seed, 0, 4 * block) draw
    k = torch.tensor([11, 5], dtype=torch.uint64)
    assert torch.equal(_bits32(k, 8), xrng.bits_(torch.empty(8, dtype=torch.uint32), seed=11, offset=20))


def test_uint64_words_in_the_other_order():
    """torch's uint64 bits put the first word in the high half, xrng's in the low half."""
    k = R.key(5)
    w = _bits32(k, 8).to(torch.int64).tolist()
    tb = R.bits(k, (4,), dtype=torch.uint64).tolist()
    xb = xrng.bits_(torch.empty(4, dtype=torch.uint64), generator=xrng.position_from_key(k)).tolist()
    assert tb == [(w[2 * i] << 32) | w[2 * i + 1] for i in range(4)]
    assert xb == [(w[2 * i + 1] << 32) | w[2 * i] for i in range(4)]


def test_normal_same_words_other_arithmetic():
    """float32 normal: the same words in the same Box-Muller layout (every
    value within a few float32 ulps), other arithmetic (only part bit-equal)."""
    k = R.key(7)
    n = 1 << 16
    t = R.normal(k, (n,))
    x = xrng.randn(n, generator=xrng.position_from_key(k))
    assert torch.allclose(t, x, rtol=1e-5, atol=1e-5)
    equal = (t == x).float().mean().item()
    assert 0.2 < equal < 0.5, equal  # measured 0.31 (stream 2)


def test_uniform_same_word_other_bits():
    """uniform: the same word per element; torch's float32 keeps its low 24
    bits, xrng's its high 24 (SPEC 4.2); torch's float64 the low 53 bits of
    its uint64 (first word high)."""
    k = R.key(3)
    n = 1 << 12
    w = xrng.bits_(torch.empty(n, dtype=torch.uint32), generator=xrng.position_from_key(k)).to(torch.int64)
    assert torch.equal(R.uniform(k, (n,)), ((w & 0xFFFFFF).double() * 2.0**-24).float())
    assert torch.equal(xrng.rand(n, generator=xrng.position_from_key(k)), ((w >> 8).double() * 2.0**-24).float())
    hi_first = (w[0::2] << 32) | w[1::2]  # torch's uint64 of each word pair
    assert torch.equal(R.uniform(k, (n // 2,), dtype=torch.float64), (hi_first & (2**53 - 1)).double() * 2.0**-53)


def test_torch_split_is_the_parents_words():
    """torch's split(k, n)[i] (and fold_in(k, i)) is the key [seed, offset]
    of the uint64 values (first word low, xrng's order) of words 4i .. 4i+3
    of k's own stream, not xrng's tagged derivation (SPEC section 6)."""
    k = torch.tensor([99, 5], dtype=torch.uint64)
    words = xrng.bits_(torch.empty(8, dtype=torch.uint64), generator=xrng.position_from_key(k))
    assert torch.equal(R.split(k, 4).reshape(-1), words)
    assert torch.equal(R.fold_in(k, 3), words[6:8])


def test_generator_from_key_and_back():
    k = torch.tensor([123, 40], dtype=torch.uint64)
    g = xrng.Generator.from_key(k)
    assert g == xrng.Generator(123, 0, 160)
    assert torch.equal(xrng.key_from_position(g), k)
    assert torch.equal(xrng.key_from_position(g.state_tensor), k)
    assert torch.equal(xrng.key_from_position((123, 0, 160)), k)
    assert xrng.Generator.from_key(k, stream=1).stream == 1
    g.reserve(8)  # a whole number of blocks: still a key
    assert torch.equal(_bits32(xrng.key_from_position(g), 4), xrng.bits_(torch.empty(4, dtype=torch.uint32),
                                                                          generator=g))


def test_errors():
    with pytest.raises(ValueError, match="uint64 tensor of shape"):
        xrng.position_from_key(torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="uint64 tensor of shape"):
        xrng.position_from_key(R.split(R.key(0), 2))  # a batch of keys
    with pytest.raises(TypeError, match="torch.func._random key"):
        xrng.position_from_key(42)
    with pytest.raises(ValueError, match="2\\*\\*62 blocks"):
        xrng.position_from_key(torch.tensor([1, 2**62], dtype=torch.uint64))
    with pytest.raises(ValueError, match="2\\*\\*62 blocks"):
        xrng.position_from_key(torch.tensor([1, 2**64 - 1], dtype=torch.uint64))
    with pytest.raises(ValueError, match="stream"):
        xrng.position_from_key(R.key(1), stream=3)
    with pytest.raises(ValueError, match="subsequence 0"):
        xrng.key_from_position(xrng.Generator(1, 1))
    with pytest.raises(ValueError, match="multiple of 4"):
        xrng.key_from_position((1, 0, 6))
    with pytest.raises(TypeError):
        xrng.key_from_position([1, 0, 0])


def _f(x, key):
    g = xrng.position_from_key(key)  # the two draws follow each other from the key's first word
    return x + xrng.randn(x.shape, generator=g) * xrng.dropout(x, 0.5, generator=g)


def test_key_is_a_compiled_graph_input():
    torch._dynamo.reset()
    compiles = []

    def backend(gm, inputs):
        compiles.append(gm)
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, inputs)

    x = torch.arange(1.0, 7.0)
    fc = torch.compile(_f, backend=backend, fullgraph=True)
    keys = [R.key(1), R.key(2), torch.tensor([3, 100], dtype=torch.uint64)]
    outs = [fc(x, k) for k in keys]
    for k, o in zip(keys, outs):
        assert torch.equal(o, _f(x, k))
    assert len(compiles) == 1  # a new key is a new input, not a recompilation
    with pytest.raises(RuntimeError, match="2\\*\\*62 blocks"):
        fc(x, torch.tensor([3, 2**62], dtype=torch.uint64))
    torch._dynamo.reset()


def test_key_is_an_exported_input():
    class M(torch.nn.Module):
        def forward(self, x, key):
            return _f(x, key)

    x = torch.arange(1.0, 7.0)
    ep = torch.export.export(M(), (x, R.key(0)))
    assert not ep.constants
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    m = torch.export.load(buf).module()
    for k in (R.key(5), torch.tensor([6, 7], dtype=torch.uint64)):
        assert torch.equal(m(x, k), _f(x, k))
    with pytest.raises(RuntimeError, match="2\\*\\*62 blocks"):
        m(x, torch.tensor([3, 2**63], dtype=torch.uint64))


@pytest.mark.cuda
def test_cuda_key():
    """A CUDA key gives a CUDA position; its draws equal torch's raw words and the CPU key's."""
    k = R.key(42, device="cuda")
    pos = xrng.position_from_key(k)
    assert pos.device.type == "cuda"
    t = torch.empty(1000, dtype=torch.uint32, device="cuda")
    assert torch.equal(xrng.bits_(t, generator=pos), R.bits(k, (1000,), dtype=torch.uint32))
    assert torch.equal(t.cpu(), _bits32(R.key(42), 1000))
    assert pos.cpu().tolist() == [42, 0, 1000, xrng.stream_version]
