"""xrng.data: ShuffleSampler orders, DataLoader workers, resumption, shards,
and a 2-process torch.distributed (gloo) run."""
import json
import pathlib
import random
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset

import xrng
from xrng.data import (ShuffleSampler, distributed_sampler_seed, epoch_key, epoch_seed, numpy_worker_seed,
                       seed_worker, worker_generator, worker_seed)

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


class Indexed(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def loader_order(n, epoch, workers, seed=5, batch_size=7):
    s = ShuffleSampler(Indexed(n), seed=seed)
    s.set_epoch(epoch)
    dl = DataLoader(Indexed(n), batch_size=batch_size, sampler=s, num_workers=workers, worker_init_fn=seed_worker)
    return torch.cat(list(dl)).tolist()


def test_epoch_is_the_cli_permutation():
    s = ShuffleSampler(1000, seed=40)
    s.set_epoch(2)
    assert list(s) == xrng.randperm(1000, seed=42).tolist()  # default: seed + epoch
    s = ShuffleSampler(1000, seed=40, epoch_seed="123456789+epoch")
    s.set_epoch(2)
    assert list(s) == xrng.randperm(1000, seed=123456791).tolist()
    s = ShuffleSampler(1000, seed=40, epoch_seed="fold_in")
    s.set_epoch(2)
    k = xrng.Generator(40).fold_in(2)
    assert list(s) == xrng.randperm(1000, seed=k.seed, subseq=k.subseq).tolist()
    assert epoch_key(40, 2) == (42, 0)


def test_epochs_differ_and_are_permutations():
    s = ShuffleSampler(500, seed=1)
    orders = []
    for e in range(3):
        s.set_epoch(e)
        o = list(s)
        assert sorted(o) == list(range(500)) and len(s) == 500
        orders.append(o)
    assert orders[0] != orders[1] != orders[2]


def test_dataloader_order_same_across_runs_and_workers():
    n = 301
    for epoch in (0, 1):
        ref = loader_order(n, epoch, 0)
        assert sorted(ref) == list(range(n))
        assert loader_order(n, epoch, 0) == ref
        assert loader_order(n, epoch, 2) == ref


def test_resume_mid_epoch():
    s = ShuffleSampler(1000, seed=3)
    s.set_epoch(4)
    full = list(s)
    state = {**s.state_dict(), "start": 35 * 7}
    r = ShuffleSampler(1000, seed=3)
    r.load_state_dict(state)
    assert len(r) == 1000 - 245 and list(r) == full[245:]
    r.set_epoch(4)
    r.skip_batches(35, 7)
    assert list(r) == full[245:]
    r.set_epoch(5)
    assert len(r) == 1000  # a new epoch starts from the beginning
    with pytest.raises(ValueError, match="seed"):
        ShuffleSampler(1000, seed=4).load_state_dict(state)


def test_resume_through_a_dataloader_with_workers():
    n, bs, k = 200, 8, 9
    ref = loader_order(n, 1, 0, batch_size=bs)
    s = ShuffleSampler(n, seed=5)
    s.set_epoch(1)
    s.skip_batches(k, bs)
    dl = DataLoader(Indexed(n), batch_size=bs, sampler=s, num_workers=2)
    assert torch.cat(list(dl)).tolist() == ref[k * bs:]


@pytest.mark.parametrize("n,world,drop_last", [(1000, 4, False), (1003, 4, False), (1003, 4, True), (7, 3, False)])
def test_shards_disjoint_and_complete(n, world, drop_last):
    shards = []
    for r in range(world):
        s = ShuffleSampler(n, seed=9, num_replicas=world, rank=r, drop_last=drop_last)
        s.set_epoch(1)
        shards.append(list(s))
        assert len(shards[-1]) == len(s)
    perm = xrng.randperm(n, seed=10).tolist()
    union = [i for sh in shards for i in sh]
    if n % world == 0:
        assert sorted(union) == list(range(n))
    elif drop_last:
        assert len(set(union)) == len(union) == n // world * world
        assert sorted(union) == sorted(perm[: n // world * world])
    else:
        # DistributedSampler's padding: every sample once, plus the permutation's first few again
        pad = -(-n // world) * world - n
        assert sorted(union) == sorted(perm + perm[:pad])
    # rank r's j-th index is perm[(r + j * world) % n]
    assert shards[1] == [perm[(1 + j * world) % n] for j in range(len(shards[1]))]


def test_sampler_bad_input():
    with pytest.raises(ValueError, match="rank"):
        ShuffleSampler(10, num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="epoch_seed"):
        ShuffleSampler(10, epoch_seed="time.time()")
    with pytest.raises(ValueError, match="skip"):
        ShuffleSampler(10).skip(11)


def test_seed_conventions_are_the_cores():
    # SPEC.md section 6, evaluated by rng/keys.h through xrng._C (all modulo 2**64)
    assert epoch_seed(3) == 123456792 == xrng._C.epoch_seed(3)
    assert epoch_seed(2**64 - 1) == 123456788
    assert distributed_sampler_seed(40, 2) == 42 and distributed_sampler_seed(2**64 - 1, 3) == 2
    assert numpy_worker_seed(2**40 + 5) == 5 and numpy_worker_seed(2**32 - 1) == 2**32 - 1
    assert worker_seed(2**64 - 1, 2) == 1
    assert epoch_key(2**64 - 1, 3) == (2, 0)
    assert epoch_key(40, 3, "123456789+epoch", subseq=7) == (epoch_seed(3), 7)
    for bad in (-1, 2**64, 1.5):
        with pytest.raises((ValueError, TypeError)):
            epoch_seed(bad)


def test_worker_helpers():
    assert worker_seed(2**64 - 1, 2) == 1
    torch.manual_seed(2**40 + 5)
    seed_worker(0)
    a = (random.random(), np.random.rand())
    random.seed(5)
    np.random.seed(5)
    assert a == (random.random(), np.random.rand())
    assert worker_generator(3) == xrng.Generator(3)  # main process: no fold


def _worker_key(_):
    g = worker_generator(11)
    return torch.tensor([g.seed, g.subseq], dtype=torch.uint64).view(torch.int64)


def test_worker_generator_in_workers():
    dl = DataLoader(Indexed(4), batch_size=None, num_workers=2, sampler=[0, 1], collate_fn=_worker_key)
    keys = [tuple(k.view(torch.uint64).tolist()) for k in dl]
    want = [(xrng.Generator(11).fold_in(w).seed, xrng.Generator(11).fold_in(w).subseq) for w in (0, 1)]
    assert keys == want


@pytest.mark.slow
def test_two_process_gloo_shards_form_one_permutation(tmp_path):
    out = tmp_path / "report.json"
    r = subprocess.run([sys.executable, str(EXAMPLES / "distributed_shuffle.py"), "--n", "1000", "--epochs", "3",
                        "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(out.read_text())
    assert len(report) == 3
    for e in report:
        assert e["disjoint"] and e["complete"] and e["sizes"] == [500, 500]
    assert len({e["fingerprint"] for e in report}) == 3
    # the gathered shards are the single-process sampler's shards
    for e in range(3):
        shards = []
        for rank in range(2):
            s = ShuffleSampler(1000, seed=0, num_replicas=2, rank=rank)
            s.set_epoch(e)
            shards.append(list(s))
        import hashlib
        assert hashlib.sha256(json.dumps(shards).encode()).hexdigest()[:16] == report[e]["fingerprint"]
