"""What a new user hits first (issue 11): one error style in Python (one-line
TypeError / ValueError / MemoryError, torch's dtype names), the one rule for
location and scale parameters, the threads bound shared with the CLI, and the
installed `xrng` command (on PATH, --help, progress on a terminal, interruption)."""
import os
import pathlib
import pty
import select
import shutil
import signal
import subprocess
import time

import pytest
import torch

import xrng


def one_line(e: pytest.ExceptionInfo) -> str:
    msg = str(e.value)
    assert "\n" not in msg, msg
    assert "incompatible" not in msg and "Invoked with" not in msg, msg
    return msg


# ---- Generator arguments: one line, like randn(seed=-1) -------------------------------------------
@pytest.mark.parametrize("args, kwargs, exc, match", [
    ((-1,), {}, ValueError, r"seed must be in \[0, 2\*\*64\), got -1"),
    ((2**64,), {}, ValueError, r"seed must be in \[0, 2\*\*64\), got 18446744073709551616"),
    ((), {"seed": "x"}, TypeError, "seed must be an int, got str"),
    ((1.5,), {}, TypeError, "seed must be an int, got float"),
    ((True,), {}, TypeError, "seed must be an int, got bool"),
    ((0, -2), {}, ValueError, r"subseq must be in \[0, 2\*\*64\)"),
    ((0, 0, -3), {}, ValueError, r"offset must be in \[0, 2\*\*64\)"),
    ((), {"offset": None}, TypeError, "offset must be an int, got NoneType"),
])
def test_generator_arguments(args, kwargs, exc, match):
    with pytest.raises(exc, match=match) as e:
        xrng.Generator(*args, **kwargs)
    one_line(e)


def test_generator_valid_arguments_unchanged():
    g = xrng.Generator(2**64 - 1, 7, offset=5)
    assert (g.seed, g.subseq, g.offset) == (2**64 - 1, 7, 5)
    assert xrng.Generator(torch.tensor(3).item()) == xrng.Generator(3)  # any int, numpy/torch ints included
    import numpy as np
    assert xrng.Generator(np.uint64(2**63)).seed == 2**63


def test_randn_seed_error_is_the_same_style():
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\), got -1") as e:
        xrng.randn(3, seed=-1)
    one_line(e)


@pytest.mark.parametrize("call, exc, match", [
    (lambda g: g.set_state("abc"), TypeError, "expected the torch.uint8 tensor of get_state\\(\\), got str"),
    (lambda g: g.set_state(b"XRNG"), TypeError, "got bytes"),
    (lambda g: g.set_state(torch.zeros(32, dtype=torch.int32)), ValueError, "torch.int32"),
    (lambda g: g.set_state(torch.zeros(5, dtype=torch.uint8)), ValueError, "not an xrng generator state"),
    (lambda g: g.set_state_bytes("abc"), TypeError, "expected the bytes of state_bytes\\(\\), got str"),
    (lambda g: g.set_state_bytes(b"abc"), ValueError, "not an xrng generator state"),
    (lambda g: g.split(-1), ValueError, r"i must be in \[0, 2\*\*64\)"),
    (lambda g: g.fold_in("step"), TypeError, "data must be an int, got str"),
    (lambda g: setattr(g, "offset", -1), ValueError, r"offset must be in \[0, 2\*\*64\)"),
])
def test_generator_methods(call, exc, match):
    g = xrng.Generator(1)
    before = g.state_bytes()
    with pytest.raises(exc, match=match) as e:
        call(g)
    one_line(e)
    assert g.state_bytes() == before


def test_state_bytes_round_trip_bytearray():
    g = xrng.Generator(5, 6, 7)
    h = xrng.Generator()
    h.set_state_bytes(bytearray(g.state_bytes()))
    assert h == g


# ---- dtype names as torch spells them -----------------------------------------------------------
def test_dtype_names_in_messages():
    with pytest.raises(ValueError) as e:
        xrng.randn(3, dtype=torch.int32, seed=0)
    msg = one_line(e)
    assert "dtype torch.int32 is not available for distribution normal" in msg
    assert "torch.float32, torch.float64, torch.float16, torch.bfloat16" in msg
    for bad in ("Int", "Long", "Float", "Half", "BFloat16", "Double"):
        assert f" {bad}" not in msg and f"({bad}" not in msg, msg
    with pytest.raises(ValueError) as e:
        xrng.bernoulli_(torch.empty(3, dtype=torch.float32), p=0.5, seed=0)
    assert "torch.float32" in one_line(e) and "torch.bool" in str(e.value)
    with pytest.raises(ValueError, match=r"does not fit torch.int8") as e:
        xrng.randint(0, 1000, (4,), dtype=torch.int8, seed=0)
    one_line(e)
    with pytest.raises(ValueError, match="torch.int64"):
        xrng.Generator().set_state(torch.zeros(32, dtype=torch.int64))


# ---- sizes: xrng's own checks, before allocation ------------------------------------------------
def test_size_past_int64_is_a_value_error():
    with pytest.raises(ValueError) as e:
        xrng.randperm(2**62, seed=0)
    msg = one_line(e)
    assert msg.startswith("xrng.randperm: size (4611686018427387904,) of torch.int64") and "2**63 - 1" in msg
    with pytest.raises(ValueError, match=r"xrng.randn: size \(1099511627776, 1099511627776\) of torch.float32"):
        xrng.randn(2**40, 2**40, seed=0)
    with pytest.raises(ValueError, match="negative dimension"):
        xrng.rand(3, -1, seed=0)
    with pytest.raises(ValueError, match="perm_shard: negative count"):
        xrng.perm_shard(10, 0, 2, count=-1)


def test_size_past_memory_is_a_memory_error():
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    n = phys // 4 + 1  # float32: one element more than the machine's memory holds
    with pytest.raises(MemoryError) as e:
        xrng.randn(n, seed=0)
    msg = one_line(e)
    assert msg.startswith(f"xrng.randn: cannot allocate size ({n},) of torch.float32 ({4 * n} bytes) on cpu"), msg
    with pytest.raises(MemoryError, match=r"xrng.randn: cannot allocate size \(1099511627776,\) of torch.float32 "
                                          r"\(4398046511104 bytes\) on cpu") as e:
        if phys >= 4 * 2**40:
            pytest.skip("this machine has 4 TiB of memory")
        xrng.randn(2**40, seed=0)
    with pytest.raises(MemoryError, match=r"xrng.randperm: cannot allocate"):
        xrng.randperm(2**59, seed=0)
    with pytest.raises(MemoryError, match=r"xrng.rand_like|xrng.rand: cannot allocate"):
        xrng.rand(n, seed=0, dtype=torch.float32)


# ---- threads: the CLI's bound ---------------------------------------------------------------------
@pytest.mark.parametrize("threads, exc", [(-1, ValueError), (10**6, ValueError), (1025, ValueError),
                                          (10**30, ValueError), (1.5, TypeError), ("2", TypeError)])
def test_threads_bound(threads, exc):
    calls = [lambda: xrng.randn(8, seed=0, threads=threads),
             lambda: xrng.normal_(torch.empty(8), seed=0, threads=threads),
             lambda: xrng.dropout(torch.ones(8), 0.5, seed=0, threads=threads),
             lambda: xrng.perm_shard(10, 0, 2, threads=threads)]
    for call in calls:
        with pytest.raises(exc, match="threads") as e:
            call()
        msg = one_line(e)
        if exc is ValueError:
            assert msg == f"threads must be 0 (all) to 1024 (got {threads})"
    assert xrng._C.max_threads == 1024


def test_threads_bound_is_the_cli_bound(cli):
    p = subprocess.run([cli.path, "gen", "--dist", "bits", "--count", "1", "--threads", "1025"], capture_output=True)
    assert p.returncode == 1 and b"--threads must be 0 (all) to 1024 (got 1025)" in p.stderr
    assert torch.equal(xrng.randn(4, seed=0, threads=1024), xrng.randn(4, seed=0, threads=0))


# ---- one rule for location and scale parameters ---------------------------------------------------
@pytest.mark.parametrize("call, msg", [
    (lambda: xrng.randn(4, mean=1e39, seed=0), "normal: mean = 1e+39 is not finite in f32 (largest finite value "
                                                "3.4028234663852886e+38; parameters must be finite in the output "
                                                "dtype, values beyond it round to +-inf)"),
    (lambda: xrng.randn(4, mean=70000, dtype=torch.float16, seed=0), "normal: mean = 70000 is not finite in f16"),
    (lambda: xrng.randn(4, std=1e6, dtype=torch.float16, seed=0), "normal: std = 1000000 is not finite in f16"),
    (lambda: xrng.rand(4, high=1e6, dtype=torch.float16, seed=0), "uniform: high = 1000000 is not finite in f16"),
    (lambda: xrng.cauchy_(torch.empty(4, dtype=torch.bfloat16), sigma=1e39, seed=0),
     "cauchy: sigma = 1e+39 is not finite in bf16"),
    (lambda: xrng.log_normal_(torch.empty(4, dtype=torch.float16), mean=1e5, seed=0),
     "log_normal: mean = 100000 is not finite in f16"),
])
def test_parameters_finite_in_the_dtype(call, msg):
    with pytest.raises(ValueError) as e:
        call()
    assert one_line(e).startswith(msg)


def test_values_beyond_the_range_still_round_to_inf():
    x = xrng.randn(64, mean=65504, std=1000, dtype=torch.float16, seed=1)
    assert torch.isinf(x).any() and torch.isfinite(x).any()
    assert torch.isinf(xrng.exponential_(torch.empty(8, dtype=torch.float16), rate=1e-30, seed=0)).all()


# ---- the installed command --------------------------------------------------------------------------
def test_cli_installed_with_the_package():
    """`pip install .` puts `xrng` in the scripts directory (or --target's bin/); scripts/test_python.sh's
    install puts it on PATH."""
    from conftest import installed_cli
    path = installed_cli()
    if path is None:
        pytest.skip("xrng is not pip-installed here (a development tree)")
    assert os.access(path, os.X_OK)
    on_path = shutil.which("xrng")
    if on_path is not None and pathlib.Path(on_path).resolve() == pathlib.Path(path).resolve():
        return
    scripts_dir = str(pathlib.Path(path).parent)
    assert shutil.which("xrng", path=scripts_dir) == path


def test_cli_help(cli):
    for args in (["--help"], ["-h"], ["gen", "--help"], ["gen", "-h"], ["fingerprint", "--help"], ["verify", "--help"],
                 ["version", "--help"]):
        p = subprocess.run([cli.path, *args], capture_output=True)
        assert p.returncode == 0 and p.stdout.startswith(b"usage:") and p.stderr == b"", args
    p = subprocess.run([cli.path], capture_output=True)
    assert p.returncode == 2 and p.stdout == b"" and p.stderr.startswith(b"usage:")
    usage = subprocess.run([cli.path, "gen", "--help"], capture_output=True).stdout.decode()
    for d in xrng._C.registry()["dists"]:
        assert f"\n  {d} " in usage, d


ENDLESS = ["gen", "--dist", "normal", "--count", "18446744073709551615", "--format", "null"]


def _drain(fd, seconds):
    out, t0 = b"", time.monotonic()
    while time.monotonic() - t0 < seconds:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                d = os.read(fd, 65536)
            except OSError:
                break
            if not d:
                break
            out += d
    return out


@pytest.mark.slow
def test_cli_progress_on_a_terminal_and_sigint(cli):
    master, slave = pty.openpty()
    p = subprocess.Popen([cli.path, *ENDLESS], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    try:
        seen = _drain(master, 2.5)
        p.send_signal(signal.SIGINT)
        t = time.monotonic()
        rc = p.wait(timeout=5)
        took = time.monotonic() - t
        seen += _drain(master, 0.5)
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)
    text = seen.decode(errors="replace")
    status = [s for s in text.split("\r") if s.startswith("\x1b[Kxrng: ") and "ETA" in s]
    assert len(status) >= 3, text[-300:]
    assert all("%" in s and "elements/s" in s and "/ 18446744073709551615 elements" in s for s in status)
    assert rc == 130 and took < 2.0
    assert "xrng: interrupted by SIGINT after " in text


@pytest.mark.slow
def test_cli_quiet_when_piped_and_sigterm(cli):
    p = subprocess.Popen([cli.path, *ENDLESS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    t = time.monotonic()
    rc = p.wait(timeout=5)
    assert rc == 143 and time.monotonic() - t < 2.0
    err = p.stderr.read().decode()
    assert err.startswith("xrng: interrupted by SIGTERM after ") and err.count("\n") == 1 and "\r" not in err


# ---- the README says what the scripts and the build do ----------------------------------------------
REPO = pathlib.Path(__file__).resolve().parents[2]


def test_readme_lists_what_setup_installs():
    import re
    setup = (REPO / "scripts" / "setup.sh").read_text()
    readme = " ".join((REPO / "README.md").read_text().split())
    debian = re.search(r"for pkg in ([^;]+); do", setup).group(1).split()
    pypi = [m.replace("_", "-") for m in re.search(r"for mod in ([^;]+); do", setup).group(1).split()]
    assert f"from Debian, `{' '.join(debian)}`" in readme
    assert f"`python3 python3-pip` when there is no `python3` or no pip" in readme
    assert "need+=(python3 python3-pip)" in setup and "need+=(python3-pip)" in setup
    assert f"from PyPI, into the `python3` on PATH, `{' '.join(pypi)}`" in readme


def test_readme_cuda_and_avx512_notes():
    readme = " ".join((REPO / "README.md").read_text().split())
    pyproject = (REPO / "pyproject.toml").read_text()
    torch_cmake = (REPO / "bindings" / "torch.cmake").read_text()
    assert 'XRNG_TORCH_CUDA = "AUTO"' in pyproject and "XRNG_TORCH_SEES_GPU" in torch_cmake
    assert "pip install --no-build-isolation -C cmake.define.XRNG_TORCH_CUDA=ON ." in readme
    assert "sees a GPU at build time" in readme
    assert "could not run here" not in readme
    assert "reports those tests as skipped" in readme
    # the main job's install step and the C++ package
    main_sh = (REPO / "scripts" / "main.sh").read_text()
    assert 'cmake --install build --prefix "$prefix"' in main_sh and "find_package(xrng CONFIG REQUIRED)" in readme
    assert "xrng::host" in readme and "xrng::core" in readme
