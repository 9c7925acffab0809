"""The reproducible mode's engine: xrng's kernels serve torch's random aten
operators (issue 25; the mode's only engine since the entry-point engine was
removed).

While a mode is active, xrng's C++ kernels serve torch's
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

Streams (SPEC.md 8.1): the global stream
``Key(seed).fold_in(GLOBAL_TAG)`` for draws without a generator (or with the
default CPU generator), ``Key(g.initial_seed())`` for a ``torch.Generator``
``g``; re-seeds, restores (``fork_rng``, ``set_rng_state``) and copied states
are recognised by the generator's state, which is marked after every draw.

With ``stream="torch-cpu-x86"``, ``"torch-cpu-scalar"``, ``"torch-cpu-arm"`` or ``"torch-cuda"``
(:func:`stream_arg`; issue 26, SPEC.md 8.5, ``bindings/mode/torch_streams.cpp``)
the same kernels give torch's own generators' values instead: the torch-cpu
streams read and write torch's CPU generator itself (no marks, no records),
torch-cuda keeps a modelled CUDA generator (seed, Philox offset) in the
records above. Ops those streams do not reproduce are reported and drawn by
torch's own kernel.

A draw is defined at the aten operator, so ``F.dropout`` on the CPU draws
``bernoulli_(1 - p)`` (keep where the word is below the threshold of
``1 - p``) and torch's ``div_`` and ``mul`` make the output; ``erfinv`` is
torch's (the removed entry-point engine had its own: SPEC.md 8.2, 8.3, and
8.4's revision). The kernels are process-wide and check the calling thread: a thread
that did not enter the mode (and is not running one of its backward passes)
gets torch's own kernel, warned. Not covered (reported with
``check_dispatch``): cuDNN RNN dropout, ``_fused_dropout``;
``_fused_sdp_choice`` makes attention with dropout take its math formulation.

The modules of the mode, by job: this one (the table, :func:`ops`, entering
and leaving), ``bindings/mode/`` (C++: ``table.h`` the one table,
``kernels.cpp`` the kernels and their installation, ``streams.cpp``
generators and restore, ``blocks.cpp`` DTensor shard blocks, ``draws.cpp``
the draws, ``torch_streams.cpp`` torch's own generators as the stream),
``_mode_compiled`` (compiled code: Inductor's ``fallback_random``, Meta
kernels), ``_mode_distributed`` (DTensor: the tracker and the random ops'
handler), ``data`` (DataLoader workers), ``reproducible`` (the public class,
reports, threads).
"""
from __future__ import annotations

import sys

import torch

from . import _C

__all__ = ["ops"]


def ops() -> list:
    """The aten operators the mode's kernels serve: ``[(name, draw, words)]``."""
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


# ==== torch's own generators as the mode's stream (issue 26; bindings/mode/torch_streams.h) ====
_TORCH_STREAMS = {"torch-cpu-x86": 1, "torch-cpu-scalar": 2, "torch-cuda": 3, "torch-cpu-arm": 4,
                  "torch-cpu-arm-sve256": 5, "torch-cpu-x86-windows": 6, "torch-cpu-x86-intel": 7,
                  "torch-cpu-x86-intel-avx512": 8, "torch-cpu-scalar-intel": 9}


def stream_arg(stream, engine: str, sm_count=None, threads_per_sm=None, profile=None):
    """``reproducible(stream=...)``: an xrng stream version (1 or 2, None: the
    newest) or one of torch's own generators: ``"torch-cpu-x86"``,
    ``"torch-cpu-scalar"``, ``"torch-cpu-arm"``, ``"torch-cpu-arm-sve256"``,
    ``"torch-cpu-x86-windows"``, ``"torch-cpu-x86-intel"``, ``"torch-cpu-x86-intel-avx512"``,
    ``"torch-cpu-scalar-intel"`` (each with or
    without ``"@<torch release>"``, ``"torch-cpu-x86@2.4"``:
    that release's draws where releases differ, :func:`xrng.torch_cpu`'s
    ``release=``), ``"torch-cuda"`` (with ``sm_count=`` and
    ``threads_per_sm=``, or ``profile=``: :data:`xrng.torch_cuda` profiles).
    Returns what ``mode.stream`` records: the version, the torch-cpu stream's
    name as given, or ``"torch-cuda:<sm_count>:<threads_per_sm>"`` (accepted back as
    ``stream=``, so a copy of the mode, a DataLoader worker's, is the same)."""
    gpu = (sm_count, threads_per_sm, profile)
    if not isinstance(stream, str) or not stream.startswith("torch-"):  # (other strings: _check_stream's TypeError)
        if any(v is not None for v in gpu):
            raise TypeError("reproducible: sm_count=, threads_per_sm= and profile= go with stream='torch-cuda'")
        r = _mode_module()
        return r._newest_stream if stream is None else r._check_stream(stream)
    name, _, rest = stream.partition(":")
    name, at, release = name.partition("@")
    if name not in _TORCH_STREAMS or (rest and name != "torch-cuda") or (at and name == "torch-cuda"):
        cpu = ", ".join(repr(n) for n in _TORCH_STREAMS if n != "torch-cuda")
        raise ValueError(f"stream must be 1, 2, {cpu} (each with or without '@<torch release>') or 'torch-cuda', "
                         f"got {stream!r}")
    if engine != "dispatch":
        raise ValueError(f"stream={stream!r} needs engine='dispatch'")
    if name != "torch-cuda":
        if any(v is not None for v in gpu):
            raise TypeError(f"reproducible: sm_count=, threads_per_sm= and profile= go with stream='torch-cuda', "
                            f"not {stream!r}")
        if at:
            from ._torch_cpu import release_number
            release_number(release)  # (ValueError for a form or release it does not take)
        return stream
    if rest:  # the recorded form
        parts = rest.split(":")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"stream: 'torch-cuda:<sm_count>:<threads_per_sm>', got {stream!r}")
        if any(v is not None for v in gpu):
            raise TypeError(f"reproducible: stream={stream!r} names the GPU already")
        sm_count, threads_per_sm = int(parts[0]), int(parts[1])
    from ._torch_cuda import TorchCUDAGenerator
    g = TorchCUDAGenerator(0, sm_count, threads_per_sm, profile)  # its checks and profiles
    return f"torch-cuda:{g.sm_count}:{g.threads_per_sm}"


def _torch_args(mode) -> tuple:
    """(torch, sm_count, threads_per_sm, release) of _C._mode_begin for mode.stream."""
    if not isinstance(mode.stream, str):
        return 0, 0, 2048, 0
    name, _, rest = mode.stream.partition(":")
    if name == "torch-cuda":
        sm, tps = rest.split(":")
        return 3, int(sm), int(tps), 0
    name, at, release = name.partition("@")
    from ._torch_cpu import release_number
    return _TORCH_STREAMS[name], 0, 2048, release_number(release if at else None)


def enable(mode) -> None:
    """Starts an entry of `mode` (an xrng.reproducible)."""
    from . import _mode_compiled, _mode_distributed
    r = _mode_module()
    seed = torch.initial_seed() if mode.seed is None else mode.seed
    ts, sm, tps, rel = _torch_args(mode)
    _C._mode_begin(seed % 2**64, r.GLOBAL_TAG, 2 if ts else mode.stream, mode._report_native, torch=ts,
                   seeded=mode.seed is not None, sm_count=sm, threads_per_sm=tps, release=rel)
    try:
        _mode_distributed.install()
        try:
            _mode_compiled.install()
        except BaseException:
            _mode_distributed.uninstall()
            raise
    except BaseException:
        _C._mode_end(False)
        raise


def disable(check: bool) -> None:
    """Ends the innermost entry."""
    from . import _mode_compiled, _mode_distributed
    try:
        _mode_distributed.uninstall()
        _mode_compiled.uninstall()
    finally:
        _C._mode_end(check)


def global_position():
    """The global stream's position as an xrng.Generator."""
    from . import Generator
    seed, subseq, offset, stream = _C._mode_global_position()
    return Generator(seed, subseq, offset, stream=stream)


def report_check(owner, func, args, kwargs) -> None:
    """The dispatch check's rule: a random aten operator that
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
