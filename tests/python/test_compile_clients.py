"""The reproducible mode inside torch.compile with real clients (issue 16),
built from tiny configs (nothing downloaded), Inductor on the CPU: the
compiled program draws the eager program's random tensors under the mode.

* transformers BERT, torch.compile(model), three training steps with dropout
  on: initial weights bitwise equal, the same stream positions after every
  step (so the same dropout masks: each is the draw at its position), losses
  equal up to Inductor's arithmetic;
* timm ViT with drop-path (Tensor.bernoulli_) and dropout, compiled: outputs
  equal, same positions;
* diffusers UNet2DModel compiled inside a DDPM sampling loop whose noise comes
  from a torch.Generator: the same noise, samples close;
and no ReproducibilityWarning, no graph break (torch._dynamo.explain).
"""
import time
import warnings

import pytest
import torch
import torch._dynamo

import xrng


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _state(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _no_xrng_warnings(w):
    msgs = [str(x.message) for x in w if issubclass(x.category, xrng.ReproducibilityWarning)]
    assert not msgs, msgs


def _bert(compiled: bool, steps=3):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(
        vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=16, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
        )  # attention through SDPA with dropout: the mode draws its mask in compiled code too
    with xrng.reproducible(seed=5) as r:
        model = transformers.BertForMaskedLM(cfg).train()
        init = _state(model)
        run = torch.compile(model) if compiled else model
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randint(0, 64, (2, 8))
        losses, offsets = [], []
        t0 = time.perf_counter()
        for _ in range(steps):
            loss = run(input_ids=x, labels=x).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.detach())
            offsets.append(r.global_position().offset)
        secs = time.perf_counter() - t0
    return init, losses, offsets, secs


def test_bert_training_compiled_under_the_mode():
    init_e, loss_e, off_e, _ = _bert(False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init_c, loss_c, off_c, secs = _bert(True)
    _no_xrng_warnings(w)
    assert init_e.keys() == init_c.keys() and all(torch.equal(init_e[k], init_c[k]) for k in init_e)
    assert off_e == off_c  # every dropout drew at eager's positions, step after step
    diff = max(abs(a - b).item() for a, b in zip(loss_e, loss_c))
    print(f"BERT: compile + 3 steps {secs:.1f} s, largest loss difference {diff:.3g}")
    assert diff < 1e-4


def test_bert_forward_has_no_graph_break_under_the_mode():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(
        vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=16, attn_implementation="eager")
    with xrng.reproducible(seed=1):
        model = transformers.BertForMaskedLM(cfg).train()
        ex = torch._dynamo.explain(model)(input_ids=torch.randint(0, 64, (2, 8)))
    assert ex.graph_break_count == 0


def test_timm_vit_drop_path_compiled():
    timm = pytest.importorskip("timm")

    def run(compiled):
        with xrng.reproducible(seed=2) as r:
            model = timm.models.vision_transformer.VisionTransformer(
                img_size=16, patch_size=8, embed_dim=16, depth=2, num_heads=2, num_classes=3,
                drop_rate=0.1, drop_path_rate=0.2).train()
            f = torch.compile(model) if compiled else model
            x = torch.randn(2, 3, 16, 16)
            t0 = time.perf_counter()
            outs = [f(x) for _ in range(2)]
            return outs, r.global_position().offset, time.perf_counter() - t0

    oe, pe, _ = run(False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        oc, pc, secs = run(True)
    _no_xrng_warnings(w)
    assert pe == pc
    for a, b in zip(oe, oc):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    print(f"timm ViT: compile + 2 calls {secs:.1f} s")


def test_diffusers_unet_sampling_loop_compiled():
    diffusers = pytest.importorskip("diffusers")

    def run(compiled):
        with xrng.reproducible(seed=0):
            unet = diffusers.UNet2DModel(
                sample_size=8, in_channels=1, out_channels=1, layers_per_block=1, block_out_channels=(8, 16),
                down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                norm_num_groups=4).eval()
            net = torch.compile(unet) if compiled else unet
            sched = diffusers.DDPMScheduler(num_train_timesteps=20)
            sched.set_timesteps(4)
            g = torch.Generator().manual_seed(7)
            x = torch.randn(1, 1, 8, 8, generator=g)
            noise0 = x.clone()
            t0 = time.perf_counter()
            with torch.no_grad():
                for t in sched.timesteps:
                    x = sched.step(net(x, t).sample, t, x, generator=g).prev_sample
            return noise0, x, time.perf_counter() - t0

    ne, xe, _ = run(False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nc, xc, secs = run(True)
    _no_xrng_warnings(w)
    assert torch.equal(ne, nc)
    torch.testing.assert_close(xe, xc, rtol=1e-4, atol=1e-4)
    print(f"diffusers UNet2DModel: compile + 4 steps {secs:.1f} s")
