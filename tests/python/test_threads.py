"""A Generator shared by threads (issue 18): every draw reserves its word range
atomically, so concurrent draws get disjoint ranges, the final offset is the
sum of the words drawn, and the values are the multiset of a serial run."""
import pickle
import threading

import pytest
import torch

import xrng

THREADS = 4


def run_threads(body, n=THREADS):
    errors = []
    barrier = threading.Barrier(n)

    def wrap(i):
        try:
            barrier.wait()
            body(i)
        except BaseException as e:  # noqa: BLE001 - reported in the main thread
            errors.append(e)

    ts = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_shared_generator_draws_the_serial_multiset():
    # the program: 4 threads x 2000 randn(64) from one generator
    g = xrng.Generator(1)
    outs = [[] for _ in range(THREADS)]
    run_threads(lambda i: outs[i].extend(xrng.randn(64, generator=g) for _ in range(2000)))
    got = sorted(tuple(x.view(torch.int32).tolist()) for o in outs for x in o)
    assert len(set(got)) == THREADS * 2000  # measured 7996 of 8000 before the fix
    assert g.offset == THREADS * 2000 * 64  # measured 511744 before the fix
    s = xrng.Generator(1)
    serial = sorted(tuple(xrng.randn(64, generator=s).view(torch.int32).tolist()) for _ in range(THREADS * 2000))
    assert got == serial
    assert s == g


def test_mixed_calls_on_a_shared_generator_sum_to_the_offset():
    g = xrng.Generator(7, 2, 5)
    used = [0] * THREADS
    reserved = [[] for _ in range(THREADS)]

    def body(i):
        t = torch.empty(33, dtype=torch.float64)
        for k in range(300):
            op = (i + k) % 6
            if op == 0:
                xrng.rand(17, generator=g)  # 17 words
                used[i] += 17
            elif op == 1:
                xrng.uniform_(t, generator=g)  # float64: 2 words each
                used[i] += 66
            elif op == 2:
                xrng.randint(0, 10, (5,), generator=g)  # int64: 4 words each
                used[i] += 20
            elif op == 3:
                xrng.dropout(torch.ones(9), 0.5, generator=g)
                used[i] += 9
            elif op == 4:
                xrng.randperm(10, generator=g)  # 12 key words
                used[i] += 12
            else:
                w = 3 + k % 5
                reserved[i].append((g.reserve(w), w))
                used[i] += w
            # read-only calls interleaved with the draws
            assert g.split(k).offset == 0 and g.fold_in(k).stream == g.stream
            st = g.get_state()
            assert bytes(st[:4].tolist()) == b"XRNG"
            pickle.loads(pickle.dumps(g))

    run_threads(body)
    assert g.offset == 5 + sum(used)
    # reserve() returns (seed, subseq, offset): the generator's key, and ranges that never overlap
    ranges = sorted((pos[2], w) for lst in reserved for pos, w in lst)
    assert all(pos[:2] == (7, 2) for lst in reserved for pos, _ in lst)
    assert all(a + w <= b for (a, w), (b, _) in zip(ranges, ranges[1:]))
    assert ranges[-1][0] + ranges[-1][1] <= g.offset


def test_reserve_is_atomic_and_checked():
    g = xrng.Generator(3, 0, 10)
    assert g.reserve(5) == (3, 0, 10)
    assert g.offset == 15
    got = []
    run_threads(lambda i: got.extend(g.reserve(2)[2] for _ in range(1000)))
    assert sorted(got) == list(range(15, 15 + 2 * THREADS * 1000, 2))
    assert g.offset == 15 + 2 * THREADS * 1000
    h = xrng.Generator(3, 0, 2**64 - 2)
    with pytest.raises(ValueError, match="exhausted"):
        h.reserve(2)
    assert h.offset == 2**64 - 2
    with pytest.raises(ValueError):
        h.reserve(-1)
    with pytest.raises(TypeError):
        h.reserve(1.5)


def test_set_state_while_drawing_keeps_whole_draws():
    g = xrng.Generator(11)
    state = xrng.Generator(12, 0, 64).get_state()

    def body(i):
        for k in range(300):
            if i == 0 and k % 25 == 0:
                g.set_state(state)
            elif i == 1 and k % 25 == 0:
                g.offset = 128
            else:
                xrng.rand(16, generator=g)
            assert g.offset % 16 == 0

    run_threads(body)
    assert g.seed in (11, 12) and g.offset % 16 == 0


def test_default_generator_is_shared_safely():
    xrng.manual_seed(5)
    outs = [[] for _ in range(THREADS)]
    run_threads(lambda i: outs[i].extend(xrng.rand(8) for _ in range(500)))
    assert xrng.default_generator.offset == THREADS * 500 * 8
    got = {tuple(x.tolist()) for o in outs for x in o}
    assert len(got) == THREADS * 500
