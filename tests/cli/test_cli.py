#!/usr/bin/env python3
"""CLI tests for `xrng`: known answers, the golden vectors through gen's flags, formats,
random access, fingerprints, the registry-derived usage and flags, bad input.

Usage: test_cli.py PATH_TO_XRNG KAT_DIR GOLDEN_FILE
"""
import hashlib
import os
import pty
import shlex
import select
import signal
import struct
import subprocess
import sys
import time

XRNG, KAT_DIR, GOLDEN = sys.argv[1], sys.argv[2], sys.argv[3]
passed = failed = 0


def run(*args, ok=True):
    p = subprocess.run([XRNG, *map(str, args)], capture_output=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"xrng {' '.join(map(str, args))} failed: {p.stderr.decode()}")
    return p


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def lines(*args):
    return run(*args).stdout.decode().split()


# 1. cuRAND stream known answers through the CLI
with open(os.path.join(KAT_DIR, "curand_stream.txt")) as f:
    for ln in f:
        if ln.startswith("#") or not ln.strip():
            continue
        toks = ln.split()
        seed, subseq, offset, words = toks[0], toks[1], toks[2], toks[3:]
        got = lines("gen", "--dist", "bits", "--seed", seed, "--subseq", subseq, "--offset", offset,
                    "--count", len(words), "--format", "hex")
        check(f"kat {seed} {subseq} {offset}", got == words, f"{got} != {words}")

# 1b. every golden vector that gen can draw (all but transforms), through gen's flags, in
# both golden files: the file's parameter tokens (registry parameter names, C99 hex floats /
# decimals) are gen's --<param> flags, so this checks that every flag sets its parameter;
# a line's stream= token (absent in golden_v1.txt: stream 1) is gen's --stream.
# XRNG_CLI_TEST_SAMPLE=N (the sanitizer build, tests/cli/CMakeLists.txt): every line whose
# operation, dtype, stream and set of flags is new, and one line in N of the rest (each line is
# one process, 45 ms under ASan; test_golden checks every line in C++ on every build).
GOLDEN_V2 = os.path.join(os.path.dirname(GOLDEN), "golden_v2.txt")
SAMPLE = int(os.environ.get("XRNG_CLI_TEST_SAMPLE", "1"))
ngolden = nlines = 0
shapes = set()
for path in (GOLDEN, GOLDEN_V2):
    for n, ln in enumerate(open(path), 1):
        if ln.startswith("#") or not ln.strip():
            continue
        kv = dict(t.split("=", 1) for t in ln.split())
        if kv["op"] == "dropout":
            continue
        kv.setdefault("stream", "1")
        nlines += 1
        shape = (kv["op"], kv.get("dist"), kv.get("dtype"), kv["stream"], tuple(sorted(kv)))
        if shape in shapes and nlines % SAMPLE != 0:
            continue
        shapes.add(shape)
        args = ["gen", "--format", "hex"]
        for k, v in kv.items():
            if k == "op":
                if v == "perm_inverse":
                    args.append("--inverse")
            elif k != "out":
                args += ["--" + k, v]
        want = kv["out"].split(",") if kv["out"] else []
        got = lines(*args)
        check(f"{os.path.basename(path)} line {n} through gen", got == want,
              f"{' '.join(args)}: {got[:4]} != {want[:4]}")
        ngolden += 1
# each file is append-only: 888 lines at stream v1 + the four new distributions
check("golden lines through gen", nlines >= 2 * 888 and ngolden >= nlines // SAMPLE, str((nlines, ngolden)))

# 2. formats: hex width, bin = hex, fingerprint = sha256(bin), text round-trips
widths = {"u32": 8, "u64": 16, "f32": 8, "f64": 16, "f16": 4, "bf16": 4, "i32": 8, "i64": 16, "u8": 2}
cases = [("bits", "u32", []), ("bits", "u64", []), ("uniform", "f32", []), ("uniform", "f64", ["--low", "-3", "--high", "0x10"]),
         ("uniform", "f16", []), ("uniform", "bf16", []), ("normal", "f32", ["--mean", "1.5", "--std", "0.5"]),
         ("normal", "f64", []), ("normal", "f16", []), ("normal", "bf16", []), ("bernoulli", "u8", ["--p", "0.3"]),
         ("randint", "i32", ["--low", "-7", "--high", "100"]), ("randint", "i64", ["--low", "-9223372036854775808", "--high", "9223372036854775807"]),
         ("perm", "i64", ["--n", "1000"]), ("perm", "i32", ["--n", "77"]),
         ("exponential", "f32", ["--rate", "2.5"]), ("exponential", "f64", []), ("exponential", "f16", ["--rate", "1e-30"]),
         ("exponential", "bf16", []), ("geometric", "f32", ["--p", "0.3"]), ("geometric", "f64", ["--p", "1e-4"]),
         ("geometric", "bf16", ["--p", "0.5"]), ("geometric", "i32", ["--p", "1e-9"]), ("geometric", "i64", ["--p", "0.01"]),
         ("log_normal", "f32", ["--mean", "1", "--std", "2"]), ("log_normal", "f64", []), ("log_normal", "f16", ["--mean", "11"]),
         ("cauchy", "f32", ["--median", "-2", "--sigma", "0.5"]), ("cauchy", "f64", []), ("cauchy", "bf16", ["--sigma", "1e4"])]
fmt = {"u32": "<I", "u64": "<Q", "f32": "<f", "f64": "<d", "f16": "<H", "bf16": "<H", "i32": "<i", "i64": "<q", "u8": "<B"}
for dist, dt, extra in cases:
    base = ["--dist", dist, "--dtype", dt, "--seed", "0x1234", "--subseq", "3", "--offset", "5", *extra]
    cnt = ["--count", 77]
    hx = lines("gen", *base, *cnt, "--format", "hex")
    check(f"hex width {dist}/{dt}", all(len(h) == widths[dt] for h in hx) and len(hx) == 77)
    b = run("gen", *base, *cnt, "--format", "bin").stdout
    sz = struct.calcsize(fmt[dt])
    vals = [struct.unpack_from(fmt[dt], b, i * sz)[0] for i in range(77)]
    bits_from_bin = [format(struct.unpack_from({1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[sz], b, i * sz)[0], f"0{2*sz}x") for i in range(77)]
    check(f"bin == hex {dist}/{dt}", bits_from_bin == hx)
    fp = lines("fingerprint", *base, *cnt)[0]
    check(f"fingerprint {dist}/{dt}", fp == hashlib.sha256(b).hexdigest())
    txt = lines("gen", *base, *cnt, "--format", "text")
    if dt in ("f32", "f64"):
        back = [struct.unpack(fmt[dt], struct.pack(fmt[dt], float(t)))[0] for t in txt]
        check(f"text round-trip {dist}/{dt}", [struct.pack(fmt[dt], v) for v in back] == [struct.pack(fmt[dt], v) for v in vals])
    elif dt in ("f16",):
        back = [struct.pack("<e", float(t)) for t in txt]
        check(f"text round-trip {dist}/{dt}", back == [struct.pack("<H", v) for v in vals])
    elif dt == "bf16":
        back = [struct.pack("<f", float(t))[2:] for t in txt]
        check(f"text round-trip {dist}/{dt}", back == [struct.pack("<H", v) for v in vals])
    else:
        check(f"text {dist}/{dt}", [int(t) for t in txt] == vals)
    # 3. random access and chunking: --start k gives the tail; any split concatenates
    for k in (1, 2, 5, 33):
        tail = lines("gen", *base, "--start", k, "--count", 77 - k, "--format", "hex")
        check(f"random access {dist}/{dt} k={k}", tail == hx[k:])
    # 4. backends and threads agree
    big = 100003 if dist != "perm" else 77
    fps = {lines("fingerprint", *base, "--count", big, "--backend", be, "--threads", th)[0]
           for be in ("cpu-scalar", "auto") for th in (1, 2, 3)}
    check(f"backends/threads {dist}/{dt}", len(fps) == 1, str(fps))

# 5. --epoch E is --seed 123456789+E; decimal == hex numbers
check("epoch", lines("gen", "--dist", "bits", "--epoch", 3, "--count", 4) ==
      lines("gen", "--dist", "bits", "--seed", 123456792, "--count", 4))
check("hex numbers", lines("gen", "--dist", "bits", "--seed", "0x10", "--count", "0x4") ==
      lines("gen", "--dist", "bits", "--seed", 16, "--count", 4))
# perm: a permutation; shards form it; inverse inverts it
perm = [int(x) for x in lines("gen", "--dist", "perm", "--n", 1001, "--seed", 9)]
check("perm is a permutation", sorted(perm) == list(range(1001)))
inv = [int(x) for x in lines("gen", "--dist", "perm", "--n", 1001, "--seed", 9, "--inverse")]
check("perm inverse", all(perm[inv[v]] == v for v in range(1001)))
shards = [[int(x) for x in lines("gen", "--dist", "perm", "--n", 1001, "--seed", 9, "--rank", r, "--world", 4, "--count", 251)] for r in range(4)]
check("perm shards interleave", all(shards[r][j] == perm[(r + 4 * j) % 1001] for r in range(4) for j in range(251)))
check("perm last element", lines("gen", "--dist", "perm", "--n", 2**63, "--start", 2**63 - 1, "--count", 1) != [])

# draws that end exactly at element 2^64 (the end index wraps in 64 bits)
for be in ("cpu-scalar", "auto"):
    a = lines("gen", "--dist", "bits", "--start", "0xfffffffffffffffd", "--count", 3, "--format", "hex", "--backend", be)
    b = lines("gen", "--dist", "bits", "--offset", "0xfffffffffffffffd", "--count", 3, "--format", "hex")
    check(f"end at element 2^64 ({be})", a == b and len(a) == 3, f"{a} != {b}")
    a = lines("gen", "--dist", "uniform", "--start", "0xffffffffffffffff", "--count", 1, "--format", "hex", "--backend", be)
    b = lines("gen", "--dist", "uniform", "--offset", "0xffffffffffffffff", "--count", 1, "--format", "hex")
    check(f"uniform last element ({be})", a == b and len(a) == 1, f"{a} != {b}")

# verify --quick: every golden case on every backend, one table row per registry row, all agreeing
p = run("verify", "--quick", ok=False)
out = p.stdout.decode()
ncases = sum(1 for ln in open(GOLDEN) if ln.strip() and not ln.startswith("#"))
ncases2 = sum(1 for ln in open(GOLDEN_V2) if ln.strip() and not ln.startswith("#"))
check("verify --quick passes", p.returncode == 0 and "verify: all backends agree" in out, out[-500:])
check("verify reads every golden case of both streams",
      f"golden_v1.txt, {ncases} cases" in out and f"golden_v2.txt, {ncases2} cases" in out, str((ncases, ncases2)))
# the golden table: a column per stream version, every backend passing both
gold = [ln.split() for ln in out.splitlines() if ln.startswith("  cpu-")]
want_cells = [f"{ncases}/{ncases}", "PASS", f"{ncases2}/{ncases2}", "PASS"]
check("verify golden columns per stream", gold and all(r[1:] == want_cells for r in gold), str(gold))
table = [ln.split() for ln in out.splitlines() if ln.startswith("  ") and "/" in ln.split()[0]]
# the rows of both stream versions, each labelled with the versions that use it
streams = {(r[0], r[1]) for r in table}
check("verify table rows of both streams", {("normal/f32", "1"), ("normal/f32", "2"), ("normal/f64", "1,2"),
                                            ("uniform/f32", "1,2"), ("cauchy/bf16", "2")} <= streams,
      str(sorted(streams)))
check("verify table rows", {r[0] for r in table} >= {"geometric/i32", "geometric/i64", "log_normal/f16", "cauchy/bf16",
                                                       "exponential/f64", "perm/u32", "dropout/bf16", "bits/u32"}
      and all(r[-1] == "yes" for r in table), str(table[:3]))

# registry-derived usage: every distribution, its dtypes and parameter flags
usage = run("--help").stdout.decode()
for word in ("exponential", "geometric", "log_normal", "cauchy", "--rate", "--median", "--sigma", "--ilow|--low",
             "f32 f64 f16 bf16 i32 i64*"):
    check(f"usage lists {word}", word in usage)
# randint's bounds: --ilow/--ihigh (the registry's names) and --low/--high (the CLI's first names) agree
check("randint --ilow/--ihigh == --low/--high",
      lines("gen", "--dist", "randint", "--ilow", -7, "--ihigh", 100, "--count", 50) ==
      lines("gen", "--dist", "randint", "--low", -7, "--high", 100, "--count", 50))
# a flag the distribution does not read is rejected, naming what it reads
for dist, flag, reads in (("normal", "--rate", "--mean, --std"), ("cauchy", "--p", "--median, --sigma"),
                          ("geometric", "--mean", "--p"), ("exponential", "--low", "--rate"),
                          ("bits", "--sigma", "no parameters"), ("uniform", "--ihigh", "--low, --high")):
    p = run("gen", "--dist", dist, "--count", 1, flag, "1", ok=False)
    err = p.stderr.decode()
    check(f"rejected {flag} for {dist}", p.returncode == 1 and f"{flag} does not apply to --dist {dist}" in err
          and reads in err and p.stdout == b"", err)

# 6. bad input: non-zero exit, one line on stderr, nothing on stdout, no crash
bad = [
    [], ["frobnicate"], ["gen"], ["gen", "--dist", "normal"], ["gen", "--dist", "normal", "--count", "-1"],
    ["gen", "--dist", "normal", "--count", "1e3"], ["gen", "--dist", "normal", "--count", "18446744073709551616"],
    ["gen", "--dist", "nope", "--count", "1"], ["gen", "--dist", "normal", "--dtype", "i32", "--count", "1"],
    ["gen", "--dist", "bits", "--dtype", "f99", "--count", "1"],
    ["gen", "--dist", "bernoulli", "--p", "1.5", "--count", "1"], ["gen", "--dist", "bernoulli", "--p", "-0.1", "--count", "1"],
    ["gen", "--dist", "bernoulli", "--p", "nan", "--count", "1"], ["gen", "--dist", "bernoulli", "--count", "1"],
    ["gen", "--dist", "uniform", "--low", "1", "--high", "1", "--count", "1"],
    ["gen", "--dist", "uniform", "--low", "2", "--high", "1", "--count", "1"],
    ["gen", "--dist", "uniform", "--low", "0", "--high", "inf", "--count", "1"],
    ["gen", "--dist", "uniform", "--dtype", "f16", "--low", "0", "--high", "1e6", "--count", "1"],
    ["gen", "--dist", "normal", "--std", "-1", "--count", "1"], ["gen", "--dist", "normal", "--mean", "nan", "--count", "1"],
    ["gen", "--dist", "randint", "--low", "5", "--high", "5", "--count", "1"],
    ["gen", "--dist", "randint", "--dtype", "i32", "--low", "0", "--high", "3000000000", "--count", "1"],
    ["gen", "--dist", "perm", "--n", "0"], ["gen", "--dist", "perm", "--n", str(2**63 + 1), "--count", "1"],
    ["gen", "--dist", "perm", "--n", "10", "--start", "5", "--count", "6"],
    ["gen", "--dist", "perm", "--n", "10", "--rank", "4", "--world", "4", "--count", "1"],
    ["gen", "--dist", "bits", "--offset", "0xffffffffffffffff", "--count", "2"],
    ["gen", "--dist", "bits", "--offset", "0x1ffffffffffffffff", "--count", "1"],
    ["gen", "--dist", "normal", "--dtype", "f64", "--offset", "0xfffffffffffffffc", "--count", "3"],
    ["gen", "--dist", "bits", "--count", "1", "--format", "xml"], ["gen", "--dist", "bits", "--count", "1", "--backend", "gpu"],
    ["gen", "--dist", "bits", "--count", "1", "--seed", "1", "--epoch", "1"], ["gen", "--dist", "bits", "--count", "1", "--bogus", "1"],
    ["gen", "--dist", "bits", "--count", "1", "--p", "0.5"], ["gen", "--dist", "bits", "--count"],
    ["gen", "--dist", "dropout", "--count", "1"], ["fingerprint", "--dist", "bits", "--count", "1", "--format", "hex"],
    ["verify", "--bogus"],
    ["gen", "--dist", "geometric", "--count", "1"], ["gen", "--dist", "geometric", "--p", "0", "--count", "1"],
    ["gen", "--dist", "geometric", "--dtype", "u8", "--p", "0.5", "--count", "1"],
    ["gen", "--dist", "exponential", "--rate", "0", "--count", "1"], ["gen", "--dist", "exponential", "--rate", "-1", "--count", "1"],
    ["gen", "--dist", "cauchy", "--sigma", "-1", "--count", "1"], ["gen", "--dist", "log_normal", "--std", "inf", "--count", "1"],
    ["gen", "--dist", "normal", "--rate", "1", "--count", "1"], ["gen", "--dist", "normal", "--count", "1", "--rank", "0", "--world", "2"],
    ["gen", "--dist", "uniform", "--count", "1", "--inverse"],
    ["gen", "--dist", "randint", "--low", "0", "--ilow", "0", "--high", "5", "--count", "1"],
    ["gen", "--dist", "randint", "--ihigh", "5", "--high", "5", "--count", "1"],
    ["gen", "--dist", "randint", "--ihigh", "1.5", "--count", "1"], ["gen", "--dist", "perm", "--n", "-3"],
    ["gen", "--dist", "normal", "--dtype", "f32", "--mean", "1e39", "--count", "1"],
    ["gen", "--dist", "normal", "--dtype", "f16", "--mean", "70000", "--count", "1"],
    ["gen", "--dist", "normal", "--dtype", "f16", "--std", "1e6", "--count", "1"],
    ["gen", "--dist", "cauchy", "--dtype", "bf16", "--median", "1e39", "--count", "1"],
    ["gen", "--dist", "log_normal", "--dtype", "f16", "--mean", "1e5", "--count", "1"],
    ["gen", "--dist", "bits", "--count", "1", "--threads", "1025"], ["version", "extra"],
]
for args in bad:
    p = run(*args, ok=False)
    err = p.stderr.decode().strip().splitlines()
    check(f"bad input {args}", p.returncode not in (0, 134, 136, 139) and p.returncode > 0 and len(err) >= 1
          and (len(err) == 1 or not args) and p.stdout == b"", f"rc={p.returncode} err={err}")
# the last word of the stream is reachable, one past it is not
check("last word ok", run("gen", "--dist", "bits", "--offset", "0xffffffffffffffff", "--count", "1").returncode == 0)

# 7. help: `xrng` alone is a usage error (usage on stderr, status 2); `xrng --help`, `-h`, `help`
# print it on stdout with status 0; every command answers --help / -h (anywhere in its arguments)
# with its own usage and status 0.
p = run(ok=False)
check("no command: status 2, usage on stderr", p.returncode == 2 and p.stdout == b"" and
      p.stderr.decode().startswith("usage:"), f"rc={p.returncode}")
for flag in ("--help", "-h", "help"):
    p = run(flag, ok=False)
    check(f"xrng {flag}: status 0, usage on stdout", p.returncode == 0 and p.stdout.decode().startswith("usage:")
          and p.stderr == b"", f"rc={p.returncode}")
for cmd, synopsis in (("gen", "xrng gen --dist D"), ("fingerprint", "xrng fingerprint"), ("verify", "xrng verify"),
                      ("version", "xrng version")):
    for args in ([cmd, "--help"], [cmd, "-h"], ["help", cmd], [cmd, "--dist", "normal", "--help"]):
        p = run(*args, ok=False)
        out = p.stdout.decode()
        check(f"help {args}", p.returncode == 0 and out.startswith("usage:") and synopsis in out and p.stderr == b"",
              f"rc={p.returncode} {p.stderr.decode()}")
p = run("frobnicate", "--help", ok=False)
check("help of an unknown command", p.returncode == 1 and "unknown command" in p.stderr.decode())
# every distribution the CLI knows (the list in its unknown-distribution error, from the registry) is a
# row of gen's usage, dropout included, and is listed by `xrng --help` too
err = run("gen", "--dist", "nope", "--count", 1, ok=False).stderr.decode()
known = err[err.index("(") + 1:err.rindex(")")].split(", ")
gen_usage = run("gen", "--help").stdout.decode()
rows = {ln.split()[0] for ln in gen_usage.splitlines() if ln.startswith("  ") and not ln.startswith("   ")}
check("the error's distributions", len(known) >= 11 and "dropout" in known, str(known))
check("gen --help lists every distribution", set(known) <= rows, f"{set(known) - rows}")
check("xrng --help lists every distribution", all(f"\n  {d} " in usage for d in known))
check("gen --help documents the shard count and signals",
      "ceil(n / world) - start" in gen_usage and "SIGINT" in gen_usage and "finite in the" in gen_usage)

# 8. --count defaults for permutations: the rest of the permutation, or of the shard (ceil(n / world)
# elements, as Python's perm_shard); the demo's printed command works as printed
check("shard default count", lines("gen", "--dist", "perm", "--epoch", 3, "--n", 10, "--rank", 1, "--world", 2) ==
      lines("gen", "--dist", "perm", "--epoch", 3, "--n", 10, "--rank", 1, "--world", 2, "--count", 5))
check("shard default count, world does not divide n",
      lines("gen", "--dist", "perm", "--n", 11, "--rank", 1, "--world", 2, "--start", 2) ==
      lines("gen", "--dist", "perm", "--n", 11, "--rank", 1, "--world", 2, "--start", 2, "--count", 4))
p = run("gen", "--dist", "perm", "--n", 11, "--rank", 1, "--world", 2, "--start", 7, ok=False)
check("shard --start beyond its length", p.returncode == 1 and "exceeds the shard's length 6" in p.stderr.decode())
check("perm default count", len(lines("gen", "--dist", "perm", "--n", 10, "--start", 3)) == 7)

# 9. one rule for location and scale parameters: finite in the output dtype, for every distribution
# (values beyond the range still round to inf: exponential with a tiny rate, normal tails)
for dist, dt, flag, v, mx in (("normal", "f32", "--mean", "1e+39", "3.4028234663852886e+38"),
                              ("normal", "f16", "--mean", "70000", "65504"), ("normal", "f16", "--std", "1000000", "65504"),
                              ("log_normal", "bf16", "--std", "1e+39", "3.3895313892515355e+38"),
                              ("cauchy", "f16", "--median", "-65520", "65504"), ("cauchy", "f32", "--sigma", "1e+39", "3.4028234663852886e+38"),
                              ("uniform", "f16", "--high", "1000000", "65504"), ("uniform", "f64", "--low", "-inf", "1.7976931348623157e+308")):
    p = run("gen", "--dist", dist, "--dtype", dt, flag, v, "--count", 2, ok=False)
    err = p.stderr.decode()
    want = f"xrng: error: {dist}: {flag[2:]} = {v} is not finite in {dt} (largest finite value {mx};"
    check(f"{dist} {dt} {flag} {v} rejected", p.returncode == 1 and p.stdout == b"" and err.startswith(want)
          and err.count("\n") == 1, err)
check("f16 mean 65504 accepted", run("gen", "--dist", "normal", "--dtype", "f16", "--mean", 65504, "--count", 2).returncode == 0)
check("inf values of a finite-parameter draw", "inf" in lines("gen", "--dist", "exponential", "--dtype", "f16",
                                                               "--rate", "1e-30", "--count", 4))

# 10. --threads: the host library's bound (xrng::kMaxThreads), shared with Python
for t in ("1025", "1000000", "-1"):
    p = run("gen", "--dist", "bits", "--count", 1, "--threads", t, ok=False)
    check(f"--threads {t} rejected", p.returncode == 1 and "--threads" in p.stderr.decode())
check("--threads 1024 accepted", run("gen", "--dist", "bits", "--count", 1, "--threads", 1024).returncode == 0)

# 11. endless draws: quiet when stderr is not a terminal; progress on a terminal (percent, elements,
# rate, ETA) after the first second; SIGINT / SIGTERM stop at a chunk boundary, promptly, with
# status 128 + signal and one line; also when the reader of a pipe stopped reading.
ENDLESS = ["gen", "--dist", "normal", "--count", "18446744073709551615", "--format", "null"]


def stop(p, sig, after):
    time.sleep(after)
    p.send_signal(sig)
    t = time.monotonic()
    try:
        rc = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None, 99.0
    return rc, time.monotonic() - t


for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
    p = subprocess.Popen([XRNG, *ENDLESS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rc, took = stop(p, sig, 1.5)
    err = p.stderr.read().decode()
    check(f"{name} stops an endless draw", rc == 128 + sig and took < 2.0, f"rc={rc} took={took:.2f}s")
    check(f"{name}: one line, no progress when stderr is a pipe",
          err.startswith(f"xrng: interrupted by {name} after ") and err.count("\n") == 1 and "\r" not in err, repr(err))
# a writer blocked on a full pipe (the reader never reads) stops too
for fmt in ("bin", "text"):
    p = subprocess.Popen([XRNG, "gen", "--dist", "normal", "--count", "100000000", "--format", fmt],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rc, took = stop(p, signal.SIGINT, 1.0)
    check(f"SIGINT stops a writer blocked on a full pipe ({fmt})", rc == 130 and took < 2.0, f"rc={rc} took={took:.2f}s")
    p.stdout.close()
    p.stderr.close()
# stderr on a pseudo-terminal: the status line appears after about a second and is refreshed
master, slave = pty.openpty()
p = subprocess.Popen([XRNG, *ENDLESS], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
seen, t0 = b"", time.monotonic()
while time.monotonic() - t0 < 2.5:
    if select.select([master], [], [], 0.1)[0]:
        seen += os.read(master, 65536)
rc, took = stop(p, signal.SIGINT, 0)
while select.select([master], [], [], 0.2)[0]:
    try:
        d = os.read(master, 65536)
    except OSError:
        break
    if not d:
        break
    seen += d
os.close(master)
text = seen.decode(errors="replace")
status = [s for s in text.split("\r") if s.startswith("\x1b[Kxrng: ") and "ETA" in s]
check("progress on a terminal", len(status) >= 3 and all("%" in s and "/ 18446744073709551615 elements" in s
                                                          and "elements/s" in s for s in status), repr(text[-300:]))
check("progress line cleared, then the interrupt line", rc == 130 and took < 2.0 and
      text.rstrip().endswith("of 18446744073709551615 elements") and "\x1b[Kxrng: interrupted by SIGINT" in text,
      repr(text[-200:]))
# a short draw on a terminal prints no status line
master, slave = pty.openpty()
p = subprocess.run([XRNG, "gen", "--dist", "normal", "--count", "1000", "--format", "null"], stderr=slave)
os.close(slave)
quiet = b""
while select.select([master], [], [], 0.1)[0]:
    try:
        d = os.read(master, 65536)
    except OSError:
        break
    if not d:
        break
    quiet += d
os.close(master)
check("no status line for a short draw", p.returncode == 0 and quiet == b"", repr(quiet))

# 12. the main job's demo (scripts/main.sh) prints each command exactly as it runs: re-running every
# printed `$ xrng ...` line gives the output printed under it
main_sh = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "main.sh")).read()
demo_part = main_sh[main_sh.index("demo() {"):]
p = subprocess.run(["bash", "-c", "set -euo pipefail\n" + demo_part], capture_output=True, env={**os.environ, "XRNG": XRNG})
check("main.sh demo runs", p.returncode == 0, p.stderr.decode())
blocks, cur = [], None
for ln in p.stdout.decode().splitlines():
    if ln.startswith("$ xrng "):
        cur = [ln[len("$ xrng "):], []]
        blocks.append(cur)
    elif ln.startswith(("#", "(", "==")) or not ln.strip():
        cur = None
    elif cur is not None:
        cur[1] += ln.split()
check("main.sh demo commands", len(blocks) >= 5, str(len(blocks)))
for cmd, shown in blocks:
    got = run(*shlex.split(cmd), ok=False)
    check(f"main.sh prints what it runs: xrng {cmd}", got.returncode == 0 and got.stdout.decode().split() == shown,
          f"{got.stderr.decode()} {got.stdout.decode().split()[:6]} != {shown[:6]}")

# 13. block draws of a global tensor (--shape, --block-start, --block-size): every fifth case of
# tests/data/golden_blocks.txt that gen can draw (both streams; the file has six blocks per row, so
# every fifth case takes each block of ranks 0..4 in turn; test_blocks checks every case in C++);
# blocks == the slice of the full draw on every host backend and 1 / 2 threads; bad input.
GOLDEN_BLOCKS = os.path.join(os.path.dirname(GOLDEN), "golden_blocks.txt")
nblocks = ncase = 0
for n, ln in enumerate(open(GOLDEN_BLOCKS), 1):
    if ln.startswith("#") or not ln.strip():
        continue
    ncase += 1
    if ncase % 5 != 0:
        continue
    kv = dict(t.split("=", 1) for t in ln.split())
    if kv["op"] == "dropout":
        continue
    kv.setdefault("stream", "1")
    args = ["gen", "--format", "hex"]
    for k, v in kv.items():
        if k in ("op", "out", "start", "count"):
            continue
        args += ["--" + k.replace("_", "-") if k.startswith("block_") else "--" + k, v]
    want = kv["out"].split(",") if kv["out"] else []
    got = lines(*args)
    check(f"golden_blocks.txt line {n} through gen", got == want, f"{' '.join(args)}: {got[:4]} != {want[:4]}")
    nblocks += 1
check("golden block lines through gen", nblocks > 60, str(nblocks))

simd = run("version").stdout.decode().split("simd ")[1].split()[0] != "none"
for dist, dt, extra, shape, bstart, bsize in [
        ("normal", "f32", [], [5, 7], [1, 3], [3, 3]), ("normal", "f64", ["--std", "2"], [3, 4, 5], [1, 1, 1], [2, 2, 3]),
        ("uniform", "bf16", [], [2, 3, 4, 5], [0, 1, 2, 1], [2, 2, 2, 3]), ("bits", "u64", [], [9], [4], [5]),
        ("randint", "i32", ["--high", "10"], [300, 700], [17, 3], [200, 601])]:
    shape_s, start_s, size_s = (",".join(map(str, v)) for v in (shape, bstart, bsize))
    full = lines("gen", "--dist", dist, "--dtype", dt, *extra, "--seed", "11", "--offset", "3", "--count",
                 str(eval("*".join(map(str, shape)))), "--format", "hex")
    strides = [eval("*".join(map(str, shape[d + 1:])) or "1") for d in range(len(shape))]
    idx = [0]
    for d in range(len(shape)):
        idx = [i + (bstart[d] + k) * strides[d] for i in idx for k in range(bsize[d])]
    want = [full[i] for i in idx]
    backends = ["cpu-scalar", "auto"] + (["cpu-simd"] if simd else [])
    for be in backends:
        for th in ("1", "2"):
            got = lines("gen", "--dist", dist, "--dtype", dt, *extra, "--seed", "11", "--offset", "3", "--shape",
                        shape_s, "--block-start", start_s, "--block-size", size_s, "--backend", be, "--threads", th,
                        "--format", "hex")
            check(f"block {dist}/{dt} {shape} {bstart} {bsize} on {be} x{th} == slice of the full draw", got == want,
                  f"{got[:3]} != {want[:3]}")
# defaults: --block-start 0,... and --block-size to the end of each dimension; --shape alone is the full draw
check("block defaults", lines("gen", "--dist", "bits", "--shape", "4,6", "--block-start", "2,5", "--format", "hex") ==
      [lines("gen", "--dist", "bits", "--count", "24", "--format", "hex")[i] for i in (17, 23)])
check("--shape alone", lines("gen", "--dist", "normal", "--shape", "3,3") == lines("gen", "--dist", "normal", "--count", "9"))
fp = lines("fingerprint", "--dist", "normal", "--shape", "4,6", "--block-start", "1,1", "--block-size", "2,2")
b = run("gen", "--dist", "normal", "--shape", "4,6", "--block-start", "1,1", "--block-size", "2,2", "--format", "bin").stdout
check("block fingerprint", fp[0] == hashlib.sha256(b).hexdigest() and "shape=4,6" in fp, str(fp))
check("help names --shape", "--block-start" in run("gen", "--help").stdout.decode())
for args in (["--shape", "4,6", "--block-start", "1"], ["--shape", "4,6", "--block-size", "1,2,3"],
             ["--shape", "4,6", "--block-start", "3,0", "--block-size", "2,1"], ["--shape", "4,6", "--block-start", "5,0"],
             ["--block-start", "1,1"], ["--block-size", "1"], ["--shape", "4,6", "--count", "3"], ["--shape", "4,6", "--start", "1"],
             ["--shape", "4,x"], ["--shape", "4,,6"], ["--shape", "4294967296,4294967296"], ["--shape", "-4"],
             ["--shape", "4,6", "--offset", "0xfffffffffffffff0"], ["--shape", "4"] * 2):
    p = run("gen", "--dist", "bits", *args, ok=False)
    err = p.stderr.decode().strip().splitlines()
    check(f"bad block {args}", p.returncode == 1 and len(err) == 1 and p.stdout == b"", f"rc={p.returncode} err={err}")
p = run("gen", "--dist", "perm", "--n", "10", "--shape", "2,4", ok=False)
check("perm block needs n = prod(shape)", p.returncode == 1 and b"8 elements, the permutation n = 10" in p.stderr)
check("perm block", lines("gen", "--dist", "perm", "--n", "12", "--shape", "3,4", "--block-start", "1,1", "--block-size", "1,2") ==
      lines("gen", "--dist", "perm", "--n", "12", "--start", "5", "--count", "2"))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
