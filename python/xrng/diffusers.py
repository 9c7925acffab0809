"""A drop-in for ``diffusers.utils.torch_utils.randn_tensor`` whose noise is
the same on every device.

diffusers draws its initial latents and its per-step noise through
``randn_tensor``; with torch generators those values change between CPU and
GPU, between GPU models and between torch versions. Pointing diffusers (or
your own sampling loop) at :func:`randn_tensor` with an xrng generator makes
them a function of the seed alone::

    import diffusers.utils.torch_utils as tu, xrng.diffusers
    tu.randn_tensor = xrng.diffusers.randn_tensor   # and in the pipeline's module
    pipe(prompt, generator=xrng.Generator(1234))
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Union

import torch

from . import Generator, randn

__all__ = ["randn_tensor"]

GeneratorLike = Union[Generator, int, torch.Generator]


def _as_xrng(g: Union[Generator, int]) -> Generator:
    if isinstance(g, Generator):
        return g
    if isinstance(g, int) and not isinstance(g, bool):
        return Generator(g)
    raise TypeError(f"randn_tensor: a generator must be an xrng.Generator or an int seed, got {type(g).__name__}")


def randn_tensor(shape: Union[Sequence[int], torch.Size],
                 generator: Optional[Union[GeneratorLike, List[GeneratorLike]]] = None,
                 device: Optional[Union[str, torch.device]] = None, dtype: Optional[torch.dtype] = None,
                 layout: Optional[torch.layout] = None) -> torch.Tensor:
    """Standard normal noise of ``shape``, diffusers' signature.

    generator:
        an :class:`xrng.Generator` (advanced by the draw, so successive calls in
        a sampling loop give successive noise); an int seed (a fresh
        ``Generator(seed)``); a list of either, one per sample along dim 0
        (sample i is drawn from generator i with shape ``(1, *shape[1:])``, as
        diffusers does); ``None``: :data:`xrng.default_generator`. A
        ``torch.Generator`` (or a list of them) is passed on to ``torch.randn``
        unchanged, so existing callers keep their behaviour.
    device, dtype: where the noise lives and its type (default CPU, float32).
        The values do not depend on the device.
    layout: ``torch.strided`` or ``None``; other layouts raise ``ValueError``.
    """
    if layout is not None and layout != torch.strided:
        raise ValueError(f"randn_tensor: only the strided layout is supported, got {layout}")
    shape = tuple(shape)
    device = torch.device("cpu") if device is None else torch.device(device)
    dtype = torch.float32 if dtype is None else dtype
    gens = generator if isinstance(generator, (list, tuple)) else None

    if gens is not None and len(gens) == 1:
        generator, gens = gens[0], None
    if gens is not None:
        if len(shape) == 0 or len(gens) != shape[0]:
            raise ValueError(f"randn_tensor: {len(gens)} generators for a batch of "
                             f"{shape[0] if shape else 'no'} samples")
        if all(isinstance(g, torch.Generator) for g in gens):
            return torch.cat([torch.randn((1,) + shape[1:], generator=g, device=g.device, dtype=dtype).to(device)
                              for g in gens])
        return torch.cat([randn((1,) + shape[1:], generator=_as_xrng(g), device=device, dtype=dtype)
                          for g in gens])
    if isinstance(generator, torch.Generator):
        return torch.randn(shape, generator=generator, device=generator.device, dtype=dtype).to(device)
    if generator is None:
        from . import default_generator as g  # the current one: manual_seed() replaces it
    else:
        g = _as_xrng(generator)
    return randn(shape, generator=g, device=device, dtype=dtype)
