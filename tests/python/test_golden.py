"""The golden vectors of both stream versions (tests/data/golden_v1.txt, stream 1,
and golden_v2.txt, stream 2), evaluated through the Python API with 1 and 2
host threads, bit for bit, each case in its own stream (``stream=``; a
Generator of that stream). No CLI is involved: the
file is parsed here (its format is in its header) and every case is drawn by
the package itself.

* op=fill: every line whose distribution the registry (``xrng._C.registry()``)
  can draw, generically through ``_C.draw_`` with the parameters by name
  (from a Generator, and stateless), and through the public in-place function
  of the distribution when there is one. Elements [start, start + count) come
  from the group arithmetic of SPEC.md section 3: the draw starts at the
  group of element ``start`` (word ``offset + K * (start // G)``) and the
  first ``start % G`` elements are dropped, so starts near 2**63 and offsets
  near 2**64 are drawn, not skipped. Permutations use random access
  (perm_shard with world 1, perm_element).
* op=dropout: xrng.dropout at word ``offset + start`` (one word per element).
* op=perm_shard: xrng.perm_shard; op=perm_inverse: xrng.perm_position.
"""
import collections
import pathlib

import pytest
import torch

import xrng
from conftest import as_bytes

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"
GOLDEN = {1: DATA / "golden_v1.txt", 2: DATA / "golden_v2.txt"}
REGISTRY = xrng._C.registry()
TORCH_DTYPE = REGISTRY["dtypes"]
# stream version -> (dist, dtype) -> (G, K) of its row (the highest version <= it).
ROWS = {v: {} for v in xrng.stream_versions}
for _s in xrng.stream_versions:
    for _d, _t, _g, _k, _v in sorted(REGISTRY["rows"], key=lambda r: r[4]):
        if _v <= _s:
            ROWS[_s][_d, _t] = (_g, _k)

# Tokens that are not parameters of the distribution (the golden file's header).
STRUCTURE = ("op", "dist", "dtype", "stream", "seed", "subseq", "offset", "start", "count", "rank", "world", "in",
             "out")
HEX = ("seed", "subseq", "offset")
DECIMAL = ("start", "count", "rank", "world")
OPS = ("fill", "dropout", "perm_shard", "perm_inverse")

Case = collections.namedtuple("Case",
                              "line op dist dtype seed subseq offset start count params rank world inp out stream")


def parse_golden(path):
    """The cases of a golden file. Any token the format does not define is an
    error, so the format cannot drift without this test noticing."""
    cases = []
    for lineno, text in enumerate(path.read_text().splitlines(), 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        tok = {}
        for item in text.split():
            key, eq, value = item.partition("=")
            if not eq or not value or key in tok:
                raise ValueError(f"{path.name}:{lineno}: bad token {item!r}")
            tok[key] = value
        required = ("op", "dist", "dtype", "seed", "subseq", "offset", "start", "count", "out")
        missing = [k for k in required if k not in tok]
        if missing or tok["op"] not in OPS:
            raise ValueError(f"{path.name}:{lineno}: missing {missing} or unknown op {tok.get('op')!r}")
        params = {}
        for key, value in tok.items():
            if key in STRUCTURE:
                continue
            if key not in REGISTRY["params"]:
                raise ValueError(f"{path.name}:{lineno}: {key!r} is neither a field of the format nor a parameter "
                                 f"of the registry ({sorted(REGISTRY['params'])})")
            # real parameters are C99 hex floats (exact); integer and count ones decimal
            params[key] = float.fromhex(value) if REGISTRY["params"][key]["kind"] == "real" else int(value, 10)
        words = lambda k: [int(w, 16) for w in tok[k].split(",")] if k in tok else []
        case = Case(lineno, tok["op"], tok["dist"], tok["dtype"], *(int(tok[k], 16) for k in HEX),
                    *(int(tok.get(k, "0"), 10) for k in DECIMAL[:2]), params,
                    *(int(tok.get(k, "0"), 10) for k in DECIMAL[2:]), words("in"), words("out"),
                    int(tok.get("stream", "1"), 10))  # no stream= token: stream 1
        if len(case.out) != case.count or (case.op == "dropout" and len(case.inp) != case.count):
            raise ValueError(f"{path.name}:{lineno}: count={case.count} but {len(case.out)} outputs")
        cases.append(case)
    return cases


CASES = parse_golden(GOLDEN[1]) + parse_golden(GOLDEN[2])


def case_id(c):
    return f"v{c.stream}-L{c.line}-{c.op}-{c.dist}-{c.dtype}"


def expected(c):
    size = TORCH_DTYPE[c.dtype].itemsize
    return b"".join(v.to_bytes(size, "little") for v in c.out)


def tensor_of(bits, dtype):
    """A CPU tensor holding the given bit patterns (any dtype, f16/bf16 included)."""
    size = TORCH_DTYPE[dtype].itemsize
    buf = bytearray(b"".join(v.to_bytes(size, "little") for v in bits))
    return torch.frombuffer(buf, dtype=TORCH_DTYPE[dtype]).clone()


# Public in-place functions, by distribution; their keywords are the
# registry's parameter names except randint's bounds.
PUBLIC = {"bits": xrng.bits_, "uniform": xrng.uniform_, "normal": xrng.normal_, "bernoulli": xrng.bernoulli_,
          "randint": xrng.randint_, "exponential": xrng.exponential_, "geometric": xrng.geometric_,
          "log_normal": xrng.log_normal_, "cauchy": xrng.cauchy_}
KEYWORD = {"ilow": "low", "ihigh": "high"}


def test_the_files_are_read_and_cover_every_op():
    assert len(CASES) >= 800
    assert {c.stream for c in CASES} == {1, 2}
    # each file is of its own stream, with the same requests
    v1 = [c for c in CASES if c.stream == 1]
    v2 = [c for c in CASES if c.stream == 2]
    assert len(v1) == len(v2)
    assert all(a._replace(out=None, stream=None) == b._replace(out=None, stream=None) for a, b in zip(v1, v2))
    # the rows stream 2 redefines differ, the others do not
    redefined = {(d, t) for d, t, _g, _k, v in REGISTRY["rows"] if v == 2}
    assert redefined == {(d, t) for d in ("normal", "exponential", "log_normal", "cauchy")
                         for t in ("f32", "f16", "bf16")}
    assert all(a.out == b.out for a, b in zip(v1, v2) if (a.dist, a.dtype) not in redefined)
    assert any(a.out != b.out for a, b in zip(v1, v2))
    counts = collections.Counter(c.op for c in CASES)
    assert set(counts) == set(OPS), counts
    fills = {c.dist for c in CASES if c.op == "fill"}
    assert {"bits", "uniform", "normal", "bernoulli", "randint", "perm"} <= fills
    # the hard cases are present (and evaluated below, not skipped)
    assert any(c.start >= 2**62 for c in CASES if c.op == "fill")
    assert any(c.offset >= 2**64 - 64 for c in CASES if c.op == "fill")
    # a fill of a distribution this package does not know means the package is
    # older than the golden file: that is a failure, not a skip
    unknown = sorted({(c.dist, c.dtype) for c in CASES if c.op == "fill" and (c.dist, c.dtype) not in ROWS[c.stream]})
    assert not unknown, f"golden fill cases for rows the registry lacks: {unknown}"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("c", [c for c in CASES if c.op == "fill"], ids=case_id)
def test_fill(c, threads):
    kind = REGISTRY["dists"][c.dist]["kind"]
    dtype = TORCH_DTYPE[c.dtype]
    want = expected(c)
    if kind == "permutation":
        n = c.params["n"]
        got = xrng.perm_shard(n, rank=0, world=1, start=c.start, count=c.count, seed=c.seed, subseq=c.subseq,
                              offset=c.offset, dtype=dtype, threads=threads, stream=c.stream)
        assert as_bytes(got) == want
        assert [xrng.perm_element(n, c.start + i, seed=c.seed, subseq=c.subseq, offset=c.offset)
                for i in range(c.count)] == c.out  # indices: the bit patterns are the values
        if c.start == 0 and c.count == n:  # the whole permutation as a tensor
            t = xrng._C.draw_(torch.empty(n, dtype=dtype), (c.seed, c.subseq, c.offset), "perm", {"n": n}, "auto",
                              threads, c.stream)
            assert as_bytes(t) == want
            end = c.offset + ROWS[c.stream][c.dist, c.dtype][1]
            if end < 2**64:  # from a Generator, when its offset stays valid
                g = xrng.Generator(c.seed, c.subseq, c.offset, c.stream)
                t = xrng._C.draw_(torch.empty(n, dtype=dtype), g, "perm", {"n": n}, "auto", threads, c.stream)
                assert as_bytes(t) == want and g.offset == end
        return
    assert kind == "element", f"op=fill of a {kind} distribution"
    group, words = ROWS[c.stream][c.dist, c.dtype]
    first = c.start // group          # the group of element `start`
    skip = c.start - first * group    # elements of that group before `start`
    offset = c.offset + words * first
    assert offset < 2**64
    n = skip + c.count
    # stateless (seed, subseq, offset): may end exactly at word 2**64
    t = xrng._C.draw_(torch.empty(n, dtype=dtype), (c.seed, c.subseq, offset), c.dist, c.params, "auto", threads,
                      c.stream)
    assert as_bytes(t[skip:]) == want
    # the public function of the distribution, with its keywords
    if c.dist in PUBLIC:
        kw = {KEYWORD.get(k, k): v for k, v in c.params.items()}
        u = PUBLIC[c.dist](torch.empty(n, dtype=dtype), seed=c.seed, subseq=c.subseq, offset=offset,
                           threads=threads, stream=c.stream, **kw)
        assert as_bytes(u[skip:]) == want
    # from a Generator, when the draw leaves it a valid offset (below 2**64)
    end = offset + words * -(-n // group)
    if end < 2**64:
        g = xrng.Generator(c.seed, c.subseq, offset, c.stream)
        v = xrng._C.draw_(torch.empty(n, dtype=dtype), g, c.dist, c.params, "auto", threads, c.stream)
        assert as_bytes(v[skip:]) == want and g.offset == end


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("c", [c for c in CASES if c.op == "dropout"], ids=case_id)
def test_dropout(c, threads):
    x = tensor_of(c.inp, c.dtype)
    offset = c.offset + c.start  # one word per element
    y = xrng.dropout(x, c.params["p"], seed=c.seed, subseq=c.subseq, offset=offset, threads=threads,
                     stream=c.stream)
    assert as_bytes(y) == expected(c)
    z = x.clone()
    xrng.dropout(z, c.params["p"], inplace=True, seed=c.seed, subseq=c.subseq, offset=offset, threads=threads)
    assert as_bytes(z) == expected(c)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("c", [c for c in CASES if c.op == "perm_shard"], ids=case_id)
def test_perm_shard(c, threads):
    got = xrng.perm_shard(c.params["n"], rank=c.rank, world=c.world, start=c.start, count=c.count, seed=c.seed,
                          subseq=c.subseq, offset=c.offset, dtype=TORCH_DTYPE[c.dtype], threads=threads)
    assert as_bytes(got) == expected(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.op == "perm_inverse"], ids=case_id)
def test_perm_inverse(c):
    got = [xrng.perm_position(c.params["n"], c.start + i, seed=c.seed, subseq=c.subseq, offset=c.offset)
           for i in range(c.count)]
    assert got == c.out
