"""Migration check: record what every module of a model computes, compare two recordings.

Moving a model to another device, dtype, or library version changes its
numbers; this module says *where*. A recording holds, for every module of one
forward pass (and, when asked, for the gradients of one backward pass), the
shape, dtype, SHA-256 of the bytes and summary statistics of each tensor it
produced, and optionally the tensors themselves. Comparing two recordings
gives one row per tensor: equal bits or not, max absolute and relative error,
cosine similarity, and the first row where the runs part.

With ``seed=S`` the run goes under ``xrng.reproducible(seed=S)``, so every
random draw of the program (weight init, dropout, ``randn``...) comes from the
xrng stream and is the same on every device: what is left to differ is
arithmetic, and the table shows where it starts to differ. ``stream=1`` or
``2`` (``--stream``) picks the mode's stream version (SPEC.md section 7;
default the newest); the recording keeps it (``meta["stream_version"]``), and
comparing recordings of different stream versions says so, since their random
values differ by design.

Python::

    from xrng import migrate
    migrate.record_build(build, "cpu.json", device="cpu", tensors=True)      # build() -> (model, inputs)
    migrate.record_build(build, "bf16.json", dtype=torch.bfloat16, tensors=True)
    rows = migrate.compare("cpu.json", "bf16.json")
    print(migrate.format_table(rows))

Command line::

    python -m xrng.migrate record --build examples/migration_check.py:bert --out cpu.json --tensors
    python -m xrng.migrate record --build examples/migration_check.py:bert --dtype bfloat16 --out bf16.json --tensors
    python -m xrng.migrate compare cpu.json bf16.json --max-rel 0.05

``--train`` (``train=True``) runs the model in training mode, dropout on
(``--eval``: off; neither: as the build left it); with ``--seed`` the masks
come from the xrng stream, the same on every device and thread count.
``compare`` says in its header whether each run trained.

Files: a recording is ``NAME.json`` (written with the standard ``json``
module: run metadata and one object per tensor) and, with ``tensors=True``,
``NAME.safetensors`` beside it (the tensors, keyed like the JSON entries).

Entry keys name where a tensor came from:

* ``MODULE#CALL:out.PATH``: output of the CALL-th call (from 0) of the module
  with qualified name MODULE (``<root>`` for the model itself); PATH is empty
  for a bare tensor, else the position in the output (``.0``, ``.logits``,
  ``.1.hidden``) through tuples, lists, dicts and ``ModelOutput``\\ s. Other
  leaves (None, numbers, cache objects) are not recorded.
* ``MODULE#CALL:grad.PATH``: the gradient of the loss with respect to that output.
* ``PARAM:grad``: the gradient of parameter PARAM (its qualified name) after backward.

Entries are in the order they were produced: forward outputs as modules
finish (a child before its parent), output gradients as backward produces
them, then parameter gradients in ``named_parameters()`` order.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import hashlib
import importlib
import importlib.util
import json
import math
import os
import pathlib
import platform
import sys
import types
from collections.abc import Mapping
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union

import torch

import xrng

__all__ = ["Recording", "Recorder", "Row", "record", "record_build", "load", "compare", "first_difference",
           "failures", "format_table", "describe", "training_line", "main", "ROOT", "EQUAL"]

FORMAT = "xrng.migrate"
FORMAT_VERSION = 1
#: The name the model itself gets in entry keys ("<" cannot occur in an attribute name).
ROOT = "<root>"
#: ``Row.equal`` values that mean "no difference": the same bytes, or (across
#: dtypes) the same numbers once both are widened to float64.
EQUAL = ("bits", "values")

_PathLike = Union[str, os.PathLike]
_DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}


class MigrateError(ValueError):
    """A bad request (unknown build function, mismatched files, missing mode): the CLI prints it in one line."""


# ---- tensors: bytes, values, statistics -----------------------------------------------------------
def _leaves(x: Any, path: str = "") -> Iterator[Tuple[str, torch.Tensor]]:
    """(path, tensor) for every tensor in a nested output, depth first, in the output's own order.

    Mappings (dicts, transformers' ModelOutput) by key, tuples and lists by
    index, other dataclasses by field; everything else is not a tensor to record.
    """
    if isinstance(x, torch.Tensor):
        yield path, x
    elif isinstance(x, Mapping):
        for k, v in x.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}.{i}")
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            yield from _leaves(getattr(x, f.name), f"{path}.{f.name}")


def _cpu(t: torch.Tensor, copy: bool) -> torch.Tensor:
    """A contiguous CPU tensor with t's values and dtype, detached from autograd.

    ``copy=True`` guarantees fresh storage: a snapshot kept for later must not
    change when the model later writes into its tensor in place (ReLU(inplace=True)).
    """
    t = t.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    t = t.resolve_conj().resolve_neg()
    if t.device.type != "cpu":
        return t.cpu().contiguous()  # .cpu() of a device tensor is already a copy
    return t.clone(memory_format=torch.contiguous_format) if copy else t.contiguous()


def _bytes(t: torch.Tensor) -> memoryview:
    """The raw bytes of a contiguous CPU tensor in row-major order (little-endian on every supported host)."""
    return memoryview(t.reshape(-1).view(torch.uint8).numpy())


def _values(t: torch.Tensor) -> torch.Tensor:
    """t's values as float64 (complex: real and imaginary parts as a trailing dimension of 2).

    Every float16, bfloat16, float32 and integer value up to 2**53 is exact in
    float64, so two tensors of different dtypes have equal float64 values
    exactly when they hold the same numbers.
    """
    if t.is_complex():
        return torch.view_as_real(t.to(torch.complex128))
    return t.to(torch.float64)


def _stats(v: torch.Tensor) -> dict:
    """Summary statistics of float64 values; min/max/mean/std are over the finite ones (None when there are none)."""
    finite = v[torch.isfinite(v)]
    s = {"numel": v.numel(), "nan": int(torch.isnan(v).sum()), "inf": int(torch.isinf(v).sum()),
         "min": None, "max": None, "mean": None, "std": None}
    if finite.numel():
        s.update(min=float(finite.min()), max=float(finite.max()), mean=float(finite.mean()),
                 std=float(finite.std(correction=0)))
    return s


def _describe_tensor(t: torch.Tensor) -> dict:
    """The JSON fields of one recorded tensor (t: contiguous, on the CPU)."""
    v = _values(t).contiguous()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "sha256": hashlib.sha256(_bytes(t)).hexdigest(),
            # Hash of the float64 values: equal across dtypes when the numbers are equal.
            "value_sha256": hashlib.sha256(_bytes(v)).hexdigest(),
            "stats": _stats(v)}


# ---- recording ---------------------------------------------------------------------------------------
@dataclasses.dataclass
class Recording:
    """One run: ``meta`` (device, dtype, versions, seed...), ``entries`` (one dict per
    tensor, in the order produced: key, module, call, kind, path, shape, dtype,
    sha256, value_sha256, stats) and ``tensors`` (key -> CPU tensor, or None
    when the tensors were not kept)."""

    meta: dict
    entries: List[dict]
    tensors: Optional[dict] = None

    def save(self, path: _PathLike) -> pathlib.Path:
        """Writes ``path`` (JSON) and, when the tensors were kept, ``path`` with the
        suffix ``.safetensors`` beside it. Returns the JSON path."""
        path = pathlib.Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tensors_file = None
        if self.tensors is not None:
            save_file = _safetensors().save_file
            st = path.with_suffix(".safetensors")
            save_file(self.tensors, str(st), metadata={"format": FORMAT, "json": path.name})
            tensors_file = st.name
        doc = {"format": FORMAT, "version": FORMAT_VERSION, "meta": self.meta, "tensors_file": tensors_file,
               "entries": self.entries}
        # allow_nan=False: strict JSON that any reader parses; statistics are finite or null by construction.
        path.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
        return path

    def by_key(self) -> dict:
        """key -> entry."""
        return {e["key"]: e for e in self.entries}


def load(path: _PathLike, *, tensors: bool = True) -> Recording:
    """Reads a recording written by :meth:`Recording.save`.

    ``tensors=True`` also loads the safetensors file when the recording has one,
    and checks every tensor against its recorded SHA-256.
    """
    path = pathlib.Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise MigrateError(f"cannot read recording {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise MigrateError(f"{path} is not an {FORMAT} recording")
    if doc.get("version") != FORMAT_VERSION:
        raise MigrateError(f"{path} has {FORMAT} version {doc.get('version')}, this reader knows {FORMAT_VERSION}")
    rec = Recording(meta=doc["meta"], entries=doc["entries"])
    if tensors and doc.get("tensors_file"):
        st = path.parent / doc["tensors_file"]
        reader = _safetensors()
        try:
            loaded = reader.load_file(str(st))
        except Exception as e:  # a missing file (OSError) or a damaged one (safetensors' own error type)
            raise MigrateError(f"cannot read the tensors of {path} from {st}: {e}") from None
        want = {e["key"] for e in rec.entries}
        if set(loaded) != want:
            raise MigrateError(f"{st} does not hold the tensors of {path} "
                               f"({len(set(loaded) ^ want)} keys differ)")
        for e in rec.entries:
            if hashlib.sha256(_bytes(loaded[e["key"]].contiguous())).hexdigest() != e["sha256"]:
                raise MigrateError(f"{st}: tensor {e['key']} does not match its SHA-256 in {path}")
        rec.tensors = loaded
    return rec


def _safetensors():
    try:
        import safetensors.torch
    except ImportError:
        raise MigrateError("keeping tensors needs the safetensors package (pip install safetensors)") from None
    return safetensors.torch


class Recorder:
    """Context manager that hooks every module of ``model`` and records its outputs.

    ``grads=True`` also hooks every output that requires grad, so a backward
    pass inside the block records the gradient with respect to it; call
    :meth:`record_param_grads` after that backward for the parameters'
    gradients. ``tensors=True`` keeps a CPU copy of every recorded tensor.
    Each tensor is hashed when it is produced, so later in-place writes do not
    change what was recorded.
    """

    def __init__(self, model: torch.nn.Module, *, grads: bool = False, tensors: bool = False):
        if not isinstance(model, torch.nn.Module):
            raise MigrateError(f"the model must be a torch.nn.Module, got {type(model).__name__}")
        self.model, self.grads, self.keep = model, grads, tensors
        self.entries: List[dict] = []
        self.tensors: Optional[dict] = {} if tensors else None
        self._calls: dict = {}
        self._handles: list = []

    def __enter__(self) -> "Recorder":
        # named_modules() lists a module shared by two parents once, under its
        # first name; its call index then counts the calls through both.
        for name, module in self.model.named_modules():
            self._handles.append(module.register_forward_hook(self._forward_hook(name or ROOT)))
        return self

    def __exit__(self, *exc) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def _add(self, key: str, module: str, call: Optional[int], kind: str, path: str, t: torch.Tensor) -> None:
        snap = _cpu(t, copy=self.keep)
        self.entries.append({"key": key, "module": module, "call": call, "kind": kind, "path": path,
                             **_describe_tensor(snap)})
        if self.keep:
            self.tensors[key] = snap

    def _forward_hook(self, name: str) -> Callable:
        def hook(module, args, output):
            call = self._calls.get(id(module), 0)
            self._calls[id(module)] = call + 1
            for path, t in _leaves(output):
                self._add(f"{name}#{call}:out{path}", name, call, "out", path, t)
                if self.grads and t.requires_grad:
                    t.register_hook(self._grad_hook(f"{name}#{call}:grad{path}", name, call, path))
        return hook

    def _grad_hook(self, key: str, name: str, call: int, path: str) -> Callable:
        def hook(grad):
            self._add(key, name, call, "grad", path, grad)  # returns None: the gradient flows on unchanged
        return hook

    def record_param_grads(self) -> None:
        """Records ``p.grad`` of every parameter that has one (call after backward)."""
        for name, p in self.model.named_parameters():
            if p.grad is not None:
                self._add(f"{name}:grad", name, None, "param_grad", "", p.grad)


@contextlib.contextmanager
def _mode(seed: Optional[int], strict: bool = False, stream: Optional[int] = None):
    """``xrng.reproducible(seed=seed, strict=strict, stream=stream)`` around the block,
    yielding the mode object; nothing (and None) when seed is None."""
    if seed is None:
        if strict:
            raise MigrateError("strict=True needs a seed: it is an option of the reproducible mode")
        if stream is not None:
            raise MigrateError("stream= needs a seed: it is an option of the reproducible mode")
        yield None
        return
    if stream is not None and (isinstance(stream, bool) or stream not in getattr(xrng, "stream_versions", (1,))):
        raise MigrateError(f"stream must be one of the stream versions {getattr(xrng, 'stream_versions', (1,))}, "
                           f"got {stream!r}")
    mode = getattr(xrng, "reproducible", None)
    if mode is None:  # the package may not re-export it: look for the submodule
        try:
            mode = importlib.import_module("xrng.reproducible")
        except ModuleNotFoundError as e:
            if e.name != "xrng.reproducible":
                raise  # the mode exists but something it imports does not: show that
            mode = None
    if isinstance(mode, types.ModuleType):
        mode = getattr(mode, "reproducible", None)
    if not callable(mode):
        raise MigrateError(f"seed={seed} records under xrng.reproducible(seed=...), which this xrng "
                           f"({xrng.__version__}, {os.path.dirname(xrng.__file__)}) does not have; "
                           "record without a seed and seed the model build yourself (torch.manual_seed)")
    m = mode(seed=seed, strict=strict) if stream is None else mode(seed=seed, strict=strict, stream=stream)
    with m:
        yield m


def _call(model: torch.nn.Module, inputs: Any) -> Any:
    """model(**inputs) for a mapping, model(*inputs) for a tuple or list, model(inputs) otherwise."""
    if isinstance(inputs, Mapping):
        return model(**inputs)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    return model(inputs)


def _default_loss(output: Any) -> torch.Tensor:
    """``output.loss`` / ``output["loss"]`` when the model computed one (transformers
    with labels), else the sum of every floating-point tensor of the output."""
    if isinstance(output, Mapping) and isinstance(output.get("loss"), torch.Tensor):
        return output["loss"]
    parts = [t.float().sum() for _, t in _leaves(output) if t.is_floating_point() and t.requires_grad]
    if not parts:
        raise MigrateError("grads=True: no output of the model requires grad (frozen parameters? no_grad?)")
    return torch.stack(parts).sum()


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "cpu":
        return platform.processor() or platform.machine()
    return device.type


def _model_device_dtype(model: torch.nn.Module) -> Tuple[str, str]:
    p = next(iter(model.parameters()), None)
    if p is None:
        p = next(iter(model.buffers()), None)
    if p is None:
        return "cpu", "none"
    return str(p.device), str(p.dtype).replace("torch.", "")


def record(model: torch.nn.Module, inputs: Any, path: Optional[_PathLike] = None, *, grads: bool = False,
           tensors: bool = False, seed: Optional[int] = None, strict: bool = False, stream: Optional[int] = None,
           loss_fn: Optional[Callable[[Any], torch.Tensor]] = None, label: Optional[str] = None,
           train: Optional[bool] = None) -> Recording:
    """Runs ``model`` on ``inputs`` once, recording every module's outputs; returns
    the :class:`Recording` and, when ``path`` is given, saves it there.

    inputs: a mapping (``model(**inputs)``), a tuple or list (``model(*inputs)``)
    or a single value (``model(inputs)``), already on the model's device.
    grads: also run backward on ``loss_fn(output)`` (default: ``output.loss``
    when the model returns one, else the sum of its floating outputs) and record
    the gradient of every module output and every parameter. Parameter
    ``.grad``\\ s are reset to None first. Without grads the forward runs under
    ``torch.no_grad()``.
    tensors: keep the tensors (saved as safetensors next to the JSON).
    seed: run under ``xrng.reproducible(seed=seed)``; None runs without the
    mode. The model was built before this call, so its initial weights come
    from whatever generated them: use :func:`record_build` to build it under
    the mode too. The random ops the mode reports as not reproducible
    (``multinomial``, ``poisson``...) are listed in ``meta["not_reproducible"]``:
    their values may differ between devices, and so may everything after them.
    strict: ``xrng.reproducible(strict=True)``: such an op raises
    ``xrng.NotReproducibleError`` instead.
    stream: the mode's stream version, 1 or 2 (``xrng.reproducible(stream=)``;
    default the newest); needs a seed. Recorded as ``meta["stream_version"]``.
    label: free text stored in the metadata and shown by :func:`describe`.
    train: ``True`` runs the model in training mode (``model.train()``:
    dropout on, drawn from the xrng stream under the mode), ``False`` in eval
    mode (dropout off), ``None`` (default) as it is. Recorded as
    ``meta["training"]``.
    """
    _set_training(model, train)
    with _mode(seed, strict, stream) as mode:
        return _record(model, inputs, path, grads=grads, tensors=tensors, seed=seed, mode=mode, loss_fn=loss_fn,
                       label=label)


def _set_training(model: Any, train: Optional[bool]) -> None:
    if train is None:
        return
    if not isinstance(train, bool):
        raise MigrateError(f"train must be True, False or None, got {train!r}")
    if isinstance(model, torch.nn.Module):
        model.train(train)


def _record(model, inputs, path, *, grads, tensors, seed, mode, loss_fn, label) -> Recording:
    if tensors:
        _safetensors()  # fail before the run, not after it
    rec = Recorder(model, grads=grads, tensors=tensors)
    if grads:
        model.zero_grad(set_to_none=True)  # stale gradients would be recorded as this run's
    with rec, torch.set_grad_enabled(grads):
        output = _call(model, inputs)
        if grads:
            loss = (loss_fn or _default_loss)(output)
            if not loss.requires_grad:
                raise MigrateError("grads=True: the loss does not require grad")
            loss.backward()
            rec.record_param_grads()
    device, dtype = _model_device_dtype(model)
    counts = {k: sum(e["kind"] == k for e in rec.entries) for k in ("out", "grad", "param_grad")}
    meta = {"label": label, "model": type(model).__qualname__, "device": device,
            "device_name": _device_name(torch.device(device)), "dtype": dtype,
            "training": model.training, "seed": seed, "mode": mode is not None,
            "strict": bool(mode is not None and mode.strict),
            # op -> why, as the mode reported it (a dict kept by the mode object, one entry per op)
            "not_reproducible": dict(getattr(mode, "reported", {}) or {}), "grads": grads,
            "counts": counts, "torch": torch.__version__, "xrng": xrng.__version__,
            # the stream version the run drew in: the mode's, else the library's default
            "stream_version": int(getattr(mode, "stream", xrng.stream_version)), "python": platform.python_version(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    recording = Recording(meta=meta, entries=rec.entries, tensors=rec.tensors)
    if path is not None:
        recording.save(path)
    return recording


def _to(x: Any, device: torch.device, dtype: Optional[torch.dtype]) -> Any:
    """x with every tensor moved to device; floating tensors also cast to dtype (integer ids and masks keep theirs)."""
    if isinstance(x, torch.Tensor):
        if dtype is not None and x.is_floating_point():
            return x.to(device=device, dtype=dtype)
        return x.to(device=device)
    if isinstance(x, Mapping):  # a plain dict is enough for model(**inputs), whatever mapping type came in
        return {k: _to(v, device, dtype) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_to(v, device, dtype) for v in x)
    return x


def record_build(build: Callable[[], Tuple[torch.nn.Module, Any]], path: Optional[_PathLike] = None, *,
                 device: Union[str, torch.device] = "cpu", dtype: Optional[torch.dtype] = None, grads: bool = False,
                 tensors: bool = False, seed: Optional[int] = None, strict: bool = False, stream: Optional[int] = None,
                 loss_fn: Optional[Callable[[Any], torch.Tensor]] = None, label: Optional[str] = None,
                 train: Optional[bool] = None) -> Recording:
    """Builds a model with ``build() -> (model, inputs)``, moves both to ``device``
    (and ``dtype`` for floating-point parameters, buffers and inputs), then
    :func:`record`\\ s it.

    With a ``seed``, the build, the move and the run all happen under one
    ``xrng.reproducible(seed=seed)``, so the initial weights come from the xrng
    stream too. The model is built on the CPU and moved: the weights of a
    float32 build cast to bfloat16 are the float32 weights rounded, which is
    what a dtype migration changes. Under the mode, a ``torch.manual_seed(s)``
    in the build restarts the mode's stream at seed ``s`` (the mode's rule), so
    such a build gets the same weights whatever ``seed`` is. ``train``: as
    for :func:`record` (``True``: ``model.train()`` after the build, dropout
    on; ``None``: the mode the build left the model in).
    """
    try:
        device = torch.device(device)
    except RuntimeError as e:
        raise MigrateError(f"device {device!r}: {e}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise MigrateError(f"device {device}: torch sees no CUDA GPU here")
    with _mode(seed, strict, stream) as mode:
        built = build()
        if not (isinstance(built, (tuple, list)) and len(built) == 2 and isinstance(built[0], torch.nn.Module)):
            raise MigrateError(f"the build function must return (model, inputs), got {type(built).__name__}")
        model, inputs = built
        model = model.to(device=device, dtype=dtype)
        _set_training(model, train)
        inputs = _to(inputs, device, dtype)
        return _record(model, inputs, path, grads=grads, tensors=tensors, seed=seed, mode=mode, loss_fn=loss_fn,
                       label=label)


# ---- comparing -----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Row:
    """One tensor of a comparison of recordings a and b.

    equal: ``"bits"`` (same dtype and bytes), ``"values"`` (same numbers once
    widened to float64, e.g. a float32 and a bfloat16 tensor of exactly
    representable values), ``"no"``, ``"shape"`` (shapes differ), or
    ``"only in a"`` / ``"only in b"``.
    max_abs: max |b - a| over the elements, in float64.
    max_rel: max_abs / max |a| (a, the first recording, is the reference; the
    max of |a| is over its finite elements). 0 / 0 is 0, x / 0 is inf.
    cosine: sum(a b) / (|a| |b|) over the elements finite in both; 1 for two
    all-zero tensors, 0 when only one is all zero.
    Equal rows have (0, 0, 1); an unequal row can have max_abs 0 when the bits
    differ only where the numbers compare equal (-0 and +0). Elements equal in both (the same infinity, NaN
    in both) contribute no error; a non-finite value on one side only makes
    max_abs inf. The three are None where they need the tensors and either
    recording has none.
    """

    index: int  # the row's number in the table, from 1
    key: str
    shape_a: Optional[Tuple[int, ...]]
    shape_b: Optional[Tuple[int, ...]]
    dtype_a: Optional[str]
    dtype_b: Optional[str]
    equal: str
    max_abs: Optional[float] = None
    max_rel: Optional[float] = None
    cosine: Optional[float] = None

    @property
    def same(self) -> bool:
        """True when the two tensors hold the same numbers (equal bits or equal values)."""
        return self.equal in EQUAL


def _errors(a: torch.Tensor, b: torch.Tensor) -> Tuple[float, float, float]:
    """(max_abs, max_rel, cosine) of two same-shape tensors, as :class:`Row` defines them."""
    va, vb = _values(a).reshape(-1), _values(b).reshape(-1)
    same = (va == vb) | (torch.isnan(va) & torch.isnan(vb))
    if bool(same.all()):
        max_abs = 0.0
    else:
        diff = (va[~same] - vb[~same]).abs()
        # NaN against a number, or an infinity against anything else: no finite error describes it.
        max_abs = math.inf if not bool(torch.isfinite(diff).all()) else float(diff.max())
    fa = va[torch.isfinite(va)]
    scale = float(fa.abs().max()) if fa.numel() else 0.0
    max_rel = (0.0 if max_abs == 0 else math.inf) if scale == 0 else max_abs / scale
    both = torch.isfinite(va) & torch.isfinite(vb)
    xa, xb = va[both], vb[both]
    na, nb = float(xa.norm()), float(xb.norm())
    if na == 0 and nb == 0:
        cosine = 1.0
    elif na == 0 or nb == 0:
        cosine = 0.0
    else:
        cosine = float(xa.dot(xb)) / (na * nb)
    return max_abs, max_rel, cosine


def _recording(x: Union[Recording, _PathLike]) -> Recording:
    return x if isinstance(x, Recording) else load(x)


def compare(a: Union[Recording, _PathLike], b: Union[Recording, _PathLike]) -> List[Row]:
    """Compares two recordings (objects or JSON paths) tensor by tensor.

    Rows follow a's order (the order a produced its tensors), then the keys only
    b has in b's order. Tensors are matched by key, so the two runs must have
    the same module names and calls; the dtypes may differ (errors are computed
    in float64). See :class:`Row` for the columns.
    """
    a, b = _recording(a), _recording(b)
    in_b = b.by_key()
    rows: List[Row] = []
    for ea in a.entries:
        key = ea["key"]
        eb = in_b.get(key)
        if eb is None:
            rows.append(Row(len(rows) + 1, key, tuple(ea["shape"]), None, ea["dtype"], None, "only in a"))
            continue
        sa, sb = tuple(ea["shape"]), tuple(eb["shape"])
        common = dict(index=len(rows) + 1, key=key, shape_a=sa, shape_b=sb, dtype_a=ea["dtype"], dtype_b=eb["dtype"])
        if sa != sb:
            rows.append(Row(**common, equal="shape"))
        elif ea["dtype"] == eb["dtype"] and ea["sha256"] == eb["sha256"]:
            rows.append(Row(**common, equal="bits", max_abs=0.0, max_rel=0.0, cosine=1.0))
        elif ea["value_sha256"] == eb["value_sha256"]:
            rows.append(Row(**common, equal="values", max_abs=0.0, max_rel=0.0, cosine=1.0))
        elif a.tensors is not None and b.tensors is not None:
            rows.append(Row(**common, equal="no", **dict(zip(("max_abs", "max_rel", "cosine"),
                                                              _errors(a.tensors[key], b.tensors[key])))))
        else:
            rows.append(Row(**common, equal="no"))
    in_a = a.by_key()
    for eb in b.entries:
        if eb["key"] not in in_a:
            rows.append(Row(len(rows) + 1, eb["key"], None, tuple(eb["shape"]), None, eb["dtype"], "only in b"))
    return rows


def first_difference(rows: Sequence[Row]) -> Optional[Row]:
    """The first row whose tensors are not equal (bits or values), or None."""
    return next((r for r in rows if not r.same), None)


def failures(rows: Sequence[Row], *, max_abs: Optional[float] = None, max_rel: Optional[float] = None,
             min_cosine: Optional[float] = None) -> List[Row]:
    """The rows outside the tolerances.

    With no tolerance at all, every row that is not equal fails (xrng's promise
    is equal bits). With tolerances, an unequal row passes when it has errors
    and meets every tolerance given (``max_abs``, ``max_rel`` as defined in
    :class:`Row`, ``cosine >= min_cosine``). Missing keys and shape mismatches
    always fail, and so do unequal rows without errors (record with tensors).
    """
    strict = max_abs is None and max_rel is None and min_cosine is None
    out = []
    for r in rows:
        if r.same:
            continue
        if strict or r.max_abs is None:
            out.append(r)
            continue
        # Written as "not within" so that a NaN error fails.
        ok = ((max_abs is None or r.max_abs <= max_abs) and (max_rel is None or r.max_rel <= max_rel)
              and (min_cosine is None or r.cosine >= min_cosine))
        if not ok:
            out.append(r)
    return out


def _num(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    if x == 0:
        return "0"
    return "inf" if math.isinf(x) else f"{x:.3e}"


def _cos(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    # 1 exactly only when equal; 9 decimals keep the gap of a bfloat16 rounding visible (~1e-5).
    return "1" if x == 1.0 else f"{x:.9f}"


def _shape(s: Optional[Tuple[int, ...]]) -> str:
    return "-" if s is None else ("x".join(map(str, s)) or "scalar")


def format_table(rows: Sequence[Row], *, only_differences: bool = False) -> str:
    """A plain-text table of the rows, then a summary and the first row where the runs part.

    Columns: row number, key, shape (``a / b`` when they differ), dtypes
    (``a / b`` when they differ), equal, max abs, max rel, cosine; ``n/a``
    where the errors need tensors that were not recorded. ``only_differences``
    leaves out the equal rows (the summary still counts them).
    """
    head = ("#", "tensor", "shape", "dtype", "equal", "max abs", "max rel", "cosine")
    body = []
    for r in rows:
        if only_differences and r.same:
            continue
        shape = _shape(r.shape_a) if r.shape_a == r.shape_b else f"{_shape(r.shape_a)} / {_shape(r.shape_b)}"
        dtype = r.dtype_a if r.dtype_a == r.dtype_b else f"{r.dtype_a or '-'} / {r.dtype_b or '-'}"
        body.append((str(r.index), r.key, shape, dtype, r.equal, _num(r.max_abs), _num(r.max_rel), _cos(r.cosine)))
    width = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    right = {0, 5, 6, 7}  # numbers right-aligned
    lines = ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(x, width))).rstrip()
             for x in [head, *body]]
    lines.insert(1, "  ".join("-" * w for w in width))
    n = {k: sum(r.equal == k for r in rows) for k in ("bits", "values")}
    lines.append(f"{len(rows)} tensors: {n['bits']} equal bits, {n['values']} equal values, "
                 f"{len(rows) - n['bits'] - n['values']} differ")
    first = first_difference(rows)
    lines.append("first difference: " + (f"#{first.index} {first.key}" if first else "none"))
    return "\n".join(lines)


def describe(recording: Recording) -> str:
    """One line about a recording's run: label, model, device, dtype, mode, versions."""
    m = recording.meta
    mode = (f"xrng.reproducible(seed={m['seed']}{', strict=True' if m.get('strict') else ''}, "
            f"stream={m.get('stream_version', 1)})" if m.get("mode") else "no mode")
    bad = m.get("not_reproducible") or {}
    label = f"{m['label']}: " if m.get("label") else ""
    c = m.get("counts", {})
    return (f"{label}{m['model']} on {m['device']} ({m['device_name']}), {m['dtype']}, "
            f"{'train' if m.get('training') else 'eval'}, {mode}; {c.get('out', 0)} outputs, "
            f"{c.get('grad', 0)} output grads, {c.get('param_grad', 0)} parameter grads; "
            f"torch {m['torch']}, xrng {m['xrng']} (stream v{m['stream_version']})"
            + ("" if recording.tensors is not None else "; no tensors")
            + (f"; NOT REPRODUCIBLE under the mode: {', '.join(sorted(bad))}" if bad else ""))


def training_line(a: Recording, b: Recording) -> str:
    """One line saying whether each run trained (dropout on) or not, and
    whether both did: compare's header."""
    def phase(r: Recording) -> str:
        return "train (dropout on)" if r.meta.get("training") else "eval (dropout off)"
    ta, tb = bool(a.meta.get("training")), bool(b.meta.get("training"))
    both = "both runs trained" if ta and tb else "neither run trained" if not (ta or tb) else \
        "only one run trained: their dropout differs by design (record both with --train)"
    return f"training: a {phase(a)}, b {phase(b)}: {both}"


# ---- command line -------------------------------------------------------------------------------------
def _load_build(spec: str) -> Callable:
    """The function named by ``package.module:function`` or ``path/to/file.py:function``."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise MigrateError(f"--build: expected MODULE:FUNCTION or FILE.py:FUNCTION, got {spec!r}")
    if where.endswith(".py") or os.sep in where:
        file = pathlib.Path(where)
        if not file.is_file():
            raise MigrateError(f"--build: no file {where}")
        mod_spec = importlib.util.spec_from_file_location(f"_xrng_migrate_build_{file.stem}", file)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as e:
            raise MigrateError(f"--build: cannot import {where}: {e}") from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise MigrateError(f"--build: {where} has no function {name}")
    return fn


def _nonneg(x: str) -> float:
    v = float(x)
    if not v >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {x}")
    return v


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m xrng.migrate",
                                 description="Record every module's outputs of a model run; compare two recordings.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="run a model once and record it",
                         description="Builds (model, inputs) with --build, moves them to --device/--dtype, runs "
                                     "forward (and backward with --grads) and writes OUT (JSON) and, with --tensors, "
                                     "OUT with suffix .safetensors.")
    rec.add_argument("--build", required=True, metavar="MODULE:FUNCTION",
                     help="function returning (model, inputs): package.module:function or path/file.py:function")
    rec.add_argument("--out", required=True, help="the recording's JSON file")
    rec.add_argument("--device", default="cpu", help="torch device (default cpu)")
    rec.add_argument("--dtype", choices=sorted(_DTYPES), help="cast floating parameters and inputs (default: as built)")
    rec.add_argument("--seed", type=int, help="run under xrng.reproducible(seed=SEED), build included")
    rec.add_argument("--strict", action="store_true",
                     help="with --seed: fail on a random op the mode cannot make reproducible")
    rec.add_argument("--stream", type=int, choices=(1, 2),
                     help="with --seed: the mode's stream version (default: the newest, 2)")
    phase = rec.add_mutually_exclusive_group()
    phase.add_argument("--train", dest="train", action="store_const", const=True,
                       help="run the model in training mode (model.train(): dropout on; under --seed its masks "
                            "come from the xrng stream)")
    phase.add_argument("--eval", dest="train", action="store_const", const=False,
                       help="run the model in eval mode (model.eval(): dropout off)")
    rec.add_argument("--grads", action="store_true", help="also backward, recording output and parameter gradients")
    rec.add_argument("--tensors", action="store_true", help="keep the tensors (safetensors), needed for errors")
    rec.add_argument("--label", help="free text stored with the recording")
    cmp = sub.add_parser("compare", help="print the comparison table of two recordings",
                         description="Prints one row per tensor and the first difference. Exit status 1 when a row "
                                     "is outside the tolerances (with none given: when any row differs), 2 on bad "
                                     "input.")
    cmp.add_argument("a", help="reference recording (JSON)")
    cmp.add_argument("b", help="recording to compare with it")
    cmp.add_argument("--max-abs", type=_nonneg, help="tolerance on max |b - a|")
    cmp.add_argument("--max-rel", type=_nonneg, help="tolerance on max |b - a| / max |a|")
    cmp.add_argument("--min-cosine", type=float, help="lowest cosine similarity accepted")
    cmp.add_argument("--only-differences", action="store_true", help="print only the rows that are not equal")
    return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.cmd == "record":
            r = record_build(_load_build(args.build), args.out, device=args.device,
                             dtype=_DTYPES[args.dtype] if args.dtype else None, grads=args.grads,
                             tensors=args.tensors, seed=args.seed, strict=args.strict, stream=args.stream,
                             label=args.label, train=args.train)
            extra = f" and {pathlib.Path(args.out).with_suffix('.safetensors')}" if args.tensors else ""
            print(f"recorded {len(r.entries)} tensors to {args.out}{extra}")
            print(describe(r))
            return 0
        a, b = load(args.a), load(args.b)
        rows = compare(a, b)
        print(f"a: {describe(a)}\nb: {describe(b)}")
        print(training_line(a, b) + "\n")
        sa, sb = a.meta.get("stream_version"), b.meta.get("stream_version")
        if sa != sb:
            print(f"note: a drew in stream v{sa}, b in stream v{sb}: their random values differ by design "
                  "(record both with the same --stream)\n")
        print(format_table(rows, only_differences=args.only_differences))
        bad = failures(rows, max_abs=args.max_abs, max_rel=args.max_rel, min_cosine=args.min_cosine)
        if bad:
            missing = sum(r.max_abs is None and r.equal == "no" for r in bad)
            print(f"FAIL: {len(bad)} tensors outside the tolerance (first: #{bad[0].index} {bad[0].key})"
                  + (f"; {missing} differ without tensors to measure (record with --tensors)" if missing else ""))
            return 1
        print("ok: within the tolerance" if any(not r.same for r in rows) else "ok: every tensor equal")
        return 0
    except (MigrateError, getattr(xrng, "NotReproducibleError", MigrateError)) as e:
        print(f"python -m xrng.migrate: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
