"""torch's CPU generator as an xrng stream (SPEC.md "torch CPU streams").

``xrng.torch_cpu(seed_or_torch_generator, kernel=...)`` (``"x86"``, ``"scalar"``, ``"arm"``,
``"arm-sve256"``, ``"x86-windows"``, ``"x86-intel"``, ``"x86-intel-avx512"`` or
``"scalar-intel"``) returns a :class:`TorchCPUGenerator`: pass it as ``generator=`` to :func:`xrng.rand`,
:func:`xrng.randn`, :func:`xrng.randint`, :func:`xrng.randperm`,
:func:`xrng.bernoulli`, :func:`xrng.dropout` (and :func:`xrng.uniform_`,
:func:`xrng.normal_`, :func:`xrng.randint_`, :func:`xrng.random_`; ``dtype=``, ``device=``, ``out=``
as usual, other devices filled on the host then moved) to get the values
``torch.manual_seed(seed)`` followed by the same torch calls gives on a CPU
running that kernel, on any host: ``kernel="x86"`` is torch's AVX2 build
(every x86-64 CPU with AVX2), ``"scalar"`` its x86-64 default build (an x86
CPU without AVX2, or ``ATEN_CPU_CAPABILITY=default``), ``"arm"`` its AArch64
wheels (Graviton, Grace, the Kunpeng hosts of Ascend NPUs: the scalar
kernel's functions, the multiply-adds of ``uniform_``, ``normal_`` and
``cauchy_`` fused, no MKL, and from 2.3 on a float64 value rounded to
float16 once; SPEC.md 14.8), ``"arm-sve256"`` the same wheels on a 256-bit
SVE CPU (Graviton3: their SVE256 build, as ``"arm"`` but float16
``randn``/``normal_`` of 16 or more elements up to 2.11, whose last
``* std + mean`` is one float16 fused multiply-add), ``"x86-windows"`` the
AVX2 build of torch's Windows wheels (MSVC: ``avx_mathfun.h``'s multiplies
and adds each rounded, so about 1 % of float32 ``randn`` values of 16 or
more elements differ from ``"x86"`` by 1 or 2 ulp, and ``uniform_``'s
multiply-add rounded twice; measured on torch 2.15.0's wheel; the float64
functions of the C library are glibc's, Windows' own are unmeasured,
SPEC.md 14.9), ``"x86-intel"`` and ``"x86-intel-avx512"`` the AVX2 build on
an Intel CPU with AVX2 and without AVX-512 (a Core of the 12th to 14th
generation, Haswell to Comet Lake) or with AVX-512 (a Xeon from Skylake-SP
on): ``"x86"``'s draws but for torch 2.0 to 2.6's MKL draws, whose uniform
and logarithm Intel MKL picks by CPU: float ``exponential_`` (so
``multinomial`` without replacement; about 40 % of float32 values differ
from ``"x86"``'s, which are MKL's generic kernels', what an AMD CPU runs)
and ``bernoulli_`` (one element in 2^31 for half of all p; SPEC.md 14.7), ``"scalar-intel"`` the
default build on an Intel CPU without AVX2 (Sandy Bridge, Ivy Bridge, the
Pentium and Celeron parts without it): ``"scalar"``'s draws but torch 2.0 to
2.6's MKL ``exponential_`` (so ``multinomial`` without replacement), whose
logarithm is MKL's AVX / SSE4.2 one (about 39 % of float32 values differ from
``"scalar"``'s; its ``bernoulli_`` is ``"scalar"``'s). The generator advances exactly as
torch's would; :meth:`TorchCPUGenerator.to_torch` writes its state back to a
``torch.Generator``.

``release="2.4"`` (any ``"MAJOR.MINOR[.PATCH]"`` from 1.13 on; None, the
default: 2.13 and later) gives the draws of that torch release where
releases differ (SPEC.md 14.7): the float16 and bfloat16 ``rand``,
``uniform_`` and ``randn``/``normal_`` (torch 1.13 to 2.11 drew them from 11-
and 8-bit uniforms and ran the 16-wide normal in the 16-bit type; 2.12 ran
the scalar kernel there), with ``kernel="scalar"`` the last step of the
float32/float64 ``randn``/``normal_`` of 16 or more elements (fused from 2.13
on only), the scalar-p ``bernoulli`` and so ``dropout``, and ``exponential_``
and so ``multinomial`` without replacement (torch 2.0 to 2.6's x86-64 wheels
drew them with Intel MKL's MCG31 generator, seeded with one word, and MKL's
own logarithm: float32, float16 and bfloat16 exact as MKL computes them on a
CPU that is not Intel's, or, ``kernel="x86-intel"``, on an Intel one with AVX2
and without AVX-512, or, ``"x86-intel-avx512"``, with AVX-512 (MKL's AVX-512
code run by emulation, no such CPU at hand), float64 exact as MKL computes it
on the AMD CPU it was measured on (its logarithm's table row is picked by the
CPU's approximate reciprocal ``rcpps``; another CPU design's may move about 2
values in 100,000; the Intel kernels refuse float64, ValueError: MKL's
reduced-accuracy logarithm there is not modelled);
their AArch64 wheels, ``kernel="arm"``, had no MKL) and ``randint`` of a range
in [2^28, 2^32) (one 32-bit word per element before 2.7). Every other draw is the same in all of them, but for the
differences SPEC.md 14.6 lists.

Reproduced so far: rand/uniform_ on any [low, high) (float32, float64,
float16, bfloat16), randn/normal_ in every floating dtype, any size and
strides (torch's 16-wide fill for 16 or more contiguous elements, its
element-wise float64 Box-Muller with the cached second normal otherwise),
exponential_, geometric_, log_normal_ and cauchy_ (every CPU, Intel's included), randint and randint_ (any dtype
torch takes, bool and uint16/32/64 included), random_() without a range (every dtype torch draws it for),
random_(from, None) (every dtype torch takes, the full 64-bit range random_(-2**63, None) included), randperm
(any dtype), multinomial (with and without replacement, every CPU),
bernoulli with a tensor p (every CPU), bernoulli with a scalar p
and dropout (every CPU, Intel's included: torch 2.7 and later have no MKL bernoulli), and the tensor-parameter
draws :func:`xrng.gamma` (``torch._standard_gamma``), :func:`xrng.dirichlet`
(``torch._sample_dirichlet``), :func:`xrng.poisson` and :func:`xrng.binomial` (float32 and float64, as
torch's CPU kernels; SPEC.md sections 14.4 and 14.5). Other calls raise NotImplementedError or ValueError before
the generator advances.
"""
from __future__ import annotations

import math
from typing import Optional, Union

import torch

from . import _C

__all__ = ["TorchCPUGenerator", "torch_cpu"]

_KERNELS = ("x86", "scalar", "arm", "arm-sve256", "x86-windows", "x86-intel", "x86-intel-avx512", "scalar-intel")


def release_number(release: Optional[str]) -> int:
    """rng/torch_cpu.h Release's number of a torch release string (None: the
    newest, 0); ValueError (one line) for another form or a release before 1.13."""
    if release is None:
        return 0
    if not isinstance(release, str):
        raise TypeError(f"release must be a torch release string such as '2.4', got {type(release).__name__}")
    return _C.torch_cpu_release(release)


class TorchCPUGenerator:
    """torch's CPU generator state (mt19937 plus the cached normals) and the
    normal kernel and torch release to reproduce. ``state`` is torch's own byte layout (a
    5056-element uint8 CPU tensor, as ``torch.Generator.get_state()``)."""

    release: Optional[str] = None  # (class defaults: an object unpickled from before `release` existed)
    _release = 0

    def __init__(self, seed_or_generator: Union[int, torch.Generator], kernel: str = "x86",
                 release: Optional[str] = None):
        if kernel not in _KERNELS:
            raise ValueError(f"kernel must be {', '.join(map(repr, _KERNELS[:-1]))} or {_KERNELS[-1]!r}, "
                             f"got {kernel!r}")
        self._release = release_number(release)
        self.kernel = kernel
        #: the torch release given (None: 2.13 and later)
        self.release = release
        if isinstance(seed_or_generator, torch.Generator):
            if seed_or_generator.device.type != "cpu":
                raise ValueError("torch_cpu continues a CPU torch.Generator, got one on "
                                 f"{seed_or_generator.device}")
            self.state = seed_or_generator.get_state().clone().contiguous()
        elif isinstance(seed_or_generator, int) and not isinstance(seed_or_generator, bool):
            if not 0 <= seed_or_generator < 2 ** 64:
                raise ValueError(f"seed must be in [0, 2**64), got {seed_or_generator}")
            self.state = _C.torch_cpu_seed(seed_or_generator)
        else:
            raise TypeError("torch_cpu takes an int seed or a CPU torch.Generator, got "
                            f"{type(seed_or_generator).__name__}")

    def __setstate__(self, d):
        self.__dict__.update(d)
        # the release's number from its name (the numbers of an older xrng may differ)
        self._release = release_number(self.release)

    def to_torch(self, generator: Optional[torch.Generator] = None) -> torch.Generator:
        """Writes this state into ``generator`` (a new CPU torch.Generator when
        None) so torch continues where this generator stands; returns it."""
        g = torch.Generator() if generator is None else generator
        g.set_state(self.state.clone())
        return g

    def _fill(self, kind: str, out: torch.Tensor, a=0.0, b=1.0) -> torch.Tensor:
        """Fills ``out`` (any device, any strides) with ``kind`` draws in the
        order torch's CPU kernels visit its elements: TensorIterator's, memory
        order (dimensions by decreasing stride), which for a contiguous tensor
        is row-major."""
        r = _into(self, kind, out, a, b)  # a contiguous CPU out and plain parameters: in C++ (torch_cpu_fast.cpp)
        if r is not NotImplemented:
            return r
        # a normal into a tensor torch does not see as contiguous takes its
        # element-wise float64 path (at::normal_distribution<double>) whatever
        # its size, in memory order; the host copy below is contiguous, so say so.
        if kind == "normal" and not out.is_contiguous():
            kind = "normal_each"
        if kind == "uniform" and not (float(a) <= float(b)):
            raise ValueError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
        if kind == "uniform" and not (math.isfinite(float(a)) and math.isfinite(float(b))):
            raise ValueError(f"uniform_: from and to must be finite, got {a}, {b}")
        if kind == "exponential" and not float(a) > 0.0:
            raise ValueError(f"exponential_ expects lambda > 0.0, but found lambda={a}")
        if kind == "geometric" and not 0.0 < float(a) < 1.0:
            raise ValueError(f"geometric_ expects p to be in (0, 1), but got p={a}")
        if kind == "cauchy" and not float(b) > 0.0:
            raise ValueError(f"cauchy_ expects sigma > 0.0, but found sigma={b}")
        if kind == "cauchy" and not out.is_floating_point():
            raise ValueError("cauchy_: a Cauchy draw needs a floating dtype, got " + str(out.dtype))
        if kind == "log_normal" and not float(b) > 0.0:
            raise ValueError(f"log_normal_ expects std > 0.0, but found std={b}")
        if kind == "normal" and not float(b) >= 0.0:
            raise ValueError(f"normal expects std >= 0.0, but found std {b}")
        # randint's bounds and random_from's `from` travel as int64 (exact beyond 2^53), the rest as float
        args = (0.0, 0.0, int(a), int(b)) if kind in ("randint", "random_from") else (float(a), float(b), 0, 0)
        if out.device.type == "cpu" and out.is_contiguous():
            _C.torch_cpu_draw(self.state, kind, self.kernel, out, *args, release=self._release)
            return out
        if _C.torch_cpu_mkl_draw(self._release, self.kernel, kind, float(a)):
            perm = list(range(out.dim()))  # torch 2.0 to 2.6's MKL draws: row-major whatever the strides
        else:
            perm = sorted(range(out.dim()), key=lambda d: out.stride(d), reverse=True)
        view = out.permute(perm)
        host = torch.empty(view.shape, dtype=out.dtype)
        _C.torch_cpu_draw(self.state, kind, self.kernel, host, *args, release=self._release)
        view.copy_(host)
        return out

    def __repr__(self) -> str:
        rel = "" if self.release is None else f", release={self.release!r}"
        return f"xrng.torch_cpu(kernel={self.kernel!r}{rel})"


# The common calls in one C++ call (bindings/torch_cpu_fast.cpp): the same draw,
# or NotImplemented where the general path below must check, report or allocate.
_new = _C._torch_cpu_new
_into = _C._torch_cpu_into
_bernoulli_new = _C._torch_cpu_bernoulli_new
_multinomial = _C._torch_cpu_multinomial
_dropout = _C._torch_cpu_dropout


def torch_cpu(seed_or_generator: Union[int, torch.Generator], kernel: str = "x86",
              release: Optional[str] = None) -> TorchCPUGenerator:
    """A generator reproducing torch's CPU generator (see the module doc):
    ``kernel`` "x86", "scalar", "arm", "arm-sve256", "x86-windows", "x86-intel", "x86-intel-avx512" or
    "scalar-intel"; ``release`` the torch release whose draws
    to give where releases differ ("2.4"; None: 2.13 and later)."""
    return TorchCPUGenerator(seed_or_generator, kernel, release)


def _draw(generator: TorchCPUGenerator, kind: str, size, dtype, device, out, a=0.0, b=1.0,
          default_dtype=None) -> torch.Tensor:
    """A new (or ``out``) tensor of ``size`` filled from the torch CPU stream,
    generated on the host and moved to ``device``."""
    if out is not None:
        return generator._fill(kind, out, a, b)
    if device is None and type(generator) is TorchCPUGenerator:
        t = _new(generator, kind, size, dtype, default_dtype, a, b)
        if t is not NotImplemented:
            return t
    dt = dtype if dtype is not None else (default_dtype or torch.get_default_dtype())
    # a torch_cuda generator with xrng's CUDA kernels built fills a CUDA tensor on its GPU
    dev = None if device is None else torch.device(device)
    on_gpu = dev is not None and dev.type == "cuda" and kind != "randperm" and getattr(generator, "_fills_cuda", False)
    t = torch.empty(size, dtype=dt, device=dev if on_gpu else "cpu")
    generator._fill(kind, t, a, b)
    return t if device is None or on_gpu else t.to(device)


def bernoulli_tensor_(generator: TorchCPUGenerator, out: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """torch's ``out.bernoulli_(p)`` with a tensor ``p`` (broadcast to
    ``out``'s shape; torch.bernoulli(p) is ``empty_like(p).bernoulli_(p)``):
    torch's tensor-p kernel on every CPU (no MKL path), in TensorIterator
    order, which ``out``'s strides give (memory order). Each element draws a
    float32 uniform (1 word) against a float/half/bfloat16 p, a float64 one
    (2 words) against a double p."""
    if not isinstance(p, torch.Tensor) or not p.is_floating_point():
        raise ValueError("bernoulli_: a tensor p must be a floating tensor")
    if (out.device.type == "cpu" and out.is_contiguous() and p.device.type == "cpu" and p.is_contiguous()
            and p.shape == out.shape):  # already in torch's order: no copies
        _C.torch_cpu_bernoulli_tensor(generator.state, out, p)
        return out
    pe = p.to("cpu").expand(out.shape)
    perm = sorted(range(out.dim()), key=lambda d: out.stride(d), reverse=True)
    view = out.permute(perm)
    host = torch.empty(view.shape, dtype=out.dtype)
    _C.torch_cpu_bernoulli_tensor(generator.state, host, pe.permute(perm).contiguous())
    view.copy_(host)
    return out


def exponential_race(generator, w: torch.Tensor, n: int) -> torch.Tensor:
    """torch 2.15's multinomial without replacement (or of one sample) on every
    device (ATen/native/Distributions.cpp multinomial_out): the weights'
    checks, ``q = empty_like(w).exponential_(1)`` drawn from ``generator``
    (a torch CPU or CUDA stream: its ``_fill``), then ``argmax(w / q)`` or
    ``topk(w / q, n)``'s indices. Shared by both torch streams."""
    if not bool(((w.max() < math.inf) & (w.min() >= 0)).item()):
        raise ValueError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    if bool((w.sum(-1) == 0).any().item()):
        raise ValueError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    q = torch.empty_like(w)
    generator._fill("exponential", q, 1.0)
    q = torch.div(w, q)
    return q.argmax(dim=-1, keepdim=True) if n == 1 else torch.topk(q, n)[1]


def multinomial(generator: TorchCPUGenerator, input: torch.Tensor, n: int, replacement: bool) -> torch.Tensor:
    """torch.multinomial on CPU (arguments already checked as xrng.multinomial
    checks them). Without replacement or for one sample, torch's Gumbel-max
    path: ``q = empty_like(input).exponential_(1)`` (2 words per weight, in
    memory order), then ``argmax(input / q)`` or ``topk(input / q, n)``'s
    indices, computed here with the same torch operations. With replacement
    and n > 1, its cumulative-sum kernel (2 words per sample)."""
    w = input if input.device.type == "cpu" and not input.requires_grad else input.detach().to("cpu")
    if w.shape[-1] > 2 ** 24:
        raise ValueError("multinomial: number of categories cannot exceed 2^24")
    if (not replacement or n == 1) and w.is_contiguous():  # checks, draw and argmax/topk in C++ (torch_cpu_fast.cpp)
        res = _C.torch_cpu_multinomial_gumbel(generator.state, w, n, generator.kernel, generator._release)
    elif not replacement or n == 1:
        res = exponential_race(generator, w, n)
    elif w.is_contiguous():  # rows, checks and draw in C++ (torch_cpu_fast.cpp)
        res = _C.torch_cpu_multinomial_rows(generator.state, w, n)
    else:
        res = _C.torch_cpu_multinomial(generator.state, w.reshape(-1, w.shape[-1]).contiguous(), n)
        if w.dim() == 1:
            res = res.reshape(n)
    return res if input.device.type == "cpu" else res.to(input.device)


_PARAM_DRAWS = {"gamma": "torch_cpu_standard_gamma", "dirichlet": "torch_cpu_dirichlet",
                "poisson": "torch_cpu_poisson", "binomial": "torch_cpu_binomial"}


def tensor_param(generator: TorchCPUGenerator, what: str, *params: torch.Tensor) -> torch.Tensor:
    """torch's CPU kernels of ``torch._standard_gamma`` (``what="gamma"``),
    ``torch._sample_dirichlet`` (``"dirichlet"``), ``torch.poisson`` and
    ``torch.binomial`` (``params``: count and prob, already broadcast to one
    shape) on this generator: the values and the generator's advance of
    torch's CPU generator (SPEC.md sections 14.4, 14.5), computed on the host from
    the parameters in row-major order (the order of torch's kernels, whose
    output is contiguous), returned on the parameters' device. No gradient
    here (the callers attach torch's). ValueError (before the generator
    advances) for what torch's CPU kernel refuses or xrng does not reproduce."""
    host = [t if t.device.type == "cpu" and t.is_contiguous() else t.detach().to("cpu").contiguous() for t in params]
    res = getattr(_C, _PARAM_DRAWS[what])(generator.state, *host)
    return res if params[0].device.type == "cpu" else res.to(params[0].device)


def dropout(generator: TorchCPUGenerator, input: torch.Tensor, p: float, training: bool,
            inplace: bool) -> torch.Tensor:
    """torch's CPU dropout (``at::native::_dropout``): a noise tensor like the
    input filled by ``bernoulli_(1 - p)``, divided by ``1 - p`` and multiplied
    into the input (torch's own tensor arithmetic, IEEE-exact on any device)."""
    if type(generator) is TorchCPUGenerator:  # the common call in C++ (torch_cpu_fast.cpp), else NotImplemented
        r = _dropout(generator, input, p, training, inplace)
        if r is not NotImplemented:
            return r
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    noise = torch.empty_like(input)
    generator._fill("bernoulli", noise, 1 - p)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise
