"""Issue 21: no input aborts the interpreter, and every out-of-range integer is
the documented one-line TypeError / ValueError, raised before anything is
drawn, whatever the other arguments.

* pickling a Generator round-trips under every protocol (0 and 1 aborted the
  interpreter with SIGABRT from pybind11 before), in this process;
* bounds, seeds, offsets, counts, sizes, rank/world: each out-of-range value
  raises, with the generator and the output left as they were."""
import copy
import copyreg
import pickle

import pytest
import torch

import xrng

B, U = 2**63, 2**64


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol_round_trips(protocol):
    for g in (xrng.Generator(1), xrng.Generator(U - 1, 7, U - 6, 1), xrng.Generator(42, 0, 96, 2)):
        h = pickle.loads(pickle.dumps(g, protocol=protocol))
        assert type(h) is xrng.Generator and h == g and h is not g
        assert (h.seed, h.subseq, h.offset, h.stream) == (g.seed, g.subseq, g.offset, g.stream)
        assert torch.equal(xrng.rand(5, generator=h), xrng.rand(5, generator=g))
    # the reductions themselves: a constructor call, (seed, subseq, offset, stream) (SPEC 7)
    g = xrng.Generator(3, 4, 5, 1)
    assert g.__reduce__() == (xrng.Generator, (3, 4, 5, 1))
    assert g.__reduce_ex__(protocol) == (xrng.Generator, (3, 4, 5, 1))
    assert copy.copy(g) == g and copy.deepcopy(g) == g


def test_pickles_of_earlier_releases_still_load():
    # protocol-2 pickles written before this fix: copyreg.__newobj__ then __setstate__((seed, subseq, offset[, stream]))
    for state, want in (((9, 1, 64, 2), xrng.Generator(9, 1, 64, 2)), ((9, 1, 64), xrng.Generator(9, 1, 64, 1))):
        g = copyreg.__newobj__(xrng.Generator)
        g.__setstate__(state)
        assert g == want
    with pytest.raises(ValueError, match="seed must be in"):
        copyreg.__newobj__(xrng.Generator).__setstate__((-1, 0, 0, 2))


def _int_tensor():
    return torch.zeros(4, dtype=torch.int64)


# (call, exception, message fragment); each with a generator that must not move
# where the call takes one, and every other argument valid or invalid alike.
CASES = [
    # randint's bounds: int64 (the examples), and a wrong type
    (lambda g: xrng.randint(B, (2,), generator=g), ValueError, "randint: high must be in [-2**63, 2**63)"),
    (lambda g: xrng.randint(-B - 1, 0, (2,), generator=g), ValueError, "randint: low must be in [-2**63, 2**63)"),
    (lambda g: xrng.randint(U, (2,), seed=1), ValueError, "randint: high must be in"),
    (lambda g: xrng.randint(0.5, 6, (2,), generator=g), TypeError, "randint: low must be an int"),
    (lambda g: xrng.randint(0, "6", (2,), generator=g), TypeError, "randint: high must be an int"),
    (lambda g: xrng.randint_(torch.zeros((), dtype=torch.int32), low=B, high=6, generator=g), ValueError,
     "randint_: low must be in"),
    (lambda g: xrng.randint_(_int_tensor(), 0, U, generator=g), ValueError, "randint_: high must be in"),
    (lambda g: xrng.randint_like(torch.zeros(3, dtype=torch.int16), -B - 1, generator=g, dtype=torch.int64),
     ValueError, "randint_like: high must be in"),
    (lambda g: xrng.randint_like(torch.zeros(3, dtype=torch.int16), B, B + 1, generator=g), ValueError,
     "randint_like: low must be in"),
    # seeds, subsequences, offsets
    (lambda g: xrng.rand(2, seed=-1), ValueError, "seed must be in [0, 2**64)"),
    (lambda g: xrng.rand(2, seed=U), ValueError, "seed must be in [0, 2**64)"),
    (lambda g: xrng.randn(2, seed=1, subseq=U), ValueError, "subseq must be in [0, 2**64)"),
    (lambda g: xrng.randn(2, seed=1, offset=-1), ValueError, "offset must be in [0, 2**64)"),
    (lambda g: xrng.rand(2, seed=1.0), TypeError, "seed must be an int"),
    (lambda g: xrng.dropout(torch.ones(3), 0.5, seed=U), ValueError, "seed must be in"),
    (lambda g: xrng.Generator(U), ValueError, "seed must be in"),
    (lambda g: xrng.Generator(1, -1), ValueError, "subseq must be in"),
    (lambda g: xrng.Generator(1, 0, U), ValueError, "offset must be in"),
    (lambda g: setattr(g, "offset", U), ValueError, "offset must be in"),
    (lambda g: setattr(g, "offset", -1), ValueError, "offset must be in"),
    (lambda g: g.split(U), ValueError, "i must be in"),
    (lambda g: g.fold_in(-1), ValueError, "data must be in"),
    (lambda g: g.reserve(U), ValueError, "words must be in"),
    (lambda g: g.reserve(U - 1), ValueError, "exhausted"),
    (lambda g: xrng.manual_seed(U), ValueError, "seed must be in"),
    (lambda g: xrng.Generator(1, stream=U), ValueError, "stream must be one of"),
    # the generator's counter: a draw past word 2**64
    (lambda g: xrng.rand(3, seed=1, offset=U - 2), ValueError, "counter overflow"),
    # counts and sizes
    (lambda g: xrng.rand(B, generator=g), ValueError, "more than 2**63 - 1"),
    (lambda g: xrng.rand(0, U, generator=g), ValueError, "more than 2**63 - 1"),
    (lambda g: xrng.rand(0, B, generator=g, device="cpu"), ValueError, "more than 2**63 - 1"),
    (lambda g: xrng.randn(2, -1, generator=g), ValueError, "negative dimension"),
    (lambda g: xrng.randperm(U, generator=g), ValueError, "more than 2**63 - 1"),
    (lambda g: xrng.randperm(0, generator=g), ValueError, "n must be an int >= 1"),
    (lambda g: xrng.randperm(2.0, generator=g), TypeError, "n must be an int"),
    (lambda g: xrng.rand(2, generator=g, threads=U), ValueError, "threads must be 0"),
    (lambda g: xrng.rand(2, generator=g, threads=-1), ValueError, "threads must be 0"),
    # permutations: n, rank/world, start/count, whatever the count
    (lambda g: xrng.perm_shard(10, 2, 0, seed=42), ValueError, "need 0 <= rank < world"),
    (lambda g: xrng.perm_shard(10, 2, 0, count=0, seed=42), ValueError, "need 0 <= rank < world"),
    (lambda g: xrng.perm_shard(10, 2, 2, seed=42), ValueError, "need 0 <= rank < world"),
    (lambda g: xrng.perm_shard(10, -1, 2, seed=42), ValueError, "rank must be in"),
    (lambda g: xrng.perm_shard(10, 0, U, seed=42), ValueError, "world must be in"),
    (lambda g: xrng.perm_shard(0, 0, 1, seed=42), ValueError, "n must be >= 1"),
    (lambda g: xrng.perm_shard(U, 0, 1, seed=42), ValueError, "n must be in"),
    (lambda g: xrng.perm_shard(10, 0, 1, start=U, seed=42), ValueError, "start must be in"),
    (lambda g: xrng.perm_shard(10, 0, 1, count=-1, seed=42), ValueError, "negative count"),
    (lambda g: xrng.perm_shard(10, 0, 1, count=1.0, seed=42), TypeError, "count must be an int"),
    (lambda g: xrng.perm_shard(10, 0, 1, start=U - 1, count=2, seed=42), ValueError, "go past 2**64"),
    (lambda g: xrng.perm_shard(10, 0, 1, seed=U), ValueError, "seed must be in"),
    (lambda g: xrng.perm_element(U, 0), ValueError, "n must be in"),
    (lambda g: xrng.perm_element(10, 10), ValueError, "index 10 >= n = 10"),
    (lambda g: xrng.perm_position(10, -1), ValueError, "value must be in"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_out_of_range_integers_raise_one_line_before_drawing(i):
    call, exc, fragment = CASES[i]
    g = xrng.Generator(5, 1, 64)
    xrng.manual_seed(0)
    before = xrng.default_generator.offset
    with pytest.raises(exc) as e:
        call(g)
    msg = str(e.value)
    assert fragment in msg and "\n" not in msg, msg
    assert type(e.value) is exc  # not pybind11's RuntimeError, nor a subclass standing in for it
    assert g == xrng.Generator(5, 1, 64) and xrng.default_generator.offset == before


def test_in_place_fills_leave_the_tensor_untouched_on_error():
    t = torch.full((4,), 7, dtype=torch.int64)
    g = xrng.Generator(1)
    for bad in (dict(low=B, high=6), dict(low=0, high=U), dict(low=0.5, high=6)):
        with pytest.raises((TypeError, ValueError)):
            xrng.randint_(t, generator=g, **bad)
        assert torch.equal(t, torch.full((4,), 7, dtype=torch.int64)) and g.offset == 0
    # the extremes that are in range draw
    assert xrng.randint(-B, B - 1, (3,), seed=1).dtype == torch.int64
    assert xrng.perm_shard(10, 1, 2, seed=42).numel() == 5
