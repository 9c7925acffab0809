"""PyTorch's own OpInfo samples of its random operators under the mode.

``torch.testing._internal.common_methods_invocations.op_db`` (shipped in the
torch wheel; it imports the ``expecttest`` package) is the table PyTorch's
test_ops.py draws its inputs from: for each random operator below, every
dtype it supports on the CPU and every sample input of that dtype (odd
shapes, scalars, empty tensors, keyword variants), with ``requires_grad``
where the operator supports autograd. Each sample runs with plain torch and
under the mode, after ``torch.default_generator.manual_seed(i)`` (what
``torch.manual_seed`` does on a CPU-only host, without the traceback its
lazy CUDA seeding records on each call):

* under the torch-cpu stream of the kernel this host's torch runs
  ("torch-cpu-x86" on AVX2/AVX-512 hosts, "torch-cpu-scalar" elsewhere):
  the output's values bit for bit, dtype, shape, strides, requires_grad and
  grad_fn, the gradient of the input after ``backward``, torch's error where
  torch raises, and the generator state afterwards;
* under xrng's stream and under "torch-cuda" (other values by design):
  everything but the values.
"""
import importlib.util
import json
import subprocess
import sys
import warnings

import pytest
import torch

import xrng

RANDOM_OPS = ["bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial",
              "nn.functional.alpha_dropout", "nn.functional.dropout", "nn.functional.dropout2d",
              "nn.functional.dropout3d", "nn.functional.feature_alpha_dropout", "nn.functional.rrelu", "normal",
              "rand_like", "randint", "randint_like", "randn", "randn_like", "uniform"]


def _torch_stream() -> str:
    cap = torch.backends.cpu.get_cpu_capability()
    return "torch-cpu-x86" if cap in ("AVX2", "AVX512") else "torch-cpu-scalar"


def _bits(t):
    if isinstance(t, (tuple, list)):
        return [_bits(x) for x in t]
    if not isinstance(t, torch.Tensor):
        return t
    meta = (t.dtype, tuple(t.shape), t.stride(), t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn else None)
    r = torch.view_as_real(t.detach()) if t.is_complex() else t.detach()
    r = r.clone(memory_format=torch.contiguous_format).view(-1)
    return "tensor", meta, r.view(torch.uint8) if r.dtype.is_floating_point else r


def _outcome(op, sample):
    """(output's bits and metadata, the input's gradient) or torch's error."""
    try:
        out = op(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:  # noqa: BLE001 - the error compared
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    grad = None
    x = sample.input
    if isinstance(out, torch.Tensor) and out.requires_grad and isinstance(x, torch.Tensor) and x.requires_grad:
        y = torch.view_as_real(out).sum() if out.is_complex() else out.sum()
        grad = torch.autograd.grad(y, x, allow_unused=True)[0]
    return "ok", _bits(out), _bits(grad)


def _same(a, b, values: bool) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, values) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("tensor",):
        return a[1] == b[1] and (not values or torch.equal(a[2], b[2]))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y, values) for x, y in zip(a, b))
    return a == b


def _samples():
    # (imported here, in the script's own process: torch.testing._internal changes global torch settings on
    # import, torch.backends.disable_global_flags() among them, which the rest of the tests must not see)
    from torch.testing._internal.common_methods_invocations import op_db
    ops = [o for o in op_db if o.name in RANDOM_OPS]
    assert {o.name for o in ops} == set(RANDOM_OPS)  # a renamed OpInfo would drop out silently
    for op in ops:
        for dt in sorted(op.supported_dtypes("cpu"), key=str):
            grad = op.supports_autograd and (dt.is_floating_point or dt.is_complex)
            # (sample_inputs_func: OpInfo.sample_inputs's generator without its tracking, which walks the
            # Python stack for each sample and costs seconds)
            for i, s in enumerate(op.sample_inputs_func(op, "cpu", dt, grad)):
                yield f"{op.name}.{op.variant_test_name} {dt} #{i}", op, s


def _run() -> dict:
    torch_stream = _torch_stream()
    modes = {torch_stream: dict(stream=torch_stream), "xrng": dict(seed=3),
             "torch-cuda": dict(stream="torch-cuda", sm_count=132)}
    bad, n, served = [], 0, set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (name, op, s) in enumerate(_samples()):
            torch.default_generator.manual_seed(i)
            want = _outcome(op, s)
            want_state = torch.get_rng_state()
            n += 1
            for mode, kw in modes.items():
                with xrng.reproducible(**kw):
                    torch.default_generator.manual_seed(i)
                    got = _outcome(op, s)
                    got_state = torch.get_rng_state()
                exact = mode == torch_stream
                if not _same(want, got, values=exact) or (exact and not torch.equal(want_state, got_state)):
                    bad.append(f"{mode}: {name}: torch {str(want)[:120]} / mode {str(got)[:120]}")
                if mode == "xrng" and not _same(want, got, values=True):
                    served.add(op.name)  # xrng's values: the mode's kernel drew them
    return {"bad": bad, "samples": n, "served": sorted(served), "stream": torch_stream}


def test_opinfo_samples_under_every_stream():
    if importlib.util.find_spec("expecttest") is None:
        pytest.skip("torch.testing._internal needs the expecttest package (scripts/setup.sh installs it)")
    r = subprocess.run([sys.executable, __file__], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.splitlines()[-1])
    assert not res["bad"], f"{len(res['bad'])} of {3 * res['samples']} under {res['stream']}:\n" + \
        "\n".join(res["bad"][:15])
    assert res["samples"] > 1000
    assert set(res["served"]) == set(RANDOM_OPS), set(RANDOM_OPS) - set(res["served"])


if __name__ == "__main__":
    print(json.dumps(_run()))
