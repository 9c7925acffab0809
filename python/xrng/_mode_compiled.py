"""The reproducible mode and compiled code (``torch.compile``, export,
AOTInductor): compiled programs call torch's random aten operators, which the
mode's kernels serve, so compiled code draws what eager code draws.

While a mode is active:

* Inductor's ``fallback_random`` is on: Inductor otherwise replaces aten's
  random ops by its own RNG (its own values); with it, compiled code calls the
  aten operators in eager order (compiled == eager). A function compiled
  before the mode started keeps the code Inductor made then (Dynamo's cache
  does not know the mode): compile inside the mode. AOTInductor packages do
  the same when packaged with ``fallback_random = True``.
* ``torch.bernoulli(p)`` (``aten.bernoulli.default``, a tensor of
  probabilities) is the one random operator Inductor still decomposes with
  ``fallback_random``: into ``torch.rand(p.shape, dtype=float32) < p``, which
  draws a float32 uniform per element where torch's CPU kernel draws a
  float64 one for a float64 ``p`` (so plain torch's compiled values differ
  from its eager ones, and so did the torch-cpu streams'). While a mode is
  active that entry of Inductor's decomposition table is ATen's own
  formulation instead (``empty_like(p)`` filled by ``bernoulli_(p)``), so
  compiled code calls the operator the mode serves.
* ``torch.compiler.config.cache_key_tag`` (part of the keys of torch's
  compile caches, on disk too) ends in ``|xrng.reproducible``: Inductor's
  caches do not key on its decomposition table, so without the tag a graph
  compiled with ``fallback_random`` outside the mode (or under an xrng
  before this swap) would be reused inside it, and one compiled inside it
  outside.
* served operators torch has no Meta kernel for (``_sample_dirichlet``,
  ``binomial``) get one: without it FakeTensor, which traces for
  ``torch.compile``, runs the CPU kernel (xrng's) on zeros, which refuses
  them.

Inductor is not imported by an entry: importing ``torch._inductor`` imports
Dynamo, seconds the first time. Where a module of it is not loaded yet, the
setting is made when it is imported inside the mode (``_on_import``: before
anything is compiled); the exit cancels what has not run.
"""
from __future__ import annotations

import sys

import torch

from . import _on_import

_TAG = "|xrng.reproducible"
_CONFIG = "torch._inductor.config"
_DECOMP = "torch._inductor.decomposition"
_DEFERRED = object()  # saved value of a setting whose module is not loaded yet
_ABSENT = object()  # the table had no entry for the operator

_meta_libs: list = []  # per active entry: the Library of the Meta kernels (or None)
# The outermost entry's saved settings ({module name: value before the mode,
# or _DEFERRED}); empty outside the mode. Inner entries change nothing.
_saved: dict = {}


def _bernoulli_as_eager(self, *, generator=None):
    """ATen's ``bernoulli(p)``: a contiguous tensor like ``p`` filled by
    ``bernoulli_(p)``, in its functional form (Inductor decomposes after
    functionalization)."""
    out = torch.empty_like(self, memory_format=torch.contiguous_format)
    return torch.ops.aten.bernoulli.Tensor(out, self, generator=generator)


def _attribute(name, new):
    """(apply, restore) of a module attribute: apply sets it to new(old) and
    returns old (_ABSENT, and nothing set, where the module has none: a torch
    before torch.compiler.config.cache_key_tag)."""
    def apply(module) -> object:
        old = getattr(module, name, _ABSENT)
        if old is not _ABSENT:
            setattr(module, name, new(old))
        return old

    def restore(module, old) -> None:
        if old is not _ABSENT:
            setattr(module, name, old)
    return apply, restore


def _set_bernoulli(decomposition) -> object:
    table = getattr(decomposition, "decompositions", None)
    if not isinstance(table, dict):  # another torch's Inductor: nothing to replace
        return _ABSENT
    op = torch.ops.aten.bernoulli.default
    old = table.get(op, _ABSENT)
    table[op] = _bernoulli_as_eager
    return old


def _restore_bernoulli(decomposition, old) -> None:
    table = getattr(decomposition, "decompositions", None)
    if not isinstance(table, dict):
        return
    op = torch.ops.aten.bernoulli.default
    if old is _ABSENT:
        table.pop(op, None)
    else:
        table[op] = old


# {module: (apply, restore)}; torch.compiler.config is imported with torch
_SETTINGS = {"torch.compiler.config": _attribute("cache_key_tag", lambda old: old + _TAG),
             _CONFIG: _attribute("fallback_random", lambda old: True),
             _DECOMP: (_set_bernoulli, _restore_bernoulli)}


def _deferred(name):
    """The callback that applies ``name``'s setting when it is imported inside the mode."""
    def apply(module):
        if _saved.get(name) is _DEFERRED:
            _saved[name] = _SETTINGS[name][0](module)
    return apply


_callbacks = {name: _deferred(name) for name in _SETTINGS}


def install() -> None:
    """At each entry."""
    if _meta_libs:  # an inner entry: the outermost one installed everything
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
    for name, (apply, _) in _SETTINGS.items():
        module = sys.modules.get(name)
        if module is not None:
            _saved[name] = apply(module)
        else:
            _saved[name] = _DEFERRED
            _on_import.when_imported(name, _callbacks[name])


def uninstall() -> None:
    """At each exit: the outermost one restores torch's settings."""
    lib = _meta_libs.pop() if _meta_libs else None
    if lib is not None:
        lib._destroy()
    if _meta_libs:
        return
    for name, (_, restore) in _SETTINGS.items():
        old = _saved.pop(name, _DEFERRED)
        if old is _DEFERRED:
            _on_import.cancel(name, _callbacks[name])
        elif name in sys.modules:
            restore(sys.modules[name], old)
