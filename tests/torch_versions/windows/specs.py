"""The draws compared between torch's Windows wheel (check_windows.sh runs
them with wdraw.exe under wine) and the torch-cpu-x86-windows stream
(tests/python/test_torch_windows.py draws them under the mode).

SPECS: (seed, op, dtype, n, a, b); a seed "+S" continues the generator (the
sequence begun with seed S; wdraw does not reseed). draw(spec) makes the
same draw with torch (under the mode: the stream's values). key(spec) names
a spec in recorded_windows.json."""
import hashlib

import torch

SEEDS = [0, 1, 42, 2**32 + 5, 123456789]
SIZES = [1, 7, 15, 16, 17, 100, 4099, 65536]
FLOATS = ["f32", "f64", "f16", "bf16"]
DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
          "i64": torch.int64}


def _specs():
    out = []
    for s in SEEDS:
        for n in SIZES:
            for dt in FLOATS:
                out += [(s, "randn", dt, n, 0, 1), (s, "rand", dt, n, 0, 1), (s, "normal", dt, n, 0.7, 0.3),
                        (s, "uniform", dt, n, -1.3, 2.9), (s, "bernoulli", dt, n, 0.3, 0),
                        (s, "dropout", dt, n, 0.4, 0)]
            out += [(s, "randint", "i64", n, -5, 2**31), (s, "randint", "i64", n, 0, 10),
                    (s, "randperm", "i64", n, 0, 0)]
        # a sequence on one seed: the generator's position after each kind of draw
        c = f"+{s}"
        out += [(s, "randn", "f32", 5, 0, 1), (c, "randn", "f32", 3, 0, 1), (c, "rand", "f64", 33, 0, 1),
                (c, "randn", "f32", 100, 0, 1), (c, "randperm", "i64", 30, 0, 0), (c, "normal", "f64", 20, -2.0, 0.1),
                (c, "randn", "f32", 1000, 0, 1)]
    return out


SPECS = _specs()


def key(spec):
    s, op, dt, n, a, b = spec
    return f"{s} {op} {dt} {n} {a!r} {b!r}"


def wdraw_lines():
    return "".join(key(sp) + "\n" for sp in SPECS)


def itemsize(dt):
    return torch.empty(0, dtype=DTYPES[dt]).element_size()


def draw(spec):
    """The spec's draw with torch (the mode, if on, serves it); its bytes."""
    s, op, dt, n, a, b = spec
    d = DTYPES[dt]
    if not str(s).startswith("+"):
        torch.manual_seed(s)
    if op == "randn":
        t = torch.randn(n, dtype=d)
    elif op == "rand":
        t = torch.rand(n, dtype=d)
    elif op == "randint":
        t = torch.randint(int(a), int(b), (n,), dtype=d)
    elif op == "randperm":
        t = torch.randperm(n, dtype=d)
    elif op == "normal":
        t = torch.empty(n, dtype=d).normal_(a, b)
    elif op == "uniform":
        t = torch.empty(n, dtype=d).uniform_(a, b)
    elif op == "bernoulli":
        t = torch.empty(n, dtype=d).bernoulli_(a)
    elif op == "dropout":
        if dt in ("f32", "f64"):
            x = (1 + torch.arange(n, dtype=torch.float64) / 1024).to(d)
        else:
            x = torch.ones(n, dtype=d)
        t = torch.native_dropout(x, a, True)[0]
    else:
        raise ValueError(op)
    return t.contiguous().view(torch.uint8).numpy().tobytes()


def fingerprint(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()[:16]
