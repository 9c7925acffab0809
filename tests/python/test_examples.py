"""The examples run (in seconds, on a CPU) and say what they claim."""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest
import torch

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run(script, *args, expect=0):
    r = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == expect, r.stdout + r.stderr
    return r.stdout


def load(script):
    spec = importlib.util.spec_from_file_location(script.replace(".py", ""), EXAMPLES / script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_diffusion_sampling_runs():
    out = run("diffusion_sampling.py", "--steps", "10")
    lines = out.splitlines()
    assert lines[0].startswith("cpu ") and len(lines[0].split()[-1]) == 64
    assert "identical" in lines


def test_diffusion_sampling_same_latents_on_xdev(xdev):
    m = load("diffusion_sampling.py")
    cpu = m.fingerprint(m.sample("cpu", steps=8))
    assert m.fingerprint(m.sample("xdev", steps=8)) == cpu
    assert m.main(["--steps", "8", "--devices", "xdev"]) == 0


def test_dataloader_shuffle_example():
    out = run("dataloader_shuffle.py", "--n", "300", "--epochs", "2")
    assert out.count("identical") == 2 and "matches the uninterrupted run" in out


def test_migration_check_on_gpt2(tmp_path):
    pytest.importorskip("transformers", reason="the migration example builds a transformers GPT-2")
    import json

    # train mode under the reproducible mode: dropout masks come from xrng
    out = run("migration_check.py", "--model", "gpt2", "--seed", "0", "--train", "--out", tmp_path)
    assert "gpt2: the repeated CPU float32 run is bit-identical (32 tensors)" in out
    meta = json.loads((tmp_path / "gpt2-cpu-float32.json").read_text())["meta"]
    assert (meta["mode"], meta["seed"], meta["training"], meta["not_reproducible"]) == (True, 0, True, {})
    bf16 = out[out.index("== gpt2: cpu-float32 vs cpu-bfloat16"):]
    # the token embedding is the first module to run, and its bfloat16 weights are rounded
    assert "32 tensors: 0 equal bits, 0 equal values, 32 differ" in bf16
    assert "first difference: #1 transformer.wte#0:out" in bf16
    # another attention implementation: every module before the first attention block has the same bits
    eager = out[out.index("== gpt2: cpu-float32 vs cpu-float32-eager-attention"):]
    first = re.search(r"first difference: #(\d+) (\S+)", eager)
    assert first[2].startswith("transformer.h.0.attn")
    assert eager[:first.start()].count(" bits ") >= 5
    assert {p.name for p in tmp_path.glob("gpt2-cpu-*")} >= {
        f"gpt2-cpu-{r}.{ext}" for r in ("float32", "float32-again", "bfloat16") for ext in ("json", "safetensors")}


def test_bench_runs():
    out = run("bench_randn.py", "--sizes", "65536", "--repeat", "2")
    assert "torch/xrng" in out and "cpu" in out


@pytest.mark.cuda
def test_diffusion_sampling_cuda_paths():
    out = run("diffusion_sampling.py", "--steps", "10")
    assert "cuda (host_transfer)" in out and "identical" in out


def _cpp_example():
    import os

    import xrng
    exe = os.environ.get("XRNG_TORCH_EXAMPLE") or str(pathlib.Path(xrng.__file__).parent / "bin" / "torch_api_example")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"the LibTorch example binary is not at {exe} (built by pip install with XRNG_TORCH_EXAMPLE=ON; "
                    "or set XRNG_TORCH_EXAMPLE)")
    return exe


def test_cpp_api_equals_python_api():
    import hashlib

    import xrng
    from conftest import as_bytes
    r = subprocess.run([_cpp_example()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    g = xrng.Generator(2024, 1)
    draws = [
        ("randn", lambda: xrng.randn(64, 33, generator=g)),
        ("rand_f64", lambda: xrng.rand(100, dtype=torch.float64, low=-2.0, high=2.0, generator=g)),
        ("randn_bf16", lambda: xrng.randn(7, 9, dtype=torch.bfloat16, mean=0.5, std=2.0, generator=g)),
        ("randint", lambda: xrng.randint(-50, 50, (1000,), generator=g)),
        ("randint_i8", lambda: xrng.randint(-50, 50, (1000,), dtype=torch.int8, generator=g)),
        ("bernoulli", lambda: xrng.bernoulli(500, p=0.25, generator=g)),
        ("randperm", lambda: xrng.randperm(1000, generator=g)),
        ("dropout", lambda: xrng.dropout(torch.ones(300), 0.2, generator=g)),
    ]
    for line, (name, draw) in zip(lines, draws):
        t = draw()
        assert line == f"{name} {hashlib.sha256(as_bytes(t)).hexdigest()} {g.offset}"
    gs = xrng.Generator(7)
    s = torch.zeros(6, 8).t()
    xrng.normal_(s, generator=gs)
    assert lines[len(draws)] == f"strided_normal {hashlib.sha256(as_bytes(s)).hexdigest()} {gs.offset}"
    assert lines[len(draws) + 1] == "restore same"
    assert lines[len(draws) + 2].startswith("bad_p rejected: bernoulli: p must be in [0, 1]")


def test_pip_installs_the_xrng_command():
    # `pip install .` puts the CLI next to the package (a script of the wheel);
    # it carries the golden vectors and checks every backend it has.
    from conftest import installed_cli, pip_installed_dist
    if pip_installed_dist() is None:
        pytest.skip("the imported xrng was not installed by pip (no dist-info for it): nothing to check")
    exe = installed_cli()
    assert exe is not None, "the wheel installed no `xrng` command"
    r = subprocess.run([exe, "verify"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all backends agree with the reference and the golden vectors" in r.stdout
