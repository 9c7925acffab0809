"""torch's CUDA generator as an xrng stream (SPEC.md "torch CUDA streams").

``xrng.torch_cuda(seed_or_torch_generator, sm_count=..., threads_per_sm=2048,
profile=None)`` returns a :class:`TorchCUDAGenerator`: pass it as
``generator=`` to :func:`xrng.rand`, :func:`xrng.randn`, :func:`xrng.randint`,
:func:`xrng.bernoulli`, :func:`xrng.dropout`, :func:`xrng.randperm` (and :func:`xrng.uniform_`,
:func:`xrng.normal_`, :func:`xrng.randint_`, :func:`xrng.random_`, :func:`xrng.bernoulli_` (``p`` a float
or a tensor), :func:`xrng.exponential_`, :func:`xrng.geometric_`,
:func:`xrng.log_normal_`, :func:`xrng.cauchy_`) to get the values ``torch.cuda.manual_seed(seed)``
followed by the same torch calls gives on a GPU with that many SMs, computed
on the host of any machine. A CUDA tensor is filled on its GPU by xrng's own
CUDA kernels (the same values, bit for bit: every element function of the
host model compiled for the device; SPEC.md 15.8) where the package was
built with them (:func:`xrng.has_cuda_kernels`); randperm and every other
device are filled on the host, then moved.

torch's CUDA kernels give each thread of their grid its own Philox
subsequence, and the grid depends on the GPU (``multiProcessorCount`` and
``maxThreadsPerMultiProcessor``): up to one wave (``numel <= 256 * sm_count *
(threads_per_sm // 256)``, e.g. 270,336 on an H100 SXM) element i is the first
value of thread i's first curand4 call on every GPU, so the values do not
depend on the GPU; above it they depend on the SM count. ``profile=`` names a
GPU (see :data:`PROFILES`).

Exact from torch's and cuRAND's source: rand/uniform_ (every float dtype),
randint/random_ (bool and uint16/32/64 included; random_() without a range,
random_(from, None) and the full 64-bit range random_(-2**63, None): read
from source, unmeasured), bernoulli with a scalar or a tensor p, dropout,
randperm, and the generator's offset after every draw. Modelled, NOT measured on a
GPU (SPEC.md section 15): the float32/16 normal and log_normal (cuRAND's
``__sincosf``, torch's ``__expf``: hardware approximations), the float32/16
exponential and geometric (torch's ``__logf``), the float32/16 cauchy
(``__tanf``), and the float64 normal, exponential, log_normal, geometric and
cauchy (exact ports of libdevice's ``sincospi``, ``log``, ``exp``, ``log1p``
and ``tan``, but for the hardware reciprocal seed of ``log`` and of ``tan``'s
cotangent branch). multinomial without replacement or of one sample is
torch's composite over exponential_ (its caveats); with replacement and n >
1 it is torch's CUDA kernel, exact from source (unmeasured) for 2-d inputs
of 2 or more rows, and for one row where the order of its prefix sums
cannot matter (NotImplementedError otherwise: see :func:`multinomial`);
gamma, poisson and binomial raise NotImplementedError.
"""
from __future__ import annotations

from typing import Optional, Union

import torch

from . import _C
from ._torch_cpu import exponential_race

__all__ = ["TorchCUDAGenerator", "torch_cuda", "PROFILES"]

# name: (multiProcessorCount, maxThreadsPerMultiProcessor), from NVIDIA's
# data sheets and the CUDA programming guide's per-architecture limits
# (2048 threads per SM on sm_70/80/90/100, 1024 on sm_75, 1536 on sm_86/89/120).
PROFILES = {
    "v100": (80, 2048),
    "t4": (40, 1024),
    "a100": (108, 2048),
    "a10": (72, 1536),
    "a10g": (80, 1536),
    "rtx3090": (82, 1536),
    "l4": (58, 1536),
    "l40s": (142, 1536),
    "rtx4090": (128, 1536),
    "h100-sxm": (132, 2048),
    "h100-pcie": (114, 2048),
    "h200": (132, 2048),
    "b200": (148, 2048),
}

_DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val


def _u64(v, what):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 64:
        raise ValueError(f"{what} must be an int in [0, 2**64), got {v!r}")
    return v


class TorchCUDAGenerator:
    """torch's CUDA generator state, ``(seed, offset)`` (``offset`` is torch's
    ``philox_offset_per_thread``: curand_init's offset, a multiple of 4), and
    the GPU it reproduces (``sm_count``, ``threads_per_sm``)."""

    def __init__(self, seed_or_generator: Union[int, torch.Generator, None] = None, sm_count: Optional[int] = None,
                 threads_per_sm: Optional[int] = None, profile: Optional[str] = None):
        if profile is not None:
            if profile not in PROFILES:
                raise ValueError(f"unknown profile {profile!r}; known: {', '.join(sorted(PROFILES))}")
            psm, ptps = PROFILES[profile]
            if sm_count is not None and sm_count != psm:
                raise ValueError(f"profile {profile!r} has {psm} SMs, sm_count={sm_count} given")
            sm_count = psm
            threads_per_sm = ptps if threads_per_sm is None else threads_per_sm
        if sm_count is None:
            raise TypeError("torch_cuda needs sm_count= or profile=")
        threads_per_sm = 2048 if threads_per_sm is None else threads_per_sm
        if isinstance(sm_count, bool) or not isinstance(sm_count, int) or not 1 <= sm_count < 2 ** 16:
            raise ValueError(f"sm_count must be an int in [1, 65536), got {sm_count!r}")
        if isinstance(threads_per_sm, bool) or not isinstance(threads_per_sm, int) or \
                not 256 <= threads_per_sm <= 4096:
            raise ValueError(f"threads_per_sm must be an int in [256, 4096], got {threads_per_sm!r}")
        self.sm_count, self.threads_per_sm, self.profile = sm_count, threads_per_sm, profile
        if seed_or_generator is None:
            self.seed, self.offset = _DEFAULT_SEED, 0
        elif isinstance(seed_or_generator, torch.Generator):
            st = seed_or_generator.get_state()
            if st.numel() != 16:
                raise ValueError("torch_cuda continues a CUDA torch.Generator (a 16-byte state), got a state of "
                                 f"{st.numel()} bytes from one on {seed_or_generator.device}")
            self.set_state(st)
        else:
            self.seed, self.offset = _u64(seed_or_generator, "seed"), 0

    # -- torch's state layout: 16 bytes, seed (uint64) then offset (int64), little-endian
    def get_state(self) -> torch.Tensor:
        b = self.seed.to_bytes(8, "little") + self.offset.to_bytes(8, "little")
        return torch.tensor(list(b), dtype=torch.uint8)

    def set_state(self, state: torch.Tensor) -> None:
        b = bytes(state.to(torch.uint8).tolist())
        if len(b) != 16:
            raise ValueError(f"a torch CUDA generator state is 16 bytes, got {len(b)}")
        seed, offset = int.from_bytes(b[:8], "little"), int.from_bytes(b[8:], "little")
        if offset % 4:
            raise ValueError(f"a torch CUDA generator offset is a multiple of 4, got {offset}")
        self.seed, self.offset = seed, offset

    def manual_seed(self, seed: int) -> "TorchCUDAGenerator":
        self.seed, self.offset = _u64(seed, "seed"), 0
        return self

    def to_torch(self, generator: Optional[torch.Generator] = None) -> torch.Generator:
        """Writes this state into ``generator`` (default: a new generator on
        the current CUDA device) so torch continues where this one stands."""
        g = torch.Generator(device="cuda") if generator is None else generator
        g.set_state(self.get_state())
        return g

    def _fill(self, kind: str, out: torch.Tensor, a=0.0, b=1.0) -> torch.Tensor:
        """Fills ``out`` with ``kind`` draws in TensorIterator's order: memory
        order (dimensions by decreasing stride), row-major for a contiguous
        tensor. (For a non-contiguous tensor above 2^31 bytes of extent
        torch's 32-bit split is reckoned on the extent, not reproduced: refused.)"""
        args = (0.0, 0.0, int(a), int(b)) if kind in ("randint", "random_from") else (float(a), float(b), 0, 0)
        # a CUDA tensor, with xrng's CUDA kernels built: filled on its GPU (a
        # non-contiguous one through a contiguous CUDA tensor in its memory order)
        on_gpu = out.device.type == "cuda" and _C.has_cuda_kernels() and kind != "randperm"
        if (out.device.type == "cpu" or on_gpu) and out.is_contiguous():
            host, view = out, None
        else:
            view = out
            if not out.is_contiguous():
                if kind == "randperm":
                    raise NotImplementedError("xrng.torch_cuda: randperm into a non-contiguous tensor")
                extent = 1 + sum((n - 1) * abs(st) for n, st in zip(out.shape, out.stride()) if n > 0)
                if out.numel() and extent * out.element_size() > 2 ** 31 - 1:
                    raise NotImplementedError("xrng.torch_cuda: a non-contiguous output of more than 2^31 bytes")
                perm = sorted(range(out.dim()), key=lambda d: out.stride(d), reverse=True)
                view = out.permute(perm)
            host = torch.empty(view.shape, dtype=out.dtype, device=out.device if on_gpu else "cpu")
        self.offset = _C.torch_cuda_draw(self.seed, self.offset, kind, self.sm_count, self.threads_per_sm, host,
                                         *args)
        if view is not None:
            view.copy_(host)
        return out

    @property
    def _fills_cuda(self) -> bool:
        """Whether a CUDA tensor is filled on its GPU (xrng's CUDA kernels built)."""
        return bool(_C.has_cuda_kernels())

    def _dropout(self, input: torch.Tensor, p: float, training: bool, inplace: bool,
                 vec: Optional[int] = None) -> torch.Tensor:
        return dropout(self, input, p, training, inplace, vec)

    def __repr__(self) -> str:
        name = f"profile={self.profile!r}, " if self.profile else ""
        return (f"xrng.torch_cuda(seed={self.seed}, offset={self.offset}, {name}sm_count={self.sm_count}, "
                f"threads_per_sm={self.threads_per_sm})")


def torch_cuda(seed_or_generator: Union[int, torch.Generator, None] = None, sm_count: Optional[int] = None,
               threads_per_sm: Optional[int] = None, profile: Optional[str] = None) -> TorchCUDAGenerator:
    """A generator reproducing torch's CUDA generator on a GPU of ``sm_count``
    SMs (or the named ``profile``); see the module doc."""
    return TorchCUDAGenerator(seed_or_generator, sm_count, threads_per_sm, profile)


def bernoulli_tensor_(generator: TorchCUDAGenerator, out: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """torch's CUDA ``out.bernoulli_(p)`` with a tensor ``p`` (``torch.bernoulli(p)``
    is ``empty_like(p).bernoulli_(p)``): ``p`` cast to float32 (float64 for a
    float64 ``out``) and broadcast to ``out``'s shape; the offset moves by 12
    and element i (row-major) is lane i % 4 of thread i // 4's
    curand_uniform4, ``u <= p`` (the same on every GPU: SPEC.md 15.3)."""
    if not isinstance(p, torch.Tensor) or not p.is_floating_point():
        raise ValueError("bernoulli_: a tensor p must be a floating tensor")
    if not out.is_contiguous():
        raise NotImplementedError("xrng.torch_cuda: bernoulli_ with a tensor p into a non-contiguous tensor "
                                  "is not reproduced yet")
    pt = torch.float64 if out.dtype == torch.float64 else torch.float32
    on_gpu = out.device.type == "cuda" and _C.has_cuda_kernels()  # xrng's CUDA kernel: p and out on the GPU
    pe = p.detach().to(out.device if on_gpu else "cpu").to(pt).expand(out.shape).contiguous()
    host = out if out.device.type == "cpu" or on_gpu else torch.empty(out.shape, dtype=out.dtype)
    generator.offset = _C.torch_cuda_bernoulli_tensor(generator.seed, generator.offset, host, pe)
    if host is not out:
        out.copy_(host)
    return out


def dropout_vec(input: torch.Tensor) -> int:
    """torch's get_vector_size for ``input`` as the GPU would see it: 16 bytes
    / element size for a dense input at a 16-byte aligned address (the
    address counts only for a CUDA tensor; a host tensor stands for a fresh,
    aligned GPU allocation), halved until it divides the element count."""
    if not input.is_contiguous():
        return 1
    es = input.element_size()
    align = 16
    if input.device.type == "cuda":
        addr = input.data_ptr()
        align = 1
        while align < 16 and addr % (align * 2) == 0:
            align *= 2
    v = 16 // es
    while v > 1 and v * es > align:
        v //= 2
    while v > 1 and input.numel() % v:
        v //= 2
    return v


def dropout(generator: TorchCUDAGenerator, input: torch.Tensor, p: float, training: bool, inplace: bool,
            vec: Optional[int] = None) -> torch.Tensor:
    """torch's CUDA dropout (``F.dropout`` -> ``native_dropout``'s output) of
    a contiguous input; ``vec`` overrides torch's vector size choice."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if not input.is_contiguous():
        raise NotImplementedError("xrng.torch_cuda: dropout of a non-contiguous input is not reproduced yet")
    v = dropout_vec(input) if vec is None else vec
    # xrng's CUDA kernel for a CUDA input (with the kernels built), else the host model
    host = input.detach() if input.device.type == "cuda" and _C.has_cuda_kernels() else input.detach().to("cpu")
    out, _mask, generator.offset = _C.torch_cuda_dropout(generator.seed, generator.offset, generator.sm_count,
                                                         generator.threads_per_sm, host, float(p), v)
    out = out.to(input.device)
    return input.copy_(out) if inplace else out


def multinomial(generator: TorchCUDAGenerator, input: torch.Tensor, n: int, replacement: bool) -> torch.Tensor:
    """torch.multinomial on CUDA (arguments already checked as xrng.multinomial
    checks them).

    Without replacement or for one sample: torch 2.15's multinomial_out
    (ATen/native/Distributions.cpp), the same composite on every device:
    ``q = empty_like(input).exponential_(1)`` on this stream (its values as
    modelled as :func:`xrng.exponential_`'s, SPEC.md 15), then
    ``argmax(input / q)`` or ``topk(input / q, n)``'s indices, with the same
    torch operations on ``input``'s device.

    With replacement and n > 1: torch's CUDA kernel (MultinomialKernel.cu,
    multinomial_with_replacement_kernel_impl; SPEC.md 15.3 "multinomial with
    replacement"), computed on the host in the weights' dtype: renormRows'
    block reduction, cumsum's scan, then one ``curand_uniform4`` per sample
    (thread ``(r mod min(rows, 65535)) * ceil(n / 128) * 128 + j``, call
    ``r // min(rows, 65535)``, its ``.x``) binary-searched in the row's
    prefix sums; the offset moves by ``ceil(rows / min(rows, 65535)) * 4``.
    The same on every GPU. A 2-d input of 2 or more rows is reproduced
    exactly; a single row (1-d input) only where its prefix sums are exact
    in the dtype (or k <= 2), since torch then scans with cub, whose
    rounding order is not reproduced: NotImplementedError otherwise. A
    negative weight, or a row that sums to 0 or holds inf/nan (torch's
    kernel asserts): ValueError. Refusals happen before anything is drawn.
    """
    w = input.detach()
    if w.shape[-1] > 2 ** 24:
        raise ValueError("multinomial: number of categories cannot exceed 2^24")
    if not (replacement and n > 1):
        return exponential_race(generator, w, n)
    rows2 = w.reshape(-1, w.shape[-1]).to("cpu").contiguous()
    if rows2.shape[0] == 0:
        res = torch.empty((0, n), dtype=torch.int64)
    else:
        res, generator.offset = _C.torch_cuda_multinomial(generator.seed, generator.offset, rows2, n)
    if w.dim() == 1:
        res = res.reshape(n)
    return res if input.device.type == "cpu" else res.to(input.device)


# Also reachable as xrng.torch_cuda.PROFILES (docs/reproducible.md).
torch_cuda.PROFILES = PROFILES
