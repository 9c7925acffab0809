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
* served operators torch has no Meta kernel for (``_sample_dirichlet``,
  ``binomial``) get one: without it FakeTensor, which traces for
  ``torch.compile``, runs the CPU kernel (xrng's) on zeros, which refuses
  them.
"""
from __future__ import annotations

import torch

_saved_fallback: list = []  # Inductor's fallback_random before the outermost entry, per active entry
_meta_libs: list = []  # per active entry: the Library of the Meta kernels (or None)


def install() -> None:
    """At each entry."""
    if _meta_libs:  # an inner entry: the outermost one installed everything
        _meta_libs.append(None)
        _saved_fallback.append(None)
        return
    lib = None
    for name, fn in (("_sample_dirichlet", lambda self, generator=None: torch.empty_like(self)),
                     ("binomial", lambda count, prob, generator=None: torch.empty_like(count))):
        if not torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "Meta"):
            if lib is None:
                lib = torch.library.Library("aten", "IMPL")
            lib.impl(name, fn, "Meta")
    _meta_libs.append(lib)
    try:
        import torch._inductor.config as ic
        _saved_fallback.append(ic.fallback_random)
        ic.fallback_random = True
    except ImportError:  # a torch without Inductor
        _saved_fallback.append(None)


def uninstall() -> None:
    """At each exit: the outermost one restores torch's settings."""
    lib = _meta_libs.pop() if _meta_libs else None
    if lib is not None:
        lib._destroy()
    old = _saved_fallback.pop() if _saved_fallback else None
    if not _meta_libs and old is not None:
        import torch._inductor.config as ic
        ic.fallback_random = old
