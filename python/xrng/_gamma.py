"""The gamma family, Poisson and binomial (issue 20; SPEC.md sections 11 to
13): :func:`xrng.gamma`, :func:`xrng.dirichlet`, :func:`xrng.poisson` and
:func:`xrng.binomial`, the Python side of the operators ``torch.ops.xrng.gamma``,
``dirichlet``, ``poisson_counts`` and ``binomial_counts`` (bindings/gamma_ops.cpp). Argument handling and
torch's reparameterised gradients only: every value comes from the operators.

Under the reproducible mode the same draws serve ``torch._standard_gamma``
(``torch.distributions``' Gamma, Chi2 and StudentT), ``torch._sample_dirichlet``
(Dirichlet, Beta), ``torch.poisson`` and ``torch.binomial``: the mode's kernels
(``bindings/mode/``, SPEC.md 8.4).
"""
from __future__ import annotations

from typing import Optional

import torch

from . import _C, _TORCH_GENS, _position, _source, _torch_cpu, _torch_refusal
from ._sampling import _into, _release_refused

_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_HALF = (torch.float16, torch.bfloat16)
#: stream words per element (the registry's XRNG_TENSOR_DRAWS rows gamma and dirichlet)
WORDS_PER_ELEMENT = _C.registry()["tensor_draws"]["gamma"]["words"]


class _GammaFn(torch.autograd.Function):
    """The draw with torch's gradient of _standard_gamma: d sample / d alpha =
    _standard_gamma_grad(alpha, sample) (implicit reparameterisation).
    ``draw(alpha)`` gives the sample (xrng's operator, or torch's CPU stream)."""

    @staticmethod
    def forward(ctx, alpha, draw):
        out = draw(alpha)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, out = ctx.saved_tensors
        if alpha.dtype in _HALF:  # torch's CPU kernel has no float16 / bfloat16 form: computed in float32
            return grad * torch._standard_gamma_grad(alpha.float(), out.float()).to(alpha.dtype), None
        return grad * torch._standard_gamma_grad(alpha, out), None


class _DirichletFn(torch.autograd.Function):
    """The draw with torch's gradient of the Dirichlet sample (as
    torch.distributions.dirichlet._Dirichlet)."""

    @staticmethod
    def forward(ctx, alpha, draw):
        x = draw(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        dt = alpha.dtype
        if dt in _HALF:  # as _GammaFn: torch's kernel in float32
            x, alpha = x.float(), alpha.float()
        total = alpha.sum(-1, True).expand_as(alpha)
        g = torch._dirichlet_grad(x, alpha, total).to(dt)
        x = x.to(dt)
        return g * (grad - (x * grad).sum(-1, True)), None


class _PoissonFn(torch.autograd.Function):
    """The draw with torch's gradient of poisson: zero (derivatives.yaml), so
    a rate that requires grad gets a graph, as torch.poisson's output has."""

    @staticmethod
    def forward(ctx, rate, draw):
        return draw(rate)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros_like(grad), None


# The common call with a torch_cpu generator in one C++ call (bindings/torch_cpu_fast.cpp): the
# same draw as _torch_cpu.tensor_param, or NotImplemented where the general path must check or report.
_TCG = _torch_cpu.TorchCPUGenerator
_param = _C._torch_cpu_param

_FNS = {"gamma": _GammaFn, "dirichlet": _DirichletFn, "poisson": _PoissonFn}
_OPS = {"gamma": "gamma", "dirichlet": "dirichlet", "poisson": "poisson_counts"}


def _draw(what: str, alpha, seed, subseq, offset, generator, out):
    torch_cpu = isinstance(generator, _torch_cpu.TorchCPUGenerator)
    if isinstance(generator, _TORCH_GENS) and not torch_cpu:
        raise NotImplementedError(_torch_refusal(generator, what))
    name = "rate" if what == "poisson" else "alpha"
    if not isinstance(alpha, torch.Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(alpha).__name__}")
    if alpha.dtype not in _FLOATS:
        raise ValueError(f"{what}: {name} must be float16, bfloat16, float32 or float64, got {alpha.dtype}")
    if what == "dirichlet" and alpha.dim() == 0:
        raise ValueError("dirichlet: alpha must have at least one dimension (the categories are its last)")
    if out is not None and (out.dtype != alpha.dtype or out.device != alpha.device):
        raise ValueError(f"{what}: out must have {name}'s dtype and device ({alpha.dtype}, {alpha.device}), "
                         f"got {out.dtype}, {out.device}")
    grad = alpha.requires_grad and torch.is_grad_enabled()
    if torch_cpu:  # torch's CPU kernel on torch's CPU stream (_torch_cpu.tensor_param), torch's gradient
        if seed is not None or subseq or offset:
            raise TypeError(f"{what}: seed/subseq/offset do not apply to a torch_cpu generator")
        draw = lambda a: _torch_cpu.tensor_param(generator, what, a)  # noqa: E731
        return _into(out, _FNS[what].apply(alpha, draw) if grad else draw(alpha))
    words = WORDS_PER_ELEMENT * alpha.numel()
    if words >= 2**63:
        raise ValueError(f"{what}: the draw needs {words} stream words (at most 2**63 - 1 per draw)")
    src = _source(seed, subseq, offset, generator)
    pos = _position(src, "bits", [], [], torch.uint32, words, 0)
    op = getattr(torch.ops.xrng, _OPS[what])
    try:
        res = _FNS[what].apply(alpha, lambda a: op(a, pos)) if grad else op(alpha, pos)
    except (ValueError, RuntimeError):
        _release_refused(src, pos, words)
        raise
    return _into(out, res)


def gamma(alpha: torch.Tensor, *, seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator=None,
          out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Standard gamma variates (shape ``alpha``, scale 1), like
    ``torch._standard_gamma(alpha)`` (the draw of
    ``torch.distributions.Gamma(alpha, rate).rsample()``, times ``1 / rate``),
    the same values on every device and thread count.

    ``alpha`` is a tensor of float16, bfloat16, float32 or float64 values,
    each finite and > 0, on any device; the result has its shape, dtype and
    device. SPEC.md section 11 defines every value: element ``e`` (row-major)
    reads the 64 stream words ``offset + 64 e``: Marsaglia and Tsang's method
    in binary64, up to 15 attempts of 4 words (a normal from two words by
    Box-Muller, the acceptance uniform from one), words 60-61 for the boost
    ``u ** (1 / alpha)`` of ``alpha < 1``; the result rounded to the dtype,
    at least its smallest normal number (as torch's). If all 15 attempts are
    rejected (probability below 2.3e-20) the value is ``alpha - 1/3``: a
    bias bounded by that probability.

    The draw consumes ``64 alpha.numel()`` words; a generator advances by
    that many (not at all when the draw is refused). ``seed`` / ``subseq`` /
    ``offset`` or ``generator`` (an :class:`xrng.Generator`) say where it
    starts, as for every xrng draw; neither: :data:`xrng.default_generator`.
    Differentiable in ``alpha`` (torch's ``_standard_gamma_grad``).

    ``generator`` may also be an :func:`xrng.torch_cpu` generator: then the
    values and the generator's advance are those of torch's CPU kernel with
    that torch generator (float32 and float64, as torch's CPU kernel; SPEC.md
    sections 14.4 and 14.5), on any host, and ``seed`` / ``subseq`` / ``offset`` do not
    apply (TypeError).

    Raises ``ValueError`` (one line, before anything is written) for an
    alpha that is not finite and > 0 or of another dtype, ``TypeError`` for a
    non-tensor.
    """
    if generator.__class__ is _TCG and out is None and seed is None and not subseq and not offset:
        r = _param(generator, "gamma", alpha)
        if r is not NotImplemented:
            return r
    return _draw("gamma", alpha, seed, subseq, offset, generator, out)


def dirichlet(alpha: torch.Tensor, *, seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator=None,
              out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Dirichlet samples, like ``torch._sample_dirichlet(alpha)`` (the draw of
    ``torch.distributions.Dirichlet(alpha).sample()`` and, for ``[a, b]``
    rows, of ``Beta(a, b)``), the same values on every device.

    ``alpha`` is ``[..., k]`` (at least one dimension; float16, bfloat16,
    float32 or float64; every value finite and > 0); the result has its
    shape, dtype and device. Each row (the last dimension) is the
    :func:`gamma` variates of the same words divided by their left-to-right
    binary64 sum (SPEC.md section 11.4), rounded to the dtype and clamped to
    [smallest normal, largest value below 1] as torch's. Words, positions,
    errors: as :func:`gamma`. Differentiable in ``alpha`` (torch's
    ``_dirichlet_grad``, as ``torch.distributions.Dirichlet.rsample``).

    ``generator`` may also be an :func:`xrng.torch_cpu` generator: then the
    values and the generator's advance are those of torch's CPU kernel with
    that torch generator (float32 and float64, as torch's CPU kernel; SPEC.md
    sections 14.4 and 14.5), on any host, and ``seed`` / ``subseq`` / ``offset`` do not
    apply (TypeError).
    """
    if generator.__class__ is _TCG and out is None and seed is None and not subseq and not offset:
        r = _param(generator, "dirichlet", alpha)
        if r is not NotImplemented:
            return r
    return _draw("dirichlet", alpha, seed, subseq, offset, generator, out)


def poisson(rate: torch.Tensor, *, seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator=None,
            out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Poisson counts, like :func:`torch.poisson` (the draw of
    ``torch.distributions.Poisson(rate).sample()``), the same values on every
    device and thread count.

    ``rate`` is a tensor of float16, bfloat16, float32 or float64 values, each
    in ``[0, 2**32]``, on any device; the result has its shape, dtype and
    device (the counts as values of the dtype). SPEC.md section 12 defines
    every value: element ``e`` (row-major) reads the 64 stream words
    ``offset + 64 e``: below rate 10, inversion by sequential search in
    binary64 with one 52-bit uniform; from 10, Hormann's transformed rejection
    (PTRS) with up to 31 attempts of 2 words; if all are rejected
    (probability below 2.2e-19) the count is ``floor(rate)``.

    Words, positions and generators as :func:`gamma`. The gradient with
    respect to ``rate`` is zero, as torch's. Raises ``ValueError`` (one line, before anything is written)
    for a rate that is negative, NaN or above ``2**32`` (where the
    rejection test would lose its accuracy) or of another dtype.

    ``generator`` may also be an :func:`xrng.torch_cpu` generator: then the
    values and the generator's advance are those of torch's CPU kernel with
    that torch generator (float32 and float64, as torch's CPU kernel; SPEC.md
    sections 14.4 and 14.5), on any host, and ``seed`` / ``subseq`` / ``offset`` do not
    apply (TypeError).
    """
    if generator.__class__ is _TCG and out is None and seed is None and not subseq and not offset:
        r = _param(generator, "poisson", rate)
        if r is not NotImplemented:
            return r
    return _draw("poisson", rate, seed, subseq, offset, generator, out)


class _BinomialFn(torch.autograd.Function):
    """The draw with torch's gradient of binomial: zero for count and prob."""

    @staticmethod
    def forward(ctx, count, prob, draw):
        return draw(count, prob)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros_like(grad), torch.zeros_like(grad), None


def binomial(count: torch.Tensor, prob: torch.Tensor, *, seed: Optional[int] = None, subseq: int = 0,
             offset: int = 0, generator=None, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Binomial counts, like :func:`torch.binomial` (the draw of
    ``torch.distributions.Binomial(count, probs).sample()``), the same values on
    every device and thread count.

    ``count`` and ``prob`` are tensors of float16, bfloat16, float32 or
    float64 values (broadcast together; every count an integer in
    ``[0, 2**32]``, every prob in ``[0, 1]``), on one device; the result has
    their broadcast shape, ``count``'s dtype and device. SPEC.md section 13
    defines every value: element ``e`` (row-major) reads the 64 stream words
    ``offset + 64 e``; with ``q = min(p, 1 - p)``, below ``n q = 10``
    inversion by sequential search in binary64 with one 52-bit uniform, from
    10 Hormann's BTRS rejection with up to 31 attempts of 2 words (if all are
    rejected, probability below 6.2e-17, the count is the mode
    ``floor((n + 1) q)``); the draw for ``p > 1/2`` is ``n`` minus that for
    ``1 - p``.

    Words, positions and generators as :func:`gamma`. The gradients are
    zero, as torch's. Raises ``ValueError`` (one line, before anything is
    written) for a count that is not an integer in ``[0, 2**32]``, a prob
    outside ``[0, 1]`` or NaN, another dtype, shapes that do not broadcast,
    and ``TypeError`` for a non-tensor.

    ``generator`` may also be an :func:`xrng.torch_cpu` generator: then the
    values and the generator's advance are those of torch's CPU kernel with
    that torch generator (float32 and float64, as torch's CPU kernel; SPEC.md
    sections 14.4 and 14.5), on any host, and ``seed`` / ``subseq`` / ``offset`` do not
    apply (TypeError).
    """
    if generator.__class__ is _TCG and out is None and seed is None and not subseq and not offset:
        r = _param(generator, "binomial", count, prob)
        if r is not NotImplemented:
            return r
    torch_cpu = isinstance(generator, _torch_cpu.TorchCPUGenerator)
    if isinstance(generator, _TORCH_GENS) and not torch_cpu:
        raise NotImplementedError(_torch_refusal(generator, "binomial"))
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"binomial: {name} must be a Tensor, got {type(t).__name__}")
        if t.dtype not in _FLOATS:
            raise ValueError(f"binomial: {name} must be float16, bfloat16, float32 or float64, got {t.dtype}")
    if count.device != prob.device:
        raise ValueError(f"binomial: count and prob must be on one device, got {count.device} and {prob.device}")
    if out is not None and (out.dtype != count.dtype or out.device != count.device):
        raise ValueError(f"binomial: out must have count's dtype and device ({count.dtype}, {count.device}), "
                         f"got {out.dtype}, {out.device}")
    if count.shape == prob.shape:
        c, p = count, prob
    else:
        try:
            c, p = torch.broadcast_tensors(count, prob)
        except RuntimeError as e:
            raise ValueError(f"binomial: count {tuple(count.shape)} and prob {tuple(prob.shape)} do not broadcast") \
                from None
    c, p = c.contiguous(), p.contiguous()
    grad = (c.requires_grad or p.requires_grad) and torch.is_grad_enabled()
    if torch_cpu:  # torch's CPU kernel on torch's CPU stream (_torch_cpu.tensor_param)
        if seed is not None or subseq or offset:
            raise TypeError("binomial: seed/subseq/offset do not apply to a torch_cpu generator")
        draw = lambda a, b: _torch_cpu.tensor_param(generator, "binomial", a, b)  # noqa: E731
        return _into(out, _BinomialFn.apply(c, p, draw) if grad else draw(c, p))
    words = WORDS_PER_ELEMENT * c.numel()
    if words >= 2**63:
        raise ValueError(f"binomial: the draw needs {words} stream words (at most 2**63 - 1 per draw)")
    src = _source(seed, subseq, offset, generator)
    pos = _position(src, "bits", [], [], torch.uint32, words, 0)
    try:
        op = torch.ops.xrng.binomial_counts
        res = _BinomialFn.apply(c, p, lambda a, b: op(a, b, pos)) if grad else op(c, p, pos)
    except (ValueError, RuntimeError):
        _release_refused(src, pos, words)
        raise
    return _into(out, res)
