"""Reproducible randomness for unmodified PyTorch programs.

One line makes every random draw of an eager PyTorch program come from xrng's
stream, so the same program gives the same random tensors (initial weights,
dropout masks, noise, permutations) on the CPU, on CUDA and on any other torch
device, whatever the thread count::

    with xrng.reproducible(seed=0):
        model = Net()                 # nn.init draws
        loss = model(x).sum()         # dropout masks
        loss.backward()

    xrng.reproducible(seed=0).enable()    # scripts: from here on (disable() ends it)

    @xrng.reproducible(seed=0)            # every call starts the stream afresh
    def train_step(batch): ...

Where it intercepts: at torch's random entry points (torch.rand, Tensor.uniform_,
torch._VF.dropout, F.scaled_dot_product_attention, ...), which are replaced by
wrappers while a mode is active: these are torch-level names, above device
dispatch, so ``F.dropout`` draws the same words on every device, whereas below
it CPU dropout is a ``bernoulli_`` and a multiply and CUDA dropout one fused
``native_dropout``. Every other torch call runs untouched, at full speed (a
``TorchFunctionMode`` would add its cost to each of them: docs/reproducible.md).
Calls made inside torch's Python wrappers (dropout2d, multi-head attention,
nn.init, gumbel_softmax, the RNN modules) reach the entry points like any
other, and module-level aliases bound before the mode started (``from torch
import randn``) are wrapped too. Draws that bypass them (a C++ composite, a
reference kept in an object) are caught afterwards by watching torch's
default generators, and named at once by the optional dispatcher-level check
(``check_dispatch=True``, on by default with ``strict=True``), a
``TorchDispatchMode`` that sees every aten op.

Streams (SPEC.md, "Reproducible mode: key derivation"):

* draws without a generator use the *global stream*:
  ``Generator(S).fold_in(GLOBAL_TAG)`` where S is the mode's ``seed``, and
  after a ``torch.manual_seed(s)`` inside the mode, ``s``;
* draws with ``generator=g`` (a ``torch.Generator``) use ``g``'s own stream,
  ``Generator(g.initial_seed())`` with its own counter, restarted whenever ``g``
  is re-seeded (diffusers' ``torch.Generator(device).manual_seed(s)`` works
  unchanged, and its noise equals ``xrng.diffusers.randn_tensor`` with
  ``xrng.Generator(s)``).

Stream version (``stream=``, SPEC.md section 7): the mode draws in stream
version 2 (the default, ``xrng.stream_version``) or 1 (``reproducible(seed=0,
stream=1)``: the values of the releases before stream 2); every xrng
Generator it uses is of that version, and the object records it
(``mode.stream``). The keys and offsets are the same in both versions.

Every intercepted call consumes a fixed number of stream words that depends
only on its arguments (SPEC.md lists them), so a program consumes the same
offsets on every device. Random calls the mode cannot make identical
(``binomial``, LSTM dropout, fused kernels with their own RNG,
anything that draws from torch's generators behind the mode's back) are
reported: a one-time :class:`ReproducibilityWarning` naming the op, or
:class:`NotReproducibleError` with ``strict=True``.

Inside ``torch.compile``'d regions these draws of the global stream are drawn
as eagerly, bit for bit, call after call (see ``_COMPILED``: each compiles to
``xrng::mode_take``, which resolves the position when the compiled code runs,
and the xrng operator drawing there): ``rand``, ``randn``, ``rand_like``,
``randn_like``, ``randint``, ``randint_like``, ``randperm``; the in-place fills
``Tensor.uniform_``, ``normal_``, ``exponential_``, ``geometric_``,
``log_normal_``, ``cauchy_``, ``random_`` (so ``nn.init``'s uniform, normal,
xavier and kaiming fills); ``torch.bernoulli``, ``Tensor.bernoulli`` and
``Tensor.bernoulli_`` (float or tensor p); ``torch.normal`` (all four
forms); every dropout (``F.dropout``'s forms, ``dropout1d/2d/3d``,
``alpha_dropout``, ``feature_alpha_dropout``, in place too, ``native_dropout``
and SDPA's); ``F.rrelu`` in training; and the mode's ``erfinv`` (timm's
``trunc_normal_``). Dynamo itself breaks the graph at ``Tensor.random_``,
which then runs eagerly, drawn as usual. A torch function called with
``generator=g`` draws from g's own stream at eager's position (``mode_take``
carries the generator's number: ``_gen_id``); a Tensor method with
``generator=`` is a graph break in Dynamo and runs eagerly. The other random
calls there (``out=`` draws, ...) are reported; multinomial, the gamma
family, poisson and binomial are covered (``_mode_sampling.compiled_entries``).
The dispatch check of ``check_dispatch=True`` says ``ignore_compile_internals``,
so compiled functions compile under ``strict=True`` too.

The mode belongs to the thread that enters it (like every torch mode), and
one thread at a time may be inside a mode: its streams are those of torch's
process-wide generators, so a second thread entering a mode (another object,
or the same one) while the first is inside raises RuntimeError instead of
restarting the stream under the first one's draws (which would repeat its
values). A thread without a mode that calls a random entry point while
another thread has one gets torch's own draw and a
:class:`ReproducibilityWarning`. Threads that need reproducible draws of
their own use the xrng functions with an ``xrng.Generator`` (one per thread,
or one shared: its draws are atomic). DataLoader worker processes forked
inside the mode inherit it, and torch's per-worker
``torch.manual_seed(base_seed + worker_id)`` gives each worker its own
global stream.
"""
from __future__ import annotations

import collections
import functools
import math
import numbers
import sys
import threading
import types
import warnings
import weakref
from typing import Callable, Optional

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import Generator
from . import _check_stream
from . import _op_params
from . import stream_version as _newest_stream
from . import bernoulli_ as _x_bernoulli_
from . import bits_ as _x_bits_
from . import cauchy_ as _x_cauchy_
from . import dropout as _x_dropout
from . import exponential_ as _x_exponential_
from . import geometric_ as _x_geometric_
from . import log_normal_ as _x_log_normal_
from . import normal_ as _x_normal_
from . import randint_ as _x_randint_
from . import randperm as _x_randperm
from . import uniform_ as _x_uniform_

__all__ = ["reproducible", "ReproducibilityWarning", "NotReproducibleError", "GLOBAL_TAG"]

#: The global stream of seed S is ``xrng.Generator(S).fold_in(GLOBAL_TAG)``
#: (ASCII "reproduc"), apart from the stream ``xrng.Generator(s)`` of a
#: ``torch.Generator`` seeded with s.
GLOBAL_TAG = 0x7265_7072_6F64_7563


class ReproducibilityWarning(UserWarning):
    """A random op ran under :class:`reproducible` with torch's own generator,
    so its values may differ between devices (issued once per op and mode)."""


class NotReproducibleError(RuntimeError):
    """Raised instead of :class:`ReproducibilityWarning` under ``reproducible(strict=True)``."""


class _Meta(Exception):
    """A meta tensor is involved: torch's meta kernel runs, nothing is drawn."""


class _Unsupported(Exception):
    """A handler cannot draw this call from xrng (dtype, layout, ...): the call
    runs with torch's generator and is reported."""


# ==== streams ========================================================================================
# A torch generator (torch.default_generator for the global stream, or one a
# program passes as generator=) maps to an xrng Generator: a key and a word
# offset. The torch generator's own state serves as the handle on that position:
# after every xrng draw the torch generator is marked (_mark: a change of its
# state that no draw of torch's can make) and its new state is recorded with the
# xrng position. At the next draw, its state tells what happened in between:
#   unchanged                      -> continue;
#   the state of a fresh generator -> re-seeded (manual_seed): restart at offset 0
#     seeded with initial_seed()      of the key of initial_seed();
#   a state recorded earlier       -> restored (torch.random.fork_rng,
#                                     set_rng_state): back to that position;
#   anything else                  -> something drew from it behind the mode:
#                                     reported; the xrng stream continues.
# The mark makes every recorded state one that torch's own draws cannot reach:
# a program that re-seeds torch and then draws from it outside the mode's entry
# points (a TorchScript function, a C++ extension) moves the generator along
# torch's path from the seed, never onto a recorded state, so it is reported,
# not taken for a restore (issue 20). Without a mark, re-seeding with the seed
# already in use would also leave the state unchanged and go unnoticed.
_HISTORY = 1024  # recorded states per generator (restores reach back this many draws)


class _Stream:
    __slots__ = ("gen", "state", "history", "entry")

    def __init__(self, gen: Generator) -> None:
        self.gen = gen  # the xrng position: key and offset
        self.entry = None  # the mode entry active at the last draw
        self.state: Optional[torch.Tensor] = None  # the torch generator's state when gen was last valid
        self.history: "collections.OrderedDict[bytes, tuple]" = collections.OrderedDict()


_streams: "weakref.WeakKeyDictionary[torch.Generator, _Stream]" = weakref.WeakKeyDictionary()
_fresh: "collections.OrderedDict[tuple, torch.Tensor]" = collections.OrderedDict()
_lock = threading.RLock()
_offset_bump: dict = {}  # device type -> whether its generators take set_offset (no kernel launch)


def _copied_position(tg: torch.Generator, st: torch.Tensor) -> Optional[tuple]:
    """The xrng position recorded with state st by another generator of tg's
    device (its newest record of that state), or None."""
    key = _state_key(st)
    for other, rec in list(_streams.items()):
        if other is not tg and other.device == tg.device and (pos := rec.history.get(key)) is not None:
            return pos
    return None


def _key(seed: int, tag: Optional[int], stream: int = _newest_stream) -> Generator:
    g = Generator(seed % 2**64, stream=stream)
    return g if tag is None else g.fold_in(tag)  # fold_in keeps the stream version


def _fresh_state(tg: torch.Generator) -> torch.Tensor:
    """The state of a new generator on tg's device seeded with tg.initial_seed()."""
    k = (str(tg.device), tg.initial_seed())
    st = _fresh.get(k)
    if st is None:
        try:
            f = torch.Generator(device=tg.device)
        except RuntimeError:  # a device without generator objects: never "fresh"
            return torch.empty(0, dtype=torch.uint8)
        f.manual_seed(k[1])
        st = _fresh[k] = f.get_state()
        if len(_fresh) > 64:
            _fresh.popitem(last=False)
    return st


_marks = 0  # marks made so far in this process (each mark is a new value)


def _mark(tg: torch.Generator) -> None:
    """Marks a torch generator's state (outside any mode) so that its new state
    is one torch's own draws cannot reach (see the comment above _Stream).

    CPU (mt19937): the low 31 bits of word 0 of the state are dead: torch's
    generator outputs word 0 only right after a twist, in the same call, and a
    twist reads only its top bit; so setting them changes the state and none of
    torch's future values (verified by tests/python/test_mode_silent.py). The
    mark is a counter, distinct for 2**31 - 1 draws; it lasts until torch's
    next twist, which is itself a draw the mode reports.
    Philox generators (CUDA): the offset jumps by 2**34 words, a distance no
    sequence of torch's own draws between two calls of the mode covers.
    Other devices: one draw of torch's own (their generators are not marked)."""
    global _marks
    dev = tg.device.type
    if dev == "cpu":
        st = tg.get_state()
        if st.numel() == _CPU_STATE_BYTES:
            _marks = _marks % 0x7FFFFFFF + 1
            w = st.numpy()[24:28].view(np.uint32)  # word 0 of the mt19937 state, little-endian
            w[0] = (int(w[0]) & 0x80000000) | _marks
            tg.set_state(st)
            return
    if _offset_bump.get(dev, True):
        try:  # Philox generators (CUDA): move the offset, no kernel launch
            tg.set_offset((tg.get_offset() + 2**34) % 2**64)
            _offset_bump[dev] = True
            return
        except (RuntimeError, AttributeError):
            _offset_bump[dev] = False
    # TensorBase's own uniform_: torch.Tensor.uniform_ may be the mode's entry point
    with torch._C.DisableTorchFunction():
        torch._C.TensorBase.uniform_(torch.empty((), dtype=torch.float32, device=tg.device), generator=tg)


_CPU_STATE_BYTES = 5056  # torch's CPU generator state: the legacy mt19937 layout (word 0 at byte 24)


def _pos(g: Generator) -> tuple:
    """(seed, subseq, offset) of an xrng Generator: one read of its state tensor
    (three property reads cost three tensor indexings on every draw)."""
    s = g._state.tolist()
    return s[0] % 2**64, s[1] % 2**64, s[2] % 2**64


def _state_key(st: torch.Tensor) -> bytes:
    return st.numpy().tobytes()


# ==== argument binding for torch's builtins (they have no Python signatures) ===========================
def _bind(op: str, args: tuple, kwargs: dict, names: tuple, defaults: dict, kwonly: tuple = ()) -> dict:
    """Binds args/kwargs to torch's documented parameter order; an unknown keyword
    makes the call unsupported (torch then runs and reports it)."""
    if len(args) > len(names):
        raise _Unsupported(f"{op} with {len(args)} positional arguments")
    b = dict(defaults)
    b.update(zip(names, args))
    for k, v in kwargs.items():
        if k not in names and k not in kwonly:
            raise _Unsupported(f"{op} with keyword argument {k!r}")
        b[k] = v
    for n in names:
        if n not in b:  # torch raises its own error for a missing argument
            raise _Unsupported(f"{op} without argument {n!r}")
    return b


def _size(op: str, args: tuple, kwargs: dict) -> tuple:
    """torch's factory size forms: f(2, 3), f((2, 3)), f([2, 3]), f(torch.Size), f(size=...)."""
    if "size" in kwargs:
        if args:
            raise _Unsupported(f"{op} with the size given twice")
        size = kwargs["size"]
    elif not args:  # torch.rand(): torch's TypeError (the call goes to torch)
        raise TypeError(f"{op}() missing 1 required positional arguments: \"size\"")
    elif len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        size = args[0]
    else:
        size = args
    try:
        return tuple(int(s) for s in size)
    except TypeError as e:
        raise _Unsupported(f"{op} with size {size!r}") from e


_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_XRNG_INTS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)  # xrng.randint_ targets


def _check_float(t: torch.Tensor, what: str) -> None:
    if t.dtype not in _FLOATS:
        raise _Unsupported(f"{what} of dtype {t.dtype}")


def _check_tensor(t) -> None:
    if not isinstance(t, torch.Tensor):
        raise _Unsupported(f"argument of type {type(t).__name__}")
    if t.layout != torch.strided:
        raise _Unsupported(f"layout {t.layout}")
    if type(t) not in (torch.Tensor, torch.nn.Parameter):
        raise _Unsupported(f"tensor subclass {type(t).__name__}")
    if t.is_meta:  # no data, nothing to draw: torch's meta kernel runs
        raise _Meta


def _check_inplace(t: torch.Tensor) -> None:
    # xrng writes into the tensor's memory below autograd; keep torch's rules
    if torch.is_grad_enabled() and t.requires_grad:
        if t.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise _Unsupported("an in-place draw into a tensor that is part of an autograd graph")


def _touched(t: torch.Tensor) -> torch.Tensor:
    # xrng wrote t's memory directly: tell autograd, as an in-place torch op would
    if not t.is_inference():  # inference tensors have no version counter
        torch.autograd.graph.increment_version(t)
    return t


def _new(size: tuple, b: dict, default_dtype: torch.dtype) -> torch.Tensor:
    """The output tensor of a factory call (out=, dtype=, device=, pin_memory=)."""
    if b.get("layout") not in (None, torch.strided):
        raise _Unsupported(f"layout {b['layout']}")
    dtype = b.get("dtype")
    out = b.get("out")
    if out is not None:
        _check_tensor(out)
        if dtype is not None and out.dtype != dtype:
            raise RuntimeError(f"dtype {dtype} does not match the dtype of out= ({out.dtype})")
        if tuple(out.shape) != size:
            out.resize_(size)
        return out
    t = torch.empty(size, dtype=default_dtype if dtype is None else dtype, device=b.get("device"),
                    pin_memory=bool(b.get("pin_memory") or False))
    if t.is_meta:  # e.g. under torch.device("meta"): nothing to draw
        raise _Meta
    return t


def _finish(t: torch.Tensor, b: dict) -> torch.Tensor:
    return t.requires_grad_() if b.get("requires_grad") else t


# ==== draws (each consumes the words SPEC.md lists for it) ============================================
def _fill_uniform(t: torch.Tensor, low: float, high: float, g: Generator) -> None:
    if t.numel() == 0:
        return
    if low == high:  # torch allows from == to; xrng's uniform needs low < high
        t.fill_(low)
        return
    _x_uniform_(t, low, high, generator=g)


def _fill_randint(t: torch.Tensor, low: int, high: int, g: Generator) -> None:
    """Integers uniform on [low, high) into any real dtype: an i64 draw (4 words
    per element) for int64 and float64 outputs, an i32 draw (2 words) otherwise."""
    if low >= high:
        raise RuntimeError(f"random integers need low < high, got low={low} >= high={high}")
    if t.numel() == 0:
        return
    wide = t.dtype in (torch.int64, torch.float64)
    if not wide and t.dtype not in _XRNG_INTS + (torch.bool,) + _FLOATS:
        raise _Unsupported(f"integer draw into dtype {t.dtype}")
    if t.dtype == torch.int64 and high - low == 2**64:  # the full int64 range: raw 64-bit words (2 per element)
        u = torch.empty(t.shape, dtype=torch.uint64, device=t.device)
        _x_bits_(u, generator=g)
        t.copy_(u.view(torch.int64))
        return
    shift = 0
    if high == 2**63:  # the top of int64's range is not an exclusive int64 bound: draw [low-1, 2^63-1), add 1
        low, high, shift = low - 1, high - 1, 1
    if t.dtype in _XRNG_INTS and shift == 0:
        _x_randint_(t, low, high, generator=g)
        return
    tmp = torch.empty(t.shape, dtype=torch.int64 if wide else torch.int32, device=t.device)
    _x_randint_(tmp, low, high, generator=g)
    t.copy_(tmp + 1 if shift else tmp)


def _fill_bernoulli_p(t: torch.Tensor, p: float, g: Generator) -> None:
    """Bernoulli(p) into any dtype: 1 where word < round_half_even(p * 2^32)."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    if t.numel() == 0:
        return
    if t.dtype in (torch.bool, torch.uint8):
        _x_bernoulli_(t, p, generator=g)
    else:
        tmp = torch.empty(t.shape, dtype=torch.uint8, device=t.device)
        _x_bernoulli_(tmp, p, generator=g)
        t.copy_(tmp)


def _bernoulli_mask(shape, p: torch.Tensor, g: Generator) -> torch.Tensor:
    """Per-element Bernoulli(p_i) with one word per element: 1 where
    w_i < round_half_even(p_i * 2^32), the rule of a scalar p (SPEC 4.4). Every
    step is exact in binary64 on any device: p_i * 2^32 is a power-of-two
    scaling, round() rounds half to even, words below 2^32 are exact."""
    if p.dtype not in _FLOATS:
        raise _Unsupported(f"probabilities of dtype {p.dtype}")
    p64 = p.detach().to(torch.float64)
    if bool(((p64 < 0) | (p64 > 1) | torch.isnan(p64)).any()):
        raise RuntimeError("bernoulli: the probabilities must be in [0, 1]")
    w = torch.empty(shape, dtype=torch.uint32, device=p.device)
    _x_bits_(w, generator=g)
    words = w.view(torch.int32).to(torch.int64).bitwise_and_(0xFFFFFFFF).to(torch.float64)
    return words < torch.round(p64 * 4294967296.0)


# ---- dropout: one word per element (or per channel), replayed in backward ---------------------------
class _DropoutFn(torch.autograd.Function):
    """xrng.dropout with autograd. The backward pass redraws the same mask from
    (key, offset) instead of storing it: grad_in = dropout(grad_out), i.e.
    grad_out * scale where kept and +0 where dropped."""

    @staticmethod
    def forward(ctx, x, p, seed, subseq, offset, inplace):
        ctx.where = (p, seed, subseq, offset)
        if inplace:
            ctx.mark_dirty(x)
        return _x_dropout(x, p, inplace=inplace, seed=seed, subseq=subseq, offset=offset)

    @staticmethod
    def backward(ctx, grad):
        p, seed, subseq, offset = ctx.where
        return _x_dropout(grad, p, seed=seed, subseq=subseq, offset=offset), None, None, None, None, None


def _dropout_rule(op: str, p: float, train) -> int:
    """torch's special cases, mirrored so that no device draws for them:
    0 -> identity (no draw), 1 -> x * 0 (no draw), 2 -> draw."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")
    if train is False or p == 0.0:
        return 0
    return 1 if p == 1.0 else 2


def _zero(x: torch.Tensor) -> torch.Tensor:
    """torch's p = 1 result is x times a zero of x's own dtype (a bool stays bool, NaN stays NaN)."""
    return torch.zeros((), dtype=x.dtype, device=x.device)


def _keep_scale(n: int, p: float, wide: torch.dtype, device, g: Generator) -> torch.Tensor:
    """n per-channel factors, +0 (dropped) or 1/(1-p) in `wide` (SPEC 4.5's
    scale): the dropout draw applied to ones, one word per channel."""
    return _x_dropout(torch.ones(n, dtype=wide, device=device), p, generator=g)


def _wide(dtype: torch.dtype) -> torch.dtype:
    # SPEC 4.5: f16/bf16 data are scaled in binary32, f64 in binary64
    return torch.float64 if dtype == torch.float64 else torch.float32


# ==== the handlers ======================================================================================
# handler(mode, args, kwargs) -> result. A handler draws everything it needs
# from xrng inside `with mode._draw(generator, op) as g:` (g is the xrng
# Generator at the stream's position), or raises _Unsupported / _PassThrough /
# _Meta before drawing, so that torch runs the call instead.
def _h_rand(m, args, kwargs):
    b = _bind("rand", (), {k: v for k, v in kwargs.items() if k != "size"}, (), {},
              ("generator", "out", "dtype", "layout", "device", "requires_grad", "pin_memory"))
    t = _new(_size("rand", args, kwargs), b, torch.get_default_dtype())
    _check_float(t, "rand")
    with m._draw(b.get("generator"), "torch.rand") as g:
        _fill_uniform(t, 0.0, 1.0, g)
    return _finish(t, b)


def _h_randn(m, args, kwargs):
    b = _bind("randn", (), {k: v for k, v in kwargs.items() if k != "size"}, (), {},
              ("generator", "out", "dtype", "layout", "device", "requires_grad", "pin_memory"))
    t = _new(_size("randn", args, kwargs), b, torch.get_default_dtype())
    _check_float(t, "randn")
    with m._draw(b.get("generator"), "torch.randn") as g:
        if t.numel():
            _x_normal_(t, 0.0, 1.0, generator=g)
    return _finish(t, b)


_FACTORY_KW = ("generator", "out", "dtype", "layout", "device", "requires_grad", "pin_memory")


def _randint_args(args, kwargs) -> tuple:
    """randint's forms: (high, size), (low, high, size), keywords -> (binding, size)."""
    kw = dict(kwargs)
    size = kw.pop("size", None)
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list, torch.Size)):
        size = pos.pop()
    if len(pos) == 2:
        kw.setdefault("low", pos[0])
        kw.setdefault("high", pos[1])
    elif len(pos) == 1:
        kw.setdefault("high", pos[0])
    elif pos:
        raise _Unsupported("randint arguments")
    if size is None or "high" not in kw:
        raise _Unsupported("randint without high or size")
    return _bind("randint", (), kw, ("low", "high"), {"low": 0}, _FACTORY_KW), size


def _h_randint(m, args, kwargs):
    b, size = _randint_args(args, kwargs)
    t = _new(_size("randint", (size,), {}), b, torch.int64)
    with m._draw(b.get("generator"), "torch.randint") as g:
        _fill_randint(t, int(b["low"]), int(b["high"]), g)
    return _finish(t, b)


def _h_randperm(m, args, kwargs):
    b = _bind("randperm", args, kwargs, ("n",), {}, _FACTORY_KW)
    if isinstance(b["n"], (bool, float)):  # torch's TypeError (the call goes to torch)
        raise TypeError(f"randperm: n must be an int, got {type(b['n']).__name__}")
    n = int(b["n"])
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    t = _new((n,), b, torch.int64)
    with m._draw(b.get("generator"), "torch.randperm") as g:
        if n:  # a permutation's key is 12 words whatever n; n = 0 draws nothing
            if t.dtype in (torch.int64, torch.int32):
                _x_randperm(n, generator=g, out=t)
            else:
                t.copy_(_x_randperm(n, generator=g, device=t.device))
    return _finish(t, b)


_LIKE_KW = ("dtype", "layout", "device", "requires_grad", "memory_format", "generator", "pin_memory")


def _like(b: dict) -> torch.Tensor:
    x = b["input"]
    _check_tensor(x)
    if b.get("layout") not in (None, torch.strided):
        raise _Unsupported(f"layout {b['layout']}")
    fmt = b.get("memory_format") or torch.preserve_format
    t = torch.empty_like(x, dtype=b.get("dtype"), device=b.get("device"), memory_format=fmt)
    if t.is_meta:
        raise _Meta
    return t


def _h_rand_like(m, args, kwargs):
    b = _bind("rand_like", args, kwargs, ("input",), {}, _LIKE_KW)
    t = _like(b)
    _check_float(t, "rand_like")
    with m._draw(b.get("generator"), "torch.rand_like") as g:
        _fill_uniform(t, 0.0, 1.0, g)
    return _finish(t, b)


def _h_randn_like(m, args, kwargs):
    b = _bind("randn_like", args, kwargs, ("input",), {}, _LIKE_KW)
    t = _like(b)
    _check_float(t, "randn_like")
    with m._draw(b.get("generator"), "torch.randn_like") as g:
        if t.numel():
            _x_normal_(t, 0.0, 1.0, generator=g)
    return _finish(t, b)


def _h_randint_like(m, args, kwargs):
    b = _bind("randint_like", args, kwargs, ("input", "low", "high"), {"low": None, "high": None}, _LIKE_KW)
    if b["high"] is None:  # randint_like(x, high)
        b["low"], b["high"] = 0, b["low"]
    if b.get("high") is None:
        raise _Unsupported("randint_like without high")
    t = _like(b)
    with m._draw(b.get("generator"), "torch.randint_like") as g:
        _fill_randint(t, int(b.get("low") or 0), int(b["high"]), g)
    return _finish(t, b)


def _inplace_target(b: dict) -> torch.Tensor:
    t = b["self"]
    _check_tensor(t)
    _check_inplace(t)
    return t


def _fill_located(fill: Callable, t: torch.Tensor, params: tuple, g) -> None:
    """fill(t, *params) for the location/scale draws (normal, log_normal, cauchy).
    xrng rejects a parameter that is not finite in the output dtype (SPEC 4);
    torch returns infinities there. In f16/bf16, whose values are by definition
    the binary32 value rounded to 16 bits, such a draw is made in float32 and
    rounded, which gives torch's infinities with xrng's bits everywhere else."""
    try:
        fill(t, *params, generator=g)
    except ValueError as e:
        if t.dtype not in (torch.float16, torch.bfloat16) or "is not finite in" not in str(e):
            raise
        wide = torch.empty(t.shape, dtype=torch.float32, device=t.device)
        fill(wide, *params, generator=g)
        t.copy_(wide)


def _h_uniform_(m, args, kwargs):
    b = _bind("uniform_", args, kwargs, ("self", "from", "to"), {"from": 0.0, "to": 1.0}, ("generator",))
    t = _inplace_target(b)
    _check_float(t, "uniform_")
    lo, hi = float(b["from"]), float(b["to"])
    if not lo <= hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={lo} > to={hi}")
    with m._draw(b.get("generator"), "Tensor.uniform_") as g:
        _fill_uniform(t, lo, hi, g)
    return _touched(t)


def _h_normal_(m, args, kwargs):
    b = _bind("normal_", args, kwargs, ("self", "mean", "std"), {"mean": 0.0, "std": 1.0}, ("generator",))
    t = _inplace_target(b)
    _check_float(t, "normal_")
    if not float(b["std"]) >= 0.0:  # torch's check, made whatever the size
        raise RuntimeError(f"normal expects std >= 0.0, but found std {b['std']}")
    with m._draw(b.get("generator"), "Tensor.normal_") as g:
        if t.numel():
            _fill_located(_x_normal_, t, (float(b["mean"]), float(b["std"])), g)
    return _touched(t)


def _dtype_max(dtype: torch.dtype) -> int:
    """The top of random_()'s default range [0, max]: the largest integer a float
    type holds exactly, or the integer type's maximum."""
    if dtype.is_floating_point:
        return 2 ** {torch.float32: 24, torch.float64: 53, torch.float16: 11, torch.bfloat16: 8}[dtype]
    if dtype == torch.bool:
        return 1
    return torch.iinfo(dtype).max


def _random_args(args, kwargs) -> tuple:
    """random_'s forms: random_(), random_(to), random_(from, to) -> (binding, from, to or None)."""
    kw = dict(kwargs)
    gen = kw.pop("generator", None)
    if "from" in kw or "to" in kw or len(args) == 3:
        b = _bind("random_", args, kw, ("self", "from", "to"), {"from": 0, "to": None})
        low, to = b["from"], b["to"]
    elif len(args) == 2:  # random_(to)
        b = {"self": args[0]}
        low, to = 0, args[1]
    elif len(args) == 1 and not kw:
        b = {"self": args[0]}
        low, to = 0, None
    else:
        raise _Unsupported("random_ arguments")
    b["generator"] = gen
    return b, low, to


def _h_random_(m, args, kwargs):
    b, low, to = _random_args(args, kwargs)
    gen = b["generator"]
    t = _inplace_target(b)
    if t.dtype not in _FLOATS + _XRNG_INTS + (torch.bool,):
        raise _Unsupported(f"random_ into dtype {t.dtype}")
    high = _dtype_max(t.dtype) + 1 if to is None else int(to)
    with m._draw(gen, "Tensor.random_") as g:
        _fill_randint(t, int(low), high, g)
    return _touched(t)


def _h_bernoulli_(m, args, kwargs):
    b = _bind("bernoulli_", args, kwargs, ("self", "p"), {"p": 0.5}, ("generator",))
    t = _inplace_target(b)
    p = b["p"]
    with m._draw(b.get("generator"), "Tensor.bernoulli_") as g:
        if isinstance(p, torch.Tensor):
            _check_tensor(p)
            t.copy_(_bernoulli_mask(t.shape, p.expand(t.shape), g))
        else:
            _fill_bernoulli_p(t, p, g)
    return _touched(t)


def _h_bernoulli(m, args, kwargs):
    # torch.bernoulli(input, *, generator, out): p = input; torch.bernoulli(input, p): scalar p
    b = _bind("bernoulli", args, kwargs, ("input", "p"), {"p": None}, ("generator", "out"))
    x = b["input"]
    _check_tensor(x)
    out = b.get("out")
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    elif out.shape != x.shape:
        out.resize_(x.shape)
    with m._draw(b.get("generator"), "torch.bernoulli") as g:
        if b["p"] is None:
            _check_float(x, "bernoulli")
            out.copy_(_bernoulli_mask(x.shape, x, g))
        else:
            _fill_bernoulli_p(out, b["p"], g)
    return out


def _dist_handler(name: str, fill: Callable, params: tuple, defaults: dict, dtypes: tuple = _FLOATS):
    """Tensor.exponential_ / geometric_ / log_normal_ / cauchy_: xrng's rows of
    the same name (torch's parameter names, in torch's order)."""
    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("self",) + params, defaults, ("generator",))
        t = _inplace_target(b)
        if t.dtype not in dtypes:
            raise _Unsupported(f"{name} into dtype {t.dtype}")
        with m._draw(b.get("generator"), "Tensor." + name) as g:
            if t.numel():
                _fill_located(fill, t, tuple(float(b[k]) for k in params), g)
        return _touched(t)
    return h


def _h_normal(m, args, kwargs):
    """torch.normal: (Tensor, Tensor), (Tensor, float), (float, Tensor), (float, float, size)."""
    b = _bind("normal", args, kwargs, ("mean", "std", "size"), {"std": 1.0, "size": None},
              ("generator", "out", "dtype", "layout", "device", "requires_grad", "pin_memory"))
    mean, std = b["mean"], b.get("std", 1.0)
    tm, ts = isinstance(mean, torch.Tensor), isinstance(std, torch.Tensor)
    if not ts and not float(std) >= 0:  # torch's checks and messages, whatever the size; NaN fails them too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std)}")
    if not tm and not ts:
        if b["size"] is None:
            raise _Unsupported("normal(float, float) without size")
        t = _new(_size("normal", (b["size"],), {}), b, torch.get_default_dtype())
        _check_float(t, "normal")
        with m._draw(b.get("generator"), "torch.normal") as g:
            if t.numel():
                _fill_located(_x_normal_, t, (float(mean), float(std)), g)
        return _finish(t, b)
    for v in (mean, std):
        if isinstance(v, torch.Tensor):
            _check_tensor(v)
    if ts and not bool((std >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    ref = mean if tm else std
    shape = torch.broadcast_shapes(mean.shape if tm else (), std.shape if ts else ())
    out = b.get("out")
    z = torch.empty(shape, dtype=ref.dtype if out is None else out.dtype, device=ref.device)
    _check_float(z, "normal")
    with m._draw(b.get("generator"), "torch.normal") as g:
        if z.numel():
            _x_normal_(z, 0.0, 1.0, generator=g)
    with torch.no_grad():  # z * std + mean as two correctly rounded ops (no fused multiply-add on any device)
        r = z.mul_(std).add_(mean)
    if torch.is_grad_enabled() and (tm and mean.requires_grad or ts and std.requires_grad):
        r = _ZeroGrad.apply(r, mean if tm else None, std if ts else None)
    if out is not None:
        out.resize_(shape).copy_(r)
        return out
    return r


class _ZeroGrad(torch.autograd.Function):
    """torch.normal's gradients with respect to mean and std are zero (it is not
    a reparameterised sample); this keeps that, and keeps the graph connected."""

    @staticmethod
    def forward(ctx, r, mean, std):
        ctx.like = [None if v is None else (v.shape, v.dtype, v.device) for v in (mean, std)]
        return r.clone()

    @staticmethod
    def backward(ctx, grad):
        return None, *(None if v is None else torch.zeros(v[0], dtype=v[1], device=v[2]) for v in ctx.like)


# ---- dropout family (torch level: F.dropout and friends are Python wrappers over these) ------------
def _dropout_args(name: str, args, kwargs, traced: bool = False):
    b = _bind(name, args, kwargs, ("input", "p", "train"), {})
    x = b["input"]
    if traced:  # a compiled region: the tensor may be a tracing subclass (FakeTensor, FunctionalTensor)
        if not isinstance(x, torch.Tensor) or x.layout != torch.strided:
            raise _Unsupported("a strided tensor input")
    else:
        _check_tensor(x)
    return x, float(b["p"]), b["train"]


def _h_dropout(inplace: bool):
    name = "torch.dropout_" if inplace else "torch.dropout"

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(_zero(x)) if inplace else x * _zero(x)
        _check_float(x, name)
        with m._draw(None, name) as g:
            seed, subseq, offset = g.reserve(x.numel())  # one word per element, consumed whatever happens below
        if torch.is_grad_enabled() and x.requires_grad:
            return _DropoutFn.apply(x, p, seed, subseq, offset, inplace)
        return _touched(_x_dropout(x, p, inplace=True, seed=seed, subseq=subseq, offset=offset)) if inplace \
            else _x_dropout(x, p, seed=seed, subseq=subseq, offset=offset)
    return h


def _h_native_dropout(m, args, kwargs):
    b = _bind("native_dropout", args, kwargs, ("input", "p", "train"), {"train": None})
    x, p, train = b["input"], float(b["p"]), b["train"]
    _check_tensor(x)
    rule = _dropout_rule("native_dropout", p, False if train is False else True)
    if rule == 0 or x.numel() == 0:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    if rule == 1:
        return x * _zero(x), torch.zeros_like(x, dtype=torch.bool)
    _check_float(x, "native_dropout")
    with m._draw(None, "torch.native_dropout") as g:
        seed, subseq, offset = g.reserve(x.numel())
    keep = ~_x_bernoulli_(torch.empty(x.shape, dtype=torch.bool, device=x.device), p, seed=seed, subseq=subseq,
                          offset=offset)  # the same words: dropped where w < threshold(p)
    if torch.is_grad_enabled() and x.requires_grad:
        return _DropoutFn.apply(x, p, seed, subseq, offset, False), keep
    return _x_dropout(x, p, seed=seed, subseq=subseq, offset=offset), keep


def _feature_shape(x: torch.Tensor, name: str) -> tuple:
    if x.dim() < 2:
        raise RuntimeError(f"{name}: Feature dropout requires at least 2 dimensions in the input")
    return (x.shape[0], x.shape[1]) + (1,) * (x.dim() - 2)


def _h_feature_dropout(inplace: bool, alpha: bool):
    name = "torch." + ("feature_" if not alpha else "feature_alpha_") + "dropout" + ("_" if inplace else "")

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(_zero(x)) if inplace else x * _zero(x)
        _check_float(x, name)
        fshape = _feature_shape(x, name)
        n = fshape[0] * fshape[1]  # one word per (sample, channel)
        wide = _wide(x.dtype)
        with m._draw(None, name) as g:
            if alpha:
                keep = _keep_mask(n, p, x.device, g).view(fshape)
            else:
                scale = _keep_scale(n, p, wide, x.device, g).view(fshape)
        if alpha:
            r = _alpha_apply(x, p, keep, wide)
        else:
            r = torch.where(scale != 0, x.to(wide) * scale, 0.0).to(x.dtype)
        return x.copy_(r) if inplace else r
    return h


def _keep_mask(n: int, p: float, device, g: Generator) -> torch.Tensor:
    """Kept elements (bool, one word each): kept where the word is >= threshold(p),
    the complement of dropout's drop rule."""
    dropped = torch.empty(n, dtype=torch.bool, device=device)
    _x_bernoulli_(dropped, p, generator=g)
    return ~dropped


_SELU_ALPHA = 1.7580993408473766  # torch's alpha_dropout constant (-selu's negative saturation)


def _alpha_apply(x: torch.Tensor, p: float, keep: torch.Tensor, wide: torch.dtype) -> torch.Tensor:
    # torch's alpha dropout: kept -> x * a + alpha a p, dropped -> alpha a p - alpha a,
    # a = 1 / sqrt((alpha^2 p + 1)(1 - p)); scalars in binary64, applied in `wide`
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    kept_shift = _SELU_ALPHA * a * p
    dropped_value = -_SELU_ALPHA * a + _SELU_ALPHA * a * p
    return torch.where(keep, x.to(wide) * a + kept_shift, dropped_value).to(x.dtype)


def _h_alpha_dropout(inplace: bool):
    name = "torch.alpha_dropout" + ("_" if inplace else "")

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(_zero(x)) if inplace else x * _zero(x)
        _check_float(x, name)
        with m._draw(None, name) as g:
            keep = _keep_mask(x.numel(), p, x.device, g).view(x.shape)
        r = _alpha_apply(x, p, keep, _wide(x.dtype))
        return x.copy_(r) if inplace else r
    return h


def _h_sdpa(m, args, kwargs, traced: bool = False):
    """scaled_dot_product_attention with dropout_p > 0: torch's math formulation
    (the one its documentation gives) with xrng's dropout on the attention
    weights, one word per weight. The fused kernels draw their masks with their
    own RNG, so no device can use them here. dropout_p == 0 runs torch's SDPA."""
    b = _bind("scaled_dot_product_attention", args, kwargs,
              ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"),
              {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None, "enable_gqa": False})
    p = float(b["dropout_p"])
    if p == 0.0:
        raise _PassThrough
    q, k, v, mask = b["query"], b["key"], b["value"], b["attn_mask"]
    for t in (q, k, v) + ((mask,) if mask is not None else ()):
        if not traced:
            _check_tensor(t)
        elif not isinstance(t, torch.Tensor) or t.layout != torch.strided:  # tracing subclasses allowed
            raise _Unsupported("strided tensor arguments")
    _check_float(q, "scaled_dot_product_attention")
    if b["is_causal"] and mask is not None:
        raise RuntimeError("scaled_dot_product_attention: pass either attn_mask or is_causal, not both")
    if b["enable_gqa"]:
        k = k.repeat_interleave(q.size(-3) // k.size(-3), -3)
        v = v.repeat_interleave(q.size(-3) // v.size(-3), -3)
    scale = 1.0 / math.sqrt(q.size(-1)) if b["scale"] is None else float(b["scale"])
    attn = (q @ k.transpose(-2, -1)) * scale
    L, S = q.size(-2), k.size(-2)
    if b["is_causal"]:
        causal = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
        attn = attn.masked_fill(~causal, float("-inf"))
    if mask is not None:
        attn = attn.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else attn + mask
    # fully masked rows give 0, not NaN, as in torch's math path
    attn = torch._safe_softmax(attn, -1) if hasattr(torch, "_safe_softmax") else torch.softmax(attn, -1)
    if traced:  # a compiled region: the position from the mode at run time (see _mode_take)
        pos = _take("scaled_dot_product_attention", "dropout", [p], [], attn.dtype,
                                       attn.numel())
        return (attn * 0 if p == 1.0 else torch.ops.xrng.dropout(attn, p, pos)) @ v
    with m._draw(None, "scaled_dot_product_attention") as g:
        seed, subseq, offset = g.reserve(attn.numel())
    if p == 1.0:
        attn = attn * 0
    elif torch.is_grad_enabled() and attn.requires_grad:
        attn = _DropoutFn.apply(attn, p, seed, subseq, offset, False)
    else:
        attn = _x_dropout(attn, p, seed=seed, subseq=subseq, offset=offset)
    return attn @ v


# ==== compiled regions (torch.compile) ===================================================================
# Inside a compiled region a draw of the global stream becomes two operators:
# xrng::mode_take, which at run time resolves the mode's global stream exactly
# as an eager call does (the mode's bookkeeping: re-seeding, the position,
# the commit) and returns the position of the draw, and the xrng operator
# that draws there (bindings/ops.cpp). mode_take is an ORDERED effectful
# operator: torch threads an effect token through it, so compiled draws keep
# their program order and are never merged or dropped; the position is a
# tensor, never a constant of the graph. So a compiled program draws, call
# after call, the values the eager program draws under the mode.
_lib = torch.library.Library("xrng", "FRAGMENT")
_lib.define("mode_take(str op, str dist, float[] reals, int[] ints, ScalarType dtype, SymInt numel, "
            "int generator=0) -> Tensor")

# Explicit torch.Generator arguments (generator=g) in compiled regions: the
# generator is known to the compiled code by a number (_gen_id: registered at
# trace time; Dynamo guards the graph on the generator object's identity, so a
# graph traced for g never runs for another generator), and mode_take looks it
# up when the compiled code runs, taking the position from that generator's
# stream exactly as the eager call's m._draw(g, ...) does. 0: the global stream.
_GEN_BY_ID: dict = {}  # id -> weakref of the torch.Generator
_ID_BY_GEN: "weakref.WeakKeyDictionary[torch.Generator, int]" = weakref.WeakKeyDictionary()
_C_GEN = [0]  # trace time: the generator id of the compiled handler being traced (kwargs' generator=)


def _gen_id(g: torch.Generator) -> int:
    with _lock:
        i = _ID_BY_GEN.get(g)
        if i is None:
            i = _ID_BY_GEN[g] = len(_GEN_BY_ID) + 1
            _GEN_BY_ID[i] = weakref.ref(g)
        return i


# torch.compiler.assume_constant_result(_gen_id), without importing torch._dynamo
# at import (as _probe): Dynamo calls it at trace time and bakes in the number
_gen_id._dynamo_marked_constant = True


def _take(op, dist, reals, ints, dtype, numel):
    """xrng::mode_take for the compiled handler being traced (its generator, if any)."""
    return torch.ops.xrng.mode_take(op, dist, reals, ints, dtype, numel, _C_GEN[0])


def _mode_take(op, dist, reals, ints, dtype, numel, generator=0):
    m = getattr(_tls, "top", None)
    if m is None:
        raise NotReproducibleError(f"xrng.reproducible: {op} was compiled under the mode and runs outside it")
    tg = None
    if generator:
        ref = _GEN_BY_ID.get(generator)
        tg = ref() if ref is not None else None
        if tg is None:
            raise NotReproducibleError(f"xrng.reproducible: {op} was compiled with a torch.Generator that no "
                                       f"longer exists")
    with m._draw(tg, op) as g:
        return torch.ops.xrng.take_(g.state_tensor, dist, list(reals), list(ints), dtype, numel)


_lib.impl("mode_take", _mode_take, "CompositeExplicitAutograd")


@torch.library.register_fake("xrng::mode_take", lib=_lib)
def _mode_take_fake(op, dist, reals, ints, dtype, numel, generator=0):
    return torch.empty(4, dtype=torch.int64)


try:
    from torch._higher_order_ops.effects import _register_effectful_op
    from torch._library.effects import EffectType
    _register_effectful_op(torch.ops.xrng.mode_take.default, EffectType.ORDERED)
except ImportError:  # an older torch: tagged random instead (not merged, not dropped)
    pass


def _from_compiler() -> bool:
    """Whether the entry point was called by torch's compiler itself (e.g.
    Inductor tracing its replacement patterns, which call torch.randperm),
    rather than by the program: such calls are not the program's draws."""
    f = sys._getframe(3)  # _from_compiler <- _call <- wrapper <- the caller
    return f is not None and f.f_globals.get("__name__", "").startswith("torch._inductor")


def _c_real(device) -> None:
    """A draw on the meta device: eagerly torch's meta kernel runs and nothing is
    drawn (_Meta); so here (no position is taken)."""
    if torch.device(device).type == "meta":
        raise _PassThrough


def _c_dropout(inplace: bool):
    name = "torch.dropout_" if inplace else "torch.dropout"

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs, traced=True)
        _c_real(x.device)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(0) if inplace else x * 0
        _check_float(x, name)
        pos = _take(name, "dropout", [p], [], x.dtype, x.numel())
        y = torch.ops.xrng.dropout(x, p, pos)
        return x.copy_(y) if inplace else y
    return h


def _c_factory(dist: str, params: dict):
    name = "torch." + ("rand" if dist == "uniform" else "randn")

    def h(m, args, kwargs):
        b = _bind(name[6:], (), {k: v for k, v in kwargs.items() if k != "size"}, (), {}, _FACTORY_KW)
        if b.get("generator") is not None or b.get("out") is not None:
            raise _Unsupported("generator= or out=")
        if b.get("layout") not in (None, torch.strided):
            raise _Unsupported(f"layout {b['layout']}")
        size = list(_size(name[6:], args, kwargs))
        dtype = b.get("dtype") or torch.get_default_dtype()
        if dtype not in _FLOATS:
            raise _Unsupported(f"dtype {dtype}")
        device = b.get("device")
        device = torch.empty(0).device if device is None else torch.device(device)
        _c_real(device)
        numel = 1
        for d in size:
            numel = numel * d
        reals = [params[k] for k in params]
        pos = _take(name, dist, reals, [], dtype, numel)
        t = torch.ops.xrng.draw(size, dist, reals, [], pos, dtype, device)
        return t.requires_grad_() if b.get("requires_grad") else t
    return h


def _c_like(dist: str, params: dict):
    name = "torch." + ("rand_like" if dist == "uniform" else "randn_like")

    def h(m, args, kwargs):
        if len(args) != 1 or set(kwargs) - {"dtype", "device", "requires_grad"}:
            raise _Unsupported("arguments")
        x = args[0]
        dtype = kwargs.get("dtype") or x.dtype
        device = kwargs.get("device") or x.device
        _c_real(device)
        if dtype not in _FLOATS:
            raise _Unsupported(f"dtype {dtype}")
        reals = [params[k] for k in params]
        pos = _take(name, dist, reals, [], dtype, x.numel())
        t = torch.ops.xrng.draw(list(x.shape), dist, reals, [], pos, dtype, torch.device(device))
        return t.requires_grad_() if kwargs.get("requires_grad") else t
    return h


def _c_bernoulli_(m, args, kwargs):
    """Tensor.bernoulli_(p) with a float p (timm's DropPath, stochastic depth) or a tensor p."""
    b = _bind("bernoulli_", args, kwargs, ("self", "p"), {"p": 0.5}, ("generator",))
    t, p = b["self"], b["p"]
    if b.get("generator") is not None:
        raise _Unsupported("generator=")
    _c_real(t.device)
    if isinstance(p, torch.Tensor):
        return t.copy_(_c_bernoulli_mask(m, "Tensor.bernoulli_", t.shape, p.expand(t.shape)))
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    dtype = t.dtype if t.dtype in (torch.bool, torch.uint8) else torch.uint8
    pos = _take("Tensor.bernoulli_", "bernoulli", [p], [], dtype, t.numel())
    return t.copy_(torch.ops.xrng.draw(list(t.shape), "bernoulli", [p], [], pos, dtype, t.device))


# ---- the eager handlers' other draws, compiled --------------------------------------------------------
# Each compiled handler draws the words its eager handler draws, from the same
# position: the same distribution, parameters, dtype and element count (so the
# same xrng::take_ plan), in the same order; where the eager handler would not
# draw from xrng (unsupported arguments, parameters xrng refuses), the compiled
# one raises _Unsupported and the call is reported, as eagerly.
_PROBED: dict = {}


def _probe(dist: str, params: tuple, dtype: torch.dtype, stream: int) -> str:
    """Whether xrng draws ``dist`` with ``params`` ((name, value) pairs) into
    ``dtype``: "" if it does, else its error, found by drawing on the host
    outside any tracing (the checks of the eager draw, not a copy of them): one
    element, or the n of a permutation. A constant for Dynamo."""
    key = (dist, params, dtype, stream)
    r = _PROBED.get(key)
    if r is None:
        from torch.utils._python_dispatch import _disable_current_modes
        from . import _C
        try:
            with _disable_current_modes():
                n = dict(params)["n"] if dist == "perm" else 1
                _C.draw_(torch.empty(n, dtype=dtype), (0, 0, 0), dist, dict(params), "auto", 0, stream)
            r = ""
        except (ValueError, RuntimeError, TypeError, OverflowError) as e:
            r = (str(e).splitlines() or [type(e).__name__])[0] or type(e).__name__
        _PROBED[key] = r
    return r


# torch._dynamo.assume_constant_result(_probe), without importing torch._dynamo (a second) with xrng
_probe._dynamo_marked_constant = True


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n = n * d
    return n


def _c_draw(m, op: str, dist: str, params: dict, shape, dtype: torch.dtype, device, located: bool = False):
    """A new tensor holding what the eager draw of ``dist`` into a tensor of
    this shape and dtype writes (``_C.draw_``: element i in row-major order is
    draw element i). located: _fill_located's rule for f16/bf16 (a parameter
    not finite in the dtype: drawn in float32 and rounded)."""
    _c_real(device)
    items = tuple(params.items())
    err = "" if dist == "perm" else _probe(dist, items, dtype, m.stream)  # perm: checked by _c_randperm
    if err:
        if located and dtype in (torch.float16, torch.bfloat16) and "is not finite in" in err \
                and not _probe(dist, items, torch.float32, m.stream):
            return _c_draw(m, op, dist, params, shape, torch.float32, device).to(dtype)
        raise _Unsupported(err)
    reals, ints = _op_params(dist, params)
    pos = _take(op, dist, reals, ints, dtype, _numel(shape))
    return torch.ops.xrng.draw(list(shape), dist, reals, ints, pos, dtype, device)


def _c_target(b: dict) -> torch.Tensor:
    """The tensor of an in-place draw in a compiled region (tracing subclasses allowed)."""
    t = b["self"]
    if not isinstance(t, torch.Tensor) or t.layout != torch.strided:
        raise _Unsupported("a strided tensor")
    if b.get("generator") is not None:
        raise _Unsupported("generator=")
    _c_real(t.device)
    if torch.is_grad_enabled() and t.requires_grad:
        raise _Unsupported("an in-place draw into a tensor that requires grad")
    return t


def _c_uniform_(m, args, kwargs):
    b = _bind("uniform_", args, kwargs, ("self", "from", "to"), {"from": 0.0, "to": 1.0}, ("generator",))
    t = _c_target(b)
    _check_float(t, "uniform_")
    lo, hi = float(b["from"]), float(b["to"])
    if not lo <= hi:
        raise _Unsupported(f"from={lo} > to={hi}")
    if t.numel() == 0:
        return t
    if lo == hi:  # _fill_uniform: no draw
        return t.fill_(lo)
    return t.copy_(_c_draw(m, "Tensor.uniform_", "uniform", {"low": lo, "high": hi}, t.shape, t.dtype, t.device))


def _c_normal_(m, args, kwargs):
    b = _bind("normal_", args, kwargs, ("self", "mean", "std"), {"mean": 0.0, "std": 1.0}, ("generator",))
    t = _c_target(b)
    _check_float(t, "normal_")
    mean, std = float(b["mean"]), float(b["std"])
    if not std >= 0.0:
        raise _Unsupported(f"std {std}")
    if t.numel() == 0:
        return t
    return t.copy_(_c_draw(m, "Tensor.normal_", "normal", {"mean": mean, "std": std}, t.shape, t.dtype, t.device,
                           located=True))


def _c_dist(name: str, dist: str, params: tuple, xparams: tuple, defaults: dict, dtypes: tuple = _FLOATS):
    """Tensor.exponential_ / geometric_ / log_normal_ / cauchy_ (_dist_handler's
    draws): torch's parameters ``params`` are xrng's ``xparams``."""
    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("self",) + params, defaults, ("generator",))
        t = _c_target(b)
        if t.dtype not in dtypes:
            raise _Unsupported(f"{name} into dtype {t.dtype}")
        vals = {x: float(b[k]) for k, x in zip(params, xparams)}
        if t.numel() == 0:
            return t
        return t.copy_(_c_draw(m, "Tensor." + name, dist, vals, t.shape, t.dtype, t.device, located=True))
    return h


def _c_randint(m, op: str, shape, dtype: torch.dtype, device, low: int, high: int) -> torch.Tensor:
    """_fill_randint's draw into a new tensor (the same words, the same values)."""
    if low >= high:
        raise _Unsupported(f"low={low} >= high={high}")
    if _numel(shape) == 0:
        return torch.empty(shape, dtype=dtype, device=device)
    wide = dtype in (torch.int64, torch.float64)
    if not wide and dtype not in _XRNG_INTS + (torch.bool,) + _FLOATS:
        raise _Unsupported(f"integer draw into dtype {dtype}")
    if dtype == torch.int64 and high - low == 2**64:  # raw 64-bit words
        return _c_draw(m, op, "bits", {}, shape, torch.uint64, device).view(torch.int64)
    shift = 0
    if high == 2**63:
        low, high, shift = low - 1, high - 1, 1
    params = {"ilow": low, "ihigh": high}
    if dtype in _XRNG_INTS and shift == 0:
        return _c_draw(m, op, "randint", params, shape, dtype, device)
    tmp = _c_draw(m, op, "randint", params, shape, torch.int64 if wide else torch.int32, device)
    return (tmp + 1 if shift else tmp).to(dtype)


def _c_new(b: dict, default_dtype: torch.dtype) -> tuple:
    """(dtype, device) of a factory call in a compiled region (_new's, without out=)."""
    if b.get("generator") is not None or b.get("out") is not None:
        raise _Unsupported("generator= or out=")
    if b.get("layout") not in (None, torch.strided):
        raise _Unsupported(f"layout {b['layout']}")
    device = b.get("device")
    device = torch.empty(0).device if device is None else torch.device(device)  # torch's default, as _new
    _c_real(device)
    return b.get("dtype") or default_dtype, device


def _c_int(v, what: str) -> int:
    if isinstance(v, (bool, float, torch.Tensor)):  # torch's own errors or conversions
        raise _Unsupported(f"{what} of type {type(v).__name__}")
    return int(v)


def _c_randint_factory(m, args, kwargs):
    b, size = _randint_args(args, kwargs)
    dtype, device = _c_new(b, torch.int64)
    t = _c_randint(m, "torch.randint", _size("randint", (size,), {}), dtype, device, _c_int(b["low"], "low"),
                   _c_int(b["high"], "high"))
    return t.requires_grad_() if b.get("requires_grad") else t


def _c_randint_like(m, args, kwargs):
    b = _bind("randint_like", args, kwargs, ("input", "low", "high"), {"low": None, "high": None}, _LIKE_KW)
    if b["high"] is None:  # randint_like(x, high)
        b["low"], b["high"] = 0, b["low"]
    if b.get("high") is None:
        raise _Unsupported("randint_like without high")
    x = b["input"]
    if not isinstance(x, torch.Tensor) or x.layout != torch.strided or \
            b.get("layout") not in (None, torch.strided) or b.get("generator") is not None:
        raise _Unsupported("arguments")
    dtype = b.get("dtype") or x.dtype
    device = x.device if b.get("device") is None else torch.device(b["device"])
    _c_real(device)
    t = _c_randint(m, "torch.randint_like", tuple(x.shape), dtype, device, _c_int(b.get("low") or 0, "low"),
                   _c_int(b["high"], "high"))
    return t.requires_grad_() if b.get("requires_grad") else t


def _c_randperm(m, args, kwargs):
    b = _bind("randperm", args, kwargs, ("n",), {}, _FACTORY_KW)
    n = _c_int(b["n"], "n")
    if n < 0:
        raise _Unsupported(f"n = {n}")
    dtype, device = _c_new(b, torch.int64)
    # xrng's checks of a permutation (rng/plan.h, DistDef<perm>), here rather
    # than probed: n may be a size of dynamic shapes, known when the code runs
    if n > 2**63 or dtype == torch.int32 and n - 1 > 2**31 - 1:
        raise _Unsupported(f"a permutation of {n} elements in {dtype}")
    if n == 0:  # no draw
        t = torch.empty(0, dtype=dtype, device=device)
    elif dtype in (torch.int64, torch.int32):
        t = _c_draw(m, "torch.randperm", "perm", {"n": n}, (n,), dtype, device)
    else:
        t = _c_draw(m, "torch.randperm", "perm", {"n": n}, (n,), torch.int64, device).to(dtype)
    return t.requires_grad_() if b.get("requires_grad") else t


def _c_random_(m, args, kwargs):
    b, low, to = _random_args(args, kwargs)
    t = _c_target(b)
    if t.dtype not in _FLOATS + _XRNG_INTS + (torch.bool,):
        raise _Unsupported(f"random_ into dtype {t.dtype}")
    high = _dtype_max(t.dtype) + 1 if to is None else int(to)
    return t.copy_(_c_randint(m, "Tensor.random_", t.shape, t.dtype, t.device, int(low), high))


def _c_bernoulli_mask(m, op: str, shape, p) -> torch.Tensor:
    """_bernoulli_mask in a compiled region: one word per element, the same rule."""
    if not isinstance(p, torch.Tensor) or p.layout != torch.strided:
        raise _Unsupported("probabilities that are not a strided tensor")
    if p.dtype not in _FLOATS:
        raise _Unsupported(f"probabilities of dtype {p.dtype}")
    _c_real(p.device)
    p64 = p.detach().to(torch.float64)
    # eagerly the call raises (torch's error) before drawing: here, when the compiled code runs
    torch._assert_async(torch.logical_not(((p64 < 0) | (p64 > 1) | torch.isnan(p64)).any()),
                        "bernoulli: the probabilities must be in [0, 1]")
    if _numel(shape) == 0:
        return torch.zeros(shape, dtype=torch.bool, device=p.device)
    w = _c_draw(m, op, "bits", {}, shape, torch.uint32, p.device)
    words = w.view(torch.int32).to(torch.int64).bitwise_and(0xFFFFFFFF).to(torch.float64)
    return words < torch.round(p64 * 4294967296.0)


def _c_bernoulli(name: str):
    """torch.bernoulli / Tensor.bernoulli: p = input (a tensor of probabilities) or a float p."""
    def h(m, args, kwargs):
        b = _bind("bernoulli", args, kwargs, ("input", "p"), {"p": None}, ("generator", "out"))
        x, p = b["input"], b["p"]
        if not isinstance(x, torch.Tensor) or x.layout != torch.strided:
            raise _Unsupported("a strided tensor")
        if b.get("generator") is not None or b.get("out") is not None:
            raise _Unsupported("generator= or out=")
        _c_real(x.device)
        if p is None:
            _check_float(x, "bernoulli")
            return _c_bernoulli_mask(m, name, x.shape, x).to(x.dtype)
        if isinstance(p, torch.Tensor):
            raise _Unsupported("a tensor p with an input")
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise _Unsupported(f"p = {p}")
        if x.numel() == 0:
            return torch.empty(x.shape, dtype=x.dtype, device=x.device)
        dtype = x.dtype if x.dtype in (torch.bool, torch.uint8) else torch.uint8  # _fill_bernoulli_p
        return _c_draw(m, name, "bernoulli", {"p": p}, x.shape, dtype, x.device).to(x.dtype)
    return h


def _c_feature_dropout(inplace: bool, alpha: bool):
    """feature_dropout / feature_alpha_dropout (dropout1d/2d/3d, F.feature_alpha_dropout): one
    word per (sample, channel), as _h_feature_dropout."""
    name = "torch." + ("feature_" if not alpha else "feature_alpha_") + "dropout" + ("_" if inplace else "")

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs, traced=True)
        _c_real(x.device)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(_zero(x)) if inplace else x * _zero(x)
        _check_float(x, name)
        if x.dim() < 2:
            raise _Unsupported("fewer than 2 dimensions")  # torch's error
        fshape = _feature_shape(x, name)
        n = fshape[0] * fshape[1]
        wide = _wide(x.dtype)
        if alpha:
            keep = _c_keep_mask(m, name, n, p, x.device).view(fshape)
            r = torch.ops.xrng.mode_alpha_apply(x, p, keep)
        else:  # _keep_scale: the dropout draw applied to ones
            pos = _take(name, "dropout", [p], [], wide, n)
            scale = torch.ops.xrng.dropout(torch.ones(n, dtype=wide, device=x.device), p, pos).view(fshape)
            r = torch.where(scale != 0, x.to(wide) * scale, 0.0).to(x.dtype)
        return x.copy_(r) if inplace else r
    return h


def _c_keep_mask(m, op: str, n: int, p: float, device) -> torch.Tensor:
    """_keep_mask: the complement of n Bernoulli(p) draws (bool, one word each)."""
    return torch.logical_not(_c_draw(m, op, "bernoulli", {"p": p}, (n,), torch.bool, device))


def _c_alpha_dropout(inplace: bool):
    name = "torch.alpha_dropout" + ("_" if inplace else "")

    def h(m, args, kwargs):
        x, p, train = _dropout_args(name, args, kwargs, traced=True)
        _c_real(x.device)
        rule = _dropout_rule(name, p, train)
        if rule == 0 or x.numel() == 0:
            return x
        if rule == 1:
            return x.mul_(_zero(x)) if inplace else x * _zero(x)
        _check_float(x, name)
        keep = _c_keep_mask(m, name, x.numel(), p, x.device).view(x.shape)
        r = torch.ops.xrng.mode_alpha_apply(x, p, keep)
        return x.copy_(r) if inplace else r
    return h


# alpha dropout's affine step x * a + c, as the eager handler computes it
# (_alpha_apply), as an operator opaque to the compiler: a compiler may fuse
# the multiply and the add into one rounding (Triton does on CUDA), which the
# eager handler never does. Its gradient is torch's for _alpha_apply.
@torch.library.custom_op("xrng::mode_alpha_apply", mutates_args=())
def _mode_alpha_apply(x: torch.Tensor, p: float, keep: torch.Tensor) -> torch.Tensor:
    return _alpha_apply(x, p, keep, _wide(x.dtype)).contiguous()


@_mode_alpha_apply.register_fake
def _mode_alpha_apply_fake(x, p, keep):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _mode_alpha_setup(ctx, inputs, output):
    x, p, keep = inputs
    ctx.p, ctx.dtype = p, x.dtype
    ctx.save_for_backward(keep)


def _mode_alpha_backward(ctx, grad):
    (keep,) = ctx.saved_tensors
    p, wide = ctx.p, _wide(ctx.dtype)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    return (torch.where(keep, grad.to(wide), 0.0) * a).to(ctx.dtype), None, None


_mode_alpha_apply.register_autograd(_mode_alpha_backward, setup_context=_mode_alpha_setup)


def _c_rrelu(inplace: bool):
    """F.rrelu in training (_h_rrelu): one uniform per element, negative or not."""
    name = "torch.rrelu" + ("_" if inplace else "")

    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("input", "lower", "upper", "training"),
                  {"lower": 1.0 / 8, "upper": 1.0 / 3, "training": False}, ("generator",))
        if not b["training"]:
            raise _PassThrough
        x = b["input"]
        if not isinstance(x, torch.Tensor) or x.layout != torch.strided or b.get("generator") is not None:
            raise _Unsupported("arguments")
        _c_real(x.device)
        _check_float(x, name)
        if x.dtype == torch.float16 and x.device.type == "cpu":
            raise _Unsupported("float16 on the CPU")  # torch's CPU kernel has none: eagerly torch's error
        lo, hi = float(b["lower"]), float(b["upper"])
        if not lo <= hi:
            raise _Unsupported(f"lower bound {lo} > upper bound {hi}")
        if x.numel() == 0 or lo == hi:  # _fill_uniform: no draw
            r = torch.full(x.shape, lo, dtype=x.dtype, device=x.device)
        else:
            r = _c_draw(m, name, "uniform", {"low": lo, "high": hi}, x.shape, x.dtype, x.device)
        slope = torch.where(x <= 0, r, 1.0)
        return x.mul_(slope) if inplace else x * slope
    return h


def _c_native_dropout(m, args, kwargs):
    """torch.native_dropout (_h_native_dropout): the mask is the Bernoulli draw
    of dropout's own words (the same position)."""
    b = _bind("native_dropout", args, kwargs, ("input", "p", "train"), {"train": None})
    x, p, train = b["input"], float(b["p"]), b["train"]
    if not isinstance(x, torch.Tensor) or x.layout != torch.strided:
        raise _Unsupported("a strided tensor")
    _c_real(x.device)
    rule = _dropout_rule("native_dropout", p, False if train is False else True)
    if rule == 0 or x.numel() == 0:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    if rule == 1:
        return x * _zero(x), torch.zeros_like(x, dtype=torch.bool)
    _check_float(x, "native_dropout")
    pos = _take("torch.native_dropout", "dropout", [p], [], x.dtype, x.numel())
    dropped = torch.ops.xrng.draw(list(x.shape), "bernoulli", [p], [], pos, torch.bool, x.device)
    return torch.ops.xrng.dropout(x, p, pos), torch.logical_not(dropped)


def _c_normal(m, args, kwargs):
    """torch.normal (_h_normal): (float, float, size) a fill; the tensor forms
    z * std + mean of a standard normal z, as the opaque xrng::mode_normal_affine."""
    b = _bind("normal", args, kwargs, ("mean", "std", "size"), {"std": 1.0, "size": None}, _FACTORY_KW)
    mean, std = b["mean"], b.get("std", 1.0)
    tm, ts = isinstance(mean, torch.Tensor), isinstance(std, torch.Tensor)
    if b.get("generator") is not None or b.get("out") is not None:
        raise _Unsupported("generator= or out=")
    if not ts and not float(std) >= 0:
        raise _Unsupported(f"std {std}")
    if not tm and not ts:
        if b["size"] is None:
            raise _Unsupported("normal(float, float) without size")
        dtype, device = _c_new(b, torch.get_default_dtype())
        if dtype not in _FLOATS:
            raise _Unsupported(f"dtype {dtype}")
        shape = _size("normal", (b["size"],), {})
        if _numel(shape) == 0:
            t = torch.empty(shape, dtype=dtype, device=device)
        else:
            t = _c_draw(m, "torch.normal", "normal", {"mean": float(mean), "std": float(std)}, shape, dtype, device,
                        located=True)
        return t.requires_grad_() if b.get("requires_grad") else t
    if b["size"] is not None:
        raise _Unsupported("size with a tensor mean or std")  # torch's error
    for v in (mean, std):
        if isinstance(v, torch.Tensor) and v.layout != torch.strided:
            raise _Unsupported(f"layout {v.layout}")
    ref = mean if tm else std
    _c_real(ref.device)
    if ts:  # eagerly torch's error before the draw; here when the code runs
        torch._assert_async(torch.all(std >= 0), "normal expects all elements of std >= 0.0")
    shape = torch.broadcast_shapes(mean.shape if tm else (), std.shape if ts else ())
    if ref.dtype not in _FLOATS:
        raise _Unsupported(f"normal of dtype {ref.dtype}")
    if _numel(shape) == 0:
        z = torch.empty(shape, dtype=ref.dtype, device=ref.device)
    else:
        z = _c_draw(m, "torch.normal", "normal", {"mean": 0.0, "std": 1.0}, shape, ref.dtype, ref.device)
    return torch.ops.xrng.mode_normal_affine(z, mean if tm else None, 0.0 if tm else float(mean),
                                             std if ts else None, 1.0 if ts else float(std))


# torch.normal's z * std + mean as the eager handler computes it (two
# correctly rounded operations), opaque to the compiler (which may fuse them);
# its gradients with respect to mean and std are zero, as torch's (_ZeroGrad).
@torch.library.custom_op("xrng::mode_normal_affine", mutates_args=())
def _mode_normal_affine(z: torch.Tensor, mean: Optional[torch.Tensor], mean_f: float, std: Optional[torch.Tensor],
                        std_f: float) -> torch.Tensor:
    with torch.no_grad():
        return z.clone().mul_(std_f if std is None else std).add_(mean_f if mean is None else mean)


@_mode_normal_affine.register_fake
def _mode_normal_affine_fake(z, mean, mean_f, std, std_f):
    return torch.empty(z.shape, dtype=z.dtype, device=z.device)


def _mode_normal_setup(ctx, inputs, output):
    _, mean, _, std, _ = inputs
    ctx.like = [None if v is None else (v.shape, v.dtype, v.device) for v in (mean, std)]


def _mode_normal_backward(ctx, grad):
    zm, zs = (None if v is None else torch.zeros(v[0], dtype=v[1], device=v[2]) for v in ctx.like)
    return None, zm, None, zs, None


_mode_normal_affine.register_autograd(_mode_normal_backward, setup_context=_mode_normal_setup)


# erfinv (nn.init.trunc_normal_'s uniform_ -> erfinv_): the eager handler's
# host computation as an operator, opaque to the compiler, so that the
# compiled code computes the same bits (not a draw: no position).
@torch.library.custom_op("xrng::mode_erfinv", mutates_args=())
def _mode_erfinv(x: torch.Tensor) -> torch.Tensor:
    return _erfinv_host(x).to(x.device)


@_mode_erfinv.register_fake
def _mode_erfinv_fake(x):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _c_erfinv(inplace: bool, name: str):
    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("input",), {}, ("out",))
        x = b["input"]
        if not isinstance(x, torch.Tensor) or x.layout != torch.strided:
            raise _Unsupported("a strided tensor")
        if x.dtype not in _FLOATS or torch.is_grad_enabled() and x.requires_grad:
            raise _PassThrough  # torch's erfinv, as eagerly
        if b.get("out") is not None:
            raise _Unsupported("out=")
        r = torch.ops.xrng.mode_erfinv(x)
        return x.copy_(r) if inplace else r
    return h


#: The entry points of _COMPILED that take a keyword generator= (a torch.Generator:
#: its own stream, as eagerly; see _gen_id).
_C_GEN_NAMES = frozenset((
    "torch.rand", "torch.randn", "torch.rand_like", "torch.randn_like", "Tensor.bernoulli_", "Tensor.uniform_",
    "Tensor.normal_", "Tensor.exponential_", "Tensor.geometric_", "Tensor.log_normal_", "Tensor.cauchy_",
    "Tensor.random_", "torch.randint", "torch.randint_like", "torch.randperm", "torch.bernoulli", "torch.normal",
    "torch.rrelu", "torch.rrelu_", "Tensor.bernoulli", "torch.multinomial", "Tensor.multinomial",
    "torch._standard_gamma", "torch._sample_dirichlet", "torch.poisson", "torch.binomial"))

#: The entry points covered inside compiled regions, by their reporting name.
_COMPILED: dict = {
    "torch.dropout": _c_dropout(False),
    "torch.dropout_": _c_dropout(True),
    "torch.feature_dropout": _c_feature_dropout(False, False),
    "torch.feature_dropout_": _c_feature_dropout(True, False),
    "torch.feature_alpha_dropout": _c_feature_dropout(False, True),
    "torch.feature_alpha_dropout_": _c_feature_dropout(True, True),
    "torch.alpha_dropout": _c_alpha_dropout(False),
    "torch.alpha_dropout_": _c_alpha_dropout(True),
    "torch.rand": _c_factory("uniform", {"low": 0.0, "high": 1.0}),
    "torch.randn": _c_factory("normal", {"mean": 0.0, "std": 1.0}),
    "torch.rand_like": _c_like("uniform", {"low": 0.0, "high": 1.0}),
    "torch.randn_like": _c_like("normal", {"mean": 0.0, "std": 1.0}),
    "Tensor.bernoulli_": _c_bernoulli_,
    "Tensor.uniform_": _c_uniform_,
    "Tensor.normal_": _c_normal_,
    "Tensor.exponential_": _c_dist("exponential_", "exponential", ("lambd",), ("rate",), {"lambd": 1.0}),
    "Tensor.geometric_": _c_dist("geometric_", "geometric", ("p",), ("p",), {}, _FLOATS + (torch.int32, torch.int64)),
    "Tensor.log_normal_": _c_dist("log_normal_", "log_normal", ("mean", "std"), ("mean", "std"),
                                  {"mean": 1.0, "std": 2.0}),
    "Tensor.cauchy_": _c_dist("cauchy_", "cauchy", ("median", "sigma"), ("median", "sigma"),
                              {"median": 0.0, "sigma": 1.0}),
    "Tensor.random_": _c_random_,
    "torch.randint": _c_randint_factory,
    "torch.randint_like": _c_randint_like,
    "torch.randperm": _c_randperm,
    "torch.bernoulli": _c_bernoulli("torch.bernoulli"),
    "torch.normal": _c_normal,
    "torch.native_dropout": _c_native_dropout,
    "torch.rrelu": _c_rrelu(False),
    "torch.rrelu_": _c_rrelu(True),
    "Tensor.bernoulli": _c_bernoulli("Tensor.bernoulli"),
    "torch.erfinv": _c_erfinv(False, "erfinv"),
    "Tensor.erfinv": _c_erfinv(False, "Tensor.erfinv"),
    "Tensor.erfinv_": _c_erfinv(True, "Tensor.erfinv_"),
    "torch.special.erfinv": _c_erfinv(False, "torch.special.erfinv"),
    "torch.nn.functional.scaled_dot_product_attention": lambda m, a, k: _h_sdpa(m, a, k, traced=True),
}

from ._mode_sampling import compiled_entries as _sampling_compiled  # noqa: E402  (multinomial, gamma family)
_COMPILED.update(_sampling_compiled())


class _PassThrough(Exception):
    """The call draws nothing (e.g. dropout_p == 0): run torch's function."""


def _h_rrelu(inplace: bool):
    name = "torch.rrelu" + ("_" if inplace else "")

    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("input", "lower", "upper", "training"),
                  {"lower": 1.0 / 8, "upper": 1.0 / 3, "training": False}, ("generator",))
        if not b["training"]:
            raise _PassThrough
        x = b["input"]
        _check_tensor(x)
        _check_float(x, name)
        lo, hi = float(b["lower"]), float(b["upper"])
        if not lo <= hi:
            raise RuntimeError(f"{name}: lower bound {lo} must be <= upper bound {hi}")
        r = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        with m._draw(b.get("generator"), name) as g:  # one uniform per element, negative or not
            _fill_uniform(r, lo, hi, g)
        slope = torch.where(x <= 0, r, 1.0)  # torch: slope r where x <= 0, 1 elsewhere
        return x.mul_(slope) if inplace else x * slope
    return h


# ---- erfinv: xrng's own, from correctly rounded binary64 operations ---------------------------------
# timm's trunc_normal_ (and other inverse-CDF samplers) pass xrng's uniforms
# through erfinv_, whose last bits differ between torch's CPU and CUDA kernels.
# Under the mode erfinv is computed on the host from +, -, *, /, sqrt, frexp
# and comparisons in binary64 (all exact or correctly rounded, unfused, on any
# CPU), then rounded once to the tensor's dtype and copied back: the same bits
# for every device, every CPU and every thread count.
#
# erfinv(y) = ndtri((1 + y) / 2) / sqrt(2), ndtri by Wichura's AS241 (PPND16,
# relative error about 1e-16) evaluated at q = y / 2 (exact), so that small y
# lose nothing to 1 + y. Coefficients highest degree first (Horner).
_AS241_CENTRAL_NUM = (2.5090809287301226727e+3, 3.3430575583588128105e+4, 6.7265770927008700853e+4,
                      4.5921953931549871457e+4, 1.3731693765509461125e+4, 1.9715909503065514427e+3,
                      1.3314166789178437745e+2, 3.3871328727963666080e+0)
_AS241_CENTRAL_DEN = (5.2264952788528545610e+3, 2.8729085735721942674e+4, 3.9307895800092710610e+4,
                      2.1213794301586595867e+4, 5.3941960214247511077e+3, 6.8718700749205790830e+2,
                      4.2313330701600911252e+1, 1.0)
_AS241_NEAR_NUM = (7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1,
                   1.27045825245236838258e+0, 3.64784832476320460504e+0, 5.76949722146069140550e+0,
                   4.63033784615654529590e+0, 1.42343711074968357734e+0)
_AS241_NEAR_DEN = (1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2,
                   1.48103976427480074590e-1, 6.89767334985100004550e-1, 1.67638483018380384940e+0,
                   2.05319162663775882187e+0, 1.0)
_AS241_FAR_NUM = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3,
                  2.65321895265761230930e-2, 2.96560571828504891230e-1, 1.78482653991729133580e+0,
                  5.46378491116411436990e+0, 6.65790464350110377720e+0)
_AS241_FAR_DEN = (2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5,
                  7.86869131145613259100e-4, 1.48753612908506148525e-2, 1.36929880922735805310e-1,
                  5.99832206555887937690e-1, 1.0)
# log: SPEC 5.1's structure (fdlibm e_log.c) with Taylor coefficients 2/(2j+1)
_LOG_P = tuple(2.0 / (2 * j + 1) for j in range(11, 0, -1))  # 2/23 ... 2/3
_LN2_HI = float.fromhex("0x1.62e42feep-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
_SQRT_HALF = float.fromhex("0x1.6a09e667f3bcdp-1")
_SQRT2 = math.sqrt(2.0)


def _horner(x: torch.Tensor, coeffs: tuple) -> torch.Tensor:
    p = torch.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        p = p.mul_(x).add_(c)  # two roundings, never a fused multiply-add
    return p


def _log64(x: torch.Tensor) -> torch.Tensor:
    """log(x) for positive normal binary64 x (a CPU tensor), within about 1 ulp."""
    m, e = torch.frexp(x)  # x = m 2^e, m in [1/2, 1): exact
    low = m < _SQRT_HALF   # move m into [sqrt(1/2), sqrt(2)): exact doubling
    m = torch.where(low, m * 2.0, m)
    k = torch.where(low, e - 1, e).to(torch.float64)
    f = m - 1.0            # exact (Sterbenz)
    s = f / (f + 2.0)
    z = s * s
    r = z * _horner(z, _LOG_P)
    hfsq = (f * 0.5) * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def erfinv64(y: torch.Tensor) -> torch.Tensor:
    """erfinv of a binary64 CPU tensor, from correctly rounded operations only
    (the same bits on every CPU). erfinv(+-1) = +-inf, NaN outside [-1, 1]."""
    q = y * 0.5                      # p - 1/2 for p = (1 + y) / 2, exact
    a = q.abs()
    central = a <= 0.425
    r = 0.180625 - q * q
    xc = _horner(r, _AS241_CENTRAL_NUM).mul_(q).div_(_horner(r, _AS241_CENTRAL_DEN))
    t = torch.where(central | (a >= 0.5) | torch.isnan(a), 0.25, 0.5 - a)  # min(p, 1 - p), exact; a dummy elsewhere
    s = torch.sqrt(-_log64(t))
    s1, s2 = s - 1.6, s - 5.0
    xn = _horner(s1, _AS241_NEAR_NUM).div_(_horner(s1, _AS241_NEAR_DEN))
    xf = _horner(s2, _AS241_FAR_NUM).div_(_horner(s2, _AS241_FAR_DEN))
    xt = torch.where(s <= 5.0, xn, xf)
    x = torch.where(central, xc, torch.where(q < 0, -xt, xt))
    x = x / _SQRT2
    x = torch.where(a == 0.5, torch.copysign(torch.full_like(y, math.inf), y), x)
    return torch.where((a > 0.5) | torch.isnan(y), math.nan, x)


def _erfinv_host(x: torch.Tensor) -> torch.Tensor:
    return erfinv64(x.detach().to("cpu", torch.float64)).to(x.dtype)


def _h_erfinv(inplace: bool, name: str):
    def h(m, args, kwargs):
        b = _bind(name, args, kwargs, ("input",), {}, ("out",))
        x = b.get("input", b.get("self"))
        _check_tensor(x)
        if x.dtype not in _FLOATS or torch.is_grad_enabled() and x.requires_grad:
            raise _PassThrough  # integer inputs and autograd: torch's erfinv (deterministic math, not a draw)
        if x.is_meta:
            raise _PassThrough
        r = _erfinv_host(x)
        if inplace:
            return _touched(x.copy_(r))
        out = b.get("out")
        if out is not None:
            return out.resize_(x.shape).copy_(r)
        return r.to(x.device)
    return h


# ==== what is reported ===================================================================================
# aten ops whose schema takes a Generator: the random ones. The entry points
# below report those the mode does not handle; the dispatcher-level check
# watches all of them, plus ops that draw from a device generator without
# taking one (those with a dropout argument).
def _random_aten_names() -> frozenset:
    names = set()
    for s in torch._C._jit_get_all_schemas():
        if s.name.startswith("aten::") and any("Generator" in str(a.type) for a in s.arguments):
            names.add(s.name[6:])
    names -= {"manual_seed", "initial_seed", "seed"}
    return frozenset(names)


_RANDOM_ATEN: frozenset = frozenset()  # filled with the tables, when the first mode starts (import stays cheap)
_DROPOUT_ARG_OPS = frozenset((
    "native_dropout", "_fused_dropout", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_cudnn_attention", "_flash_attention_forward", "_efficient_attention_forward", "_cudnn_rnn",
    "_cudnn_init_dropout_state", "lstm", "gru", "rnn_tanh", "rnn_relu"))


def _dropout_arg(args: tuple, kwargs: dict, schema) -> Optional[tuple]:
    """(dropout probability, train) of a call whose schema has a dropout argument."""
    p, train = None, True
    for i, a in enumerate(schema.arguments):
        v = kwargs.get(a.name, args[i] if i < len(args) else None)
        if a.name in ("dropout_p", "dropout", "p") and isinstance(v, numbers.Real):
            p = float(v)
        elif a.name in ("train", "training") and isinstance(v, bool):
            train = v
    return None if p is None else (p, train)


def _rnn_draws(args: tuple, kwargs: dict) -> bool:
    """lstm/gru/rnn_*: both overloads have (..., num_layers, dropout, train, ...):
    the first float positional argument is the dropout, the bool after it train."""
    vals = list(args) + list(kwargs.values())
    for i, v in enumerate(vals):
        if isinstance(v, float):
            train = next((w for w in vals[i + 1:] if isinstance(w, bool)), True)
            return v > 0 and train
    return False


def _dropout_p_draws(name: str) -> Callable:
    schema = getattr(torch.ops.aten, name).default._schema

    def draws(args, kwargs):
        d = _dropout_arg(args, kwargs, schema)
        return d is not None and d[0] > 0 and d[1]
    return draws


def _on_meta(args: tuple, kwargs: dict) -> bool:
    # a random op on the meta device draws nothing (model construction on the meta device)
    dev = kwargs.get("device")
    if dev is not None:
        return torch.device(dev).type == "meta"
    return any(isinstance(a, torch.Tensor) and a.is_meta for a in args)


class _DispatchCheck(TorchDispatchMode):
    """The dispatcher-level catch-all (check_dispatch=True): reports random aten
    ops that reach the dispatcher outside the mode's own draws, naming the op
    (inside C++ composites, through aliases of torch functions bound before the
    mode started, through torch.ops.aten directly)."""

    def __init__(self, owner: "reproducible") -> None:
        super().__init__()
        self.owner = owner

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        """torch.compile turns this mode off while it compiles and on again while
        the compiled code runs, so a compiled function compiles under
        strict=True too (Dynamo compiles nothing under a dispatch mode that
        does not say this); the compiled region's draws are the mode's own
        (its compiled handlers, and its reports of what they do not cover)."""
        return True

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._overloadpacket.__name__
        owner = self.owner
        if owner.engine == "dispatch":
            global _RANDOM_ATEN
            if not _RANDOM_ATEN:
                _RANDOM_ATEN = _random_aten_names()
            from ._dispatch import report_check
            report_check(owner, func, args, kwargs)
            return func(*args, **kwargs)
        if not owner._internal and owner.passing is None and not _on_meta(args, kwargs) and (
                name in _RANDOM_ATEN or name in _DROPOUT_ARG_OPS and (
                    (d := _dropout_arg(args, kwargs, func._schema)) is not None and d[0] > 0 and d[1])):
            owner._report(f"aten.{name}", "reached the dispatcher without passing through the mode's entry "
                                          "points, and draws from torch's generator")
        return func(*args, **kwargs)


# ==== the entry points ===================================================================================
# While a mode is active anywhere, torch's random entry points are replaced by
# wrappers (and restored when the last one ends). A wrapper calls torch's
# original unless the calling thread has an active mode, in which case the
# mode draws the call from xrng. Intercepting these names, not every torch
# call, is what keeps the rest of the program at full speed: a
# TorchFunctionMode sees every torch call, and even an empty one made a small
# transformer's CPU training step 3.5-9% slower (docs/reproducible.md).
# They are torch-level names, above device dispatch: F.dropout reaches
# _VF.dropout once, with the same arguments on every device, whereas below it
# CPU dropout is a bernoulli_ and a multiply and CUDA dropout one fused
# native_dropout. Code inside torch that calls these names at call time
# (F.dropout2d, F.multi_head_attention_forward, nn.init, F.gumbel_softmax, the
# RNN modules) is intercepted with everything else, and so are module-level
# aliases (_scan_aliases); a reference kept elsewhere, or a call from C++, is
# not: its draws are caught by the generator watch (and named by the
# dispatcher-level check).
_tls = threading.local()  # .top: the innermost active reproducible of this thread


class _Entry:
    """One replaced entry point: where it lives, its original, and what the mode does with it."""
    __slots__ = ("owner", "attr", "name", "handler", "special", "why", "original", "wrapper", "own")


_ENTRIES: list = []
_installed = 0  # active entries of modes, all threads together
# The thread whose modes are active (one thread at a time: the global stream is
# torch.default_generator's, process-wide, and a second thread entering a mode
# would restart it under the first one's draws) and its active entries.
_owner: Optional[int] = None
_owner_depth = 0


def _claim() -> None:
    """Makes the calling thread the owner of the active modes, or raises: a
    mode is entered by one thread at a time."""
    global _owner, _owner_depth
    me = threading.get_ident()
    with _lock:
        if _owner is not None and _owner != me:
            raise RuntimeError(f"xrng.reproducible: a mode is already active on another thread "
                               f"({_thread_name(_owner)}); the mode's streams are process-wide (torch's "
                               f"generators), so one thread at a time may be inside it: give each thread "
                               f"an xrng.Generator and call the xrng functions instead")
        _owner = me
        _owner_depth += 1


def _unclaim() -> None:
    global _owner, _owner_depth
    with _lock:
        _owner_depth -= 1
        if _owner_depth == 0:
            _owner = None


def _thread_name(ident: int) -> str:
    for t in threading.enumerate():
        if t.ident == ident:
            return t.name
    return f"thread {ident}"


def _after_fork_in_child() -> None:
    """A forked child (a DataLoader worker) keeps the mode only on the thread
    that forked inside it; any other owner does not exist in the child."""
    global _owner, _owner_depth
    if _owner is not None and _owner != threading.get_ident():
        _owner, _owner_depth = None, 0


if hasattr(__import__("os"), "register_at_fork"):
    __import__("os").register_at_fork(after_in_child=_after_fork_in_child)


_foreign_draws: list = []  # random calls made by threads without a mode while one is active
_set_state_calls: list = []  # torch.set_rng_state calls since the mode's last global draw


def _set_rng_state(new_state):
    """torch.set_rng_state while a mode may be active: remembered, so that a
    state the mode did not record is reported for what it is (issue 20)."""
    if getattr(_tls, "top", None) is not None:
        with _lock:
            _set_state_calls.append("torch.set_rng_state")
    return _SET_RNG_STATE(new_state)


_SET_RNG_STATE = None  # torch.set_rng_state while the wrapper is installed


def _elsewhere(name: str) -> None:
    """A random entry point called on a thread without a mode while another
    thread has one: torch draws it, and says so (it is not reproducible)."""
    if _owner is not None and _owner != threading.get_ident():
        with _lock:  # seen by the mode's next draw of the global stream (_resolve)
            _foreign_draws.append(f"{name} on {threading.current_thread().name}")
            del _foreign_draws[:-8]
        warnings.warn(f"xrng.reproducible: {name} was called on {threading.current_thread().name}, which has no "
                      f"mode, while a mode is active on {_thread_name(_owner)}: drawn by torch's generator, not "
                      f"by the mode; its values may differ between devices", ReproducibilityWarning, stacklevel=3)


def _make_wrapper(e: _Entry) -> Callable:
    orig, handler, special, name = e.original, e.handler, e.special, e.name

    if handler is not None:
        def wrapper(*args, **kwargs):
            m = getattr(_tls, "top", None)
            if m is None:
                _elsewhere(name)
                return orig(*args, **kwargs)
            return m._call(orig, handler, name, args, kwargs)
    else:
        def wrapper(*args, **kwargs):
            m = getattr(_tls, "top", None)
            if m is None or not special(args, kwargs):
                if m is None and special(args, kwargs):
                    _elsewhere(name)
                return orig(*args, **kwargs)
            if torch.compiler.is_compiling():  # traced: no generator bookkeeping on fake tensors
                m._report(name, f"is inside a torch.compile'd region and {e.why}")
                return orig(*args, **kwargs)
            m._report(name, e.why)
            return m._pass(orig, name, args, kwargs)
    try:
        functools.update_wrapper(wrapper, orig)
    except (AttributeError, TypeError):  # builtins without __dict__
        wrapper.__name__ = getattr(orig, "__name__", name)
        wrapper.__doc__ = getattr(orig, "__doc__", None)
    wrapper.__xrng_original__ = orig
    return wrapper


def _target(owner, attr: str, name: str, handler: Optional[Callable] = None,
            special: Optional[Callable] = None, why: str = "") -> None:
    orig = getattr(owner, attr, None)
    if orig is None or not callable(orig) or isinstance(orig, types.ModuleType):
        return
    e = _Entry()
    e.owner, e.attr, e.name, e.handler, e.special, e.original = owner, attr, name, handler, special, orig
    e.own = attr in vars(owner)  # torch.Tensor's methods live on TensorBase: restore by deleting
    e.why = why
    e.wrapper = _make_wrapper(e)
    _ENTRIES.append(e)
    _BY_ORIGINAL.setdefault(id(orig), e)


_BY_ORIGINAL: dict = {}  # id(original) -> its _Entry (the originals stay alive in their entries)
_scanned: set = set()    # names of the modules searched for aliases
_scanned_count = 0       # len(sys.modules) at the last search


def _scan_aliases() -> None:
    """Module-level aliases of the entry points, bound before the mode started
    (torch.utils.data's `from torch import randperm`, a program's `from torch
    import randn`), get the same wrappers. Each module is searched once, when
    the first mode starts after it was imported."""
    global _scanned_count
    if len(sys.modules) == _scanned_count:  # nothing imported since the last search (the common case)
        return
    _scanned_count = len(sys.modules)
    for mod_name, mod in list(sys.modules.items()):
        if mod_name in _scanned:
            continue
        _scanned.add(mod_name)
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for attr, v in list(d.items()):
            e = _BY_ORIGINAL.get(id(v))
            if e is not None and v is e.original and not (mod is e.owner and attr == e.attr):
                a = _Entry()
                a.owner, a.attr, a.name, a.handler, a.special, a.why = mod, attr, e.name, e.handler, e.special, e.why
                a.original, a.wrapper, a.own = v, e.wrapper, True
                _ENTRIES.append(a)


def _dataloader_iterator(self):
    """DataLoader._get_iterator while a mode may be active: workers started by
    spawn or forkserver are fresh processes that do not inherit the mode, so
    the mode travels with their initialisation (xrng.data._ModeWorkerInit, in
    front of the program's worker_init_fn): they draw what forked workers
    draw (issue 20)."""
    m = getattr(_tls, "top", None)
    if m is not None and m._entries and self.num_workers > 0:
        import multiprocessing
        ctx = self.multiprocessing_context
        method = ctx.get_start_method() if ctx is not None else multiprocessing.get_start_method()
        if method != "fork":
            from .data import _ModeWorkerInit
            user = self.worker_init_fn
            self.__dict__["worker_init_fn"] = _ModeWorkerInit(m.stream, m.strict, m.check_dispatch, user, m.engine)
            try:
                return _DATALOADER_ITER(self)  # the workers start here, with the wrapped init
            finally:
                self.__dict__["worker_init_fn"] = user
    return _DATALOADER_ITER(self)


_DATALOADER_ITER = None  # DataLoader._get_iterator while the wrapper is installed
_loader_users = 0  # active entries (of either engine) that need the wrapper


def _install_loader() -> None:
    global _DATALOADER_ITER, _loader_users
    with _lock:
        if _loader_users == 0:
            from torch.utils.data import DataLoader
            _DATALOADER_ITER = DataLoader.__dict__["_get_iterator"]
            DataLoader._get_iterator = _dataloader_iterator
        _loader_users += 1


def _uninstall_loader() -> None:
    global _loader_users
    with _lock:
        _loader_users -= 1
        if _loader_users == 0:
            from torch.utils.data import DataLoader
            DataLoader._get_iterator = _DATALOADER_ITER


def _install() -> None:
    global _installed, _DATALOADER_ITER, _SET_RNG_STATE
    with _lock:
        if not _ENTRIES:
            _build_tables()
        if _installed == 0:
            _install_loader()
            _SET_RNG_STATE = torch.random.set_rng_state
            torch.set_rng_state = torch.random.set_rng_state = _set_rng_state
            from .distributed import _mode_entries  # torch.distributed.tensor.rand/randn, once loaded (issue 17)
            for owner, attr, name, h in _mode_entries():
                _target(owner, attr, name, h)
            _scan_aliases()
            for e in _ENTRIES:
                setattr(e.owner, e.attr, e.wrapper)
        _installed += 1


def _uninstall() -> None:
    global _installed
    with _lock:
        _installed -= 1
        if _installed == 0:
            _uninstall_loader()
            torch.set_rng_state = torch.random.set_rng_state = _SET_RNG_STATE
            for e in _ENTRIES:
                if e.own:
                    setattr(e.owner, e.attr, e.original)
                else:
                    delattr(e.owner, e.attr)


def _build_tables() -> None:
    """The entry points and their wrappers (once, at the first enable: reading
    every aten schema takes some 50 ms)."""
    global _RANDOM_ATEN
    _RANDOM_ATEN = _random_aten_names()
    T, VF, F = torch.Tensor, torch._VF, torch.nn.functional
    for owner in (torch, VF):  # F.dropout & co. call torch._VF's; programs call torch's
        for attr, h in (("rand", _h_rand), ("randn", _h_randn), ("randint", _h_randint), ("randperm", _h_randperm),
                        ("rand_like", _h_rand_like), ("randn_like", _h_randn_like),
                        ("randint_like", _h_randint_like), ("bernoulli", _h_bernoulli), ("normal", _h_normal),
                        ("native_dropout", _h_native_dropout), ("erfinv", _h_erfinv(False, "erfinv"))):
            if owner is torch or attr in ("native_dropout",):
                _target(owner, attr, "torch." + attr, h)
        for inplace in (False, True):
            u = "_" if inplace else ""
            _target(owner, "dropout" + u, "torch.dropout" + u, _h_dropout(inplace))
            _target(owner, "feature_dropout" + u, "torch.feature_dropout" + u, _h_feature_dropout(inplace, False))
            _target(owner, "alpha_dropout" + u, "torch.alpha_dropout" + u, _h_alpha_dropout(inplace))
            _target(owner, "feature_alpha_dropout" + u, "torch.feature_alpha_dropout" + u,
                    _h_feature_dropout(inplace, True))
            _target(owner, "rrelu" + u, "torch.rrelu" + u, _h_rrelu(inplace))
        for attr in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
            _target(owner, attr, "torch." + attr, special=_rnn_draws,
                    why="with dropout > 0 in training draws its masks inside C++ (cuDNN's own RNG on CUDA)")
    for attr, h in (("uniform_", _h_uniform_), ("normal_", _h_normal_), ("random_", _h_random_),
                    ("bernoulli_", _h_bernoulli_), ("bernoulli", _h_bernoulli),
                    ("erfinv", _h_erfinv(False, "Tensor.erfinv")), ("erfinv_", _h_erfinv(True, "Tensor.erfinv_")),
                    ("exponential_", _dist_handler("exponential_", _x_exponential_, ("lambd",), {"lambd": 1.0})),
                    ("geometric_", _dist_handler("geometric_", _x_geometric_, ("p",), {},
                                                 _FLOATS + (torch.int32, torch.int64))),
                    ("log_normal_", _dist_handler("log_normal_", _x_log_normal_, ("mean", "std"),
                                                  {"mean": 1.0, "std": 2.0})),
                    ("cauchy_", _dist_handler("cauchy_", _x_cauchy_, ("median", "sigma"),
                                              {"median": 0.0, "sigma": 1.0}))):
        _target(T, attr, "Tensor." + attr, h)
    _target(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention", _h_sdpa)
    _target(torch.special, "erfinv", "torch.special.erfinv", _h_erfinv(False, "torch.special.erfinv"))

    from ._mode_sampling import mode_entries as _sampling_entries  # torch.multinomial (issue 20)
    for owner, attr, name, h in _sampling_entries():
        _target(owner, attr, name, h)

    # random calls without an xrng formulation: reported, then run by torch
    handled = {e.attr for e in _ENTRIES}
    always = lambda args, kwargs: True  # noqa: E731
    why = "draws from torch's generator: xrng has no identical-on-every-device formulation of it"
    for n in sorted(_RANDOM_ATEN - handled):
        for owner, prefix in ((torch, "torch."), (T, "Tensor."), (torch._C._nn, "torch._C._nn."),
                              (torch.special, "torch.special.")):
            if n in vars(owner) or owner is T and hasattr(T, n):
                _target(owner, n, prefix + n, special=always, why=why)
    for n in ("_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_for_cpu",
              "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention", "_fused_dropout"):
        if hasattr(torch.ops.aten, n):
            _target(torch, n, "torch." + n, special=_dropout_p_draws(n), why="draws its dropout mask with its own RNG")


# ==== torch's argument checking under the mode ============================================================
# An unmodified program must behave as without the mode, apart from the values
# drawn: where torch raises, the mode raises torch's exception (issue 21), and
# where torch returns a value, the mode returns one (xrng's, or torch's,
# reported, where xrng has no formulation: NaN parameters...). Three layers:
# * the entry points rarely on a hot path (randint, random_,
#   bernoulli, geometric_, exponential_, log_normal_, cauchy_, rrelu) run in
#   torch first, which raises where it raises (its exception and message);
#   when it returns, xrng draws the call again: one extra torch draw each;
# * the others (rand, randn, normal, uniform_, normal_, the *_like factories,
#   randperm (a sampler's epoch shuffle may be large), dropout, attention) run in torch first once per (entry point, dtypes,
#   devices) with elements, which finds the dtypes a kernel lacks (torch's
#   CPU kernels have no uint32 or complex draws, no float16 rrelu); their
#   handlers check the parameters as torch does;
# * an error a handler or xrng raises sends the call to torch (_call).
# A check on meta tensors would be generic, but it tripled the cost of a
# small intercepted call (randn(8): 99 -> 332 us, dropout of 64x64: 130 -> 922
# us, on the development machine).
_TORCH_FIRST = frozenset(("torch.randint", "torch.randint_like", "Tensor.random_",
                          "torch.bernoulli", "Tensor.bernoulli", "Tensor.bernoulli_", "Tensor.geometric_",
                          "Tensor.exponential_", "Tensor.log_normal_", "Tensor.cauchy_", "torch.rrelu",
                          "torch.rrelu_"))
_KERNEL_RAN: set = set()  # (entry point, dtypes and devices) torch's kernel ran with elements


def _kernel_key(name: str, args: tuple, kwargs: dict) -> tuple:
    key = [name, kwargs.get("dtype"), str(kwargs.get("device"))]
    for v in (*args, *kwargs.values()):
        if isinstance(v, torch.Tensor):
            key.append((v.dtype, v.device.type))
    return tuple(key)


def _copy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in x):
        return type(x)(_copy(v) for v in x)
    return x


def _any_meta(args: tuple, kwargs: dict) -> bool:
    return any(isinstance(v, torch.Tensor) and v.is_meta for v in (*args, *kwargs.values()))


def _has_elements(x) -> bool:
    if isinstance(x, torch.Tensor):
        return x.numel() > 0
    return isinstance(x, (tuple, list)) and any(_has_elements(v) for v in x)


# ==== the public object ==================================================================================
class reproducible:
    """Makes every random draw of an eager PyTorch program come from xrng.

    Args:
        seed: the key of the global stream (draws without ``generator=``):
            ``xrng.Generator(seed).fold_in(GLOBAL_TAG)``, from offset 0 at
            every entry. ``None``: ``torch.initial_seed()`` at entry. A
            ``torch.manual_seed(s)`` inside the mode restarts the global
            stream on the key of ``s``.
        stream: the stream version of every draw (SPEC.md section 7): 1 or
            2, default ``xrng.stream_version`` (2). Or one of torch's own
            generators (SPEC.md 8.5): ``"torch-cpu-x86"`` /
            ``"torch-cpu-scalar"`` (every draw gives what torch's CPU
            generator gives on an x86 CPU with AVX2 / on ARM or with
            ``ATEN_CPU_CAPABILITY=default``, on any host and device; the
            state is torch's CPU generator itself; ``seed``: None keeps its
            state, an int seeds it at entry), ``"torch-cuda"`` with
            ``sm_count=`` and ``threads_per_sm=`` (default 2048), or
            ``profile=`` (``xrng.torch_cuda``'s): what torch's CUDA
            generator gives on that GPU. An op the stream does not reproduce
            is reported (strict: raised) and drawn by torch's own kernel.
            Recorded as ``self.stream``.
        sm_count, threads_per_sm, profile: the GPU of ``stream="torch-cuda"``.
        strict: raise :class:`NotReproducibleError` (before the op runs, where
            possible) instead of warning once about a random op the mode
            cannot make identical on every device.
        check_dispatch: also watch every aten op at the dispatcher, naming
            random ops that escape the entry points (inside C++ composites,
            through references bound before the mode started). Costs a few
            microseconds per aten op. Default: the value of ``strict``.
        engine: ``"dispatch"`` (default; the environment variable
            ``XRNG_MODE_ENGINE`` changes the default): xrng's C++ kernels
            serve torch's random aten operators while the mode is active, so
            torch keeps its own semantics (autograd, forward AD, vmap,
            tracing, TorchScript, memory formats, subclasses) and calls cost
            about what torch's own do (``xrng._dispatch``; SPEC.md section
            8.4). ``"entry"`` (deprecated, to be removed): the mode wraps
            torch's random entry points in Python (this module), with its
            own dropout and erfinv definitions (SPEC.md 8.2, 8.3).

    Use it as a context manager (``with xrng.reproducible(seed=0): ...``), as
    a decorator (each call starts the stream afresh), or with
    :meth:`enable` / :meth:`disable` for a whole script. Entries nest; leaving
    an inner one resumes the outer one's stream where it was. The mode applies
    to the thread that enters it, and one thread at a time may be inside a
    mode (entering on a second thread while one is active: RuntimeError).

    Attributes:
        reported: ``{op: reason}`` for every op reported so far by this object.
    """

    def __init__(self, seed: Optional[int] = None, *, stream: "int | str | None" = None, strict: bool = False,
                 check_dispatch: Optional[bool] = None, engine: Optional[str] = None,
                 sm_count: Optional[int] = None, threads_per_sm: Optional[int] = None,
                 profile: Optional[str] = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        if engine is None:  # the default; XRNG_MODE_ENGINE overrides it (running a test suite on either)
            engine = __import__("os").environ.get("XRNG_MODE_ENGINE", "dispatch")
        if engine not in ("entry", "dispatch"):
            raise ValueError(f"engine must be 'entry' or 'dispatch', got {engine!r}")
        if engine == "entry":
            warnings.warn("xrng.reproducible: engine='entry' is deprecated and will be removed; the default "
                          "engine ('dispatch') serves torch's random aten operators and keeps torch's semantics "
                          "(its dropout and erfinv differ: SPEC.md 8.4)", FutureWarning, stacklevel=2)
        #: How draws reach xrng: "entry" (torch's random entry points are
        #: wrapped) or "dispatch" (xrng's kernels serve torch's random aten
        #: operators: xrng._dispatch).
        self.engine = engine
        self.seed = None if seed is None else int(seed) % 2**64
        #: The stream of every draw of the mode: xrng's stream version (1 or
        #: 2), or one of torch's generators ("torch-cpu-x86",
        #: "torch-cpu-scalar", "torch-cuda:<sm_count>:<threads_per_sm>").
        from ._dispatch import stream_arg
        self.stream = stream_arg(stream, engine, sm_count, threads_per_sm, profile)
        self.strict = bool(strict)
        self.check_dispatch = self.strict if check_dispatch is None else bool(check_dispatch)
        self.reported: dict = {}
        self.passing: Optional[str] = None  # the reported call torch is running for the mode
        self._entries: list = []  # (dispatch check or None, saved global position, previous top of the thread)
        self._internal = False    # True while the mode itself calls torch's RNG (the throwaway draws)
        self._last_op = "the start of the mode"
        self._watch: dict = {}    # CUDA default generator -> its state after the last global draw

    # ---- keys (public: what a test or a user needs to reproduce a draw by hand) ----
    @staticmethod
    def global_generator(seed: int, stream: Optional[int] = None) -> Generator:
        """The xrng Generator at which the global stream of ``seed`` starts:
        ``xrng.Generator(seed, stream=stream).fold_in(GLOBAL_TAG)``, offset 0
        (stream: the mode's ``stream``, default the newest)."""
        return _key(int(seed), GLOBAL_TAG, _newest_stream if stream is None else _check_stream(stream))

    @staticmethod
    def generator_for(seed: int, stream: Optional[int] = None) -> Generator:
        """The xrng Generator at which a ``torch.Generator`` seeded with ``seed``
        starts under the mode: ``xrng.Generator(seed, stream=stream)``, offset 0."""
        return _key(int(seed), None, _newest_stream if stream is None else _check_stream(stream))

    def global_position(self) -> Generator:
        """A copy of the global stream's current position (key and offset)."""
        if self.engine == "dispatch":
            from . import _dispatch
            if not self._entries:
                raise RuntimeError("xrng.reproducible: this mode is not active")
            return _dispatch.global_position()
        rec = _streams.get(torch.default_generator)
        if rec is None:
            raise RuntimeError("xrng.reproducible: no global stream yet (the mode was never entered)")
        return rec.gen.clone()

    # ---- entering and leaving ----
    def __enter__(self) -> "reproducible":
        self.enable()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._disable(check=exc_type is None)  # an exception on its way out is the one to see

    def enable(self) -> "reproducible":
        """Starts the mode on this thread (scripts: everything from here on).
        The global stream restarts at offset 0 of its key. One thread at a
        time may have active modes (RuntimeError on another thread)."""
        _claim()
        try:
            return self._enable()
        except BaseException:
            _unclaim()
            raise

    def _enable(self) -> "reproducible":
        if self.engine == "dispatch":
            from . import _dispatch
            _dispatch.enable(self)
            try:
                dmode = _DispatchCheck(self) if self.check_dispatch else None
                if dmode is not None:
                    dmode.__enter__()
                _install_loader()
            except BaseException:
                _dispatch.disable(False)
                raise
            self._entries.append((dmode, None, getattr(_tls, "top", None)))
            _tls.top = self
            return self
        from . import _C
        if _C._mode_active():
            raise RuntimeError("xrng.reproducible: a mode with engine='dispatch' is active; the two engines do not nest")
        tg = torch.default_generator
        with _lock:
            rec = _streams.get(tg)
            saved = None if rec is None else rec.gen.clone()
            if rec is None:
                rec = _streams[tg] = _Stream(Generator())
            rec.gen = _key(torch.initial_seed() if self.seed is None else self.seed, GLOBAL_TAG, self.stream)
            _set_state_calls.clear()
            _foreign_draws.clear()
            self._commit(tg, rec, "the start of the mode")
        dmode = _DispatchCheck(self) if self.check_dispatch else None
        _install()
        if dmode is not None:
            dmode.__enter__()
        self._entries.append((dmode, saved, getattr(_tls, "top", None)))
        _tls.top = self
        return self

    def disable(self) -> None:
        """Ends the innermost entry of this object (on the thread that entered it)."""
        self._disable(check=True)

    def _disable(self, check: bool) -> None:
        if not self._entries:
            raise RuntimeError("xrng.reproducible.disable(): the mode is not enabled")
        if getattr(_tls, "top", None) is not self:
            raise RuntimeError("xrng.reproducible.disable(): another mode entered later on this thread is "
                               "still active, or this thread did not enter this one")
        dmode, saved, previous = self._entries.pop()
        if self.engine == "dispatch":
            from . import _dispatch
            try:
                _tls.top = previous
                if dmode is not None:
                    dmode.__exit__(None, None, None)
            finally:
                try:
                    _uninstall_loader()
                    _dispatch.disable(check)
                finally:
                    _unclaim()
            return
        try:
            if check:
                self._check_foreign(torch.default_generator, "the end of the mode")
        finally:
            _tls.top = previous
            if dmode is not None:
                dmode.__exit__(None, None, None)
            _uninstall()
            try:
                if saved is not None:  # an outer entry resumes where it was
                    with _lock:
                        rec = _streams[torch.default_generator]
                        rec.gen = saved
                        self._commit(torch.default_generator, rec, "the end of an inner mode")
            finally:
                _unclaim()

    @property
    def enabled(self) -> bool:
        """Whether this object has an active entry."""
        return bool(self._entries)

    def __call__(self, fn: Callable) -> Callable:
        """Decorator: ``fn`` runs inside the mode; every call starts the stream afresh."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper

    # ---- calls of the entry points ----
    def _call(self, orig: Callable, handler: Callable, name: str, args: tuple, kwargs: dict):
        if torch.compiler.is_compiling():
            if not torch.compiler.is_dynamo_compiling() and _from_compiler():
                return orig(*args, **kwargs)  # the compiler's own tracing (Inductor's patterns), not the program
            compiled = _COMPILED.get(name)
            if compiled is not None:
                gen = kwargs.get("generator") if name in _C_GEN_NAMES else None
                if gen is not None:  # its stream, by number (see _gen_id); the handler sees none
                    if not isinstance(gen, torch.Generator):
                        raise TypeError(f"{name}: generator must be a torch.Generator, got {type(gen).__name__}")
                    _C_GEN[0] = _gen_id(gen)
                try:
                    return compiled(self, args, {k: v for k, v in kwargs.items() if k != "generator"}
                                    if gen is not None else kwargs)
                except _PassThrough:
                    return orig(*args, **kwargs)
                except _Unsupported as e:
                    self._report(name, f"is inside a torch.compile'd region and not covered there ({e})")
                    return orig(*args, **kwargs)
                finally:
                    _C_GEN[0] = 0
            self._report(name, "is inside a torch.compile'd region, where the mode cannot intercept it")
            return orig(*args, **kwargs)
        # DTensor arguments: their shards' blocks (issue 17). Before torch's check:
        # torch's own DTensor RNG raises on a CPU mesh, where xrng draws.
        from .distributed import _mode_call
        if (r := _mode_call(self, orig, handler, name, args, kwargs)) is not NotImplemented:
            return r
        # torch's own argument checking decides (issue 21; see _TORCH_FIRST),
        # except for the DTensor factories: torch's DTensor RNG cannot run on a
        # CPU mesh at all, and their handlers check their arguments themselves
        key = None if name in _TORCH_FIRST else _kernel_key(name, args, kwargs)
        if (key is None or key not in _KERNEL_RAN) and not _any_meta(args, kwargs) \
                and not name.startswith("torch.distributed.tensor."):
            out = self._torch_check(orig, name, args, kwargs)  # raises where torch raises
            if key is not None and _has_elements(out):
                _KERNEL_RAN.add(key)
        try:
            return handler(self, args, kwargs)
        except (_PassThrough, _Meta):
            return orig(*args, **kwargs)
        except _Unsupported as e:
            self._report(name, f"is not drawn from xrng here ({e})")
            return self._pass(orig, name, args, kwargs)
        except NotReproducibleError:
            raise
        except (ValueError, TypeError, RuntimeError, IndexError, NotImplementedError, OverflowError) as e:
            # xrng (or the handler) refused the arguments, before drawing:
            # torch decides. Where it raises, that is the call's exception;
            # where it returns (NaN parameters...), its value is returned, reported.
            out = self._pass(orig, name, args, kwargs)
            self._report(name, f"is not drawn from xrng here ({type(e).__name__}: {str(e).splitlines()[0]})")
            return out

    def _torch_check(self, orig: Callable, name: str, args: tuple, kwargs: dict):
        """Runs the call in torch, for its checks alone: on copies of its
        tensors (nothing the program holds is written) and, where it names a
        torch.Generator, with a throwaway one (the program's generators do not
        move); torch's default CPU generator is put back as it was (a check
        that drew from it must not hide a re-seed made before it: a DataLoader
        worker's torch.manual_seed(base + id) followed by its first torch.rand),
        the CUDA ones' draws are absorbed by the watch.
        Raises where torch raises; returns torch's (discarded) result."""
        cargs = tuple(_copy(v) for v in args)
        ckw = {k: _copy(v) for k, v in kwargs.items()}
        g = kwargs.get("generator")
        if isinstance(g, torch.Generator):
            try:
                ckw["generator"] = torch.Generator(device=g.device)
            except RuntimeError:  # a device without standalone generators: no check rather than move g
                return None
        tg = torch.default_generator
        st0 = tg.get_state()
        prev, self.passing = self.passing, name
        try:
            return orig(*cargs, **ckw)
        finally:
            self.passing = prev
            self._internal = True
            try:
                tg.set_state(st0)
            finally:
                self._internal = False
            self._rebase_watch()

    def _pass(self, func: Callable, name: str, args: tuple, kwargs: dict):
        """Runs a reported call with torch's RNG. Its draws from the default
        generators are known: the watch is moved past them (one report, not two)."""
        prev, self.passing = self.passing, name
        try:
            return func(*args, **kwargs)
        finally:
            self.passing = prev
            self._absorb()

    class _Draw:
        __slots__ = ("mode", "tg", "rec", "op")

        def __init__(self, mode, tg, rec, op):
            self.mode, self.tg, self.rec, self.op = mode, tg, rec, op

        def __enter__(self) -> Generator:
            return self.rec.gen

        def __exit__(self, exc_type, exc, tb):
            if exc_type is None:
                self.mode._commit(self.tg, self.rec, self.op)
            return False

    def _draw(self, generator, op: str) -> "reproducible._Draw":
        """A context whose value is the xrng Generator to draw with; on a clean
        exit the position is recorded (and the torch generator moved on)."""
        if generator is None:
            tg, tag = torch.default_generator, GLOBAL_TAG
        elif isinstance(generator, torch.Generator):
            tg, tag = generator, (GLOBAL_TAG if generator is torch.default_generator else None)
        else:
            raise TypeError(f"{op}: generator must be a torch.Generator, got {type(generator).__name__}")
        return reproducible._Draw(self, tg, self._resolve(tg, tag, op), op)

    # ---- reporting ----
    def _report_native(self, op: str, why: str) -> None:
        """The dispatcher engine's report (called by its kernels, with the GIL).
        A call of a thread without the mode is warned there, never raised."""
        if _owner is not None and _owner != threading.get_ident():
            warnings.warn(f"xrng.reproducible: {op} was called on {threading.current_thread().name}, which has "
                          f"no mode, while a mode is active on {_thread_name(_owner)}: drawn by torch's kernel, "
                          f"not by the mode; its values may differ between devices", ReproducibilityWarning,
                          stacklevel=2)
            return
        self._report(op, why)

    def _report(self, op: str, why: str) -> None:
        msg = f"xrng.reproducible: {op} {why}; its values may differ between devices"
        if self.strict:
            raise NotReproducibleError(msg)
        if op not in self.reported:
            self.reported[op] = why
            warnings.warn(msg, ReproducibilityWarning, stacklevel=4)

    # ---- stream bookkeeping (see the comment above _Stream) ----
    def _resolve(self, tg: torch.Generator, tag: Optional[int], op: str) -> _Stream:
        with _lock:
            st = tg.get_state()
            rec = _streams.get(tg)
            foreign = set_by = None
            if tag == GLOBAL_TAG and _set_state_calls:
                set_by = _set_state_calls[-1]
                _set_state_calls.clear()
            if tag == GLOBAL_TAG and _foreign_draws:
                foreign = ", ".join(_foreign_draws)
                _foreign_draws.clear()
            try:
                if rec is not None and rec.state is not None and torch.equal(st, rec.state):
                    pass
                elif torch.equal(st, _fresh_state(tg)):  # (re-)seeded: offset 0 of the seed's key
                    if rec is None:
                        rec = _streams[tg] = _Stream(Generator())
                    rec.gen = _key(tg.initial_seed(), tag, self.stream)
                elif foreign is not None and rec is not None:
                    # Another thread drew from torch's generator (through the entry points, which
                    # know): its state may now match one recorded earlier, which is no restore
                    # (issue 20). Reported; the xrng stream continues where it was.
                    self._report("torch's default generator", f"was drawn from by a thread without the mode "
                                                              f"({foreign}), between {self._last_op} and {op}")
                elif rec is not None and (pos := rec.history.get(_state_key(st))) is not None:
                    rec.gen = Generator(*pos)  # a state recorded after an earlier draw: back to that position
                elif (pos := _copied_position(tg, st)) is not None:
                    # another generator's state copied in (g2.set_state(g.get_state())): torch
                    # continues where that generator was, and so does the xrng stream
                    if rec is None:
                        rec = _streams[tg] = _Stream(Generator())
                    rec.gen = Generator(*pos)
                elif rec is None:  # first seen after torch drew from it (outside the mode): offset 0 all the same
                    rec = _streams[tg] = _Stream(_key(tg.initial_seed(), tag, self.stream))
                elif tag == GLOBAL_TAG or rec.entry is self._token():
                    # Something drew from it while this entry of the mode was active (a program's
                    # own generator may also be used between entries: that is not reported).
                    # Either way the xrng stream continues where it was.
                    what = "torch's default generator" if tag == GLOBAL_TAG else \
                        f"a torch.Generator (seed {tg.initial_seed()})"
                    if set_by is not None:
                        self._report(what, f"was set by {set_by} to a state the mode did not record "
                                           f"(not one of its earlier positions), between {self._last_op} and {op}")
                    else:
                        self._report(what, f"was advanced by something the mode did not intercept, between "
                                           f"{self._last_op} and {op}")
            except NotReproducibleError:
                if rec is not None:  # reported once: the state is taken as it is (not again at the end)
                    rec.state = st
                raise
            if int(rec.gen._state[3]) != self.stream:
                # a position another mode (of another stream version) left: same key and
                # offset, drawn in this mode's version
                rec.gen = Generator(rec.gen.seed, rec.gen.subseq, rec.gen.offset, self.stream)
            rec.state = st
            if tag == GLOBAL_TAG:
                self._check_watch(op)
            return rec

    def _token(self):
        return self._entries[-1] if self._entries else None

    def _commit(self, tg: torch.Generator, rec: _Stream, op: str) -> None:
        self._internal = True
        try:
            _mark(tg)
        finally:
            self._internal = False
        st = tg.get_state()
        rec.state = st
        rec.entry = self._token()
        key = _state_key(st)
        rec.history[key] = _pos(rec.gen)
        rec.history.move_to_end(key)
        if len(rec.history) > _HISTORY:
            rec.history.popitem(last=False)
        self._last_op = op
        if tg is torch.default_generator:
            self._rebase_watch()

    def _check_foreign(self, tg: torch.Generator, op: str) -> None:
        rec = _streams.get(tg)
        if rec is None or rec.state is None:
            return
        st = tg.get_state()
        if not torch.equal(st, rec.state) and not torch.equal(st, _fresh_state(tg)) \
                and _state_key(st) not in rec.history:
            how = f"was set by {_set_state_calls[-1]} to a state the mode did not record" if _set_state_calls \
                else "was advanced by something the mode did not intercept"
            self._report("torch's default generator", f"{how}, between {self._last_op} and {op}")
        self._check_watch(op)

    def _absorb(self) -> None:
        """After a reported call ran with torch's RNG: its draws are not foreign."""
        tg = torch.default_generator
        with _lock:
            rec = _streams.get(tg)
            if rec is not None and rec.state is not None:
                st = tg.get_state()
                if not torch.equal(st, rec.state):
                    rec.state = st
                    rec.history[_state_key(st)] = _pos(rec.gen)
        self._rebase_watch()

    # CUDA's default generators are not the global stream's handle, but nothing
    # should draw from them under the mode: their states are taken after every
    # global draw (_rebase_watch) and compared at the next one (_check_watch).
    def _rebase_watch(self) -> None:
        if torch.cuda.is_initialized():
            self._watch = {g: g.get_state() for g in torch.cuda.default_generators}

    def _check_watch(self, op: str) -> None:
        for g, old in self._watch.items():
            st = g.get_state()
            if not torch.equal(st, old) and not torch.equal(st, _fresh_state(g)):
                self._report(f"torch's CUDA generator ({g.device})",
                             f"was advanced by something the mode did not intercept, before {op}")
