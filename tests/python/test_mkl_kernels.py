"""MKL's single-precision logarithm kernels, as torch's own wheel ships them, against xrng's copies.

torch 2.0 to 2.6's x86-64 `exponential_` (so `multinomial` without
replacement) is MKL's `vsRngExponential`, whose logarithm is one of three
kernels picked by the CPU (SPEC.md 14.7): `sLn_EXHAynn` on a CPU that is not
Intel's (`mkl_ln_f32`, kernel x86), `sLn_H8LAynn` (and, in 2.0 to 2.4,
`sLn_E9LAynn`, the same function) on an Intel one without AVX2
(`mkl_ln_f32_e9`, scalar-intel), `sLn_L9LAynn` on one with AVX2
(`mkl_ln_f32_l9`, x86-intel), `sLn_Z0LAynn` with AVX-512 (`mkl_ln_f32_z0`,
x86-intel-avx512). Every torch x86-64 wheel since links the same static MKL
kernels into `libtorch_cpu.so` and exports them, so the installed torch
(2.15 here) carries them. This test calls each one this CPU can run on a
sample of 2^22 positive normal floats spread over every binade, and compares
it bit for bit with xrng's copy; and it runs `sLn_Z0LAynn`'s (and
`sLn_L9LAynn`'s) machine code through tests/torch_versions/mkl/emulate_ln.py
on a CPU without AVX-512 (which proves the same kernels over every positive
normal float, a run of about an hour: SPEC.md 14.7).

Those kernels in torch 2.15's wheel equal those of torch 2.0.1 to 2.6.0
(every positive normal float; emulate_ln.py for z0, native runs for the
others), so on a CPU with AVX-512 this is a native proof of `mkl_ln_f32_z0`.
Skips (with the reason) where the wheel has no MKL (AArch64, macOS), and a
native check where the CPU lacks the ISA.
"""
import ctypes
import os
import shutil
import sys

import numpy as np
import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "torch_versions", "mkl"))
import emulate_ln  # noqa: E402

LIB = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
KERNELS = [("mkl_vml_kernel_sLn_EXHAynn", "generic", ()),
           ("mkl_vml_kernel_sLn_H8LAynn", "e9", ("sse4_2",)),
           ("mkl_vml_kernel_sLn_L9LAynn", "l9", ("avx2", "fma")),
           ("mkl_vml_kernel_sLn_Z0LAynn", "z0", ("avx512f", "avx512dq"))]


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def sample():
    """2^22 positive normal floats: a stride through every binade, and the edges the kernels branch on
    (binade ends, the mantissa's top bits where z0's table row and [3/4, 3/2) halving change, 1 and the
    Intel uniform's smallest values k 2^-31)."""
    n = 1 << 22
    bits = (np.arange(n, dtype=np.int64) * 507 + 0x00800000).astype(np.uint32)
    edges = []
    for e in (1, 2, 100, 126, 127, 128, 200, 253, 254):
        for f in (0, 1, 0x7fffff, 0x3fffff, 0x400000, 0x400001, 0x080000, 0x07ffff, 0x380000, 0x37ffff,
                  0x780000, 0x77ffff, 0x2aaaab, 0x2aaaaa):
            edges.append((e << 23) | f)
    edges += [int(np.float32(k * 2.0 ** -31).view(np.uint32)) for k in range(1, 65)]
    bits[:len(edges)] = edges
    assert (bits >= 0x00800000).all() and (bits < 0x7f800000).all()
    return bits.view(np.float32)


@pytest.fixture(scope="module")
def torch_cpu():
    if not os.path.exists(LIB):
        pytest.skip(f"no {LIB}")
    return ctypes.CDLL(LIB)


@pytest.fixture(scope="module")
def models():
    if shutil.which("g++") is None:
        pytest.skip("no g++ to build the models")
    return emulate_ln.build_models()


_EMULATED = {}


def emulated(name):
    """emulate_ln's Kernel for torch's `name`, disassembled once per run."""
    if shutil.which("objdump") is None:
        pytest.skip("no objdump to disassemble the kernel")
    if name not in _EMULATED:
        _EMULATED[name] = emulate_ln.Kernel(LIB, name)
    return _EMULATED[name]


def kernel_or_skip(lib, name):
    try:
        k = getattr(lib, name)
    except AttributeError:
        pytest.skip(f"this torch wheel has no static MKL kernel {name} (not an x86-64 MKL build)")
    k.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    k.restype = None
    return k


def report(x, got, want, what):
    d = got != want
    if d.any():
        i = int(np.argmax(d))
        pytest.fail(f"{what}: {int(d.sum())} of {x.size} differ; first x={float(x[i])!r} "
                    f"({int(x.view(got.dtype)[i]):#x}): kernel {int(got[i]):#x}, xrng {int(want[i]):#x}")


@pytest.mark.parametrize("name,model,isa", KERNELS, ids=[k[1] for k in KERNELS])
def test_kernel_run_natively_equals_xrng(torch_cpu, models, name, model, isa):
    k = kernel_or_skip(torch_cpu, name)
    missing = [f for f in isa if f not in cpu_flags()]
    if missing:
        pytest.skip(f"SKIPPED: this CPU lacks {', '.join(missing)} ({name} is emulated below)")
    x = sample()
    got = np.empty_like(x)
    step = 1 << 20
    for i in range(0, x.size, step):
        k(min(step, x.size - i), x[i:].ctypes.data, got[i:].ctypes.data)
    report(x, got.view(np.uint32), emulate_ln.model(models, model, x), f"{name} run on this CPU")


@pytest.mark.parametrize("name,model", [("mkl_vml_kernel_sLn_Z0LAynn", "z0"), ("mkl_vml_kernel_sLn_L9LAynn", "l9")],
                         ids=["z0", "l9"])
def test_kernel_emulated_equals_xrng(torch_cpu, models, name, model):
    kernel_or_skip(torch_cpu, name)
    x = sample()[: 1 << 20]  # the edges and a stride (the emulator's speed: about 1 s per loop)
    loops = emulated(name).run(x)
    # the 4-vector main loop and the 1-vector tail
    assert sorted(lanes for lanes, _, _ in loops.values()) == ([16, 64] if model == "z0" else [8, 32]), loops.keys()
    want = emulate_ln.model(models, model, x)
    for top, (lanes, got, special) in loops.items():
        assert not special.any(), f"{name}: positive normal inputs took the special path"
        report(x, got, want, f"{name}'s loop at {top:#x} ({lanes} lanes), emulated")


@pytest.mark.parametrize("name", ["mkl_vml_kernel_sLn_Z0LAynn", "mkl_vml_kernel_sLn_L9LAynn"], ids=["z0", "l9"])
def test_emulator_sees_the_special_path(torch_cpu, name):
    """The emulator's check that no input above took the kernel's scalar path can fail: zero, a negative,
    an infinity (and, for l9, a NaN and a subnormal) send their rows there."""
    kernel_or_skip(torch_cpu, name)
    x = np.full(64 * 16, 1.5, np.float32)
    bad = [0.0, -1.0, np.inf, -0.0, np.nan, 1e-40]
    for i, v in enumerate(bad):
        x[64 * (2 * i + 1) + 7] = v
    expect = {1, 3, 5, 7} if "Z0" in name else {1, 3, 5, 7, 9, 11}  # z0's vector path takes NaNs and subnormals
    for top, (lanes, got, special) in emulated(name).run(x).items():
        assert set((np.nonzero(special)[0] // 64).tolist()) == expect, (hex(top), lanes)
        assert not special[np.repeat(np.arange(16) % 2 == 0, 64)].any()


def sample_f64():
    """2^22 float64 inputs of MKL's generic double-precision logarithm: 2^21 of the uniforms torch 2.0 to 2.6's
    float64 exponential_ takes it of (x / (2^31 - 1), x a stride through [1, 2^31 - 2] and its ends), and 2^21
    positive normal doubles spread over every binade."""
    m = (1 << 31) - 1
    x = np.concatenate([np.arange(1, 1 << 21, dtype=np.int64) * 1023 + 1, [m - 1]])
    u = x.astype(np.float64) * (1.0 / m)
    bits = (np.arange(1 << 21, dtype=np.uint64) * np.uint64(0x3feff3d8c1a7b) + np.uint64(0x0010000000000000))
    bits %= np.uint64(0x7ff0000000000000 - 0x0010000000000000)
    other = (bits + np.uint64(0x0010000000000000)).view(np.float64)
    out = np.concatenate([u, other])
    assert (out > 0).all() and np.isfinite(out).all() and (out >= np.finfo(np.float64).tiny).all()
    return out


def test_ln64_generic_run_natively_equals_xrng(torch_cpu, models):
    """mkl_ln_f64 (MKL's dLn_EXHAynn: torch 2.0 to 2.6's float64 exponential_ on a CPU that is not Intel's) against
    the kernel run here. Its table entry is picked by the CPU's rcpps, whose rounding is each CPU design's own:
    the model holds the staircase measured on an AMD EPYC of family 25 (make_ln64.py), so the verdict is given
    where this CPU's rcpps agrees with it."""
    if "sse2" not in cpu_flags():
        pytest.skip("not an x86-64 CPU")
    k = kernel_or_skip(torch_cpu, "mkl_vml_kernel_dLn_EXHAynn")
    moved = models.rcp_moved()
    if moved:
        pytest.skip(f"SKIPPED: this CPU's rcpps, rounded as the kernel rounds it, is not the staircase "
                    f"mkl_ln_f64 holds at {moved} of 2^23 + 1 mantissas (its MKL computes other float64 values)")
    x = sample_f64()
    got = np.empty_like(x)
    step = 1 << 20
    for i in range(0, x.size, step):
        k(min(step, x.size - i), x[i:].ctypes.data, got[i:].ctypes.data)
    report(x, got.view(np.uint64), emulate_ln.model(models, "f64", x), "dLn_EXHAynn run on this CPU")
