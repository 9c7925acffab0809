#!/usr/bin/env python3
"""Writes rng/detail/torch_cpu_mkl_ln64.h: the data of MKL's generic
double-precision logarithm (`mkl_vml_kernel_dLn_EXHAynn`, what torch 2.0 to
2.6's float64 `exponential_` calls on a CPU that is not Intel's), read from
the library, and the approximate-reciprocal steps it picks its table entry by,
measured on this CPU (SPEC.md 14.7, `mkl_ln_f64`).

The kernel (read from its machine code; this script checks the reading's
constants against the library): for a positive normal x, `ms` = x's
mantissa bits with the exponent of 2^-10, `f = float(ms)`, `R` =
`rcpps(f)` rounded to the nearest integer (in [512, 1024]), and the table
entry `{hi, lo}` of R. `rcpps` is the CPU's approximate reciprocal, whose
rounding each CPU design implements its own way: R as a function of f's
mantissa field M (0 to 2^23, 2^23 where f rounded up to 2^-9) is a
staircase that falls by one at 512 steps, and this script records where
this CPU's steps are (it refuses if its staircase is not one).

    python3 tests/torch_versions/mkl/make_ln64.py LIB [--out FILE]

LIB: PyPI mkl 2023.1's libmkl_vml_def.so.2 or a torch x86-64 wheel's
libtorch_cpu.so (the same table in every release checked, 2.0.1 to 2.15).
Without --out, prints the header.
"""
import argparse
import os
import platform
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import emulate_ln  # noqa: E402  (Library, disassemble)

SYMBOL = "mkl_vml_kernel_dLn_EXHAynn"
# the binary64 constants the kernel's loops load (lane 0 of each 16-byte load), as read
CONSTANTS = {
    0x000fffffffffffff: "mantissa mask", 0x3f50000000000000: "2^-10, the exponent put on the mantissa",
    0x4338000000000000: "1.5 2^52, rounds R to an integer", 0xfffffffffc000000: "the mantissa's high part",
    0x3ff0000000000000: "1", 0x3fc9999cacdb4d0a: "c5", 0xbfd0000148058ee1: "c4", 0x3fd55555555543c5: "c3",
    0xbfdffffffffff81f: "c2", 0x3fe62e42fefa0000: "ln2 high", 0x3d7cf79abc9e0000: "ln2 low",
    0x0010000000000000: "DBL_MIN (special below)", 0x7fefffffffffffff: "DBL_MAX (special above)",
    0x3fe8000000000000: "the tail's filler",
}

RCP_STEPS_CPP = r"""
#include <cstdio>
#include "rcpps.h"
int main() {  // the m at which R falls by one (exit 1 if R is not a staircase of unit steps from 1024 to 512)
  uint32_t prev = host_rcp_R(0);
  if (prev != 1024) return 1;
  for (uint32_t m = 1; m <= (1u << 23); ++m) {
    const uint32_t R = host_rcp_R(m);
    if (R == prev) continue;
    if (R != prev - 1) return 1;
    std::printf("%u\n", m);
    prev = R;
  }
  return prev == 512 ? 0 : 1;
}
"""


def rcp_steps():
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "steps.cpp"), os.path.join(d, "steps")
        open(src, "w").write(RCP_STEPS_CPP)
        subprocess.check_call(["g++", "-std=c++17", "-O1", "-I", HERE, src, "-o", exe])
        r = subprocess.run([exe], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("make_ln64: this CPU's rcpps rounded to integers is not a staircase of 512 unit steps")
        steps = [int(v) for v in r.stdout.split()]
    assert len(steps) == 512 and steps == sorted(steps), len(steps)
    return steps


def cpu_name():
    info = {}
    try:
        for line in open("/proc/cpuinfo"):
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    return (f"{info.get('vendor_id', platform.processor())} family {info.get('cpu family', '?')} "
            f"model {info.get('model', '?')} ({info.get('model name', '?')})")


def table(lib_path):
    lib = emulate_ln.Library(lib_path)
    insns = emulate_ln.disassemble(lib, SYMBOL)
    seen = set()
    for i in insns:
        if i.rip is not None and i.mnem in ("movaps", "movapd", "subpd", "addpd", "mulpd", "andps", "orps"):
            seen.add(struct.unpack("<Q", lib.read(i.rip, 8))[0])
    if seen != set(CONSTANTS):
        raise SystemExit(f"make_ln64: {SYMBOL}'s constants are not the ones read: "
                         f"unexpected {sorted(hex(c) for c in seen - set(CONSTANTS))}, "
                         f"missing {sorted(hex(c) for c in set(CONSTANTS) - seen)}")
    shifts = {i.ops[0] for i in insns if i.mnem == "psrlq"}
    assert shifts == {"$0x14", "$0x27"}, shifts  # the exponent (>> 52 as >> 20 of the high word); R's bits >> 39
    # the table's base: the address every loop's lea loads (the entry's offset below is about 2^23; another
    # lea, once, loads the special path's handler)
    leas = [i.rip for i in insns if i.mnem == "lea" and i.rip is not None]
    bases = {b for b in leas if leas.count(b) >= 4}
    assert len(bases) == 1, [hex(b) for b in leas]
    # entry of R at base + (bits(double(R)) >> 39): R in [512, 1024) exponent 0x408, 1024 0x409, 16 bytes each
    first = (bases.pop() + (0x408 << 13)) % (1 << 64)
    raw = lib.read(first, 513 * 16)
    return [struct.unpack_from("<dd", raw, 16 * j) for j in range(513)]


def header(lib_path, tab, steps):
    rows = ",\n".join(f"    {{{hi.hex()}, {lo.hex()}}}" for hi, lo in tab)
    st = []
    for i in range(0, 512, 8):
        st.append("    " + ", ".join(f"{s}u" for s in steps[i:i + 8]))
    st = ",\n".join(st)
    return f"""// Generated by tests/torch_versions/mkl/make_ln64.py (do not edit): the data of MKL's
// generic double-precision logarithm, mkl_vml_kernel_dLn_EXHAynn (rng/torch_cpu.h
// mkl_ln_f64, SPEC.md 14.7), read from {os.path.basename(lib_path)}, and the steps of the
// approximate reciprocal it picks its table entry by, measured with rcpps on
// {cpu_name()}.
#pragma once

#include <cstdint>

namespace xrng::torch_cpu::detail {{

// {{hi, lo}} of R = 512 .. 1024 (row R - 512): -ln R - 1013 ln2, split in two.
inline constexpr double kMklLn64Tab[513][2] = {{
{rows}}};

// R of f = 2^-10 (1 + M 2^-23) (M in [0, 2^23]): rcpps(f) rounded to the nearest integer is
// 1024 minus the number of these steps at or below M.
inline constexpr uint32_t kMklRcpSteps[512] = {{
{st}}};

}}  // namespace xrng::torch_cpu::detail
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--out")
    a = ap.parse_args()
    text = header(a.lib, table(a.lib), rcp_steps())
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
