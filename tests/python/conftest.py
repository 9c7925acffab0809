"""Shared fixtures: the xrng CLI ($XRNG_CLI, else the `xrng` command installed
with the package under test), the xdev PrivateUse1 test backend, and the `cuda`
marker (skipped, with the reason shown, when torch sees no GPU).

Only the tests that compare with the CLI need it; the value checks against the
golden vectors (test_golden.py) read tests/data/golden_v1.txt themselves."""
import os
import pathlib
import subprocess

import pytest
import torch

REPO = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped with a reason when there is none)")
    config.addinivalue_line("markers", "slow: builds a C++ extension or spawns processes")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="CUDA test: torch.cuda.is_available() is False on this machine")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


class Cli:
    """Runs the `xrng` command-line tool named by $XRNG_CLI."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args) -> bytes:
        r = subprocess.run([self.path, *map(str, args)], capture_output=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"xrng {' '.join(map(str, args))} failed: {r.stderr.decode()}")
        return r.stdout

    def bin(self, *args) -> bytes:
        return self("gen", *args, "--format", "bin")

    def fingerprint(self, *args) -> str:
        return self("fingerprint", *args).decode().split()[0]


def pip_installed_dist():
    """The pip distribution of the imported xrng package, or None when it was
    not installed by pip (a development tree, or another install shadows it)."""
    import importlib.metadata

    import xrng
    try:
        dist = importlib.metadata.distribution("xrng")
    except importlib.metadata.PackageNotFoundError:
        return None
    if pathlib.Path(dist.locate_file("xrng/__init__.py")).resolve() != pathlib.Path(xrng.__file__).resolve():
        return None
    return dist


def installed_cli():
    """The `xrng` command installed by the wheel of the imported package (a
    script of the wheel), or None."""
    import sysconfig

    dist = pip_installed_dist()
    if dist is None or not any(f.name == "xrng" and f.parent.name == "bin" for f in dist.files or ()):
        return None
    site = pathlib.Path(dist.locate_file("")).resolve()
    # `pip install --target DIR`: DIR/bin (its RECORD paths are relative to a
    # temporary prefix, so they cannot be followed)
    if (site / "bin" / "xrng").is_file():
        return str(site / "bin" / "xrng")
    # a normal install into this interpreter: its scripts directory
    if site in {pathlib.Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}:
        script = pathlib.Path(sysconfig.get_path("scripts")) / "xrng"
        if script.is_file():
            return str(script)
    return None


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("XRNG_CLI") or installed_cli()
    if not path:
        pytest.skip("no xrng CLI: set XRNG_CLI to the command-line binary (e.g. build/xrng), or test a pip-installed "
                    "xrng, whose wheel carries the `xrng` command")
    if not os.access(path, os.X_OK):
        pytest.fail(f"the xrng CLI {path} is not an executable file")
    return Cli(path)


@pytest.fixture(scope="session")
def xdev():
    """Builds (once; cached under build-py/) and registers the "xdev" PrivateUse1 backend."""
    from torch.utils import cpp_extension

    build = pathlib.Path(os.environ.get("XRNG_TEST_BUILD_DIR", REPO / "build-py" / "test_ext"))
    build.mkdir(parents=True, exist_ok=True)
    mod = cpp_extension.load(name="xrng_test_xdev", sources=[str(pathlib.Path(__file__).with_name("xdev_backend.cpp"))],
                             build_directory=str(build), extra_cflags=["-O1"], verbose=False)
    if torch._C._get_privateuse1_backend_name() != "xdev":
        torch.utils.rename_privateuse1_backend("xdev")
        torch._register_device_module("xdev", _xdev_device_module())
    return mod


def _xdev_device_module():
    """The torch.xdev module torch consults for a device's index and state.

    It has what torch's generic code asks of an out-of-tree backend's module
    (torch_npu's has the same): `fork_rng` and `torch.utils.checkpoint` save and
    restore the accelerator's generator state, and checkpoint builds an autocast
    context for it. The test backend runs every op through torch's CPU fallback
    and has no generator of its own, so its state is empty and setting it is a
    no-op; its autocast dtypes are the usual two.
    """
    import types

    m = types.ModuleType("torch.xdev")
    m.is_available = lambda: True
    m.is_initialized = lambda: True
    m.device_count = lambda: 1
    m.current_device = lambda: 0
    m._is_in_bad_fork = lambda: False
    m.manual_seed_all = lambda seed: None
    m.synchronize = lambda device=None: None
    m.get_rng_state = lambda device="xdev": torch.empty(0, dtype=torch.uint8)
    m.set_rng_state = lambda new_state, device="xdev": None
    m.get_amp_supported_dtype = lambda: [torch.float16, torch.bfloat16]
    return m


def as_bytes(t: torch.Tensor) -> bytes:
    """The raw little-endian bytes of a tensor in row-major order (what `xrng gen --format bin` prints)."""
    t = t.detach().cpu().contiguous().reshape(-1)
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)
    elif t.dtype == torch.bool:
        t = t.view(torch.uint8)
    elif t.dtype == torch.uint32:
        t = t.view(torch.int32)
    elif t.dtype == torch.uint64:
        t = t.view(torch.int64)
    return t.numpy().tobytes()


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and as_bytes(a) == as_bytes(b)


def mode_dropout(x: torch.Tensor, p: float, generator) -> torch.Tensor:
    """What the reproducible mode gives for F.dropout(x, p) in training on the
    CPU, drawn at `generator` (an xrng.Generator): torch's own CPU composite,
    `x * (bernoulli(1 - p) / (1 - p))`, with the mode's bernoulli (1 where
    word < round(q 2^32), one word per element) and the division in x's dtype
    (SPEC.md 8.4)."""
    import xrng
    noise = xrng.bernoulli(tuple(x.shape), p=1.0 - p, generator=generator).to(x.dtype).to(x.device)
    return x * noise.div_(1.0 - p)
