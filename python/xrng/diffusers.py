"""A drop-in for ``diffusers.utils.torch_utils.randn_tensor`` whose noise is
the same on every device.

diffusers draws its initial latents and its per-step noise through
``randn_tensor``; with torch generators those values change between CPU and
GPU, between GPU models and between torch versions. Pointing diffusers (or
your own sampling loop) at :func:`randn_tensor` with an xrng generator makes
them a function of the seed alone::

    import xrng, xrng.diffusers
    xrng.diffusers.patch()          # diffusers' randn_tensor -> this one, in every diffusers module
    pipe(prompt, generator=xrng.Generator(1234))

It takes torch's own generators as reproduced by xrng, too, so an image
somebody made with a torch generator can be made again on any machine:

* ``xrng.torch_cpu(seed, kernel="x86")`` (or ``"scalar"``, ``"arm"``): what diffusers
  gives with ``generator=torch.Generator().manual_seed(seed)`` (the "CPU
  noise" recipe) on an x86-64 host (``"scalar"``: an x86 CPU without AVX2, or
  ``ATEN_CPU_CAPABILITY=default``; ``"arm"``: an AArch64 host, whose
  ``randn`` equals ``"scalar"``'s, SPEC.md 14.8), bit for bit, on any host and any device;
* ``xrng.torch_cuda(seed, profile="h100-sxm")`` (or ``sm_count=``,
  ``threads_per_sm=``): what diffusers gives with
  ``generator=torch.Generator("cuda").manual_seed(seed)`` on that GPU, computed
  on the host of any machine and moved to ``device``. Caveat (SPEC.md 15.3):
  torch's float32/float16/bfloat16 normal on a GPU goes through the GPU's
  approximate ``__sincosf``, which xrng models and has not yet compared with
  a GPU; the uniforms under it, the sample order and the generator's offset
  are exact.

Both follow diffusers' semantics for a torch generator exactly: a list of
generators draws sample ``i`` of the batch from generator ``i`` with shape
``(1, *shape[1:])`` and concatenates (a list of one is the generator alone);
``dtype=None`` is torch's default dtype; the generator advances as torch's
would, so a whole sampling loop (initial latents, then a scheduler's per-step
noise) gives the latents the torch generator gives. Unlike diffusers with a
CUDA ``torch.Generator``, ``xrng.torch_cuda`` draws for any ``device`` (that
is its point: the GPU's noise on a CPU, an NPU or another GPU).
"""
from __future__ import annotations

import sys
from typing import List, Optional, Sequence, Union

import torch

from . import Generator, randn
from ._torch_cpu import TorchCPUGenerator
from ._torch_cuda import TorchCUDAGenerator

__all__ = ["randn_tensor", "patch"]

_TORCH_STREAMS = (TorchCPUGenerator, TorchCUDAGenerator)
GeneratorLike = Union[Generator, int, torch.Generator, TorchCPUGenerator, TorchCUDAGenerator]


def _as_xrng(g: Union[Generator, int]) -> Generator:
    if isinstance(g, Generator):
        return g
    if isinstance(g, int) and not isinstance(g, bool):
        return Generator(g)
    raise TypeError("randn_tensor: a generator must be an xrng.Generator, xrng.torch_cpu(...), "
                    f"xrng.torch_cuda(...) or an int seed, got {type(g).__name__}")


def _draw(shape, g, device: torch.device, dtype: Optional[torch.dtype]) -> torch.Tensor:
    """One draw of ``shape`` from one (non-torch) generator, on ``device``."""
    if isinstance(g, _TORCH_STREAMS):
        # torch.randn(shape, generator=g, dtype=dtype): None is torch's default
        # dtype; drawn on the host (the values do not depend on where), moved.
        return randn(shape, generator=g, dtype=dtype, device=device)
    return randn(shape, generator=_as_xrng(g), device=device, dtype=torch.float32 if dtype is None else dtype)


def randn_tensor(shape: Union[Sequence[int], torch.Size],
                 generator: Optional[Union[GeneratorLike, List[GeneratorLike]]] = None,
                 device: Optional[Union[str, torch.device]] = None, dtype: Optional[torch.dtype] = None,
                 layout: Optional[torch.layout] = None) -> torch.Tensor:
    """Standard normal noise of ``shape``, diffusers' signature.

    generator:
        an :class:`xrng.Generator` (advanced by the draw, so successive calls in
        a sampling loop give successive noise); an int seed (a fresh
        ``Generator(seed)``); ``xrng.torch_cpu(...)`` or ``xrng.torch_cuda(...)``
        (torch's CPU or CUDA generator reproduced: the values diffusers'
        randn_tensor gives with that torch generator, advanced as torch's
        would be; see the module doc); a list of any of these, one per sample
        along dim 0 (sample i is drawn from generator i with shape
        ``(1, *shape[1:])``, as diffusers does); ``None``:
        :data:`xrng.default_generator`. A ``torch.Generator`` (or a list of
        them) is passed on to ``torch.randn`` unchanged, so existing callers
        keep their behaviour.
    device, dtype: where the noise lives and its type (default CPU; float32
        for xrng generators, torch's default dtype for the torch streams, as
        torch.randn). The values do not depend on the device.
    layout: ``torch.strided`` or ``None``; other layouts raise ``ValueError``.
    """
    if layout is not None and layout != torch.strided:
        raise ValueError(f"randn_tensor: only the strided layout is supported, got {layout}")
    shape = tuple(shape)
    device = torch.device("cpu") if device is None else torch.device(device)
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
        return torch.cat([_draw((1,) + shape[1:], g, device, dtype) for g in gens])
    if isinstance(generator, torch.Generator):
        return torch.randn(shape, generator=generator, device=generator.device, dtype=dtype).to(device)
    if generator is None:
        from . import default_generator as g  # the current one: manual_seed() replaces it
        return randn(shape, generator=g, device=device, dtype=torch.float32 if dtype is None else dtype)
    return _draw(shape, generator, device, dtype)


class _Patch:
    """What :func:`patch` replaced; ``undo()`` (or leaving a ``with`` block)
    puts diffusers' own ``randn_tensor`` back."""

    def __init__(self, original, modules):
        self.original, self.modules = original, modules

    def undo(self) -> None:
        for m in self.modules:
            if vars(m).get("randn_tensor") is randn_tensor:
                m.randn_tensor = self.original
        self.modules = []

    def __enter__(self) -> "_Patch":
        return self

    def __exit__(self, *exc) -> None:
        self.undo()


def patch() -> _Patch:
    """Installs :func:`randn_tensor` in place of diffusers' own: in
    ``diffusers.utils.torch_utils`` (so pipelines and schedulers imported later
    take it) and in every diffusers module already loaded that imported it
    (``from ...utils.torch_utils import randn_tensor`` binds the function at
    import). Returns an object whose ``undo()`` restores diffusers' function;
    it is a context manager too (``with xrng.diffusers.patch(): ...``)."""
    try:
        from diffusers.utils import torch_utils
    except ImportError as e:
        raise ImportError("xrng.diffusers.patch needs diffusers installed") from e
    original = vars(torch_utils)["randn_tensor"]
    if original is randn_tensor:
        raise RuntimeError("xrng.diffusers.patch: diffusers' randn_tensor is already patched")
    modules = []
    for name, m in list(sys.modules.items()):
        if m is None or not (name == "diffusers" or name.startswith("diffusers.")):
            continue
        try:
            held = vars(m).get("randn_tensor")  # vars(): no lazy-module __getattr__, no imports
        except TypeError:
            continue
        if held is original:
            m.randn_tensor = randn_tensor
            modules.append(m)
    return _Patch(original, modules)
