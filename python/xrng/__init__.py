"""xrng: random tensors that are the same bit for bit on every device.

Every element is a pure function of (seed, subseq, offset, element index,
parameters) under an xrng stream version (Philox4x32-10, the cuRAND-compatible
stream, then each distribution's transform). Element ``i`` of a tensor, counted in row-major order over its shape
whatever its strides, equals element ``i`` of ``xrng gen`` with the same
arguments, on the CPU (any SIMD width, any thread count), on CUDA GPUs and on
any other torch device.

Where a draw starts:

* ``seed=S`` (with ``subseq`` and ``offset``): a stateless draw at word
  ``offset`` of stream (S, subseq); it may use the stream up to its last word
  (2**64 - 1), like ``xrng gen``;
* ``generator=g``: a draw at ``g.offset``, after which ``g`` advances by the
  words the draw consumed;
* neither: ``xrng.default_generator`` (seed 0 until :func:`manual_seed`).

Derived streams: ``g.split(i)`` (the i-th child) and ``g.fold_in(data)`` (a
step, layer or rank folded in) give generators on unrelated keys, the same
operations as C++ ``Key::split`` / ``Key::fold_in``. ``g.fork(i)`` is a
deprecated alias of ``g.split(i)``.

Paths (``path=``): ``"auto"`` fills CPU tensors with the host SIMD backend,
CUDA tensors with the CUDA kernels when built with them, and tensors of any
other device (privateuse1/NPU, MPS, XPU, ...) on the host before a copy;
``"host_transfer"`` forces the host-then-copy path on CUDA too. All paths give
the same bits.

Stream versions (``stream=``, SPEC.md section 7): every draw function takes
``stream=1`` or ``stream=2``. 2, the default (:data:`stream_version`), computes
the float32/float16/bfloat16 normal, log_normal, exponential and cauchy values
in binary32; 1 is the frozen stream of the releases before it (binary64
transforms). Every other draw is the same in both. A :class:`Generator` has
its own stream version (``Generator(seed, stream=1)``), which its draws use,
its saved state records and its children inherit; ``stream=`` with a
generator must match it.

Errors are one line, raised before anything is written or allocated:

* ``TypeError``: an argument of the wrong type (``seed="x"``, ``threads=1.5``,
  ``stream="2"``);
* ``ValueError``: a bad value (a negative seed, p outside [0, 1], an empty
  range, a location or scale parameter that is not finite in the output dtype,
  a dtype the distribution does not have, ``threads`` outside 0..1024, a
  stream version other than 1 or 2, a size with a negative dimension or whose
  element count or bytes exceed 2**63 - 1);
* ``MemoryError``: a tensor that cannot be allocated: more bytes than the
  machine's physical memory (CPU) or the GPU's total memory (CUDA), checked
  before allocating, or an allocation the device refuses. The message names
  the size, dtype, bytes and device.

dtypes are named as torch names them (``torch.float32``, ``torch.int64``).
"""
from __future__ import annotations

import numbers
from typing import Optional, Sequence, Union

import torch

from . import _C
from . import _meta  # noqa: F401  (the fake kernels of the torch.ops.xrng operators)
from . import _torch_cpu
from ._torch_cpu import TorchCPUGenerator, torch_cpu  # torch's own CPU generator as a stream
from . import _torch_cuda
from ._torch_cuda import TorchCUDAGenerator, torch_cuda  # torch's own CUDA generator, for a given GPU
_TORCH_GENS = (_torch_cpu.TorchCPUGenerator, _torch_cuda.TorchCUDAGenerator)  # torch's own streams
_TorchCPU = _torch_cpu.TorchCPUGenerator

__all__ = [
    "Generator", "default_generator", "manual_seed", "stream_version", "stream_versions", "simd_isa",
    "has_cuda_kernels",
    "rand", "randn", "randint", "bernoulli", "randperm", "dropout",
    "rand_like", "randn_like", "randint_like", "bernoulli_like",
    "uniform_", "normal_", "randint_", "random_", "bernoulli_", "bits_",
    "exponential_", "geometric_", "log_normal_", "cauchy_", "perm_shard", "perm_element", "perm_position",
]
__version__ = "1.0.0"

#: The newest stream version, the default of every draw (SPEC.md section 7).
stream_version: int = _C.stream_version
#: Every stream version this library produces: (1, 2).
stream_versions: tuple = tuple(_C.stream_versions)
simd_isa = _C.simd_isa
has_cuda_kernels = _C.has_cuda_kernels


def _bits64(x: int) -> int:
    """A u64 as the int64 of the same bits (how positions store it)."""
    return x - 18446744073709551616 if x >= 9223372036854775808 else x


def _u(x: int) -> int:
    return x + 18446744073709551616 if x < 0 else x


class Generator:
    """A stateful xrng generator: a key (seed, subseq), a word offset and the
    stream version it draws.

    Each draw starts at ``offset`` and advances it by the words the draw
    consumes, so a sequence of draws from ``Generator(seed, subseq, offset)``
    equals draws at explicit offsets (``xrng gen --offset``). ``stream`` (1 or
    2, default the newest, ``xrng.stream_version``) is the stream version of
    every draw from it (SPEC.md section 7); split/fold_in, copies, pickles and
    saved states keep it.

    The state is these four integers, held in a CPU int64 tensor
    ``[seed, subseq, offset, stream]`` (u64 values by their bit pattern), the
    position tensor the ``torch.ops.xrng`` operators read: a draw is
    ``torch.ops.xrng.take_(state, ...)`` (the position it starts at; the state
    advances in place) then the draw at that position. So ``torch.compile``
    sees the counter as a graph input that each call advances, exactly as
    eager does, and never bakes it into the graph as a constant. No hidden
    cache. The C++ generator (``xrng::Generator``, ``xrng._C.Generator``) has
    the same state, bytes and derivations.

    ``device="cuda"`` keeps the state in GPU memory: each draw advances it
    with a kernel and the draw kernels read it when they run, never on the
    host, so draws inside a captured CUDA graph (``torch.cuda.graph``,
    ``torch.compile(mode="reduce-overhead")``) give new values on each
    replay, the values the same sequence of eager draws gives (README, "CUDA
    graphs"). Such a generator draws the newest stream version; reading
    ``offset`` (or ``seed``, a saved state) waits for the GPU. Its state
    tensor is marked a static address for torch.compile's CUDA graphs.
    """

    def __init__(self, seed: int = 0, subseq: int = 0, offset: int = 0, stream: int = _C.stream_version,
                 device: Union[str, torch.device, int, None] = None) -> None:
        seed, subseq, offset = _u64(seed, "seed"), _u64(subseq, "subseq"), _u64(offset, "offset")
        st = _check_stream(stream)
        state = torch.tensor([_bits64(seed), _bits64(subseq), _bits64(offset), st], dtype=torch.int64)
        if device is not None and torch.device(device).type != "cpu":
            if st != _C.stream_version:
                raise ValueError(f"a generator on {device} draws stream {_C.stream_version} (its draws are planned "
                                 f"before the state is read), not stream {st}")
            state = state.to(device)
            # torch.compile's CUDA graph trees accept a mutated input only at a static address
            torch._dynamo.mark_static_address(state)
        self._state = state

    @property
    def device(self) -> torch.device:
        """Where the state lives: cpu (the default), or the GPU of ``device=``."""
        return self._state.device

    @classmethod
    def from_key(cls, key: torch.Tensor, stream: int = _C.stream_version) -> "Generator":
        """The generator at a ``torch.func._random`` key's first word:
        ``Generator(seed, 0, 4 * offset, stream)`` for the key ``[seed,
        offset]`` (see :func:`xrng.position_from_key`; eager: it reads the key)."""
        from ._keys import position_from_key
        s, q, o, st = position_from_key(key, stream=stream).tolist()
        return cls(_u(s), _u(q), _u(o), st)

    @classmethod
    def _of(cls, g: "_C.Generator") -> "Generator":
        return cls(g.seed, g.subseq, g.offset, g.stream)

    def _native(self) -> "_C.Generator":
        s, q, o, st = self._state.tolist()
        return _C.Generator(_u(s), _u(q), _u(o), st)

    @property
    def state_tensor(self) -> torch.Tensor:
        """The live state: the CPU int64 tensor ``[seed, subseq, offset, stream]``
        (u64 values by bit pattern) that every draw reads and advances in place.
        Every draw function takes it as ``generator=`` too: register it as a
        module buffer (``module.register_buffer("rng_state", g.state_tensor)``)
        and draw with ``generator=self.rng_state`` to carry the generator in
        ``state_dict`` and through ``torch.export`` (the program then reads and
        advances the buffer). Writing to it moves the generator."""
        return self._state

    @property
    def stream(self) -> int:
        """The stream version every draw from it is in (1 or 2)."""
        return int(self._state[3])

    @property
    def seed(self) -> int:
        """The key's seed."""
        return _u(int(self._state[0]))

    @property
    def subseq(self) -> int:
        """The key's subsequence."""
        return _u(int(self._state[1]))

    @property
    def offset(self) -> int:
        """The next word offset to draw from."""
        return _u(int(self._state[2]))

    @offset.setter
    def offset(self, value: int) -> None:
        self._state[2] = _bits64(_u64(value, "offset"))

    def get_state(self) -> torch.Tensor:
        """The state as a 32-byte uint8 CPU tensor ('XRNG', the generator's stream version, seed, subseq, offset)."""
        return self._native().get_state()

    def set_state(self, state: torch.Tensor) -> None:
        """Restores a state from get_state(), its stream version included (a stream-1 state keeps drawing
        stream 1); ValueError if it is not a state, or of a stream version this library does not produce."""
        g = _C.Generator()
        g.set_state(state)
        self._load(g)

    def state_bytes(self) -> bytes:
        """The state as bytes (the same 32 bytes as get_state())."""
        return self._native().state_bytes()

    def set_state_bytes(self, state: bytes) -> None:
        """Restores a state from state_bytes()."""
        g = _C.Generator()
        g.set_state_bytes(state)
        self._load(g)

    def _load(self, g: "_C.Generator") -> None:
        if self._state.device.type != "cpu" and g.stream != _C.stream_version:
            raise ValueError(f"a generator on {self._state.device} draws stream {_C.stream_version}, "
                             f"the state is of stream {g.stream}")
        self._state.copy_(torch.tensor([_bits64(g.seed), _bits64(g.subseq), _bits64(g.offset), g.stream], dtype=torch.int64))

    def reserve(self, words: int) -> tuple:
        """Reserves ``words`` raw stream words atomically: returns ``(seed,
        subseq, offset)`` where they start and advances the generator past
        them, in one step under the lock every draw takes, so that threads
        sharing this generator get disjoint ranges (for a caller that draws
        statelessly at the returned position)."""
        words = _u64(words, "words")
        if words >= 2**63:  # the operator counts in int64; no draw is this long
            raise ValueError(f"Generator.reserve: {words} words would leave the generator exhausted "
                             "(at most 2**63 - 1 words per reservation)")
        pos = torch.ops.xrng.take_(self._state, "bits", [], [], torch.uint32, words)
        s, q, o, _ = pos.tolist()
        return _u(s), _u(q), _u(o)

    def split(self, i: int) -> "Generator":
        """The i-th child generator (key split(i)), at offset 0, on this generator's device; this generator is
        unchanged."""
        return self._on_device(Generator._of(self._native().split(i)))

    def fold_in(self, data: int) -> "Generator":
        """A generator on the key folded with `data` (a step, layer or rank), at offset 0, on this generator's
        device."""
        return self._on_device(Generator._of(self._native().fold_in(data)))

    def _on_device(self, g: "Generator") -> "Generator":
        if self._state.device.type != "cpu":
            g = Generator(g.seed, g.subseq, g.offset, g.stream, device=self._state.device)
        return g

    def fork(self, i: int) -> "Generator":
        """Deprecated name of split(i)."""
        import warnings
        warnings.warn("Generator.fork(i) is deprecated: use Generator.split(i)", DeprecationWarning, stacklevel=2)
        return self.split(i)

    def clone(self) -> "Generator":
        """An independent copy."""
        g = Generator.__new__(Generator)
        g._state = self._state.clone()
        if g._state.device.type != "cpu":
            torch._dynamo.mark_static_address(g._state)
        return g

    def __copy__(self) -> "Generator":
        return self.clone()

    def __deepcopy__(self, memo) -> "Generator":
        return self.clone()

    def __eq__(self, other) -> bool:
        if isinstance(other, _C.Generator):
            other = Generator._of(other)
        if not isinstance(other, Generator):
            return NotImplemented
        if self._state.device != other._state.device:
            return bool(torch.equal(self._state.cpu(), other._state.cpu()))
        return bool(torch.equal(self._state, other._state))

    __hash__ = None

    def __repr__(self) -> str:
        dev = "" if self._state.device.type == "cpu" else f", device={str(self._state.device)!r}"
        return (f"xrng.Generator(seed={self.seed}, subseq={self.subseq}, offset={self.offset}, "
                f"stream={self.stream}{dev})")

    # Pickles: (seed, subseq, offset, stream), as the native generator's; the
    # 3-tuples of the releases before stream 2 are stream-1 generators.
    # Every protocol reduces to the constructor call (protocols 0 and 1 too);
    # __setstate__ still loads the pickles of earlier releases.
    def __reduce__(self) -> tuple:
        if self._state.device.type != "cpu":
            return (Generator, (self.seed, self.subseq, self.offset, self.stream, str(self._state.device)))
        return (Generator, (self.seed, self.subseq, self.offset, self.stream))

    def __getstate__(self) -> tuple:
        return (self.seed, self.subseq, self.offset, self.stream)

    def __setstate__(self, state: tuple) -> None:
        if not isinstance(state, tuple) or len(state) not in (3, 4):
            raise ValueError("Generator: bad pickled state")
        self.__init__(*state[:3], state[3] if len(state) == 4 else 1)


_PATHS = ("auto", "host_transfer")
_Size = Union[int, Sequence[int], torch.Size]
_Device = Union[str, torch.device, int, None]


#: The generator used when a call names neither ``seed`` nor ``generator``.
default_generator: Generator


def manual_seed(seed: int, subseq: int = 0, *, stream: Optional[int] = None) -> Generator:
    """Resets :data:`default_generator` to ``Generator(seed, subseq, 0, stream)``
    (stream: 1 or 2, default :data:`stream_version`) and returns it."""
    global default_generator
    st = stream_version if stream is None else _check_stream(stream)
    default_generator = Generator(_u64(seed, "seed"), _u64(subseq, "subseq"), 0, st)
    return default_generator


# ---- argument handling (no arithmetic on values: that is all in _C) -----------------------
def _u64(x: int, what: str) -> int:
    if type(x) is int and 0 <= x < 18446744073709551616:  # the common case, without the ABC check below
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(x).__name__}")
    x = int(x)
    if not 0 <= x < 2**64:
        raise ValueError(f"{what} must be in [0, 2**64), got {x}")
    return x


def _i64(x: int, what: str) -> int:
    """An integer argument in [-2**63, 2**63) (randint's bounds): TypeError /
    ValueError, one line, naming it."""
    if type(x) is int and -9223372036854775808 <= x < 9223372036854775808:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) and not _is_int_tensor(x):
        raise TypeError(f"{what} must be an int, got {type(x).__name__}")
    x = int(x)
    if not -2**63 <= x < 2**63:
        raise ValueError(f"{what} must be in [-2**63, 2**63), got {x}")
    return x


def _is_int_tensor(x) -> bool:
    """A one-element integer tensor, which torch accepts where it takes an int."""
    return isinstance(x, torch.Tensor) and x.numel() == 1 and not x.is_floating_point() and not x.is_complex() \
        and x.dtype != torch.bool


def _check_stream(stream) -> int:
    """A stream version argument: an int, 1 or 2 (TypeError / ValueError, one line)."""
    if isinstance(stream, bool) or not isinstance(stream, numbers.Integral):
        raise TypeError(f"stream must be an int (a stream version: 1 or 2), got {type(stream).__name__}")
    if int(stream) not in stream_versions:
        raise ValueError(f"stream must be one of the stream versions {stream_versions}, got {int(stream)}")
    return int(stream)


def _stream(stream, src) -> int:
    """The stream version of a draw from ``src``: ``stream=`` (checked), else the
    generator's own, else :data:`stream_version`. With a generator, ``stream=``
    must be its own: a generator's stream version is fixed. A Python
    Generator's source is its state tensor, whose stream the native code
    reads: 0 stands for "the generator's own" (checked there when given)."""
    if stream is None:
        if isinstance(src, torch.Tensor):
            return 0
        return src.stream if isinstance(src, _C.Generator) else stream_version
    st = _check_stream(stream)
    if isinstance(src, torch.Tensor):
        return st
    if isinstance(src, _C.Generator) and st != src.stream:
        raise ValueError(f"stream={st} but the generator draws stream {src.stream} "
                         f"(make one with xrng.Generator(..., stream={st}))")
    return st


def _size(size: tuple) -> list:
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    # The common case (plain non-negative ints) without the per-element ABC
    # checks below: a small draw's cost is mostly this wrapper's.
    for s in size:
        if type(s) is not int or s < 0 or s > _INT64_MAX:
            break
    else:
        return list(size)
    out = []
    for s in size:
        if isinstance(s, torch.SymInt):  # a symbolic size (torch.compile with dynamic shapes)
            out.append(s)
            continue
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"size must be a sequence of ints, got {size!r}")
        if s < 0:
            raise ValueError(f"negative dimension {int(s)} in size {tuple(size)}")
        if s > _INT64_MAX:
            raise ValueError(f"dimension {int(s)} in size {tuple(size)} is more than 2**63 - 1")
        out.append(int(s))
    return out


def _threads(threads: int) -> int:
    """threads=: 0 (torch.get_num_threads()) to ``_C.max_threads``, the CLI's --threads bound."""
    if type(threads) is int and 0 <= threads <= _C.max_threads:  # the common case, without the ABC check
        return threads
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be an int, got {type(threads).__name__}")
    if not 0 <= threads <= _C.max_threads:
        raise ValueError(f"threads must be 0 (all) to {_C.max_threads} (got {int(threads)})")
    return int(threads)


_INT64_MAX = 2**63 - 1


def _device_bytes(device: torch.device) -> Optional[int]:
    """The memory a tensor on ``device`` can at most occupy: physical memory
    (CPU) or the GPU's total memory (CUDA); None where unknown."""
    try:
        if device.type == "cpu":
            import os
            return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        if device.type == "cuda" and torch.cuda.is_available():
            return torch.cuda.mem_get_info(device)[1]
    except (ValueError, OSError, RuntimeError, AttributeError):
        pass
    return None


def _alloc(what: str, size: list, dtype: torch.dtype, device: _Device) -> torch.Tensor:
    """torch.empty(size, dtype, device) with xrng's own size checks: the
    element count and the bytes must fit int64 (ValueError), and the bytes the
    device's memory (MemoryError, before allocating); an allocation the device
    refuses is a one-line MemoryError too."""
    numel = 1
    for s in size:
        numel *= s
    itemsize = torch.empty((), dtype=dtype).element_size()
    nbytes = numel * itemsize
    dev = torch.device(device) if device is not None else torch.device("cpu")
    where = f"size {tuple(size)} of {dtype}"
    if numel > _INT64_MAX or nbytes > _INT64_MAX:
        raise ValueError(f"xrng.{what}: {where} has {numel} elements, {nbytes} bytes: more than 2**63 - 1")
    limit = _device_bytes(dev)
    if limit is not None and nbytes > limit:
        raise MemoryError(f"xrng.{what}: cannot allocate {where} ({nbytes} bytes) on {dev}: "
                          f"more than its {limit} bytes of memory")
    try:
        return torch.empty(size, dtype=dtype, device=device)
    except (RuntimeError, MemoryError) as e:
        if "alloc" not in str(e).lower() and "out of memory" not in str(e).lower():
            raise
        raise MemoryError(f"xrng.{what}: cannot allocate {where} ({nbytes} bytes) on {dev}: "
                          f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def _torch_refusal(generator, what: str) -> str:
    """The one-line message of a draw torch's own stream does not reproduce."""
    stream = "xrng.torch_cuda" if isinstance(generator, _torch_cuda.TorchCUDAGenerator) else "xrng.torch_cpu"
    return f"{stream}: {what} is not reproduced on torch's stream (use an xrng.Generator)"


def _source(seed: Optional[int], subseq: int, offset: int, generator: Optional[Generator]):
    """Where a draw starts: the Generator it advances (``generator=``, else
    :data:`default_generator`), or for ``seed=`` the stream position
    ``(seed, subseq, offset)``, which nothing advances (so a stateless draw may
    end exactly at word 2**64, like ``xrng gen``)."""
    if generator is not None:
        if seed is not None:
            raise ValueError("pass either seed= or generator=, not both")
        if subseq or offset:
            raise ValueError("subseq= and offset= go with seed=; a generator carries its own")
        if isinstance(generator, Generator):
            return generator._state
        if isinstance(generator, torch.Tensor):  # a generator's state tensor (e.g. a module buffer)
            if generator.dtype != torch.int64 or generator.shape != (4,):
                raise ValueError("generator= as a tensor must be a generator's state: int64, 4 elements "
                                 "[seed, subseq, offset, stream]")
            return generator
        if isinstance(generator, _TORCH_GENS):
            raise NotImplementedError(_torch_refusal(generator, "this draw"))
        if not isinstance(generator, _C.Generator):
            raise TypeError(f"generator must be an xrng.Generator, got {type(generator).__name__}")
        return generator
    if seed is None:
        if subseq or offset:
            raise ValueError("subseq= and offset= need seed=")
        return default_generator._state
    return (_u64(seed, "seed"), _u64(subseq, "subseq"), _u64(offset, "offset"))


# ---- the torch.ops.xrng operators (bindings/ops.cpp) -------------------------------------------
# Compiled and traced code (torch.compile, torch.export) reaches the draws
# through these; eager calls take the native module (_C), which calls the
# same operators through the dispatcher from C++ (cheaper per call than
# torch.ops from Python). Both give the same values.
def _param_kinds() -> dict:
    reg = _C.registry()
    return {d: [(n, reg["params"][n]["kind"]) for n in reg["params"] if n in info["params"]]
            for d, info in reg["dists"].items()}


#: {dist: [(param name, kind)]} in the registry's order (rng/registry.h, read once).
_PARAM_KINDS: dict = _param_kinds()


def _op_params(dist: str, params: dict) -> tuple:
    """``params`` (by registry name) as the operators' (reals, ints), in the
    registry's order (rng/registry.h); a name the distribution does not read
    is a ValueError, as in _C."""
    order = _PARAM_KINDS.get(dist)
    if order is None:
        raise ValueError(f"unknown distribution {dist!r}")
    names = {n for n, _ in order}
    for k in params:
        if k not in names:
            raise ValueError(f"{dist}: unknown parameter '{k}' ({', '.join(sorted(names)) or 'none'})")
    missing = [n for n, _ in order if n not in params]
    if missing:
        raise ValueError(f"{dist}: missing parameter(s) {', '.join(missing)}")
    reals = [float(params[n]) for n, kind in order if kind == "real"]
    ints = [int(params[n]) for n, kind in order if kind != "real"]
    return reals, ints


def _position(src, dist: str, reals: list, ints: list, dtype: torch.dtype, numel, stream: int) -> torch.Tensor:
    """The position tensor [seed, subseq, offset, stream] a draw starts at: from
    a generator's state (``torch.ops.xrng.take_``, which advances it), or a
    stateless ``(seed, subseq, offset)``."""
    if isinstance(src, torch.Tensor):
        return torch.ops.xrng.take_(src, dist, reals, ints, dtype, numel)
    if isinstance(src, _C.Generator):
        if torch.compiler.is_compiling():
            raise TypeError("a native xrng._C.Generator cannot be used in compiled code: use xrng.Generator")
        tmp = Generator(src.seed, src.subseq, src.offset, src.stream)
        pos = torch.ops.xrng.take_(tmp._state, dist, reals, ints, dtype, numel)
        src.offset = tmp.offset
        return pos
    seed, subseq, offset = src
    return torch.tensor([_bits64(seed), _bits64(subseq), _bits64(offset), stream or stream_version], dtype=torch.int64)


_is_compiling = torch.compiler.is_compiling
_dispatch_modes = torch._C._len_torch_dispatch_stack


def _traced() -> bool:
    """Whether a draw is being traced (torch.compile's Dynamo, or a dispatch
    mode such as FakeTensorMode, make_fx, non-strict torch.export): then it
    goes through torch.ops.xrng from Python, so the trace records the
    operators, with positions as tensors."""
    return torch.compiler.is_compiling() or torch._C._len_torch_dispatch_stack() > 0


def _op_draw(size: list, dtype, device, out, src, dist: str, params: dict, stream: int) -> torch.Tensor:
    """A draw through the operators: into ``out`` (xrng::draw_) or a new tensor (xrng::draw)."""
    reals, ints = _op_params(dist, params)
    if out is not None:
        # the functional draw copied in (xrng::draw_ returns an alias of out,
        # which functionalization does not take): the same values, element i
        # of the draw in row-major element i of out
        pos = _position(src, dist, reals, ints, out.dtype, out.numel(), stream)
        return out.copy_(torch.ops.xrng.draw(list(out.shape), dist, reals, ints, pos, out.dtype, out.device))
    # no device: torch's default one, as torch.empty picks it (set_default_device included)
    dev = torch.empty(0).device if device is None else torch.device(device)
    numel = 1
    for s in size:
        numel = numel * s
    pos = _position(src, dist, reals, ints, dtype, numel, stream)
    return torch.ops.xrng.draw(size, dist, reals, ints, pos, dtype, dev)


def _path(path: str) -> str:
    if path not in _PATHS:
        raise ValueError(f"path must be one of {_PATHS}, got {path!r}")
    return path


def _empty(what: str, size: list, dtype, device, out: Optional[torch.Tensor], default: torch.dtype) -> torch.Tensor:
    if out is not None:
        if list(out.shape) != size:
            raise ValueError(f"out has shape {tuple(out.shape)}, the draw has {tuple(size)}")
        if dtype is not None and out.dtype != dtype:
            raise ValueError(f"out has dtype {out.dtype}, dtype= says {dtype}")
        return out
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype, got {type(dtype).__name__}")
    return _alloc(what, size, default if dtype is None else dtype, device)


# Below this many bytes a new tensor cannot fail _alloc's size checks (no
# device xrng runs on has less memory), so the factories skip them.
_SMALL_BYTES = 1 << 30


def _new(what: str, size: list, dtype, default: torch.dtype, device, out: Optional[torch.Tensor], src, dist: str,
         params: dict, path: str, threads: int, stream: int) -> torch.Tensor:
    """A factory's draw in stream version ``stream`` (resolved by _stream): into
    ``out``, or into a new tensor. With a device
    named and a tensor under 1 GiB, the tensor is allocated in C++
    (``_C.draw_new``: the Python-side torch.empty and _alloc's checks cost more
    than a small draw); otherwise through _empty / _alloc (their checks; with
    no device, torch.empty picks torch's default device)."""
    path, threads = _path(path), _threads(threads)
    if _is_compiling() or _dispatch_modes():  # _traced(), inline (a small draw's cost is mostly Python)
        if dtype is None:
            dtype = out.dtype if out is not None else default
        return _op_draw(size, dtype, device, out, src, dist, params, stream)
    if out is None and device is not None:
        if dtype is None:
            dtype = default
        elif type(dtype) is not torch.dtype:
            raise TypeError(f"dtype must be a torch.dtype, got {type(dtype).__name__}")
        numel = 1
        for s in size:
            numel *= s
        if numel * dtype.itemsize < _SMALL_BYTES:
            dev = device if type(device) is torch.device else torch.device(device)
            try:
                return _C.draw_new(size, dtype, dev, src, dist, params, path, threads, stream)
            except RuntimeError as e:  # a refused allocation: the one-line MemoryError of _alloc
                msg = str(e)
                if "alloc" not in msg.lower() and "out of memory" not in msg.lower():
                    raise
                raise MemoryError(f"xrng.{what}: cannot allocate size {tuple(size)} of {dtype} "
                                  f"({numel * dtype.itemsize} bytes) on {dev}: {msg.splitlines()[0]}") from None
    return _C.draw_(_empty(what, size, dtype, device, out, default), src, dist, params, path, threads, stream)


def _finish(t: torch.Tensor, requires_grad: bool) -> torch.Tensor:
    return t.requires_grad_() if requires_grad else t


default_generator = Generator(0)
_C._fast_init(Generator)
_fast_draw = _C._fast_draw


# ---- factories ---------------------------------------------------------------------------------
def rand(*size: _Size, seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
         generator: Optional[Generator] = None, out: Optional[torch.Tensor] = None,
         dtype: Optional[torch.dtype] = None, device: _Device = None, requires_grad: bool = False,
         low: float = 0.0, high: float = 1.0, path: str = "auto", threads: int = 0,
         stream: Optional[int] = None) -> torch.Tensor:
    """Uniform values in [low, high) (default [0, 1)), like :func:`torch.rand`.

    One stream word per element (float64: two). dtype: float32 (default),
    float64, float16 or bfloat16. ``threads``: host threads (0:
    ``torch.get_num_threads()``); values never depend on it.
    """
    if type(generator) is _TorchCPU and out is None and device is None and not requires_grad:
        t = _torch_cpu._new(generator, "uniform", size, dtype, None, low, high)  # (NotImplemented: the path below)
        if t is not NotImplemented:
            return t
    if isinstance(generator, _TORCH_GENS):  # torch's own streams (_torch_cpu.py, _torch_cuda.py)
        return _finish(_torch_cpu._draw(generator, "uniform", _size(size), dtype, device, out, low, high),
                       requires_grad)
    if not _is_compiling():  # the eager fast path (python.cpp, fast_draw): NotImplemented if unusual
        t = _fast_draw(0, low, high, size, seed, subseq, offset, generator, default_generator, out, dtype, device,
                       requires_grad, path, threads, stream)
        if t is not NotImplemented:
            return t
    src = _source(seed, subseq, offset, generator)
    t = _new("rand", _size(size), dtype, torch.float32, device, out, src, "uniform",
             {"low": float(low), "high": float(high)}, path, threads, _stream(stream, src))
    return _finish(t, requires_grad)


def randn(*size: _Size, seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
          generator: Optional[Generator] = None, out: Optional[torch.Tensor] = None,
          dtype: Optional[torch.dtype] = None, device: _Device = None, requires_grad: bool = False,
          mean: float = 0.0, std: float = 1.0, path: str = "auto", threads: int = 0,
          stream: Optional[int] = None) -> torch.Tensor:
    """Normal values (default mean 0, std 1), like :func:`torch.randn`.

    Values come in pairs (Box-Muller): elements 2k and 2k+1 come from the same
    2 stream words (f64: 4 words); a draw of n elements consumes
    ``2 * ceil(n / 2)`` words (f64: ``4 * ceil(n / 2)``), so an odd n skips the
    unused half of its last pair. dtype: float32 (default), float64, float16
    or bfloat16. ``stream=1`` gives the stream-1 values (binary64 transform)
    of the releases before stream 2; float64 is the same in both.
    """
    if type(generator) is _TorchCPU and out is None and device is None and not requires_grad:
        t = _torch_cpu._new(generator, "normal", size, dtype, None, mean, std)  # (NotImplemented: the path below)
        if t is not NotImplemented:
            return t
    if isinstance(generator, _TORCH_GENS):  # torch's own streams (_torch_cpu.py, _torch_cuda.py)
        return _finish(_torch_cpu._draw(generator, "normal", _size(size), dtype, device, out, mean, std),
                       requires_grad)
    if not _is_compiling():  # the eager fast path (python.cpp, fast_draw): NotImplemented if unusual
        t = _fast_draw(1, mean, std, size, seed, subseq, offset, generator, default_generator, out, dtype, device,
                       requires_grad, path, threads, stream)
        if t is not NotImplemented:
            return t
    src = _source(seed, subseq, offset, generator)
    t = _new("randn", _size(size), dtype, torch.float32, device, out, src, "normal",
             {"mean": float(mean), "std": float(std)}, path, threads, _stream(stream, src))
    return _finish(t, requires_grad)


def randint(*args, size: Optional[_Size] = None, low: Optional[int] = None, high: Optional[int] = None,
            seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator: Optional[Generator] = None,
            out: Optional[torch.Tensor] = None, dtype: Optional[torch.dtype] = None, device: _Device = None,
            path: str = "auto", threads: int = 0, stream: Optional[int] = None) -> torch.Tensor:
    """Integers uniform in [low, high), like :func:`torch.randint`.

    Call as ``randint(high, size)`` or ``randint(low, high, size)`` (or with
    keywords). dtype: int64 (default, an i64 draw: 4 stream words per
    element), int32, int16, int8 or uint8 (an i32 draw: 2 words per element,
    converted; the range must fit the dtype).
    """
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list, torch.Size)):
        size = pos.pop()
    if len(pos) == 2:
        if low is not None or high is not None:
            raise TypeError("randint: low/high given twice")
        low, high = pos
    elif len(pos) == 1:
        if high is not None:
            raise TypeError("randint: high given twice")
        high = pos[0]
    elif pos:
        raise TypeError("randint(low=0, high, size)")
    if high is None or size is None:
        raise TypeError("randint needs high and size")
    low = 0 if low is None else _i64(low, "randint: low")
    high = _i64(high, "randint: high")
    if type(generator) is _TorchCPU and out is None and device is None:
        t = _torch_cpu._new(generator, "randint", (size,), dtype, torch.int64, low, high)  # (NotImplemented: below)
        if t is not NotImplemented:
            return t
    if isinstance(generator, _TORCH_GENS):  # torch's own streams (_torch_cpu.py, _torch_cuda.py)
        return _torch_cpu._draw(generator, "randint", _size((size,)), dtype, device, out, low, high, torch.int64)
    src = _source(seed, subseq, offset, generator)
    return _new("randint", _size((size,)), dtype, torch.int64, device, out, src, "randint",
                {"ilow": low, "ihigh": high}, path, threads, _stream(stream, src))


def bernoulli(*size: _Size, p: float = 0.5, seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
              generator: Optional[Generator] = None, out: Optional[torch.Tensor] = None,
              dtype: Optional[torch.dtype] = None, device: _Device = None, path: str = "auto",
              threads: int = 0, stream: Optional[int] = None) -> torch.Tensor:
    """A mask of Bernoulli(p) draws: 1 (True) with probability p.

    One stream word per element, compared with ``round(p * 2**32)``. dtype:
    bool (default) or uint8.
    """
    if isinstance(generator, _TORCH_GENS):  # torch's own streams (_torch_cpu.py, _torch_cuda.py)
        if isinstance(p, torch.Tensor):
            if type(generator) is _TorchCPU and not size and out is None and device is None:
                t = _torch_cpu._bernoulli_new(generator, p, dtype)  # in C++ (or NotImplemented: below)
                if t is not NotImplemented:
                    return t
            # torch.bernoulli(p): p's shape (or size) and dtype (or dtype=)
            shape = torch.broadcast_shapes(_size(size), p.shape) if size else p.shape
            # (a torch_cuda generator with xrng's CUDA kernels fills a CUDA tensor on its GPU)
            on_gpu = device is not None and torch.device(device).type == "cuda" and getattr(generator, "_fills_cuda", False)
            t = out if out is not None else torch.empty(shape, dtype=dtype or p.dtype, device=device if on_gpu else "cpu")
            if isinstance(generator, _torch_cpu.TorchCPUGenerator):
                _torch_cpu.bernoulli_tensor_(generator, t, p)
            else:
                _torch_cuda.bernoulli_tensor_(generator, t, p)
            return t if device is None or out is not None or on_gpu else t.to(device)
        return _torch_cpu._draw(generator, "bernoulli", _size(size), dtype, device, out, p, 0.0, torch.bool)
    src = _source(seed, subseq, offset, generator)
    return _new("bernoulli", _size(size), dtype, torch.bool, device, out, src, "bernoulli", {"p": float(p)}, path,
                threads, _stream(stream, src))


def randperm(n: int, *, seed: Optional[int] = None, subseq: int = 0, offset: int = 0,
             generator: Optional[Generator] = None, out: Optional[torch.Tensor] = None,
             dtype: Optional[torch.dtype] = None, device: _Device = None, path: str = "auto",
             threads: int = 0, stream: Optional[int] = None) -> torch.Tensor:
    """A random permutation of ``range(n)``, like :func:`torch.randperm`.

    A keyed Feistel bijection: it consumes 12 stream words (one round key per
    Feistel round) whatever n, and any element can be computed alone
    (:func:`perm_element`). dtype: int64 (default) or int32.
    """
    if generator.__class__ is _torch_cpu.TorchCPUGenerator and out is None and device is None and n.__class__ is int:
        t = _torch_cpu._new(generator, "randperm", (n,), dtype, torch.int64, 0.0, 0.0)  # NotImplemented: checks below
        if t is not NotImplemented:
            return t
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"randperm: n must be an int, got {type(n).__name__}")
    if isinstance(generator, _TORCH_GENS):  # torch's own streams (_torch_cpu.py, _torch_cuda.py)
        if n < 0:
            raise ValueError(f"randperm: n must be an int >= 0, got {n!r}")
        return _torch_cpu._draw(generator, "randperm", (n,), dtype, device, out, 0.0, 0.0, torch.int64)
    if n < 1:
        raise ValueError(f"randperm: n must be an int >= 1, got {n!r}")
    src = _source(seed, subseq, offset, generator)
    return _new("randperm", [int(n)], dtype, torch.int64, device, out, src, "perm", {"n": int(n)}, path, threads,
                _stream(stream, src))


def dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False, *,
            seed: Optional[int] = None, subseq: int = 0, offset: int = 0, generator: Optional[Generator] = None,
            path: str = "auto", threads: int = 0, stream: Optional[int] = None) -> torch.Tensor:
    """Dropout like :func:`torch.nn.functional.dropout`: element i is +0 where the
    i-th Bernoulli(p) draw is 1, else ``input[i] / (1 - p)`` (scaled in the
    input's precision as xrng's SPEC states). Consumes one word per element.

    Differentiable: it is the operator ``torch.ops.xrng.dropout``, whose
    backward regenerates the mask from the draw's key and offset (no mask is
    stored), so the gradient is the same dropout of the incoming gradient.
    ``inplace=True`` on a tensor that requires grad writes the result back
    with ``copy_`` (tracked by autograd).
    """
    if isinstance(generator, _torch_cuda.TorchCUDAGenerator):  # torch's own CUDA stream (_torch_cuda.py)
        return _torch_cuda.dropout(generator, input, p, training, inplace)
    if isinstance(generator, _torch_cpu.TorchCPUGenerator):  # torch's own CPU stream (_torch_cpu.py)
        return _torch_cpu.dropout(generator, input, p, training, inplace)
    if not training:
        return input
    src = _source(seed, subseq, offset, generator)
    st = _stream(stream, src)  # checked: dropout is the same in every stream version
    p = float(p)
    path, threads = _path(path), _threads(threads)
    if not _traced() and (path != "auto" or threads != 0 or
                          (inplace and not (input.requires_grad and torch.is_grad_enabled()))):
        # a forced path or thread count (not part of the operator), or an in-place draw without autograd
        if inplace:
            return _C.dropout_out(input, input, p, src, path, threads)
        out = torch.empty_like(input, memory_format=torch.contiguous_format)
        return _C.dropout_out(out, input, p, src, path, threads)
    pos = _position(src, "dropout", [p], [], input.dtype, input.numel(), st)
    res = torch.ops.xrng.dropout(input, p, pos)
    return input.copy_(res) if inplace else res


def _like(input: torch.Tensor, dtype, device):
    return list(input.shape), (input.dtype if dtype is None else dtype), (input.device if device is None else device)


def rand_like(input: torch.Tensor, *, dtype=None, device=None, **kw) -> torch.Tensor:
    """:func:`rand` with the shape, dtype and device of ``input``."""
    size, dtype, device = _like(input, dtype, device)
    return rand(size, dtype=dtype, device=device, **kw)


def randn_like(input: torch.Tensor, *, dtype=None, device=None, **kw) -> torch.Tensor:
    """:func:`randn` with the shape, dtype and device of ``input``."""
    size, dtype, device = _like(input, dtype, device)
    return randn(size, dtype=dtype, device=device, **kw)


def randint_like(input: torch.Tensor, low: int = 0, high: Optional[int] = None, *, dtype=None, device=None,
                 **kw) -> torch.Tensor:
    """:func:`randint` with the shape, dtype and device of ``input``
    (``randint_like(x, high)`` or ``randint_like(x, low, high)``)."""
    if high is None:
        low, high = 0, low
    low, high = _i64(low, "randint_like: low"), _i64(high, "randint_like: high")
    size, dtype, device = _like(input, dtype, device)
    return randint(low, high, size, dtype=dtype, device=device, **kw)


def bernoulli_like(input: torch.Tensor, p: float = 0.5, *, dtype=None, device=None, **kw) -> torch.Tensor:
    """:func:`bernoulli` with the shape and device of ``input`` (dtype bool unless given)."""
    size, _, device = _like(input, dtype, device)
    return bernoulli(size, p=p, dtype=torch.bool if dtype is None else dtype, device=device, **kw)


# ---- in-place fills of existing tensors (any device, contiguous or strided) -------------------
# the fills of a torch_cpu generator (kinds of _torch_cpu.py) and their parameters, in _fill's order
_TORCH_CPU_FILLS = {"uniform": ("low", "high"), "normal": ("mean", "std"), "exponential": ("rate",),
                    "geometric": ("p",), "log_normal": ("mean", "std"), "cauchy": ("median", "sigma"),
                    "randint": ("ilow", "ihigh")}


def _fill(tensor: torch.Tensor, dist: str, params: dict, kw: dict) -> torch.Tensor:
    """An in-place fill: ``dist`` with ``params`` (the registry's names) from the
    source the keywords name (seed=/subseq=/offset= or generator=), in the
    stream version ``stream=`` names (see :func:`_stream`); a keyword
    no fill takes (a misspelt parameter) is a TypeError, not ignored."""
    g = kw.get("generator")
    if type(g) is _TorchCPU and len(kw) == 1 and dist in _TORCH_CPU_FILLS:  # the common call, in C++ (or NotImplemented)
        names = _TORCH_CPU_FILLS[dist]
        r = _torch_cpu._into(g, dist, tensor, params[names[0]], params[names[1]] if len(names) > 1 else 1.0)
        if r is not NotImplemented:
            return r
    if isinstance(kw.get("generator"), _torch_cuda.TorchCUDAGenerator):  # torch's own CUDA stream
        g = kw.pop("generator")
        if kw:
            raise TypeError(f"{dist}: with a torch_cuda generator, unexpected keyword argument(s) {', '.join(sorted(kw))}")
        cuda_args = {"uniform": ("low", "high"), "normal": ("mean", "std"), "randint": ("ilow", "ihigh"), "random": (),
                     "bernoulli": ("p",), "exponential": ("rate",), "geometric": ("p",),
                     "log_normal": ("mean", "std"), "cauchy": ("median", "sigma")}
        if dist not in cuda_args:
            raise NotImplementedError(f"xrng.torch_cuda: {dist} is not reproduced yet")
        return g._fill(dist, tensor, *[params[k] for k in cuda_args[dist]])
    if isinstance(kw.get("generator"), _torch_cpu.TorchCPUGenerator):  # torch's own CPU stream
        g = kw.pop("generator")
        if kw:
            raise TypeError(f"{dist}: with a torch_cpu generator, unexpected keyword argument(s) {', '.join(sorted(kw))}")
        if dist == "uniform":
            return g._fill("uniform", tensor, params["low"], params["high"])
        if dist == "exponential":
            return g._fill("exponential", tensor, params["rate"])
        if dist == "geometric":
            return g._fill("geometric", tensor, params["p"])
        if dist == "log_normal":
            return g._fill("log_normal", tensor, params["mean"], params["std"])
        if dist == "cauchy":
            return g._fill("cauchy", tensor, params["median"], params["sigma"])
        if dist == "normal":
            return g._fill("normal", tensor, params["mean"], params["std"])
        if dist == "randint":
            return g._fill("randint", tensor, params["ilow"], params["ihigh"])
        if dist == "random":
            return g._fill("random", tensor)
        if dist == "bernoulli":
            return g._fill("bernoulli", tensor, params["p"])
        raise NotImplementedError(f"xrng.torch_cpu: {dist} with {params} is not reproduced yet")
    src = _source(kw.pop("seed", None), kw.pop("subseq", 0), kw.pop("offset", 0), kw.pop("generator", None))
    path, threads = _path(kw.pop("path", "auto")), _threads(kw.pop("threads", 0))
    stream = _stream(kw.pop("stream", None), src)
    if kw:
        raise TypeError(f"{dist}: unexpected keyword argument(s) {', '.join(sorted(kw))}")
    if _traced():
        return _op_draw(list(tensor.shape), tensor.dtype, tensor.device, tensor, src, dist, params, stream)
    return _C.draw_(tensor, src, dist, params, path, threads, stream)


def uniform_(tensor: torch.Tensor, low: float = 0.0, high: float = 1.0, **kw) -> torch.Tensor:
    """Fills ``tensor`` with :func:`rand` values; element i (row-major) is draw element i."""
    return _fill(tensor, "uniform", {"low": float(low), "high": float(high)}, kw)


def normal_(tensor: torch.Tensor, mean: float = 0.0, std: float = 1.0, **kw) -> torch.Tensor:
    """Fills ``tensor`` with :func:`randn` values."""
    return _fill(tensor, "normal", {"mean": float(mean), "std": float(std)}, kw)


def randint_(tensor: torch.Tensor, low: int, high: int, **kw) -> torch.Tensor:
    """Fills an integer ``tensor`` with :func:`randint` values in [low, high)."""
    if type(kw.get("generator")) is _TorchCPU and len(kw) == 1:  # in C++ (NotImplemented: the checks below)
        r = _torch_cpu._into(kw["generator"], "randint", tensor, low, high)
        if r is not NotImplemented:
            return r
    return _fill(tensor, "randint", {"ilow": _i64(low, "randint_: low"), "ihigh": _i64(high, "randint_: high")}, kw)


def random_(tensor: torch.Tensor, *bounds: Optional[int], **kw) -> torch.Tensor:
    """torch's ``Tensor.random_`` with an ``xrng.torch_cpu`` or ``xrng.torch_cuda``
    generator (``generator=`` required): ``random_(t)`` fills ``t`` with
    torch's values in [0, 2^digits] for a floating dtype (24 bits float32,
    53 float64, 11 float16, 8 bfloat16), [0, max] for an integer dtype and
    {False, True} for bool (torch has no such draw for uint16/32/64: a
    ValueError); ``random_(t, to)`` and ``random_(t, from, to)`` are
    :func:`randint_` on [0, to) and [from, to). ``random_(t, from, None)``
    draws [from, max] (integers; none for uint64) or [from, 2^digits]
    (floating dtypes, ``from`` moved up to a value the dtype holds, as
    torch's update_from), as torch's random_from_to kernel on that range;
    ``random_(t, -2**63, None)`` is torch's full 64-bit range kernel: one
    64-bit word per element, its bits as an int64, cast to the dtype (int64,
    float64, float32 and bfloat16 only, as torch). A bound or dtype torch
    refuses is a ValueError, raised before the generator advances. With
    xrng's own streams only the bounded forms are taken (they are
    :func:`randint_`).
    """
    if len(bounds) > 2:
        raise TypeError(f"random_(tensor, [from,] to) takes at most 2 bounds, got {len(bounds)}")
    if len(bounds) == 2 and bounds[1] is None:
        g = kw.get("generator")
        if not isinstance(g, _TORCH_GENS):
            raise NotImplementedError("xrng.random_: random_(from, None) is torch's draw; pass "
                                      "generator=xrng.torch_cpu(...) or xrng.torch_cuda(...), or give to")
        if len(kw) != 1:
            raise TypeError(f"random_: with a torch generator, unexpected keyword argument(s) "
                            f"{', '.join(sorted(k for k in kw if k != 'generator'))}")
        return g._fill("random_from", tensor, _i64(bounds[0], "random_: from"), 0)
    if bounds:
        low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
        return randint_(tensor, low, high, **kw)
    if not isinstance(kw.get("generator"), _TORCH_GENS):
        raise NotImplementedError("xrng.random_: random_() without a range is torch's draw; pass "
                                  "generator=xrng.torch_cpu(...) or xrng.torch_cuda(...), or use randint_ or bits_")
    return _fill(tensor, "random", {}, kw)


def bernoulli_(tensor: torch.Tensor, p: float = 0.5, **kw) -> torch.Tensor:
    """Fills a bool/uint8 ``tensor`` with a Bernoulli(p) mask. With a
    ``xrng.torch_cpu`` or ``xrng.torch_cuda`` generator, ``p`` may be a
    tensor (torch's ``bernoulli_(p)``), broadcast to ``tensor``'s shape."""
    if isinstance(p, torch.Tensor) and isinstance(kw.get("generator"), _torch_cpu.TorchCPUGenerator) and len(kw) == 1:
        return _torch_cpu.bernoulli_tensor_(kw["generator"], tensor, p)
    if isinstance(p, torch.Tensor) and isinstance(kw.get("generator"), _torch_cuda.TorchCUDAGenerator) and len(kw) == 1:
        return _torch_cuda.bernoulli_tensor_(kw["generator"], tensor, p)
    return _fill(tensor, "bernoulli", {"p": float(p)}, kw)


def bits_(tensor: torch.Tensor, **kw) -> torch.Tensor:
    """Fills a uint32 (one word each) or uint64 (two words) tensor with raw stream bits."""
    return _fill(tensor, "bits", {}, kw)


def exponential_(tensor: torch.Tensor, rate: float = 1.0, **kw) -> torch.Tensor:
    """Fills a float ``tensor`` with Exponential(rate) values, ``-log(u) / rate`` (torch's ``lambd``).

    One stream word per element (float64: two).
    """
    return _fill(tensor, "exponential", {"rate": float(rate)}, kw)


def geometric_(tensor: torch.Tensor, p: float, **kw) -> torch.Tensor:
    """Fills ``tensor`` with Geometric(p) values, p in (0, 1]: trials up to the first success, >= 1.

    dtype: float32, float16, bfloat16, int32 (one stream word per element,
    int32 saturating at 2**31 - 1) or float64, int64 (two words). Narrower
    integer tensors are refused: the values are unbounded.
    """
    return _fill(tensor, "geometric", {"p": float(p)}, kw)


def log_normal_(tensor: torch.Tensor, mean: float = 1.0, std: float = 2.0, **kw) -> torch.Tensor:
    """Fills a float ``tensor`` with ``exp(N(mean, std))`` values (torch's defaults: mean 1, std 2).

    Drawn in Box-Muller pairs like :func:`randn`: 2 words per pair (float64: 4).
    """
    return _fill(tensor, "log_normal", {"mean": float(mean), "std": float(std)}, kw)


def cauchy_(tensor: torch.Tensor, median: float = 0.0, sigma: float = 1.0, **kw) -> torch.Tensor:
    """Fills a float ``tensor`` with Cauchy(median, sigma) values, ``median + sigma tan(pi (u - 1/2))``.

    One stream word per element (float64: two).
    """
    return _fill(tensor, "cauchy", {"median": float(median), "sigma": float(sigma)}, kw)


# ---- random access into permutations -------------------------------------------------------------
def perm_shard(n: int, rank: int, world: int, start: int = 0, count: Optional[int] = None, *, seed: int = 0,
               subseq: int = 0, offset: int = 0, dtype: torch.dtype = torch.int64, device: _Device = None,
               path: str = "auto", threads: int = 0, stream: Optional[int] = None) -> torch.Tensor:
    """Elements [start, start + count) of shard ``rank`` of ``world`` of the
    permutation ``randperm(n, seed=seed, subseq=subseq, offset=offset)``:
    element j is ``perm[(rank + j * world) % n]`` (DistributedSampler's layout,
    wrapping around when world does not divide n). Only the shard is computed.
    ``stream``: checked only (a permutation is the same in every stream version).
    """
    if stream is not None:
        _check_stream(stream)
    # every argument is checked, whatever the count (an empty shard included)
    n, rank, world, start = _u64(n, "n"), _u64(rank, "rank"), _u64(world, "world"), _u64(start, "start")
    seed, subseq, offset = _u64(seed, "seed"), _u64(subseq, "subseq"), _u64(offset, "offset")
    path, threads = _path(path), _threads(threads)
    if n < 1:
        raise ValueError(f"perm_shard: n must be >= 1 (got {n})")
    if not rank < world:
        raise ValueError(f"perm_shard: need 0 <= rank < world (got rank {rank}, world {world})")
    if count is None:
        count = max(-(-n // world) - start, 0)
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"count must be an int, got {type(count).__name__}")
    if count < 0:
        raise ValueError(f"perm_shard: negative count {count}")
    if start + count > 2**64:
        raise ValueError(f"perm_shard: elements [{start}, {start + count}) go past 2**64")
    out = _alloc("perm_shard", [int(count)], dtype, device)
    return _C.perm_shard_(out, n, seed, subseq, offset, rank, world, start, path, threads)


def perm_element(n: int, i: int, *, seed: int = 0, subseq: int = 0, offset: int = 0,
                 stream: Optional[int] = None) -> int:
    """``randperm(n, seed=..., ...)[i]`` without computing the rest (the same in every stream version)."""
    if stream is not None:
        _check_stream(stream)
    return _C.perm_element(_u64(seed, "seed"), _u64(subseq, "subseq"), _u64(offset, "offset"), _u64(n, "n"),
                           _u64(i, "i"))


def perm_position(n: int, value: int, *, seed: int = 0, subseq: int = 0, offset: int = 0,
                  stream: Optional[int] = None) -> int:
    """The index at which ``value`` appears in ``randperm(n, seed=..., ...)`` (the same in every stream version)."""
    if stream is not None:
        _check_stream(stream)
    return _C.perm_position(_u64(seed, "seed"), _u64(subseq, "subseq"), _u64(offset, "offset"), _u64(n, "n"),
                            _u64(value, "value"))


# Categorical sampling (issue 20; _sampling.py): torch.multinomial's draw.
from ._sampling import multinomial  # noqa: E402
__all__ += ["multinomial", "torch_cpu", "TorchCPUGenerator", "torch_cuda", "TorchCUDAGenerator"]
# The gamma family (issue 20; _gamma.py): torch._standard_gamma's and torch._sample_dirichlet's draws.
from ._gamma import binomial, dirichlet, gamma, poisson  # noqa: E402
__all__ += ["gamma", "dirichlet", "poisson", "binomial"]

# Reproducible mode for unmodified PyTorch programs (reproducible.py); it imports the functions above.
from .reproducible import GLOBAL_TAG, NotReproducibleError, ReproducibilityWarning, reproducible  # noqa: E402
__all__ += ["reproducible", "ReproducibilityWarning", "NotReproducibleError", "GLOBAL_TAG"]

# torch.func._random keys <-> xrng positions (_keys.py).
from ._keys import key_from_position, position_from_key  # noqa: E402
__all__ += ["position_from_key", "key_from_position"]
