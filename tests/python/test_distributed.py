"""Sharded draws (issue 17): DTensor, FSDP2 and tensor parallelism on real
torch.distributed process groups (gloo, CPU), world sizes 1, 2 and 4.

The ranks run tests/python/dist_worker.py, started once per world size for the
whole file (a module-scoped fixture): each rank runs every check in one
process group and reports per check; each check compares the gathered sharded
result against the single-process draw made in the same process. The tests
below read those reports, one test per group of checks. Single-process tests
of the block operators run here directly.
"""
import json
import os
import socket
import subprocess
import sys
import time
import warnings

import pytest
import torch

import xrng

dist = pytest.importorskip("torch.distributed")
if not dist.is_available() or not dist.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)
import xrng.distributed as xd  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_worker.py")
HAVE_TF = True
try:
    import transformers  # noqa: F401
except ImportError:
    HAVE_TF = False


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


_RUNS = {}


def _run(world: int, tmp_path_factory) -> dict:
    """Starts `world` ranks once and returns {check: [per-rank result]} plus timing."""
    if world in _RUNS:
        return _RUNS[world]
    out = str(tmp_path_factory.mktemp(f"world{world}"))
    groups = "dtensor,mode,tp" + (",fsdp" if HAVE_TF else "")
    port = _free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1")
    t = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, WORKER, str(r), str(world), port, out, "gloo", groups],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env) for r in range(world)]
    logs = []
    for p in procs:
        try:
            logs.append(p.communicate(timeout=600)[0].decode(errors="replace"))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    wall = time.perf_counter() - t
    reports = []
    for r in range(world):
        path = os.path.join(out, f"rank{r}.json")
        if not os.path.exists(path):
            pytest.fail(f"rank {r} of {world} wrote no report:\n" + "\n".join(logs)[-6000:])
        with open(path) as f:
            reports.append(json.load(f))
    res = {"wall": wall, "checks": {}, "timing": reports[0]["timing"]}
    for rep in reports:
        for k, v in rep["results"].items():
            res["checks"].setdefault(k, []).append(v)
    _RUNS[world] = res
    return res


@pytest.fixture(scope="module", params=[1, 2, 4], ids=["world1", "world2", "world4"])
def ranks(request, tmp_path_factory):
    return _run(request.param, tmp_path_factory)


def _assert_group(res: dict, prefix: str) -> None:
    names = [k for k in res["checks"] if k.startswith(prefix)]
    assert names, f"no check of group {prefix!r} ran"
    bad = {k: [v for v in vs if v != "ok"] for k, vs in res["checks"].items() if k in names}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "\n".join(f"{k}:\n{v[0]}" for k, v in bad.items())
    for k in names:
        assert len(res["checks"][k]) == len(res["checks"][names[0]])


def test_dtensor_explicit(ranks):
    """xrng.distributed.randn/rand/fill_/dropout on 1-d and 2-d meshes, Shard(0/1/2),
    Replicate and their pairs, uneven and empty shards: full tensor == single-process."""
    _assert_group(ranks, "explicit")
    _assert_group(ranks, "fill_block_")


def test_dtensor_under_mode(ranks):
    """torch.distributed.tensor.rand/randn, nn.init.* and dropout of DTensors under
    xrng.reproducible equal the unsharded mode; Partial and unknown ops are reported."""
    _assert_group(ranks, "mode:")


def test_dtensor_imported_inside_the_mode():
    """A script that enters the mode before anything imports DTensor (2 gloo
    ranks of dist_late_worker.py): the mode's tracker is installed when DTensor
    is imported, so its draws equal the unsharded ones (before, DTensor's own
    CPU path raised)."""
    worker = os.path.join(os.path.dirname(WORKER), "dist_late_worker.py")
    port = _free_port()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, worker, str(r), "2", port], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env) for r in range(2)]
    outs = []
    for p in procs:
        try:
            outs.append((p.communicate(timeout=300)[0].decode(errors="replace"), p.returncode))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    for r, (out, rc) in enumerate(outs):
        assert rc == 0 and out.rstrip().endswith("ok"), f"rank {r}:\n{out[-4000:]}"


def test_tensor_parallel(ranks):
    """A Colwise/Rowwise/SequenceParallel block with dropout: same masks, output and grads."""
    _assert_group(ranks, "tp:")


@pytest.mark.skipif(not HAVE_TF, reason="transformers is not installed")
def test_fsdp2_transformers(ranks):
    """A transformers model on meta, fully_shard, to_empty, init_weights under the
    mode: its full state dict == the single-process init (world 4: also HSDP 2x2)."""
    _assert_group(ranks, "fsdp2:")


# ---- single process: the block operators themselves ---------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_block_operator_equals_slice(dtype):
    shape = (3, 5, 4)
    full = xrng.randn(shape, dtype=dtype, seed=9)
    for start, size in (((0, 0, 0), (3, 5, 4)), ((1, 2, 1), (2, 2, 3)), ((2, 4, 3), (1, 1, 1)),
                        ((0, 1, 0), (3, 3, 4))):
        out = torch.empty(size, dtype=dtype)
        pos = torch.tensor([9, 0, 0, xrng.stream_version], dtype=torch.int64)
        torch.ops.xrng.draw_block_(out, "normal", [0.0, 1.0], [], pos, list(shape), list(start))
        sl = full[tuple(slice(s, s + n) for s, n in zip(start, size))]
        assert torch.equal(out.view(torch.uint8 if dtype.itemsize == 1 else torch.int16 if dtype.itemsize == 2
                                    else torch.int32 if dtype.itemsize == 4 else torch.int64),
                           sl.contiguous().view(torch.uint8 if dtype.itemsize == 1 else torch.int16
                                                if dtype.itemsize == 2 else torch.int32 if dtype.itemsize == 4
                                                else torch.int64))


def test_block_operator_strided_and_converted():
    full = xrng.randint(-3, 7, (6, 4), seed=1, dtype=torch.int8)
    out = torch.empty(4, 3, dtype=torch.int8).t()  # non-contiguous block of (3, 4)... of a (6, 4) tensor
    xd.fill_block_(out, "randint", (6, 4), (3, 0), ilow=-3, ihigh=7, seed=1)
    assert torch.equal(out, full[3:6])


def test_block_generator_advances_by_global_words():
    g, ref = xrng.Generator(5), xrng.Generator(5)
    out = torch.empty(2, 3)
    xd.fill_block_(out, "uniform", (4, 3), (2, 0), low=0.0, high=1.0, generator=g)
    full = xrng.rand(4, 3, generator=ref)
    assert torch.equal(out, full[2:])
    assert g.offset == ref.offset


def test_dropout_block_autograd_and_meta():
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))
    xr = x.clone().requires_grad_()
    ref = xrng.dropout(xr, 0.3, seed=4)
    ref.sum().backward()
    xb = x[1:3, 2:5].clone().requires_grad_()
    y = xd.dropout_block(xb, 0.3, (4, 6), (1, 2), seed=4)
    y.sum().backward()
    assert torch.equal(y, ref[1:3, 2:5])
    assert torch.equal(xb.grad, xr.grad[1:3, 2:5])
    m = torch.ops.xrng.dropout_block(torch.empty(2, 3, device="meta"), 0.3,
                                     torch.tensor([4, 0, 0, 2], dtype=torch.int64), [4, 6], [1, 2])
    assert m.shape == (2, 3) and m.is_meta


def test_block_operator_errors_before_writing():
    out = torch.zeros(2, 2)
    pos = torch.tensor([1, 0, 0, 2], dtype=torch.int64)
    for args, msg in ((([4, 4], [3, 0]), "exceeds"), (([4], [0]), "dimensions"), (([4, 4], [-1, 0]), "negative")):
        with pytest.raises(ValueError, match=msg):
            torch.ops.xrng.draw_block_(out, "normal", [0.0, 1.0], [], pos, *args)
        assert torch.equal(out, torch.zeros(2, 2))
    with pytest.raises(ValueError, match="dropout_block"):
        torch.ops.xrng.draw_block_(out, "dropout", [0.5], [], pos, [2, 2], [0, 0])


def test_block_operator_compiles():
    def f(pos):
        out = torch.empty(2, 3)
        torch.ops.xrng.draw_block_(out, "uniform", [0.0, 1.0], [], pos, [4, 3], [2, 0])
        return out * 2

    pos = torch.tensor([3, 0, 0, 2], dtype=torch.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = torch.compile(f, backend="aot_eager", fullgraph=True)(pos)
    assert torch.equal(got, xrng.rand(4, 3, seed=3)[2:] * 2)
