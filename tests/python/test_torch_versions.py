"""xrng's copies of torch's CPU generator against the values of torch releases
from 1.13 on (issue 26: "the values users already have").

tests/torch_versions/recorded.json holds, per torch version and CPU capability,
the fingerprints of tests/torch_versions/battery.py (780 draws over five
seeds, grouped by kind; releases recorded before a kind was added lack it) as
that torch drew them (recorded by check.sh from PyPI's x86-64 wheels, and by
check_aarch64.sh from its AArch64 wheels under qemu-aarch64; not in CI: a
few GB each). Here the same battery is drawn under
xrng.reproducible(stream="torch-cpu-x86@<release>"),
("torch-cpu-scalar@<release>"), ("torch-cpu-arm@<release>"), ("torch-cpu-arm-sve256@<release>") and
("torch-cpu-x86-intel@<release>", recorded by mkl/record_intel.sh), the
installed torch serving only as the
dispatcher, and every recorded group must
equal it, except the differences listed in KNOWN (SPEC.md 14.6 describes
them): a change on either side fails.
"""
import fnmatch
import importlib.util
import json
import os
import warnings

import pytest

torch = pytest.importorskip("torch")
import xrng  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch_versions")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"xrng_torch_versions_{name}", os.path.join(HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


battery = _load("battery")
record = _load("record")

# Which stream reproduces torch run with ATEN_CPU_CAPABILITY=<capability> on x86-64, and torch's AArch64 wheels
# ("aarch64": their DEFAULT capability, under qemu-aarch64; "aarch64-sve256": their SVE256 capability, under
# qemu-aarch64 -cpu max,sve256=on, as on a Graviton3).
# "avx2-intel": avx2 with the wheel's static MKL told the CPU is Intel's (mkl/record_intel.sh), as on an Intel CPU
# with AVX2 and without AVX-512; "default-intel": default with it told so and limited to AVX
# (mkl/record_intel.sh --no-avx2), as on an Intel CPU without AVX2.
STREAM = {"avx2": "torch-cpu-x86", "avx512": "torch-cpu-x86", "default": "torch-cpu-scalar",
          "aarch64": "torch-cpu-arm", "aarch64-sve256": "torch-cpu-arm-sve256", "avx2-intel": "torch-cpu-x86-intel",
          "default-intel": "torch-cpu-scalar-intel"}

# 2.0 to 2.6's x86-64 wheels: exponential_ (so multinomial without replacement) from Intel MKL's
# vsRngExponential / vdRngExponential (SPEC.md 14.7: MklExponential), every dtype MKL's values (float64's
# logarithm, mkl_ln_f64, with the rcpps of the AMD CPU these records were made on). On "avx2-intel" and
# "default-intel" the streams refuse the float64 one (MKL's reduced-accuracy vdLn of an Intel CPU), which torch's
# own kernel then draws.
_EXPONENTIAL = ["exponential_ f64"]
# The groups the streams refuse (reported, not raised: xrng.reproducible(strict=False)), per capability
REFUSED = {c: {"exponential_ f64": "torch 2.0 to 2.6's float64 exponential_ on an Intel CPU"}
           for c in ("avx2-intel", "default-intel")}
# 2.0 and 2.1 had no float16 bernoulli_ (a scalar p, so dropout, or a tensor p): they raised; the streams draw
_NO_F16_BERNOULLI = ["bernoulli p f16", "bernoulli_ f16", "dropout f16", "dropout T f16"]
# 1.13 to 2.4 made dropout's noise contiguous (LEGACY_CONTIGUOUS_MEMORY_FORMAT), so the mask of a transposed input
# was drawn in row-major order; under the mode the streams draw it in memory order, as 2.5 on (SPEC.md 14.6: the
# mode sees only the noise's bernoulli_). The x86-64 wheels of 2.0 to 2.4 draw row-major anyway (MKL).
_DROPOUT_T = ["dropout T *"]
# version or (version, capability) -> {"values": patterns, "state": patterns} (fnmatch, over the group names): the
# groups whose values differ from the stream's, and those whose values are equal but not the generator's state
# after them. A version's entry holds for every capability, a (version, capability) entry adds to it. SPEC.md 14.6
# and 14.8 say what each is.
KNOWN = {
    "1.13.1": {"values": ["bernoulli p f16", "bernoulli_ f16", "dropout f16"] + _DROPOUT_T, "state": ["gamma"]},
    "2.0.1": {"values": _NO_F16_BERNOULLI},
    "2.1.2": {"values": _NO_F16_BERNOULLI},
    **{(v, c): {"values": _EXPONENTIAL}
       for v in ("2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0")
       for c in ("avx2-intel", "default-intel")},
    **{(v, "aarch64"): {"values": _DROPOUT_T} for v in ("2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1")},
    # AArch64 2.6 on, DEFAULT: bfloat16's input * noise rounds differently in one element (torch's own bfloat16
    # arithmetic on that CPU, not a draw: the masks are equal; SVE256 equals the stream)
    **{(v, "aarch64"): {"values": ["dropout T bf16"]}
       for v in ("2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0")},
}


def known(version, capability, groups):
    """{group: "values" | "state"} that KNOWN expects for this version and capability."""
    out = {}
    for key in (version, (version, capability)):
        for what in ("values", "state"):
            for pattern in KNOWN.get(key, {}).get(what, ()):
                hits = fnmatch.filter(groups, pattern)
                assert hits, f"KNOWN[{key!r}][{what!r}]: {pattern!r} matches no group"
                out.update((g, what) for g in hits)
    return out


@pytest.fixture(scope="module")
def streams():
    """drawn(stream): the battery's groups under xrng.reproducible(stream=stream, strict=True), one run per
    kernel and set of releases (xrng.torch_cpu's release=) and cached."""
    cache = {}

    def drawn(stream, refused=None):
        name, _, release = stream.partition("@")
        key = (name, xrng._torch_cpu.release_number(release))
        if key not in cache:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", xrng.ReproducibilityWarning)
                with xrng.reproducible(seed=None, stream=stream, strict=not refused):
                    cache[key] = record.groups(battery.run())
            said = {str(w.message) for w in caught if issubclass(w.category, xrng.ReproducibilityWarning)}
            for why in (refused or {}).values():  # (only in a release that draws it so)
                said = {m for m in said if why not in m}
            assert not said, f"{stream}: reported {sorted(said)}"
        return cache[key]
    return drawn


def recorded():
    with open(os.path.join(HERE, "recorded.json")) as f:
        data = json.load(f)
    return [(v, c, g) for v, caps in data.items() for c, g in caps.items()]


@pytest.mark.parametrize("version,capability,groups", recorded(), ids=lambda x: x if isinstance(x, str) else "")
def test_recorded_torch_equals_the_stream(streams, version, capability, groups):
    stream = f"{STREAM[capability]}@{version}"
    mine = streams(stream, REFUSED.get(capability))
    assert set(groups) <= set(mine), f"groups not in battery.py: {sorted(set(groups) - set(mine))}"
    differ = {g: "values" if mine[g].split(":")[0] != d.split(":")[0] else "state"
              for g, d in groups.items() if mine[g] != d}
    expected = known(version, capability, sorted(groups))
    new = sorted(f"{g} ({w})" for g, w in differ.items() if expected.get(g) != w)
    gone = sorted(f"{g} ({w})" for g, w in expected.items() if differ.get(g) != w)
    assert not new and not gone, (f"torch {version} {capability} vs {stream}: "
                                  f"differences not in KNOWN {new}, in KNOWN but not measured {gone}")
