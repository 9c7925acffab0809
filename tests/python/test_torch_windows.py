"""torch's Windows wheels (SPEC.md 14.9): the torch-cpu-x86-windows stream
against torch's own draws, recorded from PyPI's win_amd64 wheel's
torch_cpu.dll (tests/torch_versions/windows/check_windows.sh: wdraw.c calls
its C shim under wine; not in CI), and what sets it apart from torch-cpu-x86.

Each spec of tests/torch_versions/windows/specs.py is drawn under
xrng.reproducible(stream="torch-cpu-x86-windows") with the installed torch as
the dispatcher (xrng.reproducible(stream="torch-cpu-x86-windows@<version>")),
and its fingerprint must equal the recorded one, except float64 normals:
those go through the C library's float64 log and sin/cos, which under wine
are wine's own (not Microsoft's UCRT, nor glibc's, the stream's); the ones
that differ are pinned in WINE_LIBM.
"""
import hashlib
import importlib.util
import json
import os

import pytest

torch = pytest.importorskip("torch")
import xrng  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch_versions")
_spec = importlib.util.spec_from_file_location("xrng_torch_windows_specs", os.path.join(HERE, "windows", "specs.py"))
specs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(specs)
with open(os.path.join(HERE, "recorded_windows.json")) as f:
    RECORDED = json.load(f)


def _drawn(stream):
    out = {}
    with xrng.reproducible(seed=None, stream=stream):
        for sp in specs.SPECS:
            out[specs.key(sp)] = specs.fingerprint(specs.draw(sp))
    return out


@pytest.fixture(scope="module")
def windows():
    return _drawn("torch-cpu-x86-windows")


@pytest.fixture(scope="module")
def x86():
    return _drawn("torch-cpu-x86")


# The specs whose recorded values differ from the stream's: float64 randn / normal_ only, where torch called wine's
# float64 log and sin/cos (its own implementation: 2.7 % of float64 normals 1 or 2 ulp from glibc's) where Windows
# calls Microsoft's UCRT and the stream glibc's (SPEC.md 14.9). Per version: how many, and a fingerprint of their
# sorted keys (so a change on either side fails).
WINE_LIBM = {"2.7.1": (42, "ad001088229ee46c"), "2.10.0": (42, "ad001088229ee46c"),
             "2.15.0": (38, "0b671dc958f567cd")}


@pytest.mark.parametrize("version", sorted(RECORDED))
def test_windows_wheel_equals_the_stream(version):
    rec = RECORDED[version]
    assert set(rec) == {specs.key(sp) for sp in specs.SPECS}, "recorded specs differ from specs.py: re-record"
    mine = _drawn(f"torch-cpu-x86-windows@{version}")
    differ = sorted(k for k in rec if rec[k] != mine[k])
    assert all(k.split()[1] in ("randn", "normal") and k.split()[2] == "f64" for k in differ), differ
    count, fp = WINE_LIBM[version]
    assert (len(differ), hashlib.sha256("\n".join(differ).encode()).hexdigest()[:16]) == (count, fp), differ


def test_windows_kernel_is_not_the_linux_one(windows, x86):
    # the float32 16-wide normal (avx_mathfun unfused) and uniform_ (unfused) set the two apart; everything that
    # consumes the generator without those arithmetics is the same
    differ = {k for k in windows if windows[k] != x86[k]}
    assert any(" randn f32 65536 " in k for k in differ)
    assert any(" uniform f32 " in k for k in differ)
    for k in differ:
        assert k.split()[1] in ("randn", "normal", "uniform"), k
    for op in ("rand", "randint", "randperm", "bernoulli", "dropout"):
        assert not any(k.split()[1] == op for k in differ), op


def test_generator_api_gives_the_windows_values():
    sp = (0, "randn", "f32", 65536, 0, 1)
    g = xrng.torch_cpu(0, kernel="x86-windows")
    x = xrng.randn(65536, generator=g)
    assert specs.fingerprint(x.numpy().tobytes()) == RECORDED["2.15.0"][specs.key(sp)]
    torch.manual_seed(0)
    y = torch.randn(65536)
    # torch on this (Linux) host: about 1 % of the values 1 or 2 ulp apart
    d = (x.view(torch.int32).long() - y.view(torch.int32).long()).abs()
    assert 0 < int((d != 0).sum()) < 65536 // 20 and int(d.max()) <= 4
    sp = (1, "uniform", "f32", 4099, -1.3, 2.9)
    t = xrng.uniform_(torch.empty(4099), -1.3, 2.9, generator=xrng.torch_cpu(1, kernel="x86-windows"))
    assert specs.fingerprint(t.numpy().tobytes()) == RECORDED["2.15.0"][specs.key(sp)]


def test_bad_kernel_names_the_windows_one():
    with pytest.raises(ValueError, match="x86-windows"):
        xrng.torch_cpu(0, kernel="windows")
    with pytest.raises(ValueError, match="torch-cpu-x86-windows"):
        xrng.reproducible(stream="torch-cpu-windows")


def test_cli_generator_and_mode_agree(cli):
    # the CLI's --stream torch-cpu-x86-windows: torch's Windows values (2^16 float32 normals of seed 0, recorded)
    raw = cli.bin("--stream", "torch-cpu-x86-windows", "--dist", "normal", "--seed", 0, "--count", 65536)
    assert specs.fingerprint(raw) == RECORDED["2.15.0"][specs.key((0, "randn", "f32", 65536, 0, 1))]
    for dist, args in [("uniform", ("--low", -2.3, "--high", 5.1)), ("normal", ("--mean", 0.7, "--std", 0.3)),
                       ("cauchy", ("--median", 0.5, "--sigma", 2.3))]:
        raw = cli.bin("--stream", "torch-cpu-x86-windows", "--dist", dist, *args, "--seed", 3, "--count", 1001)
        g = xrng.torch_cpu(3, kernel="x86-windows")
        t = torch.empty(1001)
        want = {"uniform": lambda: xrng.uniform_(t, -2.3, 5.1, generator=g),
                "normal": lambda: xrng.normal_(t, 0.7, 0.3, generator=g),
                "cauchy": lambda: xrng.cauchy_(t, 0.5, 2.3, generator=g)}[dist]()
        assert raw == want.numpy().tobytes(), dist
    # the generator and the mode advance alike, and the state written back is torch's layout
    g = xrng.torch_cpu(9, kernel="x86-windows")
    mine = [xrng.randn(n, generator=g) for n in (3, 16, 1000)] + [xrng.rand(7, generator=g, dtype=torch.float64)]
    with xrng.reproducible(seed=9, stream="torch-cpu-x86-windows", strict=True) as mode:
        assert mode.stream == "torch-cpu-x86-windows"
        theirs = [torch.randn(n) for n in (3, 16, 1000)] + [torch.rand(7, dtype=torch.float64)]
        state = torch.get_rng_state()
    for a, b in zip(mine, theirs):
        assert torch.equal(a, b)
    assert torch.equal(g.state, state)
