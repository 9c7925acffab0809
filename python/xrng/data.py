"""Reproducible data-loading order for ``torch.utils.data``.

:class:`ShuffleSampler` yields a fresh permutation of the dataset each epoch.
The permutation is xrng's keyed bijection, so element j of the order is
computed on its own: a sampler never builds the whole permutation, a rank of a
distributed job computes only its shard, and a resumed epoch starts at any
position without replaying the ones before it.

The order depends on (seed, epoch, n, num_replicas, rank, drop_last) and on
nothing else: not on ``num_workers``, the machine, or the torch version.

The seeding conventions (``seed + epoch``, ``123456789 + epoch``,
``base_seed + worker_id``, ``initial_seed % 2**32``) are the core's
(``rng/keys.h``: distributed_sampler_seed, epoch_seed, worker_seed,
numpy_worker_seed, SPEC.md section 6), called through ``xrng._C``, so C++,
the CLI (``xrng gen --epoch``) and Python name the same seeds.
"""
from __future__ import annotations

import random
from typing import Iterator, Optional, Sized, Union

import torch
from torch.utils.data import Sampler

from . import Generator, _C, _u64

__all__ = ["ShuffleSampler", "epoch_key", "seed_worker", "worker_seed", "worker_generator", "EPOCH_CONVENTIONS",
           "epoch_seed", "numpy_worker_seed", "distributed_sampler_seed"]

#: How an epoch turns into the key of its permutation (``epoch_seed=``):
#:
#: ``"seed+epoch"`` (the default): seed ``seed + epoch`` (mod 2**64), the
#:     convention of ``DistributedSampler`` (``manual_seed(self.seed + self.epoch)``);
#: ``"123456789+epoch"``: seed ``123456789 + epoch`` whatever ``seed`` is, the
#:     ``set_epoch`` recipe of torch's reproducibility notes (``xrng gen --epoch E``);
#: ``"fold_in"``: ``Generator(seed, subseq).fold_in(epoch)``, the key derivation of
#:     the core (unrelated streams for every epoch whatever the seed).
EPOCH_CONVENTIONS = ("seed+epoch", "123456789+epoch", "fold_in")

_CHUNK = 1 << 16  # indices computed per step of an epoch


def epoch_key(seed: int, epoch: int, convention: str = "seed+epoch", subseq: int = 0) -> tuple:
    """(seed, subseq) of the permutation of ``epoch`` under ``convention``."""
    seed, epoch, subseq = _u64(seed, "seed"), _u64(epoch, "epoch"), _u64(subseq, "subseq")
    if convention == "seed+epoch":
        return _C.distributed_sampler_seed(seed, epoch), subseq
    if convention == "123456789+epoch":
        return _C.epoch_seed(epoch), subseq
    if convention == "fold_in":
        g = Generator(seed, subseq).fold_in(epoch)
        return g.seed, g.subseq
    raise ValueError(f"epoch_seed must be one of {EPOCH_CONVENTIONS}, got {convention!r}")


class ShuffleSampler(Sampler[int]):
    """Per-epoch permutations for :class:`torch.utils.data.DataLoader`.

    Args:
        data_source_or_length: a sized dataset, or its length.
        seed: the base seed (default 0).
        num_replicas, rank: a distributed job's world size and this process's
            rank. ``None``: from ``torch.distributed`` when it is initialised,
            else 1 and 0.
        drop_last: distributed mode only, as in ``DistributedSampler``: drop
            the tail so that every rank gets ``n // num_replicas`` indices;
            otherwise every rank gets ``ceil(n / num_replicas)``, the last ones
            wrapping around to the start of the permutation.
        epoch_seed: how the epoch enters the key, one of
            :data:`EPOCH_CONVENTIONS` (default ``"seed+epoch"``).
        subseq: the stream's subsequence (default 0).

    Rank r's j-th index is ``perm[(r + j * num_replicas) % n]`` where ``perm``
    is ``xrng.randperm(n, seed=epoch_key(seed, epoch)[0], ...)``: the
    ``DistributedSampler`` layout, so the ranks' shards together are exactly
    one permutation when ``num_replicas`` divides n (or with ``drop_last``, a
    permutation minus its tail).

    Resuming: ``set_epoch(e)`` then ``skip(k)`` (or ``skip_batches(b, batch_size)``)
    starts the epoch at its k-th index; :meth:`state_dict` /
    :meth:`load_state_dict` carry (epoch, position) through a checkpoint. The
    position counts indices handed out by :meth:`__iter__` in the main
    process; with DataLoader workers prefetching, checkpoint the number of
    batches your loop consumed and use ``skip_batches``.
    """

    def __init__(self, data_source_or_length: Union[Sized, int], seed: int = 0, num_replicas: Optional[int] = None,
                 rank: Optional[int] = None, drop_last: bool = False, epoch_seed: str = "seed+epoch",
                 subseq: int = 0) -> None:
        n = data_source_or_length if isinstance(data_source_or_length, int) else len(data_source_or_length)
        if n < 0:
            raise ValueError(f"ShuffleSampler: negative length {n}")
        if num_replicas is None or rank is None:
            dist = torch.distributed
            live = dist.is_available() and dist.is_initialized()
            if num_replicas is None:
                num_replicas = dist.get_world_size() if live else 1
            if rank is None:
                rank = dist.get_rank() if live else 0
        if num_replicas < 1 or not 0 <= rank < num_replicas:
            raise ValueError(f"ShuffleSampler: need 0 <= rank < num_replicas (got rank {rank}, "
                             f"num_replicas {num_replicas})")
        if epoch_seed not in EPOCH_CONVENTIONS:
            raise ValueError(f"epoch_seed must be one of {EPOCH_CONVENTIONS}, got {epoch_seed!r}")
        self.n = int(n)
        self.seed = _u64(seed, "seed")
        self.subseq = _u64(subseq, "subseq")
        self.num_replicas = int(num_replicas)
        self.rank = int(rank)
        self.drop_last = bool(drop_last)
        self.epoch_seed = epoch_seed
        self.epoch = 0
        self.start = 0
        if self.drop_last and self.n % self.num_replicas != 0:
            self.num_samples = self.n // self.num_replicas
        else:
            self.num_samples = -(-self.n // self.num_replicas)

    # ---- epochs and positions -----------------------------------------------------------------
    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch's permutation and rewinds to its start."""
        self.epoch = _u64(epoch, "epoch")
        self.start = 0

    def skip(self, k: int) -> None:
        """Starts the current epoch at its k-th index (0 <= k <= num_samples)."""
        if not 0 <= k <= self.num_samples:
            raise ValueError(f"ShuffleSampler.skip: {k} is outside [0, {self.num_samples}]")
        self.start = int(k)

    def skip_batches(self, batches: int, batch_size: int) -> None:
        """Starts the current epoch after ``batches`` batches of ``batch_size``."""
        self.skip(min(batches * batch_size, self.num_samples))

    def key(self, epoch: Optional[int] = None) -> tuple:
        """(seed, subseq) of the permutation of ``epoch`` (default: the current one)."""
        return epoch_key(self.seed, self.epoch if epoch is None else epoch, self.epoch_seed, self.subseq)

    def indices(self, start: int = 0, count: Optional[int] = None) -> torch.Tensor:
        """This rank's indices [start, start + count) of the current epoch, as an int64 tensor."""
        if count is None:
            count = self.num_samples - start
        if start < 0 or count < 0 or start + count > self.num_samples:
            raise ValueError(f"ShuffleSampler.indices: [{start}, {start + count}) is outside [0, {self.num_samples})")
        out = torch.empty(count, dtype=torch.int64)
        if count == 0:
            return out
        seed, subseq = self.key()
        return _C.perm_shard_(out, self.n, seed, subseq, 0, self.rank, self.num_replicas, start, "auto", 0)

    def __iter__(self) -> Iterator[int]:
        for s in range(self.start, self.num_samples, _CHUNK):
            yield from self.indices(s, min(_CHUNK, self.num_samples - s)).tolist()

    def __len__(self) -> int:
        return self.num_samples - self.start

    # ---- checkpoints --------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {"epoch": self.epoch, "start": self.start, "seed": self.seed, "subseq": self.subseq, "n": self.n,
                "num_replicas": self.num_replicas, "epoch_seed": self.epoch_seed, "drop_last": self.drop_last}

    def load_state_dict(self, state: dict) -> None:
        for k in ("seed", "subseq", "n", "num_replicas", "epoch_seed", "drop_last"):
            if k in state and state[k] != getattr(self, k):
                raise ValueError(f"ShuffleSampler.load_state_dict: {k} is {state[k]!r} in the state, "
                                 f"{getattr(self, k)!r} here")
        self.epoch = _u64(state["epoch"], "epoch")
        self.skip(state["start"])


# ---- seeding conventions (rng/keys.h) ----------------------------------------------------------
def epoch_seed(epoch: int) -> int:
    """The seed of the ``set_epoch`` recipe: ``123456789 + epoch`` (mod 2**64); ``xrng gen --epoch``."""
    return _C.epoch_seed(_u64(epoch, "epoch"))


def distributed_sampler_seed(seed: int, epoch: int) -> int:
    """``DistributedSampler``'s seed for an epoch: ``seed + epoch`` (mod 2**64)."""
    return _C.distributed_sampler_seed(_u64(seed, "seed"), _u64(epoch, "epoch"))


def numpy_worker_seed(initial_seed: int) -> int:
    """The seed the ``seed_worker`` recipe gives NumPy and ``random``: ``initial_seed % 2**32``."""
    return _C.numpy_worker_seed(_u64(initial_seed, "initial_seed"))


# ---- workers ---------------------------------------------------------------------------------------
def worker_seed(base_seed: int, worker_id: int) -> int:
    """The seed torch gives DataLoader worker ``worker_id``: ``base_seed + worker_id`` (mod 2**64)."""
    return _C.worker_seed(_u64(base_seed, "base_seed"), _u64(worker_id, "worker_id"))


def seed_worker(worker_id: int) -> None:
    """``worker_init_fn`` for DataLoader: seeds ``random`` and NumPy with
    ``torch.initial_seed() % 2**32`` (:func:`numpy_worker_seed`), the recipe
    of torch's reproducibility notes."""
    s = numpy_worker_seed(torch.initial_seed())
    random.seed(s)
    try:
        import numpy
    except ImportError:  # NumPy is optional
        return
    numpy.random.seed(s)


def worker_generator(seed: int, subseq: int = 0) -> Generator:
    """An xrng Generator for the calling DataLoader worker: ``Generator(seed,
    subseq).fold_in(worker_id)`` inside a worker, ``Generator(seed, subseq)``
    in the main process. Note that which worker loads which sample depends on
    ``num_workers``; for augmentations that must not, key by the sample index
    instead (``Generator(seed).fold_in(index)``)."""
    g = Generator(_u64(seed, "seed"), _u64(subseq, "subseq"))
    info = torch.utils.data.get_worker_info()
    return g if info is None else g.fold_in(info.id)


# ---- DataLoader workers started by spawn or forkserver under the reproducible mode (issue 20) ----
class _ModeWorkerInit:
    """A DataLoader's ``worker_init_fn`` while :class:`xrng.reproducible` is
    active and the workers are not forked: a spawned or forkserver worker is a
    fresh interpreter, without the mode, so this starts one there (the parent's
    stream version, strict and check_dispatch) before the program's own
    ``worker_init_fn``. torch's worker loop has already called
    ``torch.manual_seed(base_seed + worker_id)``; the mode starts with
    ``seed=None``, so its global stream is that seed's, at offset 0: exactly
    what a forked worker's mode draws after the same re-seed. So the batches
    are the same under every start method. Picklable (spawn sends it to the
    worker)."""

    def __init__(self, stream: int, strict: bool, check_dispatch: bool, user_init_fn=None) -> None:
        self.stream, self.strict, self.check_dispatch = stream, strict, check_dispatch
        self.user_init_fn = user_init_fn

    def __call__(self, worker_id: int) -> None:
        from .reproducible import reproducible
        reproducible(None, stream=self.stream, strict=self.strict, check_dispatch=self.check_dispatch).enable()
        if self.user_init_fn is not None:
            self.user_init_fn(worker_id)
