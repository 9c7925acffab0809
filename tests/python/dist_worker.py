"""One rank of the sharded-draw tests (test_distributed.py starts `world` of
these, once per world size, and reads their reports).

    python dist_worker.py RANK WORLD PORT OUT_DIR [BACKEND] [GROUPS]

Every rank runs every check of the groups named (default: all) in one process
group (gloo on the CPU, nccl on GPUs for tests/gpu/run.sh) and writes
OUT_DIR/rank<RANK>.json: {check name: "ok" | the failure}. Each check
compares a sharded draw (full_tensor of the DTensor, gathered over the
process group) against the single-process draw made in the same process
without any sharding.
"""
import contextlib
import copy
import itertools
import json
import os
import sys
import time
import traceback
import warnings

RANK, WORLD, PORT, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
BACKEND = sys.argv[5] if len(sys.argv) > 5 else "gloo"
GROUPS = sys.argv[6].split(",") if len(sys.argv) > 6 else ["dtensor", "mode", "tp", "fsdp"]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=PORT, RANK=str(RANK), WORLD_SIZE=str(WORLD),
                  LOCAL_RANK=str(RANK))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor  # noqa: E402

import xrng  # noqa: E402
import xrng.distributed as xd  # noqa: E402

torch.set_num_threads(1)
DEV = "cuda" if BACKEND == "nccl" else "cpu"
if DEV == "cuda":
    torch.cuda.set_device(RANK % torch.cuda.device_count())
dist.init_process_group(BACKEND)
results = {}
timing = {}


def check(name):
    def deco(fn):
        t = time.perf_counter()
        try:
            fn()
            results[name] = "ok"
        except Exception:  # noqa: BLE001  (reported to the parent test)
            results[name] = traceback.format_exc()
            print(f"rank {RANK}: {name} FAILED\n" + results[name], flush=True) if os.environ.get("XRNG_DW_DEBUG") else None
        timing[name] = round(time.perf_counter() - t, 3)
        return fn
    return deco


def same(a, b, what):
    a, b = a.detach().cpu().contiguous(), b.detach().cpu().contiguous()
    if a.shape != b.shape or a.dtype != b.dtype:
        raise AssertionError(f"{what}: {a.shape}/{a.dtype} vs {b.shape}/{b.dtype}")
    if not torch.equal(a.view(-1).view(torch.uint8) if a.dtype != torch.bool else a,
                       b.view(-1).view(torch.uint8) if b.dtype != torch.bool else b):
        raise AssertionError(f"{what}: values differ ({(a != b).sum().item()} of {a.numel()})")


# ---- meshes and placements ---------------------------------------------------------------------
def meshes():
    out = [("1d", init_device_mesh(DEV, (WORLD,)))]
    if WORLD == 4:
        out.append(("2x2", init_device_mesh(DEV, (2, 2), mesh_dim_names=("a", "b"))))
    if WORLD == 2:
        out.append(("2x1", init_device_mesh(DEV, (2, 1), mesh_dim_names=("a", "b"))))
    return out


ONE = [Shard(0), Shard(1), Shard(2), Replicate()]


def placements(mesh):
    if mesh.ndim == 1:
        return [(p,) for p in ONE]
    return list(itertools.product(ONE, ONE))  # nested shards of one dimension included


SHAPES = [(5, 7, 3), (2 * WORLD, 4, 6), (1, 3, 1)]  # uneven, even, shards of size 0


def cases():
    for mname, mesh in meshes():
        for pl in placements(mesh):
            for shape in (SHAPES if mesh.ndim == 1 else SHAPES[:1]):  # 2-d meshes: the uneven shape
                yield mname, mesh, pl, shape


# ==== explicit API ==================================================================================
if "dtensor" in GROUPS:
    @check("explicit randn/rand/fill_ on every mesh, placement and shape")
    def _():
        n = 0
        for mname, mesh, pl, shape in cases():
            for dtype in (torch.float32, torch.bfloat16):
                d = xd.randn(*shape, device_mesh=mesh, placements=pl, dtype=dtype, seed=11)
                same(d.full_tensor(), xrng.randn(shape, dtype=dtype, seed=11, device=DEV), f"randn {mname} {pl} {shape}")
                assert d.placements == pl and tuple(d.shape) == shape
            g, ref = xrng.Generator(3), xrng.Generator(3)
            d = xd.rand(shape, device_mesh=mesh, placements=pl, dtype=torch.float64, generator=g)
            r = xrng.rand(shape, dtype=torch.float64, generator=ref, device=DEV)
            same(d.full_tensor(), r, f"rand {mname} {pl} {shape}")
            assert g.offset == ref.offset, "the generator advances by the global tensor's words"
            xd.fill_(d, "normal", mean=1.0, std=0.5, generator=g)
            same(d.full_tensor(), xrng.normal_(torch.empty(shape, dtype=torch.float64, device=DEV), 1.0, 0.5,
                                               generator=ref), f"fill_ {mname} {pl} {shape}")
            assert g.offset == ref.offset
            i = torch.empty(shape, dtype=torch.int32, device=DEV)
            di = distribute_tensor(torch.zeros(shape, dtype=torch.int32, device=DEV), mesh, pl)
            xd.fill_(di, "randint", ilow=-5, ihigh=9, seed=4)
            same(di.full_tensor(), xrng.randint_(i, -5, 9, seed=4), f"randint {mname} {pl} {shape}")
            n += 1
        assert n >= 12 + (16 if WORLD in (2, 4) else 0)

    @check("explicit dropout with autograd, Partial(sum) input")
    def _():
        for mname, mesh, pl, shape in cases():
            x = torch.randn(shape, generator=torch.Generator().manual_seed(0)).to(DEV)
            xr = x.clone().requires_grad_()
            ref = xrng.dropout(xr, 0.4, seed=8)
            ref.backward(torch.ones_like(ref))
            dx = distribute_tensor(x, mesh, pl).requires_grad_()
            y = xd.dropout(dx, 0.4, seed=8)
            assert y.placements == pl
            same(y.full_tensor(), ref, f"dropout {mname} {pl} {shape}")
            y.backward(distribute_tensor(torch.ones_like(x), mesh, pl))
            same(dx.grad.full_tensor(), xr.grad, f"dropout grad {mname} {pl} {shape}")
        mesh = init_device_mesh(DEV, (WORLD,))
        x = torch.arange(24.0, device=DEV).view(4, 6)
        part = DTensor.from_local(x / WORLD, mesh, [Partial()], run_check=False)
        y = xd.dropout(part, 0.5, seed=2)
        assert y.placements[0].is_partial()
        torch.testing.assert_close(y.full_tensor(), xrng.dropout(x, 0.5, seed=2))

    @check("explicit API errors: Partial fill, _StridedShard, bad block")
    def _():
        from torch.distributed.tensor.placement_types import _StridedShard
        mesh = init_device_mesh(DEV, (WORLD,))
        part = DTensor.from_local(torch.zeros(4, 3, device=DEV), mesh, [Partial()], run_check=False)
        for bad in (lambda: xd.fill_(part, "normal", mean=0.0, std=1.0, seed=0),
                    lambda: xd.randn(4, 4, device_mesh=mesh, placements=[_StridedShard(0, split_factor=2)], seed=0),
                    lambda: xd.fill_block_(torch.empty(3, 3), "uniform", (4, 4), (2, 0), low=0.0, high=1.0, seed=0)):
            try:
                bad()
            except ValueError as e:
                assert "\n" not in str(e).strip(), e
            else:
                raise AssertionError("accepted")

    @check("fill_block_ of plain tensors (manual sharding): shards put together")
    def _():
        shape = (6, 5)
        full = xrng.randn(shape, seed=1, device=DEV)
        for r0 in range(0, 6, 2):
            blk = torch.empty(2, 3, device=DEV)
            xd.fill_block_(blk, "normal", shape, (r0, 1), mean=0.0, std=1.0, seed=1)
            same(blk, full[r0:r0 + 2, 1:4], f"block at ({r0}, 1)")


# ==== the reproducible mode =========================================================================
if "mode" in GROUPS:
    @check("mode: dtensor factories, in-place fills and nn.init equal the unsharded mode")
    def _():
        import torch.distributed.tensor as dtm
        for mname, mesh, pl, shape in cases():
            if True:  # strict=True: any report raises
                with xrng.reproducible(seed=5, strict=True):
                    a = dtm.randn(*shape, device_mesh=mesh, placements=pl)
                    b = dtm.rand(shape, device_mesh=mesh, placements=pl, dtype=torch.float64)
                    w = distribute_tensor(torch.zeros(shape, device=DEV), mesh, pl)
                    torch.nn.init.normal_(w, 0.0, 0.02)
                    c = w.full_tensor().clone()  # (a replicated full_tensor is the local tensor itself)
                    torch.nn.init.trunc_normal_(w, std=0.1)
                    d = w.full_tensor().clone()
                    torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
                    e = w.full_tensor().clone()
                    w.bernoulli_(0.3)
                    f = w.full_tensor().clone()
                    w.exponential_(2.0)
                    h = w.full_tensor().clone()
                    k = torch.randn_like(w)
                    after = torch.randn(3, device=DEV)  # the stream stays aligned after the sharded draws
                with xrng.reproducible(seed=5, strict=True):
                    ra = torch.randn(*shape, device=DEV)
                    rb = torch.rand(shape, dtype=torch.float64, device=DEV)
                    rw = torch.zeros(shape, device=DEV)
                    torch.nn.init.normal_(rw, 0.0, 0.02)
                    rc = rw.clone()
                    torch.nn.init.trunc_normal_(rw, std=0.1)
                    rd = rw.clone()
                    torch.nn.init.kaiming_uniform_(rw, a=5 ** 0.5)
                    re = rw.clone()
                    rw.bernoulli_(0.3)
                    rf = rw.clone()
                    rw.exponential_(2.0)
                    rh = rw.clone()
                    rk = torch.randn_like(rw)
                    rafter = torch.randn(3, device=DEV)
            what = f"{mname} {pl} {shape}"
            for x, y, nm in ((a.full_tensor(), ra, "randn"), (b.full_tensor(), rb, "rand"), (c, rc, "normal_"),
                             (d, rd, "trunc_normal_"), (e, re, "kaiming_uniform_"), (f, rf, "bernoulli_"),
                             (h, rh, "exponential_"), (k.full_tensor(), rk, "randn_like"), (after, rafter, "after")):
                same(x, y, f"{nm} {what}")
            assert k.placements == pl
        mesh = init_device_mesh(DEV, (WORLD,))
        for dtype in (torch.float16, torch.bfloat16):  # a std past f16's range: drawn in float32, as unsharded
            with xrng.reproducible(seed=6, strict=True):
                w = distribute_tensor(torch.zeros(5, 3, dtype=dtype, device=DEV), mesh, [Shard(0)])
                w.normal_(0.0, 1e6)
                after = torch.rand(2, device=DEV)
            with xrng.reproducible(seed=6, strict=True):
                r = torch.zeros(5, 3, dtype=dtype, device=DEV).normal_(0.0, 1e6)
                rafter = torch.rand(2, device=DEV)
            same(w.full_tensor(), r, f"normal_ {dtype} std 1e6")
            same(after, rafter, f"after normal_ {dtype} std 1e6")

    @check("mode: dropout of DTensor activations, output and grads")
    def _():
        for mname, mesh, pl, shape in cases():
            x = torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(DEV)
            with xrng.reproducible(seed=2, strict=True):
                xr = x.clone().requires_grad_()
                r1 = F.dropout(xr, 0.25)
                r2, rmask = torch.native_dropout(x, 0.5, True)
                r3 = F.dropout2d(xr, 0.5)
                (r1 * 3).sum().backward()
            with xrng.reproducible(seed=2, strict=True):
                dx = distribute_tensor(x, mesh, pl).requires_grad_()
                y1 = F.dropout(dx, 0.25)
                y2, mask = torch.native_dropout(distribute_tensor(x, mesh, pl), 0.5, True)
                y3 = F.dropout2d(dx, 0.5)  # the (sample, channel) factors of the global tensor
                (y1.full_tensor() * 3).sum().backward()
            what = f"{mname} {pl} {shape}"
            same(y1.full_tensor(), r1, "dropout " + what)
            same(dx.grad.full_tensor(), xr.grad, "dropout grad " + what)
            same(y2.full_tensor(), r2, "native_dropout " + what)
            same(mask.full_tensor(), rmask, "native_dropout mask " + what)
            same(y3.full_tensor(), r3, "dropout2d " + what)

    @check("mode: Partial fills are torch's refusal; random_ of a DTensor is its shard's block")
    def _():
        mesh = init_device_mesh(DEV, (WORLD,))
        part = DTensor.from_local(torch.zeros(4, 3, device=DEV), mesh, [Partial()], run_check=False)
        # torch refuses an in-place fill of a Partial DTensor before any kernel
        # runs, under the mode as without it; DTensor ops without a sharding
        # rule of torch's own that the mode serves in place (random_) draw the
        # shard's block of the unsharded draw
        for strict in (False, True):
            with xrng.reproducible(seed=0, strict=strict):
                try:
                    part.normal_()
                except RuntimeError as e:
                    assert not isinstance(e, xrng.NotReproducibleError), e
                else:
                    raise AssertionError("a Partial fill was accepted")
        sh = distribute_tensor(torch.zeros(5, 4, device=DEV), mesh, [Shard(0)])
        with xrng.reproducible(seed=0, strict=True):
            sh.random_(0, 10)
            sh.cauchy_()
            got = sh.full_tensor()
        with xrng.reproducible(seed=0, strict=True):
            ref = torch.zeros(5, 4, device=DEV).random_(0, 10).cauchy_()
        same(got, ref, "random_ then cauchy_ of a sharded DTensor")


# ==== tensor parallelism ============================================================================
if "tp" in GROUPS:
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel, SequenceParallel,
                                                   parallelize_module)

    class Block(torch.nn.Module):
        def __init__(self, d=8, h=16):
            super().__init__()
            self.norm = torch.nn.LayerNorm(d)
            self.fc1 = torch.nn.Linear(d, h)
            self.drop1 = torch.nn.Dropout(0.3)
            self.fc2 = torch.nn.Linear(h, d)
            self.drop2 = torch.nn.Dropout(0.2)

        def forward(self, x):
            return x + self.drop2(self.fc2(self.drop1(F.gelu(self.fc1(self.norm(x))))))

    @check("tp: Colwise/Rowwise + SequenceParallel block with dropout: output, masks and grads")
    def _():
        mesh = init_device_mesh(DEV, (WORLD,))
        with xrng.reproducible(seed=0):
            ref = Block().to(DEV)
        tp = copy.deepcopy(ref)
        parallelize_module(tp, mesh, {
            "norm": SequenceParallel(),
            "fc1": ColwiseParallel(input_layouts=Shard(1), use_local_output=False),
            "fc2": RowwiseParallel(output_layouts=Shard(1), use_local_output=False),
            "drop2": SequenceParallel(),
        })
        x = torch.randn(2, 2 * WORLD, 8, generator=torch.Generator().manual_seed(3)).to(DEV)
        seen = {}
        for name, mod in (("ref", ref), ("tp", tp)):
            mod.drop1.register_forward_hook(lambda m, i, o, n=name: seen.__setitem__(n + "1", o))
            mod.drop2.register_forward_hook(lambda m, i, o, n=name: seen.__setitem__(n + "2", o))
        with xrng.reproducible(seed=9, strict=True):
            yr = ref(x)
            yr.square().sum().backward()
        with xrng.reproducible(seed=9, strict=True):
            xs = DTensor.from_local(x.chunk(WORLD, dim=1)[dist.get_rank()], mesh, [Shard(1)])
            yt = tp(xs)
            yt.full_tensor().square().sum().backward()

        def full(t):
            return t.full_tensor() if isinstance(t, DTensor) else t
        for k in ("1", "2"):  # the masks themselves are identical: the zeros of each dropout's output
            a, b = full(seen["ref" + k]), full(seen["tp" + k])
            same(a == 0, b == 0, "mask of drop" + k)
            torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(full(yt), yr, rtol=1e-5, atol=1e-6)
        for n, p in ref.named_parameters():
            torch.testing.assert_close(full(dict(tp.named_parameters())[n].grad), p.grad, rtol=1e-5, atol=1e-6,
                                       msg=lambda m, n=n: f"grad of {n}: {m}")


# ==== FSDP2 with a transformers model ===============================================================
if "fsdp" in GROUPS:
    def _fsdp_case(make, shard_dim0_padding=None):
        """make(): a transformers model. Builds it on meta, fully_shard (each block,
        then the root), to_empty, init_weights under the mode, and compares its
        full state dict with the same steps without sharding."""
        from torch.distributed.fsdp import fully_shard

        def build(mesh=None, placement_fn=None):
            with torch.device("meta"):
                m = make()
            if mesh is not None:
                blocks = [mod for mod in m.modules() if isinstance(mod, torch.nn.ModuleList)][0]
                for blk in blocks:
                    fully_shard(blk, mesh=mesh, shard_placement_fn=placement_fn)
                fully_shard(m, mesh=mesh, shard_placement_fn=placement_fn)
            m.to_empty(device=DEV)
            with xrng.reproducible(seed=7, strict=True):
                m.init_weights()
            return m

        ref = build().state_dict()
        layouts = [(init_device_mesh(DEV, (WORLD,)), None)]
        if WORLD == 4:  # HSDP: replicated over "rep", sharded over "shard"
            layouts.append((init_device_mesh(DEV, (2, 2), mesh_dim_names=("rep", "shard")), None))
        if shard_dim0_padding is not None:  # rows sharded on dim 1: the padding row is a local view
            layouts.append((init_device_mesh(DEV, (WORLD,)), lambda p: Shard(1) if p.dim() > 1 else Shard(0)))
        for mesh, fn in layouts:
            sd = build(mesh, fn).state_dict()
            assert sd.keys() == ref.keys()
            n_sharded = 0
            for k, v in sd.items():
                if isinstance(v, DTensor):
                    n_sharded += 1
                    v = v.full_tensor()
                if k.endswith("_ids"):
                    continue  # position_ids / token_type_ids buffers: not parameters, not drawn
                what = f"{k} (mesh {tuple(mesh.shape)}{', Shard(1)' if fn else ''})"
                if fn is None and shard_dim0_padding is not None and k == shard_dim0_padding[0]:
                    # transformers zeroes the padding row with weight[padding_idx].zero_(); on a
                    # Shard(0) DTensor that index is a copy (torch's DTensor select of a sharded
                    # dimension), so the row keeps its drawn values: every other row is equal
                    row = shard_dim0_padding[1]
                    keep = torch.ones(v.shape[0], dtype=torch.bool)
                    keep[row] = False
                    same(v[keep], ref[k][keep], what + " without the padding row")
                    assert bool((ref[k][row] == 0).all()), "the single-process padding row is zero"
                    continue
                same(v, ref[k], what)
            assert n_sharded > 10, n_sharded

    @check("fsdp2: transformers BERT on meta, fully_shard, to_empty, init_weights == single-process init")
    def _():
        from transformers import BertConfig, BertModel
        cfg = BertConfig(vocab_size=61, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=24, max_position_embeddings=13, type_vocab_size=2, pad_token_id=0)
        _fsdp_case(lambda: BertModel(cfg), shard_dim0_padding=("embeddings.word_embeddings.weight", 0))


dist.barrier()
with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
    json.dump({"results": results, "timing": timing}, f)
dist.destroy_process_group()
