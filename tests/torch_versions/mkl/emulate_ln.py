#!/usr/bin/env python3
"""Runs MKL's single-precision logarithm kernels instruction by instruction
from their shipped machine code, on this CPU whatever its ISA, and compares
them with xrng's copies in rng/torch_cpu.h over every positive normal float.

Why: `mkl_ln_f32_z0` (MKL's `sLn_Z0LAynn`, which torch 2.0 to 2.6's
`exponential_` calls on an Intel CPU with AVX-512) was read from machine code
and could not be run where no AVX-512 CPU is at hand. This script executes
that machine code itself: `objdump` disassembles the kernel from the library
(PyPI's MKL, or the static MKL inside torch's `libtorch_cpu.so`), the
constants come from the library's bytes, and each vector instruction of the
kernel's loops is applied, lane by lane, to numpy arrays holding 2^23 inputs
at a time (every float of one binade per step). Only the instructions these
kernels use are known to it (anything else stops it with an error): AVX2 and
AVX-512 moves, integer adds, shifts, ands, compares and permutes,
`vgetmantps`, `vgetexpps`, `vfpclassps`, `vcvtdq2ps`, and binary32 `+ - *`
and fused multiply-add, each correctly rounded to nearest even (the fused
multiply-add exactly: the binary64 product is exact, TwoSum gives the
binary64 sum's error, and a sum that is exactly halfway between two floats
is moved toward that error before the one rounding to float). Each loop of
the kernel (its 4-vector main loop and its 1-vector tail) runs separately,
with the registers its preceding straight-line code loads; the lanes of a
special input (zero, negative, infinite: `vfpclassps` / the sign test) would
take the kernel's scalar path, which is not emulated: the script checks that
no input of the range takes it.

The emulator is itself checked on `sLn_L9LAynn` (AVX2): `mkl_ln_f32_l9`,
which it is compared with there, was proven equal to that kernel run
natively on every positive normal float (check_mkl.sh).

    python3 tests/torch_versions/mkl/emulate_ln.py LIB SYMBOL MODEL [--exponents A:B] [--jobs N]

LIB: libmkl_vml_avx512.so.2 / libmkl_vml_avx2.so.2 of PyPI's mkl, or a
libtorch_cpu.so; SYMBOL: mkl_vml_kernel_sLn_Z0LAynn or ..._L9LAynn; MODEL:
z0 or l9 (the function of rng/torch_cpu.h to compare with). Prints, per loop,
the number of inputs run and of outputs that differ; exits 1 if any differ.
About 25 minutes per loop for all 254 binades on one core of this 2-core host (--jobs 2 halves it).
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


# ---------------------------------------------------------------- the library
class Library:
    def __init__(self, path):
        self.path = path
        self.data = open(path, "rb").read()
        self.sections = []
        out = subprocess.check_output(["readelf", "-SW", path]).decode()
        for line in out.splitlines():
            m = re.search(r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]{16})\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
            if m and m.group(2) != "NOBITS":
                self.sections.append((int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16)))

    def symbol(self, name):
        # the dynamic table first (PyPI's MKL exports its kernels), then the full one (torch's static MKL)
        for args in (["nm", "-D", "-S", "--defined-only"], ["nm", "-S", "--defined-only"]):
            try:
                out = subprocess.run(args + [self.path], capture_output=True, check=True).stdout.decode()
            except subprocess.CalledProcessError:
                continue
            for line in out.splitlines():
                f = line.split()
                if len(f) == 4 and f[3] == name:
                    return int(f[0], 16), int(f[1], 16)
        raise SystemExit(f"emulate_ln: {self.path} has no symbol {name}")

    def read(self, vaddr, n):
        for base, off, size in self.sections:
            if base <= vaddr and vaddr + n <= base + size:
                return self.data[off + vaddr - base: off + vaddr - base + n]
        raise SystemExit(f"emulate_ln: address {vaddr:#x} is in no section of {self.path}")


class Insn:
    def __init__(self, addr, mnem, ops, rip):
        self.addr, self.mnem, self.ops, self.rip = addr, mnem, ops, rip

    def __repr__(self):
        return f"{self.addr:x}: {self.mnem} {','.join(self.ops)}"


def split_operands(s):
    ops, depth, cur = [], 0, ""
    for ch in s:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def disassemble(lib, name):
    start, size = lib.symbol(name)
    out = subprocess.check_output(["objdump", "-d", "--no-show-raw-insn", "-M", "att",
                                   f"--start-address={start}", f"--stop-address={start + size}",
                                   lib.path]).decode()
    insns = []
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        addr, mnem, rest = int(m.group(1), 16), m.group(2), m.group(3)
        rip = None
        c = re.search(r"#\s*([0-9a-f]+)", rest)
        if "(%rip)" in rest and c:
            rip = int(c.group(1), 16)
        rest = re.sub(r"\s*#.*$", "", rest)
        tgt = re.match(r"([0-9a-f]+) <", rest)
        if tgt:
            rest = tgt.group(1)
        insns.append(Insn(addr, mnem, split_operands(rest) if rest else [], rip))
    return insns


# ------------------------------------------------------------------ numerics
def f32(u):
    return u.view(np.float32)


def u32(f):
    return np.ascontiguousarray(f, dtype=np.float32).view(np.uint32)


def fma32(a, b, c):
    """fl32(a*b + c), exactly, a b c float32 arrays (results must not be subnormal)."""
    p = a.astype(np.float64) * b.astype(np.float64)  # exact: 24 x 24 bits
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)  # TwoSum: p + c = s + e exactly
    sb = s.view(np.uint64)
    mid = (sb & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)  # halfway between two floats
    fix = mid & (e != 0)
    if fix.any():
        s = s.copy()
        s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    r = s.astype(np.float32)
    if ((np.abs(r) < np.float32(2.0 ** -126)) & (r != 0)).any():
        raise SystemExit("emulate_ln: a fused multiply-add gave a subnormal (not modelled)")
    return r


def lead_bit(m):
    """The position of the leading 1 of positive integers below 2^24 (exact: frexp)."""
    return np.frexp(m.astype(np.float64))[1].astype(np.int64) - 1


def normalized(b):
    """(unbiased exponent, 23-bit fraction) of nonzero finite float bits b, a subnormal normalized."""
    e = ((b >> 23) & 0xff).astype(np.int64) - 127
    frac = (b & 0x7fffff).astype(np.int64)
    sub = ((b & 0x7f800000) == 0) & (frac != 0)
    if sub.any():
        pos = lead_bit(np.where(sub, frac, 1))
        e = np.where(sub, -149 + pos, e)
        frac = np.where(sub, (frac << (23 - pos)) & 0x7fffff, frac)
    return e, frac.astype(np.uint32)


def getexp(x):
    """vgetexpps: floor(log2 |x|) of a finite nonzero x (subnormals normalized); -inf for zero, +inf for an
    infinity, NaN for a NaN."""
    b = x.view(np.uint32) & np.uint32(0x7fffffff)
    r = normalized(b)[0].astype(np.float32)
    r[b == 0] = -np.inf
    r[b == 0x7f800000] = np.inf
    r[b > 0x7f800000] = np.nan
    return r


def getmant(x, imm):
    """vgetmantps of positive finite nonzero floats (subnormals normalized); imm[1:0] the interval. Any other
    input (a special lane, which the kernels send to their scalar path) gives the QNaN indefinite here: its
    value is never compared."""
    b = x.view(np.uint32)
    special = ((b >> 31) == 1) | (b == 0) | ((b & 0x7f800000) == 0x7f800000)
    frac = normalized(b)[1]
    interv = imm & 3
    if interv == 0:
        exp = np.full(b.shape, 0x7f, np.uint32)
    elif interv == 2:
        exp = np.full(b.shape, 0x7e, np.uint32)
    elif interv == 3:
        exp = (0x7f - (frac >> 22)).astype(np.uint32)
    else:
        raise SystemExit("emulate_ln: getmant interval [1/2, 2) not modelled")
    return np.where(special, np.uint32(0xffc00000), (exp << 23) | frac)


def fpclass(x, imm):
    b = x.view(np.uint32)
    e, f, s = (b >> 23) & 0xff, b & 0x7fffff, (b >> 31) == 1
    classes = [
        (e == 0xff) & (f != 0) & ((f >> 22) == 1),  # QNaN
        (b == 0),  # +0
        (b == 0x80000000),  # -0
        (b == 0x7f800000),  # +inf
        (b == 0xff800000),  # -inf
        (e == 0) & (f != 0),  # denormal
        s & (e != 0xff) & ((b & 0x7fffffff) != 0),  # negative finite
        (e == 0xff) & (f != 0) & ((f >> 22) == 0),  # SNaN
    ]
    r = np.zeros(b.shape, bool)
    for i in range(8):
        if imm >> i & 1:
            r |= classes[i]
    return r


# ------------------------------------------------------------------ emulator
GPR = {}
for n in "abcd":
    for w in (f"r{n}x", f"e{n}x", f"{n}x", f"{n}l"):
        GPR[w] = f"r{n}x"
for n in ("si", "di", "bp", "sp"):
    for w in (f"r{n}", f"e{n}", n, f"{n}l"):
        GPR[w] = f"r{n}"
for i in range(8, 16):
    for w in (f"r{i}", f"r{i}d", f"r{i}w", f"r{i}b"):
        GPR[w] = f"r{i}"

MEM = re.compile(r"^(-?0x[0-9a-f]+|-?\d+)?\((%\w+)?(?:,(%\w+)(?:,(\d))?)?\)(\{%k\d\})?(\{z\})?$")


def mask_bits(m):
    """The bits of a per-lane boolean mask (rows, lanes), lane i at bit i, per row."""
    return (m.astype(np.int64) << np.arange(m.shape[1], dtype=np.int64)).sum(axis=1)


class Unknown(Exception):
    pass


class Machine:
    def __init__(self, lib, rows):
        self.lib, self.rows = lib, rows
        self.v = {}  # vector registers: (rows, 16) uint32
        self.k = {}  # mask registers: (rows, 16) bool
        self.g = {}  # general registers: int or None (lane arithmetic of the loop index only)
        self.stack_v, self.stack_g = {}, {}
        self.inputs = None
        self.outputs = {}  # lane -> (rows,) uint32
        self.special_lanes = np.zeros((rows,), bool)  # rows whose forward branch to the special path is taken
        self.touched_in = set()
        self.zf = None  # the zero flag per row, where it comes from the vector masks
        self.in_body = False

    # --- operands
    def vreg(self, op):
        m = re.match(r"^%([xyz])mm(\d+)(\{%k\d\})?(\{z\})?$", op)
        return (int(m.group(2)), {"x": 4, "y": 8, "z": 16}[m.group(1)]) if m else None

    def mem(self, op):
        m = MEM.match(op)
        if not m:
            return None
        disp = int(m.group(1), 0) if m.group(1) else 0
        base = m.group(2)[1:] if m.group(2) else None
        idx = m.group(3)[1:] if m.group(3) else None
        scale = int(m.group(4)) if m.group(4) else 1
        return disp, base, idx, scale

    def gval(self, name):
        return self.g.get(GPR.get(name, name))

    def lane_of(self, op):
        disp, base, idx, scale = self.mem(op)
        i = 0
        if idx is not None:
            iv = self.gval(idx)
            if iv is None:
                raise Unknown(f"index register {idx} unknown")
            i = iv * scale
        if (disp + i) % 4:
            raise Unknown("unaligned lane")
        return (disp + i) // 4

    def is_stack(self, op):
        mm = self.mem(op)
        return mm is not None and mm[1] in ("rsp", "rbp")

    def load_vec(self, insn, op, width):
        if op == "RIP" or "(%rip)" in op:
            raw = self.lib.read(insn.rip, 4 * width)
            row = np.frombuffer(raw, dtype=np.uint32).copy()
            out = np.zeros((self.rows, 16), np.uint32)
            out[:, :width] = row
            return out
        r = self.vreg(op)
        if r:
            return self.v[r[0]].copy()
        if self.is_stack(op):
            if self.mem(op)[0] not in self.stack_v:
                raise Unknown(f"a stack slot written before the loop: {insn}")
            return self.stack_v[self.mem(op)[0]].copy()
        lane = self.lane_of(op)
        out = np.zeros((self.rows, 16), np.uint32)
        if lane < 0 or lane + width > self.inputs.shape[1]:
            raise Unknown(f"input lane {lane} out of range")
        out[:, :width] = self.inputs[:, lane:lane + width]
        self.touched_in.update(range(lane, lane + width))
        return out

    def store_vec(self, op, val, width):
        if self.is_stack(op):
            self.stack_v[self.mem(op)[0]] = val.copy()
            return
        lane = self.lane_of(op)
        for j in range(width):
            self.outputs[lane + j] = val[:, j].copy()

    def set_v(self, op, val, width):
        n, w = self.vreg(op)
        out = np.zeros((self.rows, 16), np.uint32)
        out[:, :width] = val[:, :width]
        self.v[n] = out

    # --- one instruction
    def step(self, insn):
        mn, ops = insn.mnem, insn.ops
        vec_w = None
        for op in ops:
            r = self.vreg(op)
            if r:
                vec_w = max(vec_w or 0, r[1])
        if mn in COND_JUMPS and self.in_body and int(insn.ops[0], 16) > insn.addr:
            # a forward branch inside the loop: to the scalar path for special inputs; the rows taking it are
            # reported, not emulated
            if not isinstance(self.zf, np.ndarray) or mn not in ("jne", "jnz", "je", "jz"):
                raise Unknown(f"a branch on a condition not made from the vector masks: {insn}")
            self.special_lanes |= ~self.zf if mn in ("jne", "jnz") else self.zf
            return
        if mn == "test":
            a, b = (self.scalar_val(o) for o in ops)
            arrays = isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
            self.zf = ((a & b) & 0xffffffff) == 0 if arrays and a is not None and b is not None else None
            return
        if mn in ("cmp", "cmpl", "bt"):
            self.zf = None
            return
        if mn.startswith("j") or mn in ("call", "ret", "push", "pop", "nop", "nopw", "nopl", "data16",
                                        "cs", "xchg", "vzeroupper", "vstmxcsr", "vldmxcsr", "fldcw",
                                        "fnstcw", "fnclex", "fclex", "popcnt",
                                        "inc", "dec", "neg", "movabs", "cmovae", "cmovb", "cmove", "cmovne",
                                        "cmovl", "shrx", "movzbl", "movzwl", "movswl", "sete", "setne"):
            if mn in ("neg", "inc", "dec", "movabs", "shrx", "movzbl", "movzwl", "movswl") or mn.startswith("cmov"):
                d = ops[-1]
                if d.startswith("%") and d[1:] in GPR:
                    self.g[GPR[d[1:]]] = None
            return
        if mn in ("mov", "movl", "movq", "movslq", "or", "add", "sub", "and", "xor", "shl", "shr", "sar", "lea",
                  "imul"):
            self.scalar(mn, ops)
            return
        if mn in ("kmovw", "kmovd"):
            src, dst = ops
            if dst.startswith("%k"):
                # a mask made by scalar code (the tail's lane count): every lane of a full vector
                self.k[dst] = np.ones((self.rows, 16), bool)
            else:  # the mask's bits, per row
                m = self.k[src]
                self.g[GPR[dst[1:]]] = mask_bits(m)
            return
        if mn == "kortestw":
            a, b = ops
            self.zf = ~(self.k[a] | self.k[b]).any(axis=1)
            return
        if vec_w is None and mn not in ("vbroadcastss", "vpbroadcastd"):
            raise Unknown(f"unhandled instruction {insn}")
        self.vector(insn, mn, ops, vec_w)

    def scalar_val(self, op):
        if op.startswith("$"):
            return int(op[1:], 0)
        if op.startswith("%"):
            return self.gval(op[1:])
        mm = self.mem(op)
        if mm and mm[1] in ("rsp", "rbp"):
            return self.stack_g.get(mm[0])
        return None

    def scalar(self, mn, ops):
        val = self.scalar_val

        if mn == "lea":
            src, dst = ops
            mm = self.mem(src)
            v = None
            if mm and mm[1] not in ("rip",):
                disp, base, idx, scale = mm
                bv = self.gval(base) if base else 0
                iv = self.gval(idx) if idx else 0
                v = None if bv is None or iv is None else disp + bv + iv * scale
            self.g[GPR[dst[1:]]] = v
            return
        dst = ops[-1]
        if mn in ("mov", "movl", "movq", "movslq"):
            v = val(ops[0])
            if dst.startswith("%"):
                if dst[1:] in GPR:
                    self.g[GPR[dst[1:]]] = v
                return
            mm = self.mem(dst)
            if mm and mm[1] in ("rsp", "rbp"):
                self.stack_g[mm[0]] = v
            return
        if not (dst.startswith("%") and dst[1:] in GPR):
            return
        a, b = val(ops[0]), val(dst)
        if mn == "xor" and ops[0] == dst:
            r = 0
        elif a is None or b is None:
            r = None
        else:
            r = {"or": b | a, "add": b + a, "sub": b - a, "and": b & a, "xor": b ^ a,
                 "shl": b << a, "shr": b >> a, "sar": b >> a, "imul": b * a}[mn]
            if isinstance(a, int) and a > (1 << 31) and mn in ("add", "sub"):  # an immediate like $0xfffffff0
                r = b + (a - (1 << 32)) if mn == "add" else b - (a - (1 << 32))
        self.g[GPR[dst[1:]]] = r
        self.zf = (r & 0xffffffff) == 0 if isinstance(r, np.ndarray) else None

    def vector(self, insn, mn, ops, w):
        ops_nr = [o for o in ops if not o.startswith("{")]  # drop {sae}, {rn-sae}
        rounding = [o for o in ops if o.startswith("{")]
        for r in rounding:
            if r not in ("{sae}", "{rn-sae}"):
                raise Unknown(f"rounding {r} in {insn}")
        if mn in ("vmovups", "vmovaps", "vmovdqu", "vmovdqu64", "vmovdqu32", "vmovdqa", "vmovdqa64",
                  "vmovupd", "vmovapd"):
            src, dst = ops_nr
            if self.vreg(dst):
                self.set_v(dst, self.load_vec(insn, src, w), w)
            else:
                self.store_vec(dst, self.load_vec(insn, src, w), w)
            return
        if mn == "vmaskmovps":  # the tail's lane mask, made from the lane count: every lane (see kmovw)
            if self.vreg(ops_nr[-1]):
                src, mask, dst = ops_nr
                self.set_v(dst, self.load_vec(insn, src, w), w)
            else:
                src, mask, dst = ops_nr
                self.store_vec(dst, self.load_vec(insn, src, w), w)
            return
        if mn == "vblendvps":  # AT&T: mask, taken where set, taken elsewhere, dest; the tail's mask: every lane
            mask, a, b, dst = ops_nr
            self.set_v(dst, self.load_vec(insn, a, w), w)
            return
        if mn == "vblendmps":  # vblendmps mem, zmmB, zmmD{k}: D = k ? mem : B (k: every lane, see kmovw)
            src, b, dst = ops_nr
            self.set_v(dst, self.load_vec(insn, src, w), w)
            return
        if mn in ("vbroadcastss", "vpbroadcastd"):
            src, dst = ops_nr
            wd = self.vreg(dst)[1]
            if "(%rip)" in src:
                val = np.frombuffer(self.lib.read(insn.rip, 4), np.uint32)[0]
            else:
                raise Unknown(f"broadcast source {insn}")
            self.set_v(dst, np.full((self.rows, 16), val, np.uint32), wd)
            return
        if mn == "vpmovzxwd":
            src, dst = ops_nr
            wd = self.vreg(dst)[1]
            raw = np.frombuffer(self.lib.read(insn.rip, 2 * wd), np.uint16).astype(np.uint32)
            out = np.zeros((self.rows, 16), np.uint32)
            out[:, :wd] = raw
            self.set_v(dst, out, wd)
            return
        if mn in ("vgetmantps",):
            imm, src, dst = ops_nr
            x = self.load_vec(insn, src, w)
            self.set_v(dst, getmant(x, int(imm[1:], 0)), w)
            return
        if mn == "vgetexpps":
            src, dst = ops_nr
            x = self.load_vec(insn, src, w)
            self.set_v(dst, u32(getexp(x)), w)
            return
        if mn == "vfpclassps":
            imm, src, k = ops_nr
            x = self.load_vec(insn, src, w)
            m = fpclass(x, int(imm[1:], 0))
            m[:, w:] = False
            self.k[k] = m
            return
        if mn == "vmovmskps":
            src, dst = ops_nr
            x = self.load_vec(insn, src, w)  # the sign bits, per row
            self.g[GPR[dst[1:]]] = mask_bits((x[:, :w] >> 31) == 1)
            return
        if mn in ("vpsrld", "vpsrad", "vpslld"):
            imm, src, dst = ops_nr
            x, s = self.load_vec(insn, src, w), int(imm[1:], 0)
            if mn == "vpsrld":
                r = x >> np.uint32(s)
            elif mn == "vpslld":
                r = x << np.uint32(s)
            else:
                r = (x.view(np.int32) >> s).view(np.uint32)
            self.set_v(dst, r, w)
            return
        if mn in ("vpermps", "vpermd"):  # AT&T: table, index, dest
            tbl, idx, dst = ops_nr
            t, i = self.load_vec(insn, tbl, w), self.load_vec(insn, idx, w)
            r = np.take_along_axis(t[:, :w], (i[:, :w] & np.uint32(w - 1)).astype(np.int64), axis=1)
            out = np.zeros((self.rows, 16), np.uint32)
            out[:, :w] = r
            self.set_v(dst, out, w)
            return
        if mn == "vcvtdq2ps":
            src, dst = ops_nr
            x = self.load_vec(insn, src, w)
            self.set_v(dst, u32(x.view(np.int32).astype(np.float32)), w)
            return
        three = {"vpaddd": lambda a, b: b + a, "vpsubd": lambda a, b: b - a,
                 "vpand": lambda a, b: b & a, "vpandd": lambda a, b: b & a, "vpor": lambda a, b: b | a,
                 "vpcmpgtd": lambda a, b: np.where(b.view(np.int32) > a.view(np.int32), np.uint32(0xffffffff),
                                                    np.uint32(0)),
                 "vaddps": lambda a, b: u32(f32(b) + f32(a)), "vsubps": lambda a, b: u32(f32(b) - f32(a)),
                 "vmulps": lambda a, b: u32(f32(b) * f32(a))}
        if mn in three:
            a, b, dst = ops_nr  # AT&T: src2, src1, dest; Intel dest = src1 op src2
            self.set_v(dst, three[mn](self.load_vec(insn, a, w), self.load_vec(insn, b, w)), w)
            return
        if mn in ("vfmadd213ps", "vfmadd231ps", "vfmadd132ps", "vfnmadd213ps", "vfnmadd231ps", "vfnmadd132ps"):
            a, b, dst = ops_nr  # Intel: op1 = dst, op2 = b, op3 = a
            A, B, D = (f32(self.load_vec(insn, x, w)) for x in (a, b, dst))
            neg = mn.startswith("vfn")
            order = mn[-5:-2]
            if order == "213":  # dst = op2*dst + op3
                x, y, z = B, D, A
            elif order == "231":  # dst = op2*op3 + dst
                x, y, z = B, A, D
            else:  # 132: dst = dst*op3 + op2
                x, y, z = D, A, B
            if neg:
                x = -x
            self.set_v(dst, u32(fma32(x, y, z)), w)
            return
        raise Unknown(f"unhandled instruction {insn}")


# ---------------------------------------------------------------- the loops
COND_JUMPS = ("jb", "jl", "jne", "jnz", "jae", "ja", "jbe", "jle", "jg", "jge", "je", "jz")


def loops(insns):
    """Each backward conditional jump: (first address, index of the jump)."""
    out = []
    for i, ins in enumerate(insns):
        if ins.mnem in COND_JUMPS and ins.ops and re.fullmatch(r"[0-9a-f]+", ins.ops[0]):
            t = int(ins.ops[0], 16)
            if t < ins.addr:
                out.append((t, i))
    return out


def preamble(insns, top):
    """The straight-line code before the loop top: back to the previous jmp, ret or loop end."""
    i = next(j for j, ins in enumerate(insns) if ins.addr == top)
    j = i
    back = {ins.addr for ins in insns if ins.mnem in COND_JUMPS and ins.ops and
            re.fullmatch(r"[0-9a-f]+", ins.ops[0]) and int(ins.ops[0], 16) < ins.addr}
    while j > 0 and insns[j - 1].mnem not in ("jmp", "ret") and insns[j - 1].addr not in back:
        j -= 1
    return insns[j:i], i


def run_loop(lib, insns, top, end, x_rows):
    pre, i = preamble(insns, top)
    body = insns[i:end + 1]
    mach = Machine(lib, x_rows.shape[0])
    mach.inputs = x_rows
    for ins in pre:
        try:
            mach.step(ins)
        except (Unknown, KeyError):
            pass  # the preamble's scalar set-up and anything not needed
    mach.g = {k: 0 for k in set(GPR.values())}  # the loop index: lanes are relative to the iteration
    mach.stack_g = {}
    mach.in_body = True
    for ins in body[:-1]:  # the last: the branch back to the top
        mach.step(ins)
    return mach


# ------------------------------------------------------------------- models
def build_models():
    src = os.path.join(tempfile.mkdtemp(prefix="xrng-emul-"), "models.cpp")
    with open(src, "w") as f:
        f.write('#include "rng/torch_cpu.h"\n'
                'namespace tc = xrng::torch_cpu;\n'
                'extern "C" void ln_l9(const float* x, float* y, long n) { for (long i = 0; i < n; ++i) y[i] = tc::mkl_ln_f32_l9(x[i]); }\n'
                'extern "C" void ln_z0(const float* x, float* y, long n) { for (long i = 0; i < n; ++i) y[i] = tc::mkl_ln_f32_z0(x[i]); }\n'
                'extern "C" void ln_generic(const float* x, float* y, long n) { for (long i = 0; i < n; ++i) y[i] = tc::mkl_ln_f32(x[i]); }\n'
                'extern "C" void ln_e9(const float* x, float* y, long n) { for (long i = 0; i < n; ++i) y[i] = tc::mkl_ln_f32_e9(x[i]); }\n'
                '// the double-precision generic kernel (mkl_ln_f64), and how many of the 2^23 + 1 mantissas its R\n'
                '// takes this CPU\'s rcpps to another integer than the steps it holds (make_ln64.py)\n'
                'extern "C" void ln_f64(const double* x, double* y, long n) { for (long i = 0; i < n; ++i) y[i] = tc::mkl_ln_f64(x[i]); }\n'
                '#include "rcpps.h"\n'
                'extern "C" long rcp_moved() { long moved = 0;\n'
                '  for (uint32_t m = 0; m <= (1u << 23); ++m) moved += host_rcp_R(m) != tc::kMklRcpR[m >> 10];\n'
                '  return moved; }\n')
    so = src[:-4] + ".so"
    subprocess.check_call(["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-I", REPO, "-I", HERE,
                           src, "-o", so])
    return ctypes.CDLL(so)


def model(lib, name, x):
    y = np.empty_like(x, dtype=np.float64 if name == "f64" else np.float32)
    getattr(lib, "ln_" + name)(x.ctypes.data_as(ctypes.c_void_p), y.ctypes.data_as(ctypes.c_void_p),
                               ctypes.c_long(x.size))
    return y.view(np.uint64 if y.dtype == np.float64 else np.uint32)


def binade(e):
    return ((np.uint32(e) << np.uint32(23)) | np.arange(1 << 23, dtype=np.uint32)).view(np.float32)


class Kernel:
    """A kernel of a library, disassembled once: its vector loops that write results (the 4-vector main loop
    and the 1-vector tail), each run on its own by run(); `skipped` lists the other loops (the scalar path
    for special inputs) and why they are not run."""

    def __init__(self, lib_path, symbol):
        self.lib = Library(lib_path)
        self.insns = disassemble(self.lib, symbol)
        self.loops, self.skipped = [], []
        for top, end in loops(self.insns):
            try:  # a probe: which lanes one iteration reads and writes
                m = run_loop(self.lib, self.insns, top, end, np.tile(binade(127)[:64].view(np.uint32), (4, 1)))
            except (Unknown, KeyError) as e:
                self.skipped.append((top, str(e)))
                continue
            lanes = len(m.outputs)
            if not lanes or sorted(m.outputs) != list(range(lanes)):
                self.skipped.append((top, "writes no vector of results"))
                continue
            self.loops.append((top, end, lanes))

    def run(self, x):
        """{loop's first address: (lanes per iteration, result bits, mask of the inputs whose rows branch to
        the special path)} for float32 inputs x (a size that is a multiple of 64)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        out = {}
        for top, end, lanes in self.loops:
            mach = run_loop(self.lib, self.insns, top, end, x.view(np.uint32).reshape(-1, lanes))
            if sorted(mach.outputs) != list(range(lanes)) or sorted(mach.touched_in) != list(range(lanes)):
                raise SystemExit(f"emulate_ln: loop at {top:#x} does not map its {lanes} lanes one to one")
            got = np.stack([mach.outputs[j] for j in range(lanes)], axis=1).reshape(-1)
            out[top] = (lanes, got, np.repeat(mach.special_lanes, lanes))
        return out


def check_binades(args, exps):
    """Per loop: (first address, lanes, inputs run, differing, taking the special path, first difference)."""
    kernel = Kernel(args.lib, args.symbol)
    models = build_models()
    stats = {top: [lanes, 0, 0, 0, None] for top, _, lanes in kernel.loops}
    for e in exps:
        for part in range(8):  # 2^20 inputs at a time: faster than a whole binade (memory traffic)
            x = binade(e)[part << 20:(part + 1) << 20]
            want = model(models, args.model, x)
            for top, (lanes, got, special) in kernel.run(x).items():
                st = stats[top]
                d = (got != want) & ~special
                st[1] += x.size
                st[2] += int(d.sum())
                st[3] += int(special.sum())
                if d.any() and st[4] is None:
                    k = int(np.argmax(d))
                    st[4] = (float(x[k]), hex(int(x.view(np.uint32)[k])), hex(int(got[k])), hex(int(want[k])))
    return [(top, *v) for top, v in sorted(stats.items())], kernel.skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lib")
    ap.add_argument("symbol")
    ap.add_argument("model", choices=["l9", "z0", "generic"])
    ap.add_argument("--exponents", default="1:255", help="biased exponents A:B (B excluded); default every normal")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--verbose", action="store_true", help="list the loops not run and why")
    args = ap.parse_args()
    a, b = (int(v) for v in args.exponents.split(":"))
    exps = list(range(a, b))
    if args.jobs > 1:
        import multiprocessing as mp
        parts = [exps[i::args.jobs] for i in range(args.jobs)]
        with mp.Pool(args.jobs) as pool:
            res = pool.starmap(check_binades, [(args, p) for p in parts])
        merged = {}
        skipped = res[0][1]
        for r, _ in res:
            for top, probe, n_in, n_diff, n_special, first in r:
                m = merged.setdefault(top, [probe, 0, 0, 0, None])
                m[1] += n_in
                m[2] += n_diff
                m[3] += n_special
                m[4] = m[4] or first
        result = [(t, *v) for t, v in sorted(merged.items())]
    else:
        result, skipped = check_binades(args, exps)
    if not result:
        raise SystemExit("emulate_ln: no loop of the kernel could be run")
    bad = False
    model_name = "mkl_ln_f32" + ("" if args.model == "generic" else "_" + args.model)
    print(f"{os.path.basename(args.lib)} {args.symbol} emulated, against {model_name}, biased exponents {a}..{b - 1}:")
    for top, probe, n_in, n_diff, n_special, first in result:
        print(f"  loop at {top:#x} ({probe} lanes per iteration): {n_in} inputs, {n_diff} differ, "
              f"{n_special} take the special path" +
              (f"; first: x={first[0]!r} ({first[1]}) kernel {first[2]} model {first[3]}" if first else ""))
        bad |= n_diff > 0 or n_special > 0
    if skipped:
        print(f"  {len(skipped)} other loops not run (the scalar path for special inputs: they branch on a "
              "lane's class, read spilled vectors or extract lanes)" + ("" if args.verbose else "; --verbose lists them"))
    if args.verbose:
        for top, why in skipped:
            print(f"  loop at {top:#x}: not run ({why})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
