"""Fake (shape-only) kernels of xrng's torch operators (bindings/ops.cpp), so
FakeTensor tracing (torch.compile, torch.export) and the Meta device see
shapes, dtypes and devices without running a draw. The C++ library names this
module (``m.set_python_module("xrng._meta")``); ``import xrng`` imports it.

A position (and a Generator's state) is 4 int64 elements
``[seed, subseq, offset, stream]``; ``take_`` returns the position a draw
starts at and advances the state in place (its fake returns a new 4-element
tensor beside the state).
"""
import torch


@torch.library.register_fake("xrng::take_")
def _take_(state, dist, reals, ints, dtype, numel):
    return torch.empty_like(state)


@torch.library.register_fake("xrng::draw")
def _draw(size, dist, reals, ints, position, dtype, device):
    return torch.empty(size, dtype=dtype, device=device)


@torch.library.register_fake("xrng::draw_")
def _draw_(out, dist, reals, ints, position):
    return out


@torch.library.register_fake("xrng::dropout")
def _dropout(input, p, position):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)


@torch.library.register_fake("xrng::perm_shard")
def _perm_shard(n, position, rank, world, start, count, dtype, device):
    return torch.empty((count,), dtype=dtype, device=device)


# ---- categorical sampling (bindings/multinomial_ops.cpp; issue 20) ----
@torch.library.register_fake("xrng::categorical")
def _multinomial(weights, num_samples, replacement, position):
    if weights.dim() not in (1, 2):
        raise ValueError(f"multinomial: weights must be 1 or 2 dim (got {weights.dim()})")
    shape = (num_samples,) if weights.dim() == 1 else (weights.shape[0], num_samples)
    return torch.empty(shape, dtype=torch.int64, device=weights.device)


# ---- the gamma family (bindings/gamma_ops.cpp; issue 20) ----
@torch.library.register_fake("xrng::gamma")
def _gamma(alpha, position):
    return torch.empty(alpha.shape, dtype=alpha.dtype, device=alpha.device)


@torch.library.register_fake("xrng::dirichlet")
def _dirichlet(alpha, position):
    if alpha.dim() == 0:
        raise ValueError("dirichlet: alpha must have at least one dimension (the categories are its last)")
    return torch.empty(alpha.shape, dtype=alpha.dtype, device=alpha.device)


@torch.library.register_fake("xrng::poisson_counts")
def _poisson_counts(rate, position):
    return torch.empty(rate.shape, dtype=rate.dtype, device=rate.device)


@torch.library.register_fake("xrng::binomial_counts")
def _binomial_counts(count, prob, position):
    if count.shape != prob.shape:
        raise ValueError("binomial: count and prob must have the same shape (xrng.binomial broadcasts them)")
    return torch.empty(count.shape, dtype=count.dtype, device=count.device)
