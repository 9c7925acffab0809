"""The reproducible mode's dispatcher engine (``reproducible(engine="dispatch")``, issue 25).

While a mode with this engine is active, xrng's C++ kernels serve torch's
random **aten operators** (``bindings/mode.cpp``, ``bindings/mode/``): they are registered for the
CPU, CUDA and PrivateUse1 dispatch keys when the first entry starts (run-time
``torch::Library`` objects) and removed when the last one ends, which brings
torch's own kernels back. Torch keeps everything above the kernel: argument
parsing and checks, dtype and memory-format rules, autograd (reverse and
forward mode), ``vmap`` batching rules (``randomness="different"`` /
``"same"`` / ``"error"``), ``jit.trace`` and TorchScript, tensor subclasses;
and every caller reaches the same kernels: Python, C++ (the LSTM's dropout),
TorchScript, ``torch.ops.aten``.

The covered operators are the table of ``bindings/mode/table.h`` (:func:`ops`):
the in-place fills (``normal_``, ``uniform_``, ``exponential_``,
``geometric_``, ``log_normal_``, ``cauchy_``, ``bernoulli_``, ``random_``),
``randperm``, ``multinomial``, the tensor forms of ``normal``, the gamma
family, ``poisson``, ``binomial`` and ``native_dropout``. The factories
(``randn``, ``rand``, ``randint``, the ``*_like``), ``dropout`` (a
``bernoulli_`` of the input's shape on the CPU, ``native_dropout`` on CUDA),
``nn.init`` and ``torch.distributions`` reach them. Words per call: SPEC.md
section 8.4.

Streams are those of the entry-point engine (SPEC.md 8.1): the global stream
``Key(seed).fold_in(GLOBAL_TAG)`` for draws without a generator (or with the
default CPU generator), ``Key(g.initial_seed())`` for a ``torch.Generator``
``g``; re-seeds, restores (``fork_rng``, ``set_rng_state``) and copied states
are recognised by the generator's state, which is marked after every draw.

Differences from the entry-point engine, by design: a draw is defined at the
aten operator, so ``F.dropout`` on the CPU draws ``bernoulli_(1 - p)`` (keep
where the word is below the threshold of ``1 - p``) and torch's ``div_`` and
``mul`` make the output; the kernels are process-wide, so a thread without a
mode draws from the mode's streams too while one is active. Not covered
(reported with ``check_dispatch``): cuDNN RNN dropout, ``_fused_dropout``;
``_fused_sdp_choice`` makes attention with dropout take its math formulation.
``torch.compile``'d regions call the aten operators while the mode is active
(``torch._inductor.config.fallback_random``); DTensor shards draw their block
of the unsharded draw through the mode's DTensor RNG tracker (SPEC.md 8.4).
"""
from __future__ import annotations

import sys

import torch

from . import _C

__all__ = ["ops"]


def ops() -> list:
    """The aten operators the dispatcher engine serves: ``[(name, draw, words)]``."""
    return [tuple(r) for r in _C._mode_ops()]


def _mode_module():
    # xrng.reproducible the attribute is the class; the module is in sys.modules
    return sys.modules[__package__ + ".reproducible"]


_SERVED: frozenset = frozenset()


def _served() -> frozenset:
    """Overload packets whose calls reach xrng's kernels: the table's operators,
    and every random operator torch implements as a composite of them."""
    global _SERVED
    if not _SERVED:
        names = {n.split(".")[0] for n, _, _ in ops()}
        for s in torch._C._jit_get_all_schemas():
            if not s.name.startswith("aten::") or not any("Generator" in str(a.type) for a in s.arguments):
                continue
            full = s.name + ("." + s.overload_name if s.overload_name else "")
            try:
                composite = any(torch._C._dispatch_has_kernel_for_dispatch_key(full, k)
                                for k in ("CompositeExplicitAutograd", "CompositeImplicitAutograd")) and \
                    not torch._C._dispatch_has_kernel_for_dispatch_key(full, "CPU")
            except RuntimeError:  # a TorchScript builtin, not a dispatcher operator
                continue
            if composite:
                names.add(s.name[6:])
        _SERVED = frozenset(names)
    return _SERVED


def _block_tracker():
    """The mode's DTensor RNG tracker (torch.distributed.tensor._random._rng_tracker
    while a mode is active): DTensor runs every random op on a shard inside its
    tracker's ``_distribute_region(spec)``, so xrng's kernels draw that shard's
    block of the unsharded draw there (the global draw's words on every rank:
    a DTensor draw equals the unsharded one; SPEC.md section 8.4)."""
    import contextlib

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


_saved_tracker: list = []  # DTensor's RNG tracker before the outermost entry


def _install_tracker() -> None:
    if "torch.distributed.tensor" not in sys.modules:  # DTensor not in use: nothing to hook
        _saved_tracker.append(None)
        return
    dt_random, tracker = _block_tracker()
    # DTensor runs only its own list of random ops inside the tracker's region;
    # the other in-place fills it shards (exponential_, geometric_,
    # log_normal_, cauchy_, random_) would draw the same words on every rank:
    # while the mode is active they go through the region too (a DTensor op
    # handler)
    from torch.distributed.tensor import DTensor
    handlers = DTensor._op_dispatcher._custom_op_handlers
    saved = {op: handlers.get(op) for op in _block_fills()}
    for op in saved:
        handlers[op] = _fill_in_region
    _saved_tracker.append((dt_random, dt_random._rng_tracker, saved))
    dt_random._rng_tracker = tracker


_meta_libs: list = []  # per active entry: the Library of the Meta kernels below (or None)


def _install_meta() -> None:
    """Meta kernels for the served operators torch has none for
    (`_sample_dirichlet`, `binomial`): without one, FakeTensor (torch.compile's
    tracing) runs the CPU kernel, xrng's, on zeros, which refuses them."""
    if _meta_libs:
        _meta_libs.append(None)
        return
    lib = None
    for name, fn in (("_sample_dirichlet", lambda self, generator=None: torch.empty_like(self)),
                     ("binomial", lambda count, prob, generator=None: torch.empty_like(count))):
        if not torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "Meta"):
            if lib is None:
                lib = torch.library.Library("aten", "IMPL")
            lib.impl(name, fn, "Meta")
    _meta_libs.append(lib)


def _uninstall_meta() -> None:
    lib = _meta_libs.pop() if _meta_libs else None
    if lib is not None:
        lib._destroy()


def _block_fills():
    aten = torch.ops.aten
    return (aten.exponential_.default, aten.geometric_.default, aten.log_normal_.default, aten.cauchy_.default,
            aten.random_.default, aten.random_.to, getattr(aten.random_, "from"))


def _fill_in_region(op_call, args, kwargs):
    """An in-place fill of a DTensor, as DTensor runs its own random ops: the
    local tensor filled inside the tracker's region (the shard's block of the
    unsharded draw); the DTensor keeps its placements."""
    from torch.distributed.tensor import _random as dt_random
    self = args[0]
    kwargs = dict(kwargs)
    gen = kwargs.pop("generator", None)
    local = self._local_tensor
    if local.is_meta:
        op_call(local, *args[1:], **kwargs)
        return self
    with dt_random._rng_tracker._distribute_region(self._spec, generator=gen):
        op_call(local, *args[1:], **kwargs)
    return self


def _uninstall_tracker() -> None:
    saved = _saved_tracker.pop() if _saved_tracker else None
    if saved is not None:
        dt_random, old, handlers = saved
        dt_random._rng_tracker = old
        from torch.distributed.tensor import DTensor
        table = DTensor._op_dispatcher._custom_op_handlers
        for op, h in handlers.items():
            if h is None:
                table.pop(op, None)
            else:
                table[op] = h


def enable(mode) -> None:
    """Starts an entry of `mode` (a reproducible with engine="dispatch")."""
    r = _mode_module()
    if r._installed:
        raise RuntimeError("xrng.reproducible: a mode with engine='entry' is active; the two engines do not nest")
    seed = torch.initial_seed() if mode.seed is None else mode.seed
    _C._mode_begin(seed % 2**64, r.GLOBAL_TAG, mode.stream, mode._report_native)
    _install_tracker()
    _install_meta()
    if _saved_fallback:
        _saved_fallback.append(None)
        return
    # Inductor replaces aten's random ops by its own RNG unless fallback_random
    # is set: then compiled code calls the aten ops, so xrng's kernels draw
    # them, in the order eager code would (compiled == eager).
    try:
        import torch._inductor.config as ic
        _saved_fallback.append(ic.fallback_random)
        ic.fallback_random = True
    except ImportError:  # a torch without Inductor
        _saved_fallback.append(None)


_saved_fallback: list = []  # Inductor's fallback_random before the outermost entry, per active entry


def disable(check: bool) -> None:
    try:
        _uninstall_tracker()
        _uninstall_meta()
        _C._mode_end(check)
    finally:
        if _saved_fallback:
            old = _saved_fallback.pop()
            if not _saved_fallback and old is not None:
                import torch._inductor.config as ic
                ic.fallback_random = old


def global_position():
    """The global stream's position as an xrng.Generator."""
    from . import Generator
    seed, subseq, offset, stream = _C._mode_global_position()
    return Generator(seed, subseq, offset, stream=stream)


def report_check(owner, func, args, kwargs) -> None:
    """The dispatch check's rule under this engine: a random aten operator that
    none of xrng's kernels serves (an op with a generator argument outside
    the served set, or a kernel with a dropout argument of its own)."""
    r = _mode_module()
    name = func._overloadpacket.__name__
    if r._on_meta(args, kwargs):
        return
    if name in r._RANDOM_ATEN and name not in _served():
        owner._report(f"aten.{name}", "is not served by the mode's kernels, and draws from torch's generator")
    elif name in r._DROPOUT_ARG_OPS and name not in ("native_dropout", "lstm", "gru", "rnn_tanh", "rnn_relu"):
        d = r._dropout_arg(args, kwargs, func._schema)
        if d is not None and d[0] > 0 and d[1]:
            owner._report(f"aten.{name}", "draws its dropout with torch's generator inside the kernel")
