"""Reproducible randomness for unmodified PyTorch programs.

One line makes every random draw of a PyTorch program come from xrng's
stream, so the same program gives the same random tensors (initial weights,
dropout masks, noise, permutations) on the CPU, on CUDA and on any other torch
device, whatever the thread count::

    with xrng.reproducible(seed=0):
        model = Net()                 # nn.init draws
        loss = model(x).sum()         # dropout masks
        loss.backward()

    xrng.reproducible(seed=0).enable()    # scripts: from here on (disable() ends it)

    @xrng.reproducible(seed=0)            # every call starts the stream afresh
    def train_step(batch): ...

How a draw reaches xrng: while a mode is active, xrng's C++ kernels serve
torch's random **aten operators** (``normal_``, ``uniform_``, ``bernoulli_``,
``random_``, ``randperm``, ``multinomial``, ``native_dropout``, the gamma
family, ...: the table of ``bindings/mode/table.h``, listed by
``xrng._dispatch.ops()``; words per call: SPEC.md section 8.4). They are
registered for the CPU, CUDA and PrivateUse1 dispatch keys at the first entry
and removed at the last, which brings torch's own kernels back. Torch keeps
everything above the kernel (argument checks, dtype rules, autograd, vmap,
tracing, TorchScript, tensor subclasses), and every caller reaches the same
kernels: Python, C++ composites (the LSTM's dropout), TorchScript,
``torch.ops.aten``. Every other torch call runs untouched.

Streams (SPEC.md 8.1):

* draws without a generator use the *global stream*:
  ``Generator(S).fold_in(GLOBAL_TAG)`` where S is the mode's ``seed``, and
  after a ``torch.manual_seed(s)`` inside the mode, ``s``;
* draws with ``generator=g`` (a ``torch.Generator``) use ``g``'s own stream,
  ``Generator(g.initial_seed())`` with its own counter, restarted whenever ``g``
  is re-seeded (diffusers' ``torch.Generator(device).manual_seed(s)`` works
  unchanged, and its noise equals ``xrng.diffusers.randn_tensor`` with
  ``xrng.Generator(s)``).

Stream version (``stream=``, SPEC.md section 7): the mode draws in stream
version 2 (the default, ``xrng.stream_version``) or 1 (``reproducible(seed=0,
stream=1)``: the values of the releases before stream 2); the object records
it (``mode.stream``). The keys and offsets are the same in both versions.

Every served call consumes a fixed number of stream words that depends only
on its arguments, so a program consumes the same offsets on every device.
Random ops the mode cannot make identical (cuDNN's RNN dropout, fused kernels
with their own RNG, parameters xrng refuses and torch accepts) are reported:
a one-time :class:`ReproducibilityWarning` naming the op, or
:class:`NotReproducibleError` with ``strict=True``; the optional
dispatcher-level check (``check_dispatch=True``, on by default with
``strict=True``) names random aten ops that none of the kernels serves.

Compiled code (``torch.compile``, export, AOTInductor) calls the same aten
operators: the mode turns on Inductor's ``fallback_random`` while it is
active (``_mode_compiled``), so compiled code draws what eager code draws.
DTensor draws (FSDP2, tensor parallelism) are their shard's block of the
unsharded draw (``_mode_distributed``).

The mode belongs to the thread that enters it (like every torch mode), and
one thread at a time may be inside a mode: its streams are those of torch's
process-wide generators, so a second thread entering a mode (another object,
or the same one) while the first is inside raises RuntimeError instead of
restarting the stream under the first one's draws (which would repeat its
values). A thread without a mode that draws while another thread has one
gets torch's own kernel and a :class:`ReproducibilityWarning`. Threads that
need reproducible draws of their own use the xrng functions with an
``xrng.Generator`` (one per thread, or one shared: its draws are atomic).
DataLoader worker processes forked inside the mode inherit it (spawned ones
start it: :class:`xrng.data._ModeWorkerInit`), and torch's per-worker
``torch.manual_seed(base_seed + worker_id)`` gives each worker its own global
stream.

The entry-point engine of earlier releases (``engine="entry"``: torch's
random Python entry points wrapped by hand, with xrng's own dropout and
erfinv, SPEC.md 8.2 and 8.3) was removed (issue 25); SPEC.md 8.4 describes
the revision of the values.
"""
from __future__ import annotations

import functools
import numbers
import os
import threading
import warnings
from typing import Callable, Optional

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import Generator
from . import _check_stream
from . import stream_version as _newest_stream

__all__ = ["reproducible", "ReproducibilityWarning", "NotReproducibleError", "GLOBAL_TAG"]

#: The global stream of seed S is ``xrng.Generator(S).fold_in(GLOBAL_TAG)``
#: (ASCII "reproduc"), apart from the stream ``xrng.Generator(s)`` of a
#: ``torch.Generator`` seeded with s.
GLOBAL_TAG = 0x7265_7072_6F64_7563


class ReproducibilityWarning(UserWarning):
    """A random op ran under :class:`reproducible` with torch's own generator,
    so its values may differ between devices (issued once per op and mode)."""


class NotReproducibleError(RuntimeError):
    """Raised instead of :class:`ReproducibilityWarning` under ``reproducible(strict=True)``."""


_ENGINE_REMOVED = ("xrng.reproducible: engine='entry' was removed in this release (issue 25); the mode serves "
                   "torch's random aten operators (engine='dispatch', the only engine), whose dropout and erfinv "
                   "values differ from the entry engine's: SPEC.md 8.4 describes the revision")

_lock = threading.RLock()


def _key(seed: int, tag: Optional[int], stream: int = _newest_stream) -> Generator:
    g = Generator(seed % 2**64, stream=stream)
    return g if tag is None else g.fold_in(tag)  # fold_in keeps the stream version


# ==== what is reported ===================================================================================
# aten ops whose schema takes a Generator: the random ones. The dispatcher-level
# check (check_dispatch=True) watches those the mode's kernels do not serve,
# plus ops that draw from a device generator without taking one (those with a
# dropout argument): xrng._dispatch.report_check.
def _random_aten_names() -> frozenset:
    names = set()
    for s in torch._C._jit_get_all_schemas():
        if s.name.startswith("aten::") and any("Generator" in str(a.type) for a in s.arguments):
            names.add(s.name[6:])
    names -= {"manual_seed", "initial_seed", "seed"}
    return frozenset(names)


_RANDOM_ATEN: frozenset = frozenset()  # filled by the first dispatch check (reading every schema: some 50 ms)
_DROPOUT_ARG_OPS = frozenset((
    "native_dropout", "_fused_dropout", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_cudnn_attention", "_flash_attention_forward", "_efficient_attention_forward", "_cudnn_rnn",
    "_cudnn_init_dropout_state", "lstm", "gru", "rnn_tanh", "rnn_relu"))


def _dropout_arg(args: tuple, kwargs: dict, schema) -> Optional[tuple]:
    """(dropout probability, train) of a call whose schema has a dropout argument."""
    p, train = None, True
    for i, a in enumerate(schema.arguments):
        v = kwargs.get(a.name, args[i] if i < len(args) else None)
        if a.name in ("dropout_p", "dropout", "p") and isinstance(v, numbers.Real):
            p = float(v)
        elif a.name in ("train", "training") and isinstance(v, bool):
            train = v
    return None if p is None else (p, train)


def _on_meta(args: tuple, kwargs: dict) -> bool:
    # a random op on the meta device draws nothing (model construction on the meta device)
    dev = kwargs.get("device")
    if dev is not None:
        return torch.device(dev).type == "meta"
    return any(isinstance(a, torch.Tensor) and a.is_meta for a in args)


class _DispatchCheck(TorchDispatchMode):
    """The dispatcher-level check (check_dispatch=True): sees every aten op
    and reports the random ones that none of the mode's kernels serves (an op
    with a generator argument outside the served set, a kernel that draws its
    dropout with torch's generator inside): xrng._dispatch.report_check."""

    def __init__(self, owner: "reproducible") -> None:
        super().__init__()
        self.owner = owner

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        """torch.compile turns this mode off while it compiles and on again while
        the compiled code runs, so a compiled function compiles under
        strict=True too (Dynamo compiles nothing under a dispatch mode that
        does not say this); the compiled code's draws reach the mode's kernels
        when it runs."""
        return True

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        global _RANDOM_ATEN
        kwargs = kwargs or {}
        if not _RANDOM_ATEN:
            _RANDOM_ATEN = _random_aten_names()
        from ._dispatch import report_check
        report_check(self.owner, func, args, kwargs)
        return func(*args, **kwargs)


# ==== threads and DataLoader workers ======================================================================
_tls = threading.local()  # .top: the innermost active reproducible of this thread


# The thread whose modes are active (one thread at a time: the global stream is
# torch.default_generator's, process-wide, and a second thread entering a mode
# would restart it under the first one's draws) and its active entries.
_owner: Optional[int] = None
_owner_depth = 0


def _claim() -> None:
    """Makes the calling thread the owner of the active modes, or raises: a
    mode is entered by one thread at a time."""
    global _owner, _owner_depth
    me = threading.get_ident()
    with _lock:
        if _owner is not None and _owner != me:
            raise RuntimeError(f"xrng.reproducible: a mode is already active on another thread "
                               f"({_thread_name(_owner)}); the mode's streams are process-wide (torch's "
                               f"generators), so one thread at a time may be inside it: give each thread "
                               f"an xrng.Generator and call the xrng functions instead")
        _owner = me
        _owner_depth += 1


def _unclaim() -> None:
    global _owner, _owner_depth
    with _lock:
        _owner_depth -= 1
        if _owner_depth == 0:
            _owner = None


def _thread_name(ident: int) -> str:
    for t in threading.enumerate():
        if t.ident == ident:
            return t.name
    return f"thread {ident}"


def _after_fork_in_child() -> None:
    """A forked child (a DataLoader worker) keeps the mode only on the thread
    that forked inside it; any other owner does not exist in the child."""
    global _owner, _owner_depth
    if _owner is not None and _owner != threading.get_ident():
        _owner, _owner_depth = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _dataloader_iterator(self):
    """DataLoader._get_iterator while a mode may be active: workers started by
    spawn or forkserver are fresh processes that do not inherit the mode, so
    the mode travels with their initialisation (xrng.data._ModeWorkerInit, in
    front of the program's worker_init_fn): they draw what forked workers
    draw (issue 20)."""
    m = getattr(_tls, "top", None)
    if m is not None and m._entries and self.num_workers > 0:
        import multiprocessing
        ctx = self.multiprocessing_context
        method = ctx.get_start_method() if ctx is not None else multiprocessing.get_start_method()
        if method != "fork":
            from .data import _ModeWorkerInit
            user = self.worker_init_fn
            self.__dict__["worker_init_fn"] = _ModeWorkerInit(m.stream, m.strict, m.check_dispatch, user)
            try:
                return _DATALOADER_ITER(self)  # the workers start here, with the wrapped init
            finally:
                self.__dict__["worker_init_fn"] = user
    return _DATALOADER_ITER(self)


_DATALOADER_ITER = None  # DataLoader._get_iterator while the wrapper is installed
_loader_users = 0  # active entries of modes (all threads together)


def _install_loader() -> None:
    global _DATALOADER_ITER, _loader_users
    with _lock:
        if _loader_users == 0:
            from torch.utils.data import DataLoader
            _DATALOADER_ITER = DataLoader.__dict__["_get_iterator"]
            DataLoader._get_iterator = _dataloader_iterator
        _loader_users += 1


def _uninstall_loader() -> None:
    global _loader_users
    with _lock:
        _loader_users -= 1
        if _loader_users == 0:
            from torch.utils.data import DataLoader
            DataLoader._get_iterator = _DATALOADER_ITER


# ==== the public object ==================================================================================
class reproducible:
    """Makes every random draw of an eager PyTorch program come from xrng.

    Args:
        seed: the key of the global stream (draws without ``generator=``):
            ``xrng.Generator(seed).fold_in(GLOBAL_TAG)``, from offset 0 at
            every entry. ``None``: ``torch.initial_seed()`` at entry. A
            ``torch.manual_seed(s)`` inside the mode restarts the global
            stream on the key of ``s``.
        stream: the stream version of every draw (SPEC.md section 7): 1 or
            2, default ``xrng.stream_version`` (2). Or one of torch's own
            generators (SPEC.md 8.5): ``"torch-cpu-x86"`` /
            ``"torch-cpu-scalar"`` / ``"torch-cpu-arm"`` /
            ``"torch-cpu-arm-sve256"`` / ``"torch-cpu-x86-windows"`` /
            ``"torch-cpu-x86-intel"`` / ``"torch-cpu-x86-intel-avx512"`` /
            ``"torch-cpu-scalar-intel"`` (every
            draw gives what torch's CPU generator gives on an x86 CPU with
            AVX2 / on an x86 CPU without it or with
            ``ATEN_CPU_CAPABILITY=default`` / on an AArch64 CPU (SPEC.md
            14.8) / on a 256-bit SVE one / torch's Windows wheels on an x86
            CPU with AVX2 (SPEC.md 14.9) / on an Intel CPU with AVX2 and
            without AVX-512 / with AVX-512 (x86's draws but torch 2.0 to
            2.6's MKL ``exponential_``, SPEC.md 14.7) / on an Intel CPU without
            AVX2 (scalar's draws but that MKL ``exponential_``), on any host and device; the
            state is torch's CPU generator itself; ``seed``: None keeps its
            state, an int seeds it at entry; ``"torch-cpu-x86@2.4"``: that
            torch release's draws where releases differ, as
            ``xrng.torch_cpu(release=)``, SPEC.md 14.7), ``"torch-cuda"`` with
            ``sm_count=`` and ``threads_per_sm=`` (default 2048), or
            ``profile=`` (``xrng.torch_cuda``'s): what torch's CUDA
            generator gives on that GPU. An op the stream does not reproduce
            is reported (strict: raised) and drawn by torch's own kernel.
            Recorded as ``self.stream``.
        sm_count, threads_per_sm, profile: the GPU of ``stream="torch-cuda"``.
        strict: raise :class:`NotReproducibleError` (before the op runs, where
            possible) instead of warning once about a random op the mode
            cannot make identical on every device.
        check_dispatch: also watch every aten op at the dispatcher, naming
            random ops that none of the mode's kernels serves (they draw from
            torch's generator). Costs a few microseconds per aten op.
            Default: the value of ``strict``.
        engine: ``"dispatch"``, the only engine (the argument is kept for
            programs that name it): xrng's C++ kernels serve torch's random
            aten operators while the mode is active, so torch keeps its own
            semantics (autograd, forward AD, vmap, tracing, TorchScript,
            memory formats, subclasses) and calls cost about what torch's own
            do (``xrng._dispatch``; SPEC.md section 8.4). ``"entry"`` (the
            entry-point engine of earlier releases) was removed: ValueError,
            as with ``XRNG_MODE_ENGINE=entry`` in the environment.

    Use it as a context manager (``with xrng.reproducible(seed=0): ...``), as
    a decorator (each call starts the stream afresh), or with
    :meth:`enable` / :meth:`disable` for a whole script. Entries nest; leaving
    an inner one resumes the outer one's stream where it was. The mode applies
    to the thread that enters it, and one thread at a time may be inside a
    mode (entering on a second thread while one is active: RuntimeError).

    Attributes:
        reported: ``{op: reason}`` for every op reported so far by this object.
    """

    def __init__(self, seed: Optional[int] = None, *, stream: "int | str | None" = None, strict: bool = False,
                 check_dispatch: Optional[bool] = None, engine: Optional[str] = None,
                 sm_count: Optional[int] = None, threads_per_sm: Optional[int] = None,
                 profile: Optional[str] = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        if engine is None:
            engine = os.environ.get("XRNG_MODE_ENGINE") or "dispatch"
        if engine == "entry":
            raise ValueError(_ENGINE_REMOVED)
        if engine != "dispatch":
            raise ValueError(f"engine must be 'dispatch' (the only engine), got {engine!r}")
        #: How draws reach xrng: always "dispatch" (xrng's kernels serve
        #: torch's random aten operators: xrng._dispatch).
        self.engine = engine
        self.seed = None if seed is None else int(seed) % 2**64
        #: The stream of every draw of the mode: xrng's stream version (1 or
        #: 2), or one of torch's generators ("torch-cpu-x86",
        #: "torch-cpu-scalar", "torch-cpu-arm", "torch-cpu-arm-sve256", "torch-cpu-x86-windows",
        #: "torch-cpu-x86-intel", "torch-cpu-x86-intel-avx512", "torch-cpu-scalar-intel", each with or
        #: without "@<release>" as given,
        #: "torch-cuda:<sm_count>:<threads_per_sm>").
        from ._dispatch import stream_arg
        self.stream = stream_arg(stream, engine, sm_count, threads_per_sm, profile)
        self.strict = bool(strict)
        self.check_dispatch = self.strict if check_dispatch is None else bool(check_dispatch)
        self.reported: dict = {}
        self._entries: list = []  # (dispatch check or None, previous top of the thread)

    # ---- keys (public: what a test or a user needs to reproduce a draw by hand) ----
    @staticmethod
    def global_generator(seed: int, stream: Optional[int] = None) -> Generator:
        """The xrng Generator at which the global stream of ``seed`` starts:
        ``xrng.Generator(seed, stream=stream).fold_in(GLOBAL_TAG)``, offset 0
        (stream: the mode's ``stream``, default the newest)."""
        return _key(int(seed), GLOBAL_TAG, _newest_stream if stream is None else _check_stream(stream))

    @staticmethod
    def generator_for(seed: int, stream: Optional[int] = None) -> Generator:
        """The xrng Generator at which a ``torch.Generator`` seeded with ``seed``
        starts under the mode: ``xrng.Generator(seed, stream=stream)``, offset 0."""
        return _key(int(seed), None, _newest_stream if stream is None else _check_stream(stream))

    def global_position(self) -> Generator:
        """A copy of the global stream's current position (key and offset)."""
        from . import _dispatch
        if not self._entries:
            raise RuntimeError("xrng.reproducible: this mode is not active")
        return _dispatch.global_position()

    # ---- entering and leaving ----
    def __enter__(self) -> "reproducible":
        self.enable()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._disable(check=exc_type is None)  # an exception on its way out is the one to see

    def enable(self) -> "reproducible":
        """Starts the mode on this thread (scripts: everything from here on).
        The global stream restarts at offset 0 of its key. One thread at a
        time may have active modes (RuntimeError on another thread)."""
        _claim()
        try:
            return self._enable()
        except BaseException:
            _unclaim()
            raise

    def _enable(self) -> "reproducible":
        from . import _dispatch
        _dispatch.enable(self)
        try:
            dmode = _DispatchCheck(self) if self.check_dispatch else None
            if dmode is not None:
                dmode.__enter__()
            _install_loader()
        except BaseException:
            _dispatch.disable(False)
            raise
        self._entries.append((dmode, getattr(_tls, "top", None)))
        _tls.top = self
        return self

    def disable(self) -> None:
        """Ends the innermost entry of this object (on the thread that entered it)."""
        self._disable(check=True)

    def _disable(self, check: bool) -> None:
        if not self._entries:
            raise RuntimeError("xrng.reproducible.disable(): the mode is not enabled")
        if getattr(_tls, "top", None) is not self:
            raise RuntimeError("xrng.reproducible.disable(): another mode entered later on this thread is "
                               "still active, or this thread did not enter this one")
        dmode, previous = self._entries.pop()
        from . import _dispatch
        try:
            _tls.top = previous
            if dmode is not None:
                dmode.__exit__(None, None, None)
        finally:
            try:
                _uninstall_loader()
                _dispatch.disable(check)
            finally:
                _unclaim()

    @property
    def enabled(self) -> bool:
        """Whether this object has an active entry."""
        return bool(self._entries)

    def __call__(self, fn: Callable) -> Callable:
        """Decorator: ``fn`` runs inside the mode; every call starts the stream afresh."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper

    # ---- reporting ----
    def _report_native(self, op: str, why: str) -> None:
        """The report of the mode's kernels (called by them, with the GIL).
        A call of a thread without the mode is warned there, never raised."""
        if _owner is not None and _owner != threading.get_ident():
            warnings.warn(f"xrng.reproducible: {op} was called on {threading.current_thread().name}, which has "
                          f"no mode, while a mode is active on {_thread_name(_owner)}: drawn by torch's kernel, "
                          f"not by the mode; its values may differ between devices", ReproducibilityWarning,
                          stacklevel=2)
            return
        self._report(op, why)

    def _report(self, op: str, why: str) -> None:
        msg = f"xrng.reproducible: {op} {why}; its values may differ between devices"
        if self.strict:
            raise NotReproducibleError(msg)
        if op not in self.reported:
            self.reported[op] = why
            warnings.warn(msg, ReproducibilityWarning, stacklevel=4)
