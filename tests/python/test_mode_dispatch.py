"""The reproducible mode (issue 25: its only engine serves aten operators):
xrng's kernels serve torch's random aten operators, so torch keeps its own
semantics around every draw (vmap, forward AD, jit.trace, TorchScript,
memory formats, subclasses, argument checks) and every caller draws xrng's
values."""
import warnings

import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F

import xrng
from xrng import _C

G = xrng.reproducible.global_generator


def mode(seed=0, **kw):
    return xrng.reproducible(seed=seed, **kw)


# ---- the draws: the stream, the key derivation, the kernels come and go --------------------------------
def _program():
    torch.manual_seed(3)
    return [torch.randn(5), torch.rand(1000), torch.randint(10, (8,)), torch.empty(7, dtype=torch.float64).normal_(2, 3),
            torch.empty(5).exponential_(2), torch.empty(5).uniform_(-1, 1), torch.randperm(10),
            torch.multinomial(torch.rand(100), 3), torch.empty(9).bernoulli_(0.3),
            torch.empty(4, dtype=torch.half).random_(100), torch.empty(3, dtype=torch.bfloat16).log_normal_(),
            torch.empty(3).cauchy_(), torch.empty(3).geometric_(0.3), torch.normal(torch.zeros(3), torch.ones(3)),
            torch._standard_gamma(torch.full((4,), 2.0)), torch.poisson(torch.full((4,), 3.0)),
            torch.binomial(torch.full((4,), 10.0), torch.full((4,), 0.3)),
            torch.bernoulli(torch.full((6,), 0.5)), torch.rand(3, generator=torch.Generator().manual_seed(9))]


def _expected():
    """_program()'s tensors drawn with xrng's public functions from the keys
    SPEC.md 8.1 names (torch.manual_seed(3) restarts the global stream at
    G(3); a torch.Generator seeded with 9 draws generator_for(9)), each call
    the words SPEC.md 8.4 lists."""
    g = G(3)
    e = lambda *s, dtype=torch.float32: torch.empty(*s, dtype=dtype)  # noqa: E731
    out = [xrng.randn(5, generator=g), xrng.rand(1000, generator=g),
           xrng.randint(0, 10, (8,), generator=g),  # int64: the i64 draw
           xrng.normal_(e(7, dtype=torch.float64), 2.0, 3.0, generator=g), xrng.exponential_(e(5), 2.0, generator=g),
           xrng.uniform_(e(5), -1.0, 1.0, generator=g), xrng.randperm(10, generator=g)]
    w = xrng.rand(100, generator=g)  # torch.rand(100), then the multinomial of it
    out.append(xrng.multinomial(w, 3, False, generator=g))
    u8 = xrng.bernoulli_(e(9, dtype=torch.uint8), 0.3, generator=g)  # bernoulli: one word per element
    out.append(u8.to(torch.float32))
    i32 = xrng.randint_(e(4, dtype=torch.int32), 0, 100, generator=g)  # half random_: the i32 draw, converted
    out.append(i32.to(torch.half))
    out += [xrng.log_normal_(e(3, dtype=torch.bfloat16), 1.0, 2.0, generator=g),
            xrng.cauchy_(e(3), 0.0, 1.0, generator=g), xrng.geometric_(e(3), 0.3, generator=g)]
    out.append(xrng.randn(3, generator=g) * torch.ones(3) + torch.zeros(3))  # normal(mean, std): z * std + mean
    out += [xrng.gamma(torch.full((4,), 2.0), generator=g), xrng.poisson(torch.full((4,), 3.0), generator=g),
            xrng.binomial(torch.full((4,), 10.0), torch.full((4,), 0.3), generator=g)]
    words = xrng.bits_(e(6, dtype=torch.uint32), generator=g).to(torch.int64) & 0xFFFFFFFF  # tensor p: w < p 2^32
    out.append((words < 2**31).to(torch.float32))
    out.append(xrng.rand(3, generator=xrng.reproducible.generator_for(9)))
    return out


def test_every_draw_equals_xrngs_public_draw():
    """Each aten op draws, from the stream SPEC.md 8.1 names, the words and
    values of xrng's public draw of SPEC.md 8.4's row (dropout, defined at
    bernoulli_: test_dropout_is_bernoulli_of_the_keep_probability)."""
    with mode(strict=True) as m:
        got = _program()
    assert m.reported == {}
    want = _expected()
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and torch.equal(a, b), i


def test_global_stream_and_generator_streams():
    with mode(seed=7, strict=True) as m:
        a = torch.randn(4)
        assert m.global_position().offset == 4
        g = torch.Generator().manual_seed(5)
        b = torch.rand(3, generator=g)
        torch.manual_seed(11)
        c = torch.rand(2)
    assert torch.equal(a, xrng.randn(4, generator=G(7)))
    assert torch.equal(b, xrng.rand(3, generator=xrng.reproducible.generator_for(5)))
    assert torch.equal(c, xrng.rand(2, generator=G(11)))


def test_kernels_are_installed_only_inside_and_torch_continues_unchanged():
    torch.manual_seed(0)
    ref = torch.randn(700)  # across a twist of mt19937
    ref2 = torch.randn(5)
    assert not _C._mode_active()
    torch.manual_seed(0)
    first = torch.randn(700)
    with mode():
        assert _C._mode_active()
        inside = torch.randn(5)
    assert not _C._mode_active()
    assert torch.equal(first, ref) and torch.equal(torch.randn(5), ref2)  # the mark changes no torch value
    assert not torch.equal(inside, ref2)


def test_restores_and_nesting():
    with mode(seed=1, strict=True) as m:
        with torch.random.fork_rng():
            a = torch.rand(4)
        b = torch.rand(4)  # fork_rng restored the state: the same position
        st = torch.get_rng_state()
        c = torch.rand(3)
        torch.set_rng_state(st)
        d = torch.rand(3)
        with mode(seed=2):
            inner = torch.rand(2)
        e = torch.rand(2)  # the outer entry resumes
    assert torch.equal(a, b) and torch.equal(c, d)
    assert torch.equal(inner, xrng.rand(2, generator=G(2)))
    gg = G(1)
    xrng.rand(4, generator=gg)
    xrng.rand(3, generator=gg)
    assert torch.equal(e, xrng.rand(2, generator=gg))
    assert m.reported == {}


def test_thread_entering_while_another_is_inside_raises():
    import threading
    err = []
    with mode():
        t = threading.Thread(target=lambda: err.append(_enter()))
        t.start()
        t.join()
    assert err and isinstance(err[0], RuntimeError)


def _enter():
    try:
        with mode():
            pass
    except RuntimeError as e:
        return e
    return None


# ---- torch's semantics around the draw --------------------------------------------------------------
def test_vmap_randomness_different_same_error():
    from torch.func import vmap
    x = torch.ones(3, 64)
    with mode(strict=True):
        diff = vmap(lambda t: F.dropout(t, 0.5), randomness="different")(x)
    with mode(strict=True):
        plain = F.dropout(x, 0.5)  # "different" draws the batch as one tensor
    assert torch.equal(diff, plain)
    assert not torch.equal(diff[0], diff[1])
    with mode(strict=True):
        same = vmap(lambda t: torch.rand(5) + t, randomness="same")(torch.zeros(3, 5))
        assert torch.equal(same[0], same[1]) and torch.equal(same[1], same[2])
        with pytest.raises(RuntimeError, match="randomness"):
            vmap(lambda t: F.dropout(t, 0.5), randomness="error")(x)


@pytest.mark.parametrize("op", ["uniform_", "exponential_", "cauchy_", "geometric_", "log_normal_", "normal_"])
def test_forward_ad_tangents_are_torchs(op):
    args = {"geometric_": (0.3,)}.get(op, ())

    def tangent():
        with fwAD.dual_level():
            p = fwAD.make_dual(torch.rand(4), torch.ones(4))
            y = getattr(p * 1, op)(*args)
            return fwAD.unpack_dual(y).tangent

    ref = tangent()
    with mode(strict=True):
        got = tangent()
    assert (ref is None and got is None) or torch.equal(ref, got)


@pytest.mark.parametrize("fn", [lambda p: torch.bernoulli(p), lambda p: torch.poisson(p * 3),
                                lambda p: torch.normal(p, 1.0)])
def test_forward_ad_of_functional_draws_is_torchs(fn):
    def tangent():
        with fwAD.dual_level():
            p = fwAD.make_dual(torch.rand(4), torch.ones(4))
            return fwAD.unpack_dual(fn(p)).tangent

    ref = tangent()
    with mode(strict=True):
        got = tangent()
    assert (ref is None) == (got is None) and (ref is None or torch.equal(ref, got))


def _sampler(x):
    return (torch.distributions.Gamma(x, 1.0).sample() + torch.distributions.Poisson(x).sample()
            + torch.bernoulli(x / 4) + torch.distributions.Binomial(5, x / 4).sample())


def test_jit_trace_through_every_draw():
    # check_dispatch off: a traced graph cannot run under any TorchDispatchMode
    # (torch's own limitation: aten::_local_scalar_dense is handed an int)
    x = torch.full((6,), 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mode(strict=True, check_dispatch=False):
            traced = torch.jit.trace(_sampler, x, check_trace=False)
        with mode(seed=4, strict=True, check_dispatch=False):
            a = traced(x)
        with mode(seed=4, strict=True, check_dispatch=False):
            b = _sampler(x)
    assert torch.equal(a, b)


@torch.jit.script
def _scripted(n: int):
    return torch.rand(n) + torch.randn(n)


def test_torchscript_draws_follow_the_mode():
    with mode(seed=3, strict=True):
        a = _scripted(5)
    with mode(seed=3, strict=True):
        b = torch.rand(5) + torch.randn(5)
    assert torch.equal(a, b)


def test_memory_format_is_kept_and_values_follow_the_logical_order():
    x = torch.randn(2, 3, 4, 5)
    with mode(seed=1):
        a = F.dropout(x.to(memory_format=torch.channels_last), 0.5)
    with mode(seed=1):
        b = F.dropout(x, 0.5)
    assert a.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(a, b)


def test_dropout_is_bernoulli_of_the_keep_probability():
    """F.dropout on the CPU is bernoulli_(1 - p) (keep where the word is
    below round((1 - p) 2^32)), then torch's div_ and mul."""
    x = torch.randn(1000)
    with mode(seed=2, strict=True):
        y = F.dropout(x, 0.3)
    keep = xrng.bernoulli(1000, p=1 - 0.3, generator=G(2)).bool()
    scale = torch.ones((), dtype=torch.float32).div_(1 - 0.3)
    assert torch.equal(y, torch.where(keep, x * scale, torch.zeros(())))


def test_lstm_dropout_is_served_and_reproducible():
    lstm = torch.nn.LSTM(4, 8, num_layers=3, dropout=0.5)
    x = torch.randn(5, 2, 4)
    outs = []
    for _ in range(2):
        with mode(seed=5, strict=True, check_dispatch=True) as m:
            outs.append(lstm(x)[0])
        assert m.reported == {}
    assert torch.equal(outs[0], outs[1])
    torch.manual_seed(5)
    assert not torch.equal(outs[0], lstm(x)[0])


def test_tensor_subclass_draws_follow_the_mode():
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    img = tv_tensors.Image(torch.zeros(3, 4, 4))
    with mode(seed=6, strict=True):
        a = torch.randn_like(img)
    assert torch.equal(a.as_subclass(torch.Tensor), xrng.randn((3, 4, 4), generator=G(6)))


def test_unsigned_and_complex_dtypes_are_drawn():
    with mode(strict=True) as m:
        u = torch.randint(0, 50000, (6,), dtype=torch.uint16)
        u32 = torch.empty(5, dtype=torch.uint32).random_(7)
        c = torch.empty(4, dtype=torch.complex64).normal_()
    assert m.reported == {}
    assert u.dtype == torch.uint16 and int(u.to(torch.int32).max()) < 50000
    assert u32.dtype == torch.uint32 and int(u32.to(torch.int64).max()) < 7
    # complex: view_as_real drawn with std / sqrt(2) (torch's rule), after the
    # i32 draw of the uint16 (2 words each) and the i64 draw of the uint32 (4 words each)
    g = G(0)
    g = xrng.Generator(g.seed, g.subseq, 6 * 2 + 5 * 4)
    assert torch.equal(torch.view_as_real(c).flatten(), xrng.randn(8, generator=g, std=2 ** -0.5))


def test_half_random_never_reaches_the_bound():
    """torch adjusts a random_ range to a float dtype (update_to): no value,
    once rounded, reaches `to` (issue 25: 32752 used to come out)."""
    with mode():
        for s in range(20):
            torch.manual_seed(s)
            assert torch.empty(2000, dtype=torch.half).random_(32752).max() < 32752


# ---- torch's argument checks ---------------------------------------------------------------------------
def test_torchs_errors_every_time():
    with mode():
        for _ in range(2):  # not only the first call of the process
            with pytest.raises(RuntimeError, match="to-from"):
                torch.empty(3).uniform_(-3.4e38, 3.4e38)
        with pytest.raises(RuntimeError, match="std >= 0.0"):
            torch.empty(3).normal_(0, -1)
        with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
            torch.empty(3, dtype=torch.int64).random_(5, 2)
        with pytest.raises(RuntimeError, match="geometric_ expects p"):
            torch.empty(3).geometric_(1.5)
        with pytest.raises(RuntimeError):
            torch.randint(10, (3,), dtype=torch.complex64)


def test_a_refused_argument_is_torchs_decision_and_reported():
    """xrng refuses a parameter (a mean that is not finite in float32), torch
    accepts it: torch's kernel draws, the call is reported (strict: raised,
    nothing written); where torch refuses too, its own error is the answer."""
    with mode() as m, warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t = torch.empty(3).normal_(float("inf"), 1.0)
    assert torch.isinf(t).all() and "aten.normal_" in m.reported
    t = torch.zeros(3)
    with mode(strict=True), pytest.raises(xrng.NotReproducibleError):
        t.normal_(float("inf"), 1.0)
    assert torch.equal(t, torch.zeros(3))
    with mode() as m, pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        torch.multinomial(torch.zeros(2), 1)  # both refuse: torch's error
    assert m.reported == {}


# ---- compiled regions: Inductor calls the aten ops (fallback_random) ----------------------------------
def test_compiled_equals_eager():
    def f(x):
        y = torch.randn(x.shape) + x
        return F.dropout(y, 0.3) * torch.rand(3, 4)

    x = torch.ones(3, 4)
    with mode(seed=8):
        e = [f(x), f(x)]
    torch._dynamo.reset()
    cf = torch.compile(f)
    with mode(seed=8, strict=True):
        c = [cf(x), cf(x)]
    assert all(torch.equal(a, b) for a, b in zip(e, c))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
def test_compiled_tensor_p_bernoulli_equals_eager(dtype, monkeypatch):
    """torch.bernoulli(p), which Inductor decomposes into rand(float32) < p even
    with fallback_random, is the mode's bernoulli in compiled code (under CI=1,
    where Inductor refuses a fallback for an operator that has a decomposition)."""
    monkeypatch.setenv("CI", "1")

    def f(p):
        return torch.bernoulli(p), torch.bernoulli(p.t()), torch.rand(3)

    p = torch.rand(37, 3, dtype=dtype)
    for kw in ({"seed": 4}, {"stream": "torch-cpu-x86"}):
        with mode(**kw, strict=True):
            torch.manual_seed(1)
            e = f(p)
        torch._dynamo.reset()
        cf = torch.compile(f)
        with mode(**kw, strict=True):
            torch.manual_seed(1)
            c = cf(p)
        assert all(torch.equal(a, b) and a.stride() == b.stride() for a, b in zip(e, c)), kw
    from torch._inductor import decomposition
    assert decomposition.decompositions[torch.ops.aten.bernoulli.default].__module__ == "torch._decomp.decompositions"


def test_entry_does_not_import_inductor():
    """Entering the mode does not import Inductor (Dynamo: seconds); a compile
    inside the mode that imports it gets fallback_random, the exit restores it."""
    code = """
import sys, torch, xrng
with xrng.reproducible(seed=0):
    assert "torch._inductor.config" not in sys.modules
    import torch._inductor.config as ic
    assert ic.fallback_random is True and torch.compiler.config.cache_key_tag == "|xrng.reproducible"
    from torch._inductor import decomposition as d
    assert d.decompositions[torch.ops.aten.bernoulli.default].__name__ == "_bernoulli_as_eager"
assert ic.fallback_random is False and torch.compiler.config.cache_key_tag == ""
assert d.decompositions[torch.ops.aten.bernoulli.default].__name__ == "bernoulli"
assert not any(type(f).__name__ == "_Finder" for f in sys.meta_path)
print("ok")
"""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-2000:]


# ---- other devices: the host path (the xdev test backend is exercised in test_reproducible) --------------
@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_draws_equal_cpu():
    with mode(seed=9, strict=True):
        a = [torch.randn(1000), F.dropout(torch.ones(1000), 0.4), torch.randint(7, (100,)), torch.randperm(50)]
    with mode(seed=9, strict=True):
        b = [torch.randn(1000, device="cuda"), F.dropout(torch.ones(1000, device="cuda"), 0.4),
             torch.randint(7, (100,), device="cuda"), torch.randperm(50, device="cuda")]
    assert all(torch.equal(x, y.cpu()) for x, y in zip(a, b))


def test_ops_table_lists_every_served_operator():
    names = {n for n, _, _ in xrng._dispatch.ops()}
    assert {"normal_", "uniform_", "bernoulli_.float", "random_.from", "multinomial", "native_dropout",
            "rrelu_with_noise", "_standard_gamma", "binomial"} <= names


def test_sdpa_dropout_runs_the_math_formulation_with_the_modes_dropout():
    q = torch.randn(2, 4, 8, 16)
    with mode(seed=3, strict=True, check_dispatch=True) as m:
        assert torch._fused_sdp_choice(q, q, q, dropout_p=0.3) == 0  # math: its dropout is aten's
        a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    with mode(seed=3, strict=True, check_dispatch=True):
        b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    assert m.reported == {} and torch.equal(a, b)


# ---- real clients, other devices, workers, exits ---------------------------------------------------------
def _bert_forward(device):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=32)
    with mode(seed=0, strict=True) as m:
        model = transformers.BertForMaskedLM(cfg).to(device)
        model.train()
        x = torch.randint(0, 100, (4, 16)).to(device)
        losses = [model(input_ids=x, labels=x).loss.detach().cpu() for _ in range(2)]
        words = m.global_position().offset
    assert m.reported == {}
    return losses, words


def test_draws_on_another_device_equal_cpu_and_bert_follows(xdev):
    """The xdev test backend (PrivateUse1, torch's CPU fallback for its math)
    reaches the mode's kernels through the host path: its draws, its dropout
    (native_dropout there, bernoulli_ + div_ + mul on the CPU) and SDPA's
    dropout are the CPU's bit for bit; a BERT training forward draws the same
    words and gives the same loss up to the backend's own arithmetic (its SDPA
    without dropout takes another kernel than the CPU's)."""
    x = torch.randn(1000)
    q = torch.randn(2, 2, 8, 8)

    def draws(dev):
        with mode(seed=4, strict=True):
            return [torch.randn(100, device=dev), torch.randint(9, (50,), device=dev),
                    torch.empty(30, device=dev).exponential_(), F.dropout(x.to(dev), 0.3),
                    F.scaled_dot_product_attention(q.to(dev), q.to(dev), q.to(dev), dropout_p=0.3),
                    torch.randperm(20, device=dev)]
    assert all(torch.equal(a, b.cpu()) for a, b in zip(draws("cpu"), draws("xdev")))
    cpu, cpu_words = _bert_forward("cpu")
    dev, dev_words = _bert_forward("xdev")
    assert cpu_words == dev_words
    assert all(torch.allclose(a, b, rtol=1e-5, atol=0) for a, b in zip(cpu, dev))


class _Noisy(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.rand(2)


@pytest.mark.parametrize("method", ["spawn"])
def test_dataloader_spawned_workers_draw_what_forked_workers_draw(method):
    def batches(m):
        loader = torch.utils.data.DataLoader(_Noisy(), batch_size=2, num_workers=2, multiprocessing_context=m)
        with mode(seed=0, strict=True):
            return list(loader)
    assert all(torch.equal(a, b) for a, b in zip(batches("fork"), batches(method)))


def test_a_program_may_exit_inside_the_mode():
    """The kernels and the callbacks outlive the program's exit (a script's
    enable() without disable(), a DataLoader worker's mode): no crash at exit."""
    import subprocess
    import sys
    code = "import torch, xrng; xrng.reproducible(seed=1, engine='dispatch').enable(); print(float(torch.rand(1)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert float(r.stdout) == float(xrng.rand(1, generator=G(1)))


def _dtensor_worker(rank, world, port, out):
    import os
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    import torch.distributed.tensor as dtm
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        mesh = init_device_mesh("cpu", (world,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mode(seed=0, strict=True) as m:
                a = dtm.randn(8, 6, device_mesh=mesh, placements=[Shard(0)]).full_tensor()
                b = distribute_tensor(torch.zeros(8, 6), mesh, [Shard(1)])
                b.uniform_(-1, 1)
                b = b.full_tensor()
                c = F.dropout(distribute_tensor(torch.ones(8, 6), mesh, [Shard(0)]), 0.5).full_tensor()
                d = dtm.rand(5, 3, device_mesh=mesh, placements=[Replicate()]).full_tensor()
                f = dtm.randn(1, 6, device_mesh=mesh, placements=[Shard(0)]).full_tensor()  # rank 1: no rows
                e = torch.rand(4)  # the stream continues together on every rank
        torch.save({"a": a, "b": b, "c": c, "d": d, "f": f, "e": e, "reported": m.reported}, f"{out}.{rank}")
    finally:
        dist.destroy_process_group()


def test_dtensor_draws_equal_the_unsharded_ones(tmp_path):
    """DTensor draws every random op of a shard inside its RNG tracker's region;
    the mode's tracker makes the shard's draw its block of the unsharded draw
    (2 gloo processes, a CPU mesh)."""
    import socket
    import torch.multiprocessing as mp
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    out = tmp_path / "r.pt"
    mp.spawn(_dtensor_worker, args=(2, port, str(out)), nprocs=2)
    with mode(seed=0):
        ref = {"a": torch.randn(8, 6), "b": torch.zeros(8, 6).uniform_(-1, 1), "c": F.dropout(torch.ones(8, 6), 0.5),
               "d": torch.rand(5, 3), "f": torch.randn(1, 6), "e": torch.rand(4)}
    for rank in range(2):  # every rank's view, and its stream after the draws (an empty shard moves too)
        r = torch.load(f"{out}.{rank}")
        assert r["reported"] == {}
        for k, v in ref.items():
            assert torch.equal(r[k], v), (rank, k)


def test_a_reseed_before_a_call_with_nothing_to_draw_is_kept():
    """Found by PyTorch's test_tensor_creation_ops.py: torch.randn(0) runs
    torch's kernel (no words); a manual_seed before it must not be lost."""
    with mode(seed=0, strict=True):
        torch.manual_seed(1)
        torch.randn(0)
        torch.manual_seed(1)
        a = torch.randn(3)
    assert torch.equal(a, xrng.randn(3, generator=G(1)))


def test_torchs_warnings_are_given_every_call():
    """Found by PyTorch's test_tensor_creation_ops.py: random_'s precision
    warning came only with the first of identical calls."""
    t = torch.empty(2000, dtype=torch.float16)
    with mode():
        for _ in range(2):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                t.random_(-42, 2 ** 11 + 10)
            assert any("out of bounds" in str(x.message) for x in w)


def test_the_entry_engine_was_removed(monkeypatch):
    with pytest.raises(ValueError, match=r"engine='entry' was removed .*SPEC\.md 8\.4"):
        xrng.reproducible(seed=0, engine="entry")
    with pytest.raises(ValueError, match="the only engine"):
        xrng.reproducible(seed=0, engine="aten")
    assert xrng.reproducible(seed=0, engine="dispatch").engine == "dispatch"
    monkeypatch.setenv("XRNG_MODE_ENGINE", "entry")  # a run pinned to the old engine fails, not silently revised
    with pytest.raises(ValueError, match="was removed"):
        xrng.reproducible(seed=0)


def test_torchs_python_functions_are_never_replaced():
    """The mode wraps no torch function: its draws happen in the aten kernels."""
    names = [(torch, "rand"), (torch, "randn"), (torch, "normal"), (torch, "multinomial"), (torch, "bernoulli"),
             (torch.Tensor, "uniform_"), (torch.Tensor, "normal_"), (torch, "dropout"), (torch._VF, "dropout"),
             (F, "dropout"), (F, "scaled_dot_product_attention"), (torch, "erfinv"), (torch, "set_rng_state")]
    before = [getattr(o, n) for o, n in names]
    with mode():
        assert all(getattr(o, n) is f for (o, n), f in zip(names, before))
    assert all(getattr(o, n) is f for (o, n), f in zip(names, before))


def test_on_import_runs_callbacks_once_after_the_module_and_leaves(tmp_path, monkeypatch):
    """xrng._on_import (how the mode sets Inductor and DTensor up without
    importing them): a callback runs once, with the executed module; a
    cancelled one never runs; the finder leaves sys.meta_path when idle."""
    import sys
    from xrng import _on_import
    (tmp_path / "xrng_onimp_a.py").write_text("VALUE = 7\n")
    (tmp_path / "xrng_onimp_b.py").write_text("VALUE = 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    _on_import.when_imported("xrng_onimp_a", lambda m: seen.append(("a", m.VALUE)))
    _on_import.when_imported("xrng_onimp_b", lambda m: seen.append(("b", m.VALUE)))
    cancelled = lambda m: seen.append(("cancelled", m.VALUE))  # noqa: E731
    _on_import.when_imported("xrng_onimp_b", cancelled)
    _on_import.cancel("xrng_onimp_b", cancelled)
    try:
        import xrng_onimp_a  # noqa: F401
        assert seen == [("a", 7)] and _on_import._finder in sys.meta_path  # b still waits
        import xrng_onimp_b  # noqa: F401
        assert seen == [("a", 7), ("b", 8)]
        assert _on_import._finder not in sys.meta_path and not _on_import._callbacks
    finally:
        for name in ("xrng_onimp_a", "xrng_onimp_b"):
            sys.modules.pop(name, None)
            _on_import._callbacks.pop(name, None)
        _on_import._leave_if_idle()
