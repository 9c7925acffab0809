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

Under :class:`xrng.reproducible`, DTensor draws take these paths on their own:
``torch.distributed.tensor.rand`` / ``randn`` (replaced from the first mode
entry after ``torch.distributed.tensor`` was imported), ``rand_like`` / ``randn_like``
of a DTensor, the in-place fills (``uniform_``, ``normal_``, ``bernoulli_``
with a float p, ``exponential_``, ``geometric_``, ``log_normal_``,
``cauchy_``; so ``nn.init.*`` of DTensor parameters, FSDP2's included), the
mode's ``erfinv`` (``nn.init.trunc_normal_``), and dropout of DTensor
activations (``F.dropout``, ``native_dropout``, ``dropout1d/2d/3d``; tensor parallelism's
``SequenceParallel``). A placement with no block (``Partial`` for a fill,
``_StridedShard``) or another random op on a DTensor is reported
(ReproducibilityWarning, or NotReproducibleError with ``strict=True``), then
run by torch.

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


# ==== the reproducible mode's DTensor paths (reproducible._call hands DTensor calls here) =============
# In-place fills: torch's name -> (torch parameters, defaults, registry dist, registry names, dtypes)
_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_FILLS = {
    "Tensor.uniform_": (("from", "to"), {"from": 0.0, "to": 1.0}, "uniform", ("low", "high"), _FLOATS),
    "Tensor.normal_": (("mean", "std"), {"mean": 0.0, "std": 1.0}, "normal", ("mean", "std"), _FLOATS),
    "Tensor.exponential_": (("lambd",), {"lambd": 1.0}, "exponential", ("rate",), _FLOATS),
    "Tensor.log_normal_": (("mean", "std"), {"mean": 1.0, "std": 2.0}, "log_normal", ("mean", "std"), _FLOATS),
    "Tensor.cauchy_": (("median", "sigma"), {"median": 0.0, "sigma": 1.0}, "cauchy", ("median", "sigma"), _FLOATS),
    "Tensor.geometric_": (("p",), {}, "geometric", ("p",), _FLOATS + (torch.int32, torch.int64)),
}
_ELEMENTWISE = ("Tensor.erfinv", "Tensor.erfinv_", "torch.erfinv", "torch.special.erfinv")


def _first_dtensor(args, kwargs):
    for a in args:
        if _is_dtensor(a):
            return a
    for a in kwargs.values():
        if _is_dtensor(a):
            return a
    return None


def _mode_call(m, orig, handler, name: str, args: tuple, kwargs: dict):
    """A call of a mode's entry point with DTensor arguments: drawn here, or
    reported and run by torch. NotImplemented when no argument is a DTensor
    (the mode's own handler then runs)."""
    R = sys.modules[__package__ + ".reproducible"]  # the module (xrng.reproducible is the class)
    if _first_dtensor(args, kwargs) is None:
        return NotImplemented
    try:
        if name in _FILLS:
            return _mode_fill(m, R, name, args, kwargs)
        if name in ("torch.rand_like", "torch.randn_like"):
            return _mode_like(m, R, name, args, kwargs)
        if name in ("torch.dropout", "torch.dropout_"):
            return _mode_dropout(m, R, name, args, kwargs)
        if name in ("torch.feature_dropout", "torch.feature_dropout_"):
            return _mode_feature_dropout(m, R, name, args, kwargs)
        if name == "torch.native_dropout":
            return _mode_native_dropout(m, R, args, kwargs)
        if name == "Tensor.bernoulli_":
            return _mode_bernoulli_(m, R, args, kwargs)
        if name in _ELEMENTWISE:
            return _mode_elementwise(m, R, handler, name, args, kwargs)
        raise R._Unsupported("DTensor argument: no sharded formulation of this op")
    except (R._PassThrough, R._Meta):
        return orig(*args, **kwargs)
    except (UnsupportedPlacement, R._Unsupported) as e:
        m._report(name, f"is not drawn from xrng here ({e})")
        return m._pass(orig, name, args, kwargs)


def _mode_fill(m, R, name, args, kwargs):
    tnames, defaults, dist, xnames, dtypes = _FILLS[name]
    op = name.split(".", 1)[1]
    b = R._bind(op, args, kwargs, ("self",) + tnames, defaults, ("generator",))
    t = b["self"]
    R._check_inplace(t)
    if t.dtype not in dtypes:
        raise R._Unsupported(f"{op} into dtype {t.dtype}")
    loc, shape, start = _local_of(t, name)
    params = {x: float(b[k]) for k, x in zip(tnames, xnames)}
    if name == "Tensor.uniform_":
        lo, hi = params["low"], params["high"]
        if not lo <= hi:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={lo} > to={hi}")
        if lo == hi:  # as the unsharded mode: a constant, no draw
            with torch.no_grad():
                loc.fill_(lo)
            return t
    with m._draw(b.get("generator"), name) as g, torch.no_grad():
        try:  # a refused draw (take_ checks first) leaves the generator where it was
            _draw_block(loc, shape, start, dist, params, g._state, g.stream)
        except ValueError as e:  # as the unsharded mode (_fill_located): f16/bf16 past their range via float32
            if loc.dtype not in (torch.float16, torch.bfloat16) or "is not finite in" not in str(e):
                raise
            wide = torch.empty(loc.shape, dtype=torch.float32, device=loc.device)
            _draw_block(wide, shape, start, dist, params, g._state, g.stream)
            loc.copy_(wide)
    R._touched(loc)
    return t


def _mode_bernoulli_(m, R, args, kwargs):
    b = R._bind("bernoulli_", args, kwargs, ("self", "p"), {"p": 0.5}, ("generator",))
    t, p = b["self"], b["p"]
    if isinstance(p, torch.Tensor):
        raise R._Unsupported("bernoulli_ with a tensor of probabilities")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    R._check_inplace(t)
    loc, shape, start = _local_of(t, "Tensor.bernoulli_")
    with m._draw(b.get("generator"), "Tensor.bernoulli_") as g, torch.no_grad():
        if loc.dtype in (torch.bool, torch.uint8):
            _draw_block(loc, shape, start, "bernoulli", {"p": p}, g._state, g.stream)
        else:  # as the unsharded mode: a u8 draw, converted
            tmp = torch.empty(loc.shape, dtype=torch.uint8, device=loc.device)
            _draw_block(tmp, shape, start, "bernoulli", {"p": p}, g._state, g.stream)
            loc.copy_(tmp)
    R._touched(loc)
    return t


def _mode_like(m, R, name, args, kwargs):
    b = R._bind(name.split(".")[1], args, kwargs, ("input",), {}, R._LIKE_KW)
    x = b["input"]
    if b.get("layout") not in (None, torch.strided) or b.get("device") is not None:
        raise R._Unsupported("layout= or device= with a DTensor")
    out = torch.empty_like(x, dtype=b.get("dtype"))
    R._check_float(out, name)
    loc, shape, start = _local_of(out, name)
    dist, params = ("uniform", {"low": 0.0, "high": 1.0}) if name == "torch.rand_like" else \
        ("normal", {"mean": 0.0, "std": 1.0})
    with m._draw(b.get("generator"), name) as g:
        _draw_block(loc, shape, start, dist, params, g._state, g.stream)
    return out.requires_grad_() if b.get("requires_grad") else out


def _mode_dropout_local(m, R, name, x, p):
    """(result DTensor) of dropout with rule 2, drawn at the stream position."""
    _check_placements(x.placements, name, partial_ok=True)
    R._check_float(x, name)
    loc, shape, start = _block_of_any(x)
    with m._draw(None, name) as g:
        pos = _position(g._state, "dropout", [p], [], x.dtype, math.prod(shape), g.stream)
    res = torch.ops.xrng.dropout_block(x.to_local(), p, pos, list(shape), list(start))
    return _wrap(res, x.device_mesh, x.placements, shape), pos, shape, start


def _mode_dropout(m, R, name, args, kwargs):
    b = R._bind(name, args, kwargs, ("input", "p", "train"), {})
    x, p, train = b["input"], float(b["p"]), b["train"]
    rule = R._dropout_rule(name, p, train)
    inplace = name.endswith("_")
    if rule == 0 or x.numel() == 0:
        return x
    if rule == 1:
        return x.mul_(0) if inplace else x * 0
    if inplace and torch.is_grad_enabled() and x.requires_grad:
        raise R._Unsupported("in-place dropout of a DTensor that requires grad")
    res = _mode_dropout_local(m, R, name, x, p)[0]
    if inplace:
        with torch.no_grad():
            x._local_tensor.copy_(res._local_tensor)
        return x
    return res


def _mode_feature_dropout(m, R, name, args, kwargs):
    """dropout1d/2d/3d of a DTensor: the unsharded mode's per-(sample, channel)
    factors (one word each over the global N x C, SPEC 4.5's scale) at the
    rank's (sample, channel) block, applied to its local elements."""
    b = R._bind(name, args, kwargs, ("input", "p", "train"), {})
    x, p, train = b["input"], float(b["p"]), b["train"]
    inplace = name.endswith("_")
    rule = R._dropout_rule(name, p, train)
    if rule == 0 or x.numel() == 0:
        return x
    if rule == 1:
        return x.mul_(0) if inplace else x * 0
    if inplace and torch.is_grad_enabled() and x.requires_grad:
        raise R._Unsupported("in-place feature dropout of a DTensor that requires grad")
    _check_placements(x.placements, name, partial_ok=True)
    R._check_float(x, name)
    if x.dim() < 2:
        raise RuntimeError(f"{name}: Feature dropout requires at least 2 dimensions in the input")
    loc, shape, start = _block_of_any(x)
    wide = R._wide(x.dtype)
    ones = torch.ones(loc.shape[:2], dtype=wide, device=loc.device)
    with m._draw(None, name) as g:
        pos = _position(g._state, "dropout", [p], [], wide, shape[0] * shape[1], g.stream)
    scale = torch.ops.xrng.dropout_block(ones, p, pos, list(shape[:2]), list(start[:2]))
    scale = scale.view(tuple(loc.shape[:2]) + (1,) * (x.dim() - 2))
    xl = x.to_local()
    r = torch.where(scale != 0, xl.to(wide) * scale, 0.0).to(x.dtype)
    if inplace:
        with torch.no_grad():
            x._local_tensor.copy_(r)
        return x
    return _wrap(r, x.device_mesh, x.placements, shape)


def _mode_native_dropout(m, R, args, kwargs):
    b = R._bind("native_dropout", args, kwargs, ("input", "p", "train"), {"train": None})
    x, p, train = b["input"], float(b["p"]), b["train"]
    rule = R._dropout_rule("native_dropout", p, False if train is False else True)
    if rule == 0 or x.numel() == 0:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    if rule == 1:
        return x * 0, torch.zeros_like(x, dtype=torch.bool)
    res, pos, shape, start = _mode_dropout_local(m, R, "torch.native_dropout", x, p)
    dropped = torch.empty(x._local_tensor.shape, dtype=torch.bool, device=x.device)
    torch.ops.xrng.draw_block_(dropped, "bernoulli", [p], [], pos, list(shape), list(start))
    return res, _wrap(~dropped, x.device_mesh, x.placements, shape)


def _mode_elementwise(m, R, handler, name, args, kwargs):
    """The mode's own (non-random) elementwise handler on the local tensor."""
    x = args[0] if args else kwargs.get("input", kwargs.get("self"))
    if not _is_dtensor(x) or any(p.is_partial() for p in x.placements):
        raise R._Unsupported("a non-linear op of a Partial DTensor")
    rest = tuple(args[1:])
    kw = {k: v for k, v in kwargs.items() if k not in ("input", "self")}
    if any(_is_dtensor(v) for v in rest + tuple(kw.values())):
        raise R._Unsupported("several DTensor arguments")
    if torch.is_grad_enabled() and x.requires_grad:
        raise R._PassThrough  # autograd: torch's erfinv (deterministic math, not a draw), as the unsharded mode
    if name.endswith("_"):
        handler(m, (x._local_tensor,) + rest, kw)
        return x
    local = handler(m, (x.to_local(),) + rest, kw)
    return _wrap(local, x.device_mesh, x.placements, tuple(x.shape))


def _mode_factory(dist: str, params: dict, name: str):
    def h(m, args, kwargs):
        R = sys.modules[__package__ + ".reproducible"]  # the module (xrng.reproducible is the class)
        kw = dict(kwargs)
        if kw.pop("layout", torch.strided) != torch.strided:
            raise R._Unsupported("layout")
        dtype = kw.pop("dtype", None)
        if (dtype or torch.get_default_dtype()) not in _FLOATS:
            raise R._Unsupported(f"{name} of dtype {dtype}")
        mesh, placements = kw.pop("device_mesh", None), kw.pop("placements", None)
        rg = bool(kw.pop("requires_grad", False))
        if kw:
            raise R._Unsupported(f"keyword(s) {', '.join(sorted(kw))}")
        dt = _dt()
        mesh = mesh or dt.device_mesh._mesh_resources.get_current_mesh()
        placements = tuple(placements) if placements else tuple(dt.Replicate() for _ in range(mesh.ndim))
        if len(placements) != mesh.ndim:
            raise AssertionError("mesh dimension does not match the length of placements")
        size = _sizes(args)
        try:
            local_shape, start = shard_block(size, mesh, placements)
        except UnsupportedPlacement as e:
            raise R._Unsupported(str(e))
        local = torch.empty(local_shape, dtype=dtype or torch.get_default_dtype(), device=mesh.device_type)
        with m._draw(None, name) as g:
            _draw_block(local, size, start, dist, params, g._state, g.stream)
        return _wrap(local, mesh, placements, size, rg)
    return h


_entries_added = False


def _mode_entries() -> list:
    """(owner, attribute, name, handler) of the DTensor factories the mode
    replaces, once: at the first mode entry after torch.distributed.tensor
    was imported (a program that makes DTensors has imported it; importing it
    for every program would add its import time to the mode's first entry)."""
    global _entries_added
    if _entries_added or "torch.distributed.tensor._api" not in sys.modules:
        return []
    _entries_added = True
    import torch.distributed.tensor as dt
    import torch.distributed.tensor._api as api
    out = []
    for owner in (dt, api):
        out.append((owner, "rand", "torch.distributed.tensor.rand",
                    _mode_factory("uniform", {"low": 0.0, "high": 1.0}, "torch.distributed.tensor.rand")))
        out.append((owner, "randn", "torch.distributed.tensor.randn",
                    _mode_factory("normal", {"mean": 0.0, "std": 1.0}, "torch.distributed.tensor.randn")))
    return out
