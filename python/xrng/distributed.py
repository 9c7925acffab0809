"""Random draws of sharded tensors (DTensor, FSDP2, tensor parallelism) that
equal the unsharded draw, on any mesh, placement and world size.

Every element of an xrng draw is a pure function of its global index, so a
rank can draw exactly the elements of its shard: the *block* of the global
tensor its local tensor holds (SPEC.md 3.1, "Blocks of a global tensor").
Put together, the shards of any sharding are the single-process draw bit for
bit, and a replicated placement draws the same values on every rank without
communication. Every rank advances its generator by the words of the WHOLE
global tensor, so the draws that follow stay aligned across ranks and with
the unsharded program.

Explicit calls (any mesh, CPU with gloo included)::

    from torch.distributed.tensor import Shard, Replicate
    w = xrng.distributed.randn(1024, 512, device_mesh=mesh, placements=[Shard(0)], seed=0)
    xrng.distributed.fill_(w, "normal", mean=0.0, std=0.02, generator=g)
    y = xrng.distributed.dropout(x_dtensor, 0.1, seed=0)

Under :class:`xrng.reproducible`, DTensor draws (``torch.distributed.tensor.rand``
/ ``randn``, the fills of ``nn.init`` on FSDP2 parameters, dropout of
sharded activations, ...) are their shard's block of the unsharded draw on
their own: the mode's kernels draw the block DTensor's RNG tracker names
(``xrng._mode_distributed``, SPEC.md 8.4), with the same block rule as the
functions here.

Layout: each rank's block is computed by torch's own
``torch.distributed.tensor._utils.compute_local_shape_and_global_offset``,
so uneven shards follow torch's layout (``torch.chunk``'s split) exactly.
"""
from __future__ import annotations

import math
import sys
from typing import Optional, Sequence

import torch

from . import Generator, _op_params, _position, _source, _stream
from . import _block_meta  # noqa: F401  (the fake kernels of the block operators)

__all__ = ["shard_block", "fill_block_", "fill_", "uniform_", "normal_", "rand", "randn", "dropout",
           "dropout_block", "UnsupportedPlacement"]


class UnsupportedPlacement(ValueError):
    """A DTensor placement whose local tensor is not one block of the global
    tensor (``_StridedShard``), or one a random fill cannot give a meaning
    (``Partial``: the local tensors are summands of the global one)."""


def _dt():
    import torch.distributed.tensor as dt  # imported when first used (it imports torch.distributed)
    return dt


def _is_dtensor(x) -> bool:
    if not isinstance(x, torch.Tensor) or type(x) in (torch.Tensor, torch.nn.Parameter):
        return False
    dt = sys.modules.get("torch.distributed.tensor")  # not loaded: no DTensor exists (and no import here)
    return dt is not None and isinstance(x, dt.DTensor)


def _check_placements(placements: Sequence, what: str, partial_ok: bool = False) -> None:
    from torch.distributed.tensor.placement_types import _StridedShard
    for p in placements:
        if isinstance(p, _StridedShard):
            raise UnsupportedPlacement(f"{what}: placement {p} (a strided shard) holds no single block of the "
                                       "global tensor")
        if p.is_partial():
            if partial_ok and getattr(p, "reduce_op", "sum") in ("sum", "avg"):
                continue
            raise UnsupportedPlacement(f"{what}: a Partial placement ({p}): the local tensors are partial values "
                                       "of the global tensor, which a random fill cannot give")
        if not (p.is_shard() or p.is_replicate() or p.is_partial()):
            raise UnsupportedPlacement(f"{what}: unknown placement {p}")


def shard_block(global_shape: Sequence[int], device_mesh, placements: Sequence) -> tuple:
    """``(local_shape, block_start)``: the block of the global tensor of
    ``global_shape`` that this rank holds under ``placements`` on
    ``device_mesh`` (torch's ``compute_local_shape_and_global_offset``).
    Raises :class:`UnsupportedPlacement` for placements with no block
    (``Partial``, ``_StridedShard``). A rank outside the mesh holds an empty
    block."""
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    if len(placements) != device_mesh.ndim:
        raise ValueError(f"{len(placements)} placements for a {device_mesh.ndim}-d mesh")
    _check_placements(placements, "shard_block")
    shape = tuple(int(s) for s in global_shape)
    local, start = compute_local_shape_and_global_offset(shape, device_mesh, placements)
    local, start = tuple(int(s) for s in local), tuple(int(s) for s in start)
    if len(local) != len(shape) or len(start) != len(shape):  # a rank outside the mesh: nothing here
        local, start = (0,) * len(shape), (0,) * len(shape)
    return local, start


def _draw_block(local: torch.Tensor, global_shape: Sequence[int], start: Sequence[int], dist: str, params: dict,
                src, stream: int) -> torch.Tensor:
    """The block draw into ``local``; ``src`` (a generator state) advances by
    the global tensor's words."""
    reals, ints = _op_params(dist, params)
    pos = _position(src, dist, reals, ints, local.dtype, math.prod(global_shape), stream)
    torch.ops.xrng.draw_block_(local, dist, reals, ints, pos, [int(s) for s in global_shape],
                               [int(s) for s in start])
    return local


def _src_stream(kw: dict, what: str):
    src = _source(kw.pop("seed", None), kw.pop("subseq", 0), kw.pop("offset", 0), kw.pop("generator", None))
    stream = _stream(kw.pop("stream", None), src)
    return src, stream


def fill_block_(tensor: torch.Tensor, dist: str, global_shape: Sequence[int], block_start: Sequence[int], *,
                seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
                generator: Optional[Generator] = None, stream: Optional[int] = None, **params) -> torch.Tensor:
    """Fills the plain tensor ``tensor`` with its block of a draw over a
    global tensor: ``tensor`` (of size ``tensor.shape``) is the block at
    ``block_start`` of the global tensor of ``global_shape``, and receives
    exactly those elements of the unsharded draw of ``dist`` (a registry
    name: "uniform", "normal", ...) with ``params`` (registry names:
    low/high, mean/std, ...). The generator (``generator=``, else
    :data:`xrng.default_generator`; nothing with ``seed=``) advances by the
    words of the whole global tensor. For manual sharding (FSDP1 flat
    parameters, hand-written tensor parallelism)."""
    kw = {"seed": seed, "subseq": subseq, "offset": offset, "generator": generator, "stream": stream}
    src, st = _src_stream(kw, dist)
    if len(global_shape) != tensor.dim() or len(block_start) != tensor.dim():
        raise ValueError(f"{dist}: global_shape and block_start need {tensor.dim()} entries (the tensor's "
                         "dimensions)")
    return _draw_block(tensor, global_shape, block_start, dist, params, src, st)


def _local_of(t, what: str) -> tuple:
    """(local tensor, global shape, block start) of a DTensor."""
    if not _is_dtensor(t):
        raise TypeError(f"{what}: expected a DTensor, got {type(t).__name__}")
    placements = t.placements
    local_shape, start = shard_block(t.shape, t.device_mesh, placements)
    loc = t._local_tensor
    if tuple(loc.shape) != local_shape:
        raise UnsupportedPlacement(f"{what}: the local tensor has shape {tuple(loc.shape)}, not the shard "
                                   f"{local_shape} torch's layout gives for {tuple(placements)}")
    return loc, tuple(t.shape), start


def fill_(tensor, dist: str, *, seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
          generator: Optional[Generator] = None, stream: Optional[int] = None, **params):
    """Fills the DTensor ``tensor`` in place: on every rank, its local shard
    receives exactly its elements of the draw of ``dist`` (a registry name)
    with ``params`` over the global tensor; the full tensor equals
    ``xrng``'s draw of the same global shape. Returns ``tensor``."""
    loc, shape, start = _local_of(tensor, dist)
    with torch.no_grad():
        fill_block_(loc, dist, shape, start, seed=seed, subseq=subseq, offset=offset, generator=generator,
                    stream=stream, **params)
    return tensor


def uniform_(tensor, low: float = 0.0, high: float = 1.0, **kw):
    """:func:`fill_` with uniform on [low, high) (as :func:`xrng.uniform_`)."""
    return fill_(tensor, "uniform", low=float(low), high=float(high), **kw)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, **kw):
    """:func:`fill_` with normal(mean, std) (as :func:`xrng.normal_`)."""
    return fill_(tensor, "normal", mean=float(mean), std=float(std), **kw)


def _contiguous_stride(size: Sequence[int]) -> tuple:
    stride, acc = [], 1
    for s in reversed(size):
        stride.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(stride))


def _wrap(local: torch.Tensor, mesh, placements, size: Sequence[int], requires_grad: bool = False):
    dt = _dt()
    out = dt.DTensor.from_local(local, mesh, placements, run_check=False, shape=torch.Size(size),
                                stride=_contiguous_stride(size))
    return out.requires_grad_() if requires_grad else out


def _sizes(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _factory(dist: str, params: dict, size: tuple, device_mesh, placements, dtype, requires_grad, kw):
    dt = _dt()
    mesh = device_mesh or dt.device_mesh._mesh_resources.get_current_mesh()
    placements = tuple(placements) if placements else tuple(dt.Replicate() for _ in range(mesh.ndim))
    size = _sizes(size)
    local_shape, start = shard_block(size, mesh, placements)
    src, st = _src_stream(kw, dist)
    if kw:
        raise TypeError(f"{dist}: unexpected keyword argument(s) {', '.join(sorted(kw))}")
    local = torch.empty(local_shape, dtype=dtype or torch.get_default_dtype(), device=mesh.device_type)
    _draw_block(local, size, start, dist, params, src, st)
    return _wrap(local, mesh, placements, size, requires_grad)


def rand(*size, device_mesh=None, placements=None, dtype: Optional[torch.dtype] = None,
         requires_grad: bool = False, **kw):
    """A DTensor of the global ``size`` uniform on [0, 1), laid out by
    ``placements`` on ``device_mesh`` (defaults as
    ``torch.distributed.tensor.rand``: the current mesh, replicated); each
    rank draws only its shard. Source keywords as :func:`xrng.rand`
    (``seed=``, ``subseq=``, ``offset=``, ``generator=``, ``stream=``)."""
    return _factory("uniform", {"low": 0.0, "high": 1.0}, size, device_mesh, placements, dtype, requires_grad, kw)


def randn(*size, device_mesh=None, placements=None, dtype: Optional[torch.dtype] = None,
          requires_grad: bool = False, **kw):
    """:func:`rand` with standard normal values."""
    return _factory("normal", {"mean": 0.0, "std": 1.0}, size, device_mesh, placements, dtype, requires_grad, kw)


def dropout_block(input: torch.Tensor, p: float, global_shape: Sequence[int], block_start: Sequence[int], *,
                  seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
                  generator: Optional[Generator] = None, stream: Optional[int] = None) -> torch.Tensor:
    """Dropout of the plain tensor ``input``, the block at ``block_start`` of
    a global tensor of ``global_shape``, with the global tensor's mask
    (:func:`xrng.dropout` of the global tensor, restricted to the block).
    Differentiable; the generator advances by the global tensor's words."""
    kw = {"seed": seed, "subseq": subseq, "offset": offset, "generator": generator, "stream": stream}
    src, st = _src_stream(kw, "dropout")
    p = float(p)
    pos = _position(src, "dropout", [p], [], input.dtype, math.prod(global_shape), st)
    return torch.ops.xrng.dropout_block(input, p, pos, [int(s) for s in global_shape], [int(s) for s in block_start])


def dropout(input, p: float = 0.5, training: bool = True, *, seed: Optional[int] = None, subseq: int = 0,
            offset: int = 0, generator: Optional[Generator] = None, stream: Optional[int] = None):
    """Dropout of a DTensor with the mask of the global tensor (so equal to
    :func:`xrng.dropout` of the full tensor), differentiable; the result has
    the input's placements. ``Partial`` (sum/avg) inputs are allowed: each
    summand is masked alike, which is the dropout of their sum."""
    if not training:
        return input
    if not _is_dtensor(input):
        raise TypeError(f"dropout: expected a DTensor, got {type(input).__name__}")
    _check_placements(input.placements, "dropout", partial_ok=True)
    loc, shape, start = _block_of_any(input)
    res = dropout_block(input.to_local(), p, shape, start, seed=seed, subseq=subseq, offset=offset,
                        generator=generator, stream=stream)
    return _wrap(res, input.device_mesh, input.placements, shape)


def _block_of_any(t) -> tuple:
    """_local_of, with Partial placements read as Replicate (the summands are
    whole tensors)."""
    dt = _dt()
    pl = tuple(dt.Replicate() if p.is_partial() else p for p in t.placements)
    local_shape, start = shard_block(t.shape, t.device_mesh, pl)
    loc = t._local_tensor
    if tuple(loc.shape) != local_shape:
        raise UnsupportedPlacement(f"the local tensor has shape {tuple(loc.shape)}, not the shard {local_shape} "
                                   f"torch's layout gives for {tuple(t.placements)}")
    return loc, tuple(t.shape), start
