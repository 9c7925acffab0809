"""The reproducible mode's handlers for categorical sampling and the gamma
family (issue 20). Categorical sampling:
``torch.multinomial`` and ``Tensor.multinomial``, and so everything built on
them (``torch.distributions.Categorical.sample``, ``WeightedRandomSampler``,
``transformers``' ``generate(do_sample=True)``, torchvision transforms v2
``RandomChoice``), draw :func:`xrng.multinomial` (SPEC.md section 10) from the
mode's stream: the same values on every device and thread count, following
the mode's seed. reproducible.py registers :func:`mode_entries` in its
handler table; inside a torch.compile'd region :func:`compiled_entries` draw
the same words from the same position.

Words per call (SPEC 8.2): ``2 rows num_samples`` with replacement, ``2 rows
k`` without, from the stream of the call's generator (the global stream when
it names none).

The gamma family: ``torch._standard_gamma`` (so ``torch.distributions``'
Gamma, Chi2 and StudentT, and torchvision's transforms that sample them) and
``torch._sample_dirichlet`` (Dirichlet, and Beta: transforms v2 ``MixUp`` and
``CutMix``) draw :func:`xrng.gamma` / :func:`xrng.dirichlet` (SPEC.md section
11), 64 words per element, with torch's gradients; ``torch.poisson`` (so
``torch.distributions.Poisson``) draws :func:`xrng.poisson` (section 12), and
``torch.binomial`` (``Binomial``) :func:`xrng.binomial` (section 13).
"""
from __future__ import annotations

import torch

from ._gamma import _FLOATS as _GAMMA_FLOATS, binomial as _x_binomial, dirichlet as _x_dirichlet, gamma as _x_gamma, \
    poisson as _x_poisson
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


def _h_binomial(m, args, kwargs):
    from .reproducible import _bind, _check_tensor, _Unsupported
    b = _bind("binomial", args, kwargs, ("count", "prob"), {}, ("generator",))
    c, p = b["count"], b["prob"]
    _check_tensor(c)
    _check_tensor(p)
    if c.dtype not in _GAMMA_FLOATS or p.dtype not in _GAMMA_FLOATS:
        raise _Unsupported(f"binomial of dtype {c.dtype}, {p.dtype}")
    with m._draw(b.get("generator"), "torch.binomial") as g:
        return _x_binomial(c, p, generator=g)  # refused parameters: ValueError before the draw, torch decides


def mode_entries():
    """(owner, attribute, reported name, handler) of each entry point."""
    return ((torch, "multinomial", "torch.multinomial", _h_multinomial),
            (torch.Tensor, "multinomial", "Tensor.multinomial", _h_multinomial),
            (torch, "_standard_gamma", "torch._standard_gamma", _h_gamma_family("_standard_gamma", _x_gamma)),
            (torch, "_sample_dirichlet", "torch._sample_dirichlet",
             _h_gamma_family("_sample_dirichlet", _x_dirichlet)),
            (torch, "poisson", "torch.poisson", _h_gamma_family("poisson", _x_poisson)),
            (torch, "binomial", "torch.binomial", _h_binomial))


# ---- inside torch.compile'd regions (reproducible.py's _COMPILED) ------------------------------------------
# The same words from the same position as the eager handlers above: the
# position comes from xrng::mode_take at run time (the call's generator= by
# number), the draw from the xrng operator. Arguments xrng would refuse at
# trace time (dtype, shape) are reported, as eagerly; values it refuses (a
# negative weight, an alpha <= 0) raise when the compiled code runs, where
# eagerly torch would decide.
def _c_multinomial(m, args, kwargs):
    from ._sampling import _words
    from .reproducible import _bind, _c_real, _take, _Unsupported
    b = _bind("multinomial", args, kwargs, ("input", "num_samples", "replacement"), {"replacement": False},
              ("out", "generator"))  # generator=None (a generator: _call's, by number)
    x, ns, repl = b["input"], b["num_samples"], bool(b["replacement"])
    if b.get("out") is not None:
        raise _Unsupported("out=")
    if not isinstance(x, torch.Tensor) or x.dtype not in _FLOAT_WEIGHTS or x.dim() not in (1, 2):
        raise _Unsupported("these arguments")
    if isinstance(ns, torch.Tensor) or isinstance(ns, bool) or not isinstance(ns, int) or ns <= 0:
        raise _Unsupported("num_samples")
    k = x.shape[-1]
    rows = 1 if x.dim() == 1 else x.shape[0]
    if not repl and ns > k:
        raise _Unsupported("num_samples > categories without replacement")
    _c_real(x.device)
    pos = _take("torch.multinomial", "bits", [], [], torch.uint32, _words(rows, k, ns, repl))
    return torch.ops.xrng.categorical(x, ns, repl, pos)


def _c_gamma_family(name: str, op: str):
    def h(m, args, kwargs):
        from ._gamma import WORDS_PER_ELEMENT, _DirichletFn, _GammaFn, _PoissonFn
        from .reproducible import _bind, _c_real, _take, _Unsupported
        b = _bind(name, args, kwargs, ("input",), {}, ("generator",))  # generator=None (a generator: _call)
        x = b["input"]
        if not isinstance(x, torch.Tensor) or x.dtype not in _GAMMA_FLOATS or (op == "dirichlet" and x.dim() == 0):
            raise _Unsupported("these arguments")
        _c_real(x.device)
        pos = _take("torch." + name, "bits", [], [], torch.uint32, WORDS_PER_ELEMENT * x.numel())
        if torch.is_grad_enabled() and x.requires_grad:
            return {"gamma": _GammaFn, "dirichlet": _DirichletFn, "poisson_counts": _PoissonFn}[op].apply(x, pos)
        return getattr(torch.ops.xrng, op)(x, pos)
    return h


def _c_binomial(m, args, kwargs):
    from ._gamma import WORDS_PER_ELEMENT, _BinomialFn
    from .reproducible import _bind, _c_real, _take, _Unsupported
    b = _bind("binomial", args, kwargs, ("count", "prob"), {}, ("generator",))
    c, p = b["count"], b["prob"]
    if not isinstance(c, torch.Tensor) or not isinstance(p, torch.Tensor) or c.dtype not in _GAMMA_FLOATS \
            or p.dtype not in _GAMMA_FLOATS or c.shape != p.shape:
        raise _Unsupported("these arguments")
    _c_real(c.device)
    pos = _take("torch.binomial", "bits", [], [], torch.uint32, WORDS_PER_ELEMENT * c.numel())
    if torch.is_grad_enabled() and (c.requires_grad or p.requires_grad):
        return _BinomialFn.apply(c, p, pos)
    return torch.ops.xrng.binomial_counts(c.contiguous(), p.contiguous(), pos)


def compiled_entries() -> dict:
    """{reported name: compiled handler} for reproducible.py's _COMPILED."""
    return {"torch.multinomial": _c_multinomial, "Tensor.multinomial": _c_multinomial,
            "torch._standard_gamma": _c_gamma_family("_standard_gamma", "gamma"),
            "torch._sample_dirichlet": _c_gamma_family("_sample_dirichlet", "dirichlet"),
            "torch.poisson": _c_gamma_family("poisson", "poisson_counts"), "torch.binomial": _c_binomial}
