"""The reproducible mode and DTensor (FSDP2, tensor parallelism): every random
op on a DTensor draws its shard's block of the unsharded draw.

While a mode is active:

* DTensor's RNG tracker (``torch.distributed.tensor._random._rng_tracker``) is
  the mode's: its ``_distribute_region(spec)`` tells xrng's kernels
  (``_C._mode_block_begin``) the global shape and the shard's offset, so a
  fill of the shard is the block ``[offset, offset + local)`` of the draw over
  the global shape, and takes the global draw's words on every rank (empty
  shards included): a DTensor draw equals the unsharded one (SPEC.md 8.4).
* every random op DTensor shards elementwise goes through :func:`_in_region`
  (a DTensor op handler): DTensor runs only some of them inside its tracker's
  region (not ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``,
  which drew the same words on every rank), and on an accelerator it runs
  its own list through an offset-based path of its ``OffsetBasedRNGTracker``
  instead of the region; ``random_``, which DTensor has no sharding rule for,
  is drawn the same way. The output keeps the input's placements.
"""
from __future__ import annotations

import contextlib
import sys

import torch

from . import _C, _on_import


def _mode_module():
    return sys.modules[__package__ + ".reproducible"]


def _tracker():
    from torch.distributed.tensor import _random as dt_random
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    from torch.distributed.tensor.placement_types import Partial

    class _XrngTracker(dt_random._RNGStateTracker):
        def __init__(self):  # no device state: the mode's streams are xrng's
            self._states = {}
            self._use_distribute_region = True
            self._device = torch.device("cpu")

        @property
        def distribute_region_enabled(self):
            return True

        @distribute_region_enabled.setter
        def distribute_region_enabled(self, value):
            pass

        @contextlib.contextmanager
        def _distribute_region(self, spec, generator=None):
            if any(isinstance(p, Partial) for p in spec.placements):
                _mode_module()._tls.top._report(
                    "a DTensor draw", "has a Partial placement, whose local values are not a block of the "
                                      "unsharded tensor: drawn as a local tensor")
                yield
                return
            shape = tuple(spec.shape)
            local, offset = compute_local_shape_and_global_offset(shape, spec.mesh, spec.placements)
            _C._mode_block_begin(list(shape), list(offset), list(local), generator)
            try:
                yield
            finally:
                _C._mode_block_end()

    return dt_random, _XrngTracker()


def _random_ops():
    """DTensor's elementwise random ops that the mode's handler runs: each
    output has the first argument's shape and placements."""
    aten = torch.ops.aten
    return (aten.normal_.default, aten.uniform_.default, aten.bernoulli_.float, aten.bernoulli.default,
            aten.native_dropout.default, aten.rand_like.default, aten.randn_like.default,
            aten.randint_like.default, aten.randint_like.low_dtype,
            aten.exponential_.default, aten.geometric_.default, aten.log_normal_.default, aten.cauchy_.default,
            aten.random_.default, aten.random_.to, getattr(aten.random_, "from"))


def _in_region(op_call, args, kwargs):
    """A random op of a DTensor (the first argument): its local tensor drawn
    inside the tracker's region, the output wrapped with the input's
    placements (in-place ops return the input)."""
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor import _random as dt_random
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor.placement_types import Partial
    first = args[0]
    if any(isinstance(p, Partial) for p in first.placements):
        # torch's own DTensor path (it refuses an in-place fill of a Partial
        # DTensor, redistributes the input of the others; its region is the mode's)
        table = DTensor._op_dispatcher._custom_op_handlers
        mine = table.pop(op_call)
        try:
            return op_call(*args, **kwargs)
        finally:
            table[op_call] = mine
    kwargs = dict(kwargs)
    gen = kwargs.pop("generator", None)  # the region draws with it (as DTensor's own path)
    local_args = [a._local_tensor if isinstance(a, DTensor) else a for a in args]
    local_kwargs = {k: (v._local_tensor if isinstance(v, DTensor) else v) for k, v in kwargs.items()}
    if first._local_tensor.is_meta:
        out = op_call(*local_args, **local_kwargs)
    else:
        with dt_random._rng_tracker._distribute_region(first._spec, generator=gen):
            out = op_call(*local_args, **local_kwargs)
    if op_call._schema.arguments[0].is_write:  # in place
        return first

    def wrap(t):
        spec = DTensorSpec(first._spec.mesh, first._spec.placements,
                           tensor_meta=TensorMeta(first.shape, first.stride(), t.dtype))
        return DTensor(t, spec, requires_grad=False)
    return tuple(wrap(t) for t in out) if isinstance(out, tuple) else wrap(out)


_saved: list = []  # per active entry: (dt_random, its tracker, the handlers replaced), _DEFERRED or None
_DTENSOR = "torch.distributed.tensor"
_DEFERRED = object()  # an entry made before DTensor was imported


def _install_now() -> tuple:
    from torch.distributed.tensor import DTensor
    dt_random, tracker = _tracker()
    handlers = DTensor._op_dispatcher._custom_op_handlers
    replaced = {op: handlers.get(op) for op in _random_ops()}
    for op in replaced:
        handlers[op] = _in_region
    saved = (dt_random, dt_random._rng_tracker, replaced)
    dt_random._rng_tracker = tracker
    return saved


def _on_dtensor_import(module) -> None:
    """DTensor imported inside the mode: the outermost waiting entry installs
    (the tracker serves every entry); the others have nothing to undo."""
    first = True
    for i, record in enumerate(_saved):
        if record is _DEFERRED:
            _saved[i] = _install_now() if first else None
            first = False


def install() -> None:
    """At each entry: the mode's tracker and handlers, saved; where DTensor is
    not imported yet, they are installed when it is (``_on_import``)."""
    if _DTENSOR not in sys.modules:
        if _DEFERRED not in _saved:
            _on_import.when_imported(_DTENSOR, _on_dtensor_import)
        _saved.append(_DEFERRED)
        return
    _saved.append(_install_now())


def uninstall() -> None:
    """At each exit: DTensor's tracker and handlers as they were."""
    saved = _saved.pop() if _saved else None
    if saved is _DEFERRED:
        if _DEFERRED not in _saved:
            _on_import.cancel(_DTENSOR, _on_dtensor_import)
        return
    if saved is None:
        return
    dt_random, old, replaced = saved
    dt_random._rng_tracker = old
    from torch.distributed.tensor import DTensor
    table = DTensor._op_dispatcher._custom_op_handlers
    for op, h in replaced.items():
        if h is None:
            table.pop(op, None)
        else:
            table[op] = h
