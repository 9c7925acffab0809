"""The reproducible mode's handlers for categorical sampling and the gamma
family (issue 20). Categorical sampling:
``torch.multinomial`` and ``Tensor.multinomial``, and so everything built on
them (``torch.distributions.Categorical.sample``, ``WeightedRandomSampler``,
``transformers``' ``generate(do_sample=True)``, torchvision transforms v2
``RandomChoice``), draw :func:`xrng.multinomial` (SPEC.md section 10) from the
mode's stream: the same values on every device and thread count, following
the mode's seed. reproducible.py registers :func:`mode_entries` in its
handler table; inside a torch.compile'd region the call is reported and run
by torch (as every handler without a compiled formulation).

Words per call (SPEC 8.2): ``2 rows num_samples`` with replacement, ``2 rows
k`` without, from the stream of the call's generator (the global stream when
it names none).

The gamma family: ``torch._standard_gamma`` (so ``torch.distributions``'
Gamma, Chi2 and StudentT, and torchvision's transforms that sample them) and
``torch._sample_dirichlet`` (Dirichlet, and Beta: transforms v2 ``MixUp`` and
``CutMix``) draw :func:`xrng.gamma` / :func:`xrng.dirichlet` (SPEC.md section
11), 64 words per element, with torch's gradients; ``torch.poisson`` (so
``torch.distributions.Poisson``) draws :func:`xrng.poisson` (section 12).
"""
from __future__ import annotations

import torch

from ._gamma import _FLOATS as _GAMMA_FLOATS, dirichlet as _x_dirichlet, gamma as _x_gamma, poisson as _x_poisson
from ._sampling import _FLOAT_WEIGHTS, multinomial as _x_multinomial


def _h_multinomial(m, args, kwargs):
    from .reproducible import _bind, _check_tensor, _Unsupported
    b = _bind("multinomial", args, kwargs, ("input", "num_samples", "replacement"), {"replacement": False},
              ("generator", "out"))
    x = b["input"]
    _check_tensor(x)  # meta tensors: torch's meta kernel
    if x.dtype not in _FLOAT_WEIGHTS:
        raise _Unsupported(f"multinomial of dtype {x.dtype}")  # torch raises its own error
    ns = b["num_samples"]
    if isinstance(ns, torch.Tensor) and ns.numel() == 1 and not ns.is_floating_point():
        ns = int(ns)
    out = b.get("out")
    if out is not None and out.dtype != torch.int64:
        raise _Unsupported(f"multinomial into out of dtype {out.dtype}")
    with m._draw(b.get("generator"), "torch.multinomial") as g:
        res = _x_multinomial(x, ns, bool(b["replacement"]), generator=g)
    if out is not None:
        if out.shape != res.shape:
            out.resize_(res.shape)
        return out.copy_(res)
    return res


def _h_gamma_family(name: str, draw):
    def h(m, args, kwargs):
        from .reproducible import _bind, _check_tensor, _Unsupported
        b = _bind(name, args, kwargs, ("input",), {}, ("generator",))
        x = b["input"]
        _check_tensor(x)  # meta tensors: torch's meta kernel
        if x.dtype not in _GAMMA_FLOATS:
            raise _Unsupported(f"{name} of dtype {x.dtype}")  # torch raises its own error
        with m._draw(b.get("generator"), "torch." + name) as g:
            return draw(x, generator=g)  # an invalid alpha: ValueError before the draw, torch decides
    return h


def mode_entries():
    """(owner, attribute, reported name, handler) of each entry point."""
    return ((torch, "multinomial", "torch.multinomial", _h_multinomial),
            (torch.Tensor, "multinomial", "Tensor.multinomial", _h_multinomial),
            (torch, "_standard_gamma", "torch._standard_gamma", _h_gamma_family("_standard_gamma", _x_gamma)),
            (torch, "_sample_dirichlet", "torch._sample_dirichlet",
             _h_gamma_family("_sample_dirichlet", _x_dirichlet)),
            (torch, "poisson", "torch.poisson", _h_gamma_family("poisson", _x_poisson)))
