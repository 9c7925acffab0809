"""Categorical sampling (issue 20; SPEC.md section 10): :func:`xrng.multinomial`,
the Python side of the operator ``torch.ops.xrng.categorical``
(bindings/multinomial_ops.cpp). Argument handling only: every value comes
from the operator."""
from __future__ import annotations

import numbers
from typing import Optional

import torch

from . import _C, _bits64, _position, _source, _torch_cpu, _torch_cuda, _traced, _u

_FLOAT_WEIGHTS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# words per unit (a sample with replacement, a category without): the registry's XRNG_TENSOR_DRAWS
_UNIT_WORDS = {name: info["words"] for name, info in _C.registry()["tensor_draws"].items()}


def _words(rows: int, k: int, num_samples: int, replacement: bool) -> int:
    """The stream words the draw consumes (SPEC 10.1)."""
    if replacement:
        return _UNIT_WORDS["multinomial_replacement"] * rows * num_samples
    return _UNIT_WORDS["multinomial"] * rows * k


def _release_refused(src, pos: torch.Tensor, words: int) -> None:
    """After the operator refused a draw: a generator's state tensor goes back to
    where the draw started (unless something drew since), as if nothing was taken."""
    if isinstance(src, torch.Tensor) and not _traced() and src.device.type == "cpu":
        before = _u(int(pos[2]))
        if _u(int(src[2])) == (before + words) % 2**64:
            src[2] = _bits64(before)


def _into(out: Optional[torch.Tensor], res: torch.Tensor) -> torch.Tensor:
    """``res``, or ``out`` resized to it and holding it (the draws' ``out=``)."""
    if out is None:
        return res
    if out.shape != res.shape:
        out.resize_(res.shape)
    return out.copy_(res)


def multinomial(input: torch.Tensor, num_samples: int, replacement: bool = False, *,
                seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator=None,
                out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Category indices drawn from the rows of ``input``, like :func:`torch.multinomial`,
    the same values on every device and thread count.

    ``input`` is ``[k]`` or ``[rows, k]`` non-negative weights (float16,
    bfloat16, float32 or float64, any device; they need not sum to 1); the
    result is int64 ``[num_samples]`` or ``[rows, num_samples]`` on
    ``input``'s device. SPEC.md section 10 defines every value:

    * ``replacement=True``: sample ``(r, j)`` reads the two stream words
      ``offset + 2 (r num_samples + j)``, forms ``u`` with 52 bits and picks
      the first category ``i`` with ``u * T < c_i``, where ``c`` is the row's
      left-to-right binary64 cumulative sum of its weights (``T`` its last
      element). Zero weights are never drawn.
    * ``replacement=False``: category ``(r, i)`` reads the two words
      ``offset + 2 (r k + i)``, gives ``E = -ln u`` (xrng's binary64 log)
      and the key ``E / w_i``; the row's samples are the ``num_samples``
      smallest keys in increasing order (an exponential race, which is
      sequential sampling without replacement), compared exactly; zero
      weights come last, by index.

    A draw consumes ``2 rows num_samples`` words with replacement and
    ``2 rows k`` without; a generator advances by that many (and not at all
    when the draw is refused). ``seed`` / ``subseq`` / ``offset`` or
    ``generator`` (an :class:`xrng.Generator`) say where it starts, as for
    every xrng draw; neither: :data:`xrng.default_generator`. An
    ``xrng.torch_cpu`` generator gives torch's CPU values (with and without
    replacement); an ``xrng.torch_cuda`` one torch's CUDA values: without
    replacement or for one sample torch's exponential_ composite, with
    replacement and more than one sample torch's CUDA kernel (2-d inputs of
    2 or more rows; one row only where its prefix sums are exact in the
    dtype, else NotImplementedError: see ``xrng._torch_cuda.multinomial``).

    Raises ``ValueError`` (one line, before anything is written) for weights
    that are not 1-d or 2-d or not floating point, ``num_samples <= 0``,
    ``num_samples > k`` without replacement, a row with a NaN, an infinity
    or a negative weight, a row summing to 0 (or beyond the largest double),
    and ``TypeError`` for arguments of the wrong type. The draw is not
    differentiable (the output is integer; ``input`` may require grad).
    """
    if type(generator) is _torch_cpu.TorchCPUGenerator and out is None and seed is None and not subseq and not offset:
        r = _torch_cpu._multinomial(generator, input, num_samples, replacement)  # in C++ (or NotImplemented: below)
        if r is not NotImplemented:
            return r
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"multinomial: input must be a Tensor, got {type(input).__name__}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise TypeError(f"multinomial: num_samples must be an int, got {type(num_samples).__name__}")
    if not isinstance(replacement, (bool, numbers.Integral)):
        raise TypeError(f"multinomial: replacement must be a bool, got {type(replacement).__name__}")
    num_samples, replacement = int(num_samples), bool(replacement)
    if input.dim() not in (1, 2):
        raise ValueError(f"multinomial: weights must be 1 or 2 dim (got {input.dim()})")
    if input.dtype not in _FLOAT_WEIGHTS:
        raise ValueError(f"multinomial: only floating-point weights (float16, bfloat16, float32, float64), "
                         f"got {input.dtype}")
    if num_samples <= 0:
        raise ValueError("multinomial: cannot sample num_samples <= 0 samples")
    rows = 1 if input.dim() == 1 else int(input.shape[0])
    k = int(input.shape[-1])
    if k == 0:
        raise ValueError("multinomial: the weights have no categories (k = 0)")
    if not replacement and num_samples > k:
        raise ValueError(f"multinomial: cannot sample num_samples = {num_samples} > {k} categories without "
                         "replacement")
    if isinstance(generator, (_torch_cpu.TorchCPUGenerator, _torch_cuda.TorchCUDAGenerator)):  # torch's own streams
        if seed is not None or subseq or offset:
            raise TypeError("multinomial: seed/subseq/offset do not apply to a torch_cpu or torch_cuda generator")
        if out is not None and out.dtype != torch.int64:
            raise ValueError(f"multinomial: out must be int64, got {out.dtype}")
        mod = _torch_cpu if isinstance(generator, _torch_cpu.TorchCPUGenerator) else _torch_cuda
        return _into(out, mod.multinomial(generator, input, num_samples, replacement))
    words = _words(rows, k, num_samples, replacement)
    if words >= 2**63:
        raise ValueError(f"multinomial: the draw needs {words} stream words (at most 2**63 - 1 per draw)")
    src = _source(seed, subseq, offset, generator)
    pos = _position(src, "bits", [], [], torch.uint32, words, 0)
    try:
        res = torch.ops.xrng.categorical(input, num_samples, replacement, pos)
    except (ValueError, RuntimeError):
        _release_refused(src, pos, words)
        raise
    if out is not None and out.dtype != torch.int64:
        raise ValueError(f"multinomial: out must be int64, got {out.dtype}")
    return _into(out, res)
