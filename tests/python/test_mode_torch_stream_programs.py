"""Random programs under the mode's torch-cpu streams (issue 26 item 3): each
of PROGRAMS fixed-seed random programs (1 to 5 calls from 40-odd kinds: the
factories, the in-place fills on contiguous, transposed, strided, offset and
channels_last tensors, every floating and integer dtype torch has, sizes
around torch's 16-element normal threshold and its parallel grain, out=
forms, explicit generators, fork_rng, nn.init, dropout variants, rrelu,
Poisson, gamma, complex and float8 dtypes, calls torch refuses) runs with
plain torch and inside ``xrng.reproducible(stream=..., strict=True)`` in the
same process, whose torch runs the matching kernel (ATEN_CPU_CAPABILITY=avx2
for "torch-cpu-x86", =default for "torch-cpu-scalar"). Every output must be
equal bit for bit with the same strides, every refusal the same exception
and message, and torch's generator state equal after each program. Run as a
script (``python3 test_mode_torch_stream_programs.py STREAM N``) it prints
one line per difference and a summary.
"""
import json
import os
import random
import subprocess
import sys
import warnings

import pytest

PROGRAMS = 150

KINDS = ["randn", "rand", "normal_", "uniform_", "exponential_", "geometric_", "log_normal_", "cauchy_", "randint",
         "random_", "random_full", "random_noargs", "random_to_float", "randperm", "randperm_big", "bernoulli_s",
         "bernoulli_t", "bernoulli_f", "bernoulli_pp", "multinomial", "multinomial_2d", "dropout", "alpha_dropout",
         "dropout2d", "dropout_inplace_nc", "normal_tt", "normal_ff", "normal_tf", "normal_ft", "normal_out",
         "randn_complex", "rand_like_cl", "randint_like", "gumbel", "gen_explicit", "init", "rrelu", "out_form",
         "float8", "fork", "uniform_same", "poisson", "gamma"]
SIZES = [0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257, 1000, 4097, 32769]


def _run_programs(stream: str, n: int) -> dict:
    import torch
    import torch.nn.functional as F

    import xrng

    floats = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
    ints = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool, torch.uint16, torch.uint32,
            torch.uint64]

    def layout(r, n, dtype):
        k = r.randrange(5)
        if k == 1 and n >= 4 and n % 4 == 0:
            return torch.empty(4, n // 4, dtype=dtype).t()
        if k == 2:
            return torch.empty(2 * n, dtype=dtype)[::2]
        if k == 3:
            return torch.empty(n + 3, dtype=dtype)[3:]
        if k == 4 and n and n % 6 == 0:
            return torch.empty(1, 2, n // 6, 3, dtype=dtype).to(memory_format=torch.channels_last)
        return torch.empty(n, dtype=dtype)

    def one(out, op, n, fd, idt, x, k, z):
        rr = random.Random(z)
        if op == "randn":
            out.append(torch.randn(n, dtype=fd))
        elif op == "rand":
            out.append(torch.rand(n, dtype=fd))
        elif op == "normal_":
            out.append(layout(rr, n, fd).normal_(x, 1 + x))
        elif op == "uniform_":
            out.append(layout(rr, n, fd).uniform_(-x, 3))
        elif op == "exponential_":
            out.append(layout(rr, n, fd).exponential_(0.5 + x))
        elif op == "geometric_":
            out.append(layout(rr, n, fd).geometric_(0.05 + 0.9 * x))
        elif op == "log_normal_":
            out.append(layout(rr, n, fd).log_normal_(x, 0.25))
        elif op == "cauchy_":
            out.append(layout(rr, n, fd).cauchy_(x, 2.0))
        elif op == "randint":
            lo, hi = {torch.bool: (0, 2), torch.uint8: (3, 200), torch.int8: (-100, 100), torch.int16: (-3000, 30000),
                      torch.uint16: (0, 60000), torch.uint32: (0, 60000), torch.uint64: (0, 60000)}.get(
                idt, rr.choice([(0, 10), (-2 ** 40, 2 ** 40), (-2 ** 31, 2 ** 31 - 1), (0, 2 ** 32 + 5), (5, 6)]))
            out.append(torch.randint(lo, hi, (n,), dtype=idt))
        elif op == "random_":
            t = layout(rr, n, idt if rr.random() < .6 else fd)
            out.append(t.random_(0, 2) if t.dtype == torch.bool else t.random_(0, 100))
        elif op == "random_full":
            t = layout(rr, n, torch.int64)
            out.append(t.random_(-2 ** 63, None) if k == 0 else t.random_(2 ** 40 + 7))
        elif op == "random_noargs":
            out.append(layout(rr, n, rr.choice(floats + ints)).random_())
        elif op == "random_to_float":
            out.append(layout(rr, n, fd).random_(int(2 ** (3 + 20 * x))))
        elif op == "randperm":
            out.append(torch.randperm(n, dtype=rr.choice([torch.int64, torch.int32, torch.float32, torch.int16])))
        elif op == "randperm_big":
            out.append(torch.randperm(rr.choice([65535, 65536, 70000]))[:100])
        elif op == "bernoulli_s":
            out.append(layout(rr, n, fd if rr.random() < .5 else idt).bernoulli_(x))
        elif op == "bernoulli_t":
            p = torch.rand(n, dtype=torch.float64 if k == 0 else torch.float32)
            out.append(layout(rr, n, fd).bernoulli_(p.to(fd) if k == 2 else p))
        elif op == "bernoulli_f":
            out.append(torch.bernoulli(torch.rand(n, dtype=fd)))
        elif op == "bernoulli_pp":
            out.append(torch.bernoulli(torch.rand(n, dtype=fd), x))
        elif op == "multinomial":
            if n:
                w = torch.rand(min(n, 3000), dtype=torch.float32 if fd == torch.float16 else fd)
                out.append(torch.multinomial(w, 1 + k * 7, replacement=True) if k < 2
                           else torch.multinomial(w, min(len(w), 1 + k), replacement=False))
        elif op == "multinomial_2d":
            w = torch.rand(k + 1, max(n % 50, 1), dtype=torch.float32 if fd == torch.float16 else fd)
            out.append(torch.multinomial(w, min(w.shape[1], 3), replacement=bool(x < .5)))
        elif op == "dropout":
            out.append(F.dropout(torch.ones(n, dtype=fd), x * 0.9, training=True))
        elif op == "alpha_dropout":
            out.append(F.alpha_dropout(torch.ones(n, dtype=fd), x * 0.9, training=True))
        elif op == "dropout2d":
            out.append(F.dropout2d(torch.ones(2, 3, max(n // 6, 1), 1, dtype=fd), x * 0.9, training=True))
        elif op == "dropout_inplace_nc":
            t = layout(rr, n, fd).fill_(1.0)
            F.dropout(t, 0.4, training=True, inplace=True)
            out.append(t)
        elif op == "normal_tt":
            out.append(torch.normal(torch.rand(n, dtype=fd), torch.rand(n, dtype=fd) + 0.1))
        elif op == "normal_ff":
            out.append(torch.normal(x, 2.0, (n,), dtype=fd))
        elif op == "normal_tf":
            out.append(torch.normal(torch.rand(n, dtype=fd), 0.5 + x))
        elif op == "normal_ft":
            out.append(torch.normal(x, torch.rand(n, dtype=fd)))
        elif op == "normal_out":
            o = torch.empty(rr.choice([0, 1, 3, n]), dtype=fd)
            out += [torch.normal(torch.zeros(n, dtype=fd), 1.0, out=o), o]
        elif op == "randn_complex":
            out.append(torch.randn(n, dtype=torch.complex64 if k % 2 else torch.complex128))
        elif op == "rand_like_cl":
            b = torch.empty(2, 3, 4, 5, dtype=fd).to(memory_format=torch.channels_last)
            out.append(torch.randn_like(b) if k % 2 else torch.rand_like(b))
        elif op == "randint_like":
            out.append(torch.randint_like(layout(rr, n, torch.int64 if idt == torch.bool else idt), 3, 90))
        elif op == "gumbel":
            out.append(F.gumbel_softmax(torch.zeros(max(n, 1), 4), tau=0.5, hard=bool(k % 2)))
        elif op == "gen_explicit":
            g = torch.Generator().manual_seed(z)
            out += [torch.randn(n, generator=g, dtype=fd), torch.randperm(min(n, 5000), generator=g),
                    torch.rand(3, generator=g), g.get_state()]
        elif op == "init":
            w = torch.empty(max(n // 8, 1), 8, dtype=fd if fd in (torch.float32, torch.float64) else torch.float32)
            f = [torch.nn.init.kaiming_normal_, torch.nn.init.xavier_uniform_, torch.nn.init.orthogonal_,
                 lambda t: torch.nn.init.sparse_(t, 0.3), lambda t: torch.nn.init.trunc_normal_(t, 0, 1, -0.5, 0.5)][k]
            out.append(f(w).clone())
        elif op == "rrelu":
            t = layout(rr, n, fd).fill_(-1.0)
            out.append(torch.rrelu_(t, 0.1, 0.3, training=True) if k % 2 else F.rrelu(t, training=True))
        elif op == "out_form":
            o = torch.empty(0, dtype=fd)
            [torch.randn, torch.rand][k % 2](n, out=o)
            o2 = torch.empty(2, dtype=torch.int64)
            torch.randint(0, 7, (n,), out=o2)
            o3 = torch.empty(1, dtype=torch.int64)
            torch.randperm(min(n, 5000), out=o3)
            out += [o, o2, o3]
        elif op == "float8":
            t = torch.empty(n, dtype=rr.choice([torch.float8_e4m3fn, torch.float8_e5m2, torch.complex64,
                                                 torch.complex32]))
            r = [t.uniform_, t.normal_, t.exponential_, lambda: t.random_(0, 3), lambda: t.bernoulli_(0.5)][k]()
            out.append(r.view(torch.uint8) if r.dtype.itemsize == 1 else r)
        elif op == "fork":
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(z)
                out.append(torch.randn(n))
            out.append(torch.rand(5))
        elif op == "uniform_same":
            out.append(layout(rr, n, fd).uniform_(x, x))
        elif op == "poisson":
            out.append(torch.poisson(torch.rand(n, dtype=fd if fd in (torch.float32, torch.float64)
                                                else torch.float32) * 40))
        elif op == "gamma":
            out.append(torch._standard_gamma(torch.rand(n, dtype=fd if fd in (torch.float32, torch.float64)
                                                        else torch.float32) * 3 + 0.01))

    def run(prog):
        out = []
        for call in prog:
            try:
                one(out, *call)
            except Exception as e:  # noqa: BLE001 - the refusal compared
                out.append(f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
        out.append(torch.get_rng_state())
        return out

    def same(a, b):
        if isinstance(a, str) or isinstance(b, str):
            return a == b
        if a.dtype != b.dtype or a.shape != b.shape or a.stride() != b.stride():
            return False
        if a.is_complex():
            a, b = torch.view_as_real(a), torch.view_as_real(b)
        if a.dtype.is_floating_point and a.numel():
            def bits(t):  # (NaN payloads and signed zeros compared too)
                return t.clone(memory_format=torch.contiguous_format).view(-1).view(torch.uint8)
            return torch.equal(bits(a), bits(b))
        return torch.equal(a, b)

    diffs, refusals, outputs = [], 0, 0
    warnings.simplefilter("ignore")
    for it in range(n):
        r = random.Random(it * 7919 + 1)
        prog = [(r.choice(KINDS), r.choice(SIZES), r.choice(floats), r.choice(ints), r.random(), r.randrange(5),
                 r.randrange(1 << 30)) for _ in range(r.randrange(1, 6))]
        seed = r.randrange(1 << 40)
        torch.manual_seed(seed)
        want = run(prog)
        try:
            with xrng.reproducible(stream=stream, strict=True):
                torch.manual_seed(seed)
                got = run(prog)
        except Exception as e:  # noqa: BLE001 - reported below
            diffs.append(f"program {it}: {type(e).__name__}: {e}"[:300])
            continue
        outputs += len(want)
        refusals += sum(isinstance(a, str) for a in want)
        bad = [i for i, (a, b) in enumerate(zip(want, got)) if not same(a, b)]
        if len(want) != len(got) or bad:
            i = bad[0] if bad else min(len(want), len(got))
            diffs.append(f"program {it} (seed {seed}): output {i} of {len(want)} differs: {prog}; "
                         f"torch {str(want[i])[:100]!r} / mode {str(got[i])[:100]!r}"
                         if i < min(len(want), len(got)) else f"program {it}: {len(want)} / {len(got)} outputs")
    return {"diffs": diffs, "outputs": outputs, "refusals": refusals,
            "capability": torch.backends.cpu.get_cpu_capability()}


@pytest.mark.parametrize("stream,capability,want", [("torch-cpu-x86", "avx2", "AVX2"),
                                                    ("torch-cpu-scalar", "default", "DEFAULT")])
def test_random_programs_equal_plain_torch(stream, capability, want):
    r = subprocess.run([sys.executable, __file__, stream, str(PROGRAMS)], capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, ATEN_CPU_CAPABILITY=capability))
    assert r.returncode in (0, 1), r.stderr[-3000:]
    res = json.loads(r.stdout.splitlines()[-1])
    if res["capability"] != want:
        pytest.skip(f"this CPU's torch runs {res['capability']} with ATEN_CPU_CAPABILITY={capability}")
    assert not res["diffs"], "\n".join(res["diffs"][:10])
    assert res["outputs"] > 5 * PROGRAMS // 2 and res["refusals"] > 5  # the programs drew, and torch refused some


if __name__ == "__main__":
    result = _run_programs(sys.argv[1], int(sys.argv[2]))
    for d in result["diffs"]:
        print(d)
    print(json.dumps(result))
    sys.exit(1 if result["diffs"] else 0)
