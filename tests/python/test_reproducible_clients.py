"""xrng.reproducible with real clients, built from tiny configs (nothing is
downloaded): transformers BERT trained with dropout, a timm ViT (trunc_normal_
through erfinv_), a diffusers UNet2DModel sampled with DDPM and Euler-ancestral
schedulers from torch.Generator objects, and a DataLoader with RandomSampler,
workers and a generator.

Every run is strict (any random op the mode cannot draw from xrng raises), so
passing means that every draw of these programs came from xrng. The checks:
the draws equal xrng's documented streams (dropout modules, sampling noise,
permutations, worker draws), do not depend on the thread count, and are the
same when the model lives on the xdev PrivateUse1 test device.
"""
import contextlib

import pytest
import torch

import xrng
from conftest import mode_dropout, same_bits

G = xrng.reproducible.global_generator


@contextlib.contextmanager
def threads(n):
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def state(model):
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def same_state(a, b):
    return a.keys() == b.keys() and all(same_bits(a[k], b[k]) for k in a)


# ---- transformers: a small BERT trained a few steps with dropout on -------------------------------------
def _bert_config():
    transformers = pytest.importorskip("transformers")
    return transformers, transformers.BertConfig(
        vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=32, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)


def _train_bert(seed, steps=2, device="cpu", backward=True):
    transformers, cfg = _bert_config()
    checked = []

    with xrng.reproducible(seed=seed, strict=True) as r:
        model = transformers.BertForMaskedLM(cfg)
        init = state(model)
        model.to(device).train()
        # every nn.Dropout output must be xrng.dropout at the stream position it started from
        where = {}
        for mod in model.modules():
            if isinstance(mod, torch.nn.Dropout):
                mod.register_forward_pre_hook(lambda m, inp: where.__setitem__(m, r.global_position()))
                mod.register_forward_hook(lambda m, inp, out: checked.append(
                    same_bits(out.cpu(), mode_dropout(inp[0].detach().cpu(), m.p, where[m]))))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randint(0, 100, (4, 16)).to(device)
        words, losses = [], []
        for _ in range(steps):
            start = r.global_position().offset
            loss = model(input_ids=x, labels=x).loss
            if backward:  # (the xdev test backend has no autograd device queue: forward only there)
                loss.backward()
                opt.step()
                opt.zero_grad()
            words.append(r.global_position().offset - start)
            losses.append(loss.detach().cpu())
    return init, words, losses, checked, state(model)


def test_bert_init_and_dropout_masks_are_xrngs_and_thread_independent():
    with threads(1):
        init1, words, losses, checked, _ = _train_bert(0)
    with threads(2):
        init2, words2, _, _, _ = _train_bert(0)
    assert same_state(init1, init2)
    # B x L x H for the embedding dropout and the two hidden dropouts of each layer,
    # B x heads x L x L for each layer's attention dropout (inside SDPA): nothing else draws
    assert words == words2 == [4 * 16 * 32 * (1 + 2 * 2) + 2 * (4 * 2 * 16 * 16)] * 2
    assert len(checked) == 2 * (1 + 2 * 2) and all(checked)
    assert not same_state(init1, _train_bert(1, steps=0)[0])


def test_bert_training_forward_on_xdev_equals_cpu(xdev):
    _, cpu_words, cpu_losses, _, _ = _train_bert(0, backward=False)
    _, dev_words, dev_losses, checked, _ = _train_bert(0, device="xdev", backward=False)
    assert len(checked) == 2 * 5 and all(checked) and dev_words == cpu_words
    # torch's SDPA: on the CPU its math kernel, on xdev (PrivateUse1) another path: the masks are checked
    assert all(torch.allclose(a, b, rtol=0, atol=1e-5) for a, b in zip(cpu_losses, dev_losses))


# ---- timm: a tiny ViT from its config (trunc_normal_ = uniform_ + erfinv_) ------------------------------
def _vit(device="cpu"):
    timm = pytest.importorskip("timm")
    with xrng.reproducible(seed=0, strict=True), torch.device(device):
        return timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8, embed_dim=48,
                                 depth=2, num_heads=2, num_classes=10, drop_rate=0.1, pos_drop_rate=0.1,
                                 proj_drop_rate=0.1, attn_drop_rate=0.1, drop_path_rate=0.1)


def test_timm_vit_init_is_the_same_for_any_thread_count_and_on_xdev(xdev):
    with threads(1):
        one = _vit()
    with threads(2):
        two = _vit()
    dev = _vit("xdev")
    assert dev.cls_token.device.type == "xdev"
    assert same_state(state(one), state(two)) and same_state(state(one), state(dev))
    # timm's trunc_normal_(std=.02) is uniform_ -> erfinv_ -> mul_ -> add_ -> clamp_, erfinv_ being xrng's own
    w = one.blocks[0].attn.qkv.weight.detach()
    assert abs(float(w.std()) - 0.02) < 0.002 and float(w.abs().max()) <= 2.0


def test_timm_vit_training_step_draws_dropout_attn_drop_and_drop_path_from_xrng():
    model = _vit()
    x = torch.linspace(-1, 1, 2 * 3 * 32 * 32).reshape(2, 3, 32, 32)
    checked, where = [], {}
    with xrng.reproducible(seed=1, strict=True) as r:
        for mod in model.modules():
            if isinstance(mod, torch.nn.Dropout) and mod.p > 0:
                mod.register_forward_pre_hook(lambda m, inp: where.__setitem__(m, r.global_position()))
                mod.register_forward_hook(lambda m, inp, out: checked.append(
                    same_bits(out, mode_dropout(inp[0].detach(), m.p, where[m]))))
        model.train()
        model(x).logsumexp(-1).sum().backward()
        words = r.global_position().offset
    # pos_drop and head_drop (2 x 17 x 48 and 2 x 48); per block: attention dropout in SDPA (2 x 2 x 17 x 17),
    # proj_drop, mlp drop1 and drop2 (2 x 17 x {48, 192, 48}); drop_path (rates 0 and 0.1 over the two
    # blocks): two masks of 2 words in the second block
    per_block = 2 * 2 * 17 * 17 + 2 * 17 * (48 + 192 + 48)
    assert words == 2 * 17 * 48 + 2 * 48 + 2 * per_block + 2 * 2
    assert len(checked) == 2 + 2 * 3 and all(checked)


# ---- diffusers: UNet2DModel, DDPM and Euler-ancestral sampling with torch.Generator ----------------------
def _unet(device="cpu"):
    diffusers = pytest.importorskip("diffusers")
    with xrng.reproducible(seed=0, strict=True), torch.device(device):
        return diffusers.UNet2DModel(sample_size=8, in_channels=3, out_channels=3, layers_per_block=1,
                                     block_out_channels=(8, 16), down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                                     up_block_types=("AttnUpBlock2D", "UpBlock2D"), norm_num_groups=4,
                                     attention_head_dim=4).eval()


def _sample(unet, scheduler, generator, steps=3):
    """A sampling loop as diffusers' pipelines write it: initial noise and per-step
    noise from diffusers' randn_tensor with the caller's generator."""
    from diffusers.utils import torch_utils
    scheduler.set_timesteps(steps)
    x = torch_utils.randn_tensor((2, 3, 8, 8), generator=generator) * scheduler.init_noise_sigma
    with torch.no_grad():
        for t in scheduler.timesteps:
            out = unet(scheduler.scale_model_input(x, t), t).sample
            x = scheduler.step(out, t, x, generator=generator).prev_sample
    return x


@contextlib.contextmanager
def xrng_noise_in(*modules):
    """diffusers with xrng.diffusers.randn_tensor in place of its own (no mode):
    the documented noise of an xrng.Generator."""
    import xrng.diffusers
    saved = [m.randn_tensor for m in modules]
    for m in modules:
        m.randn_tensor = xrng.diffusers.randn_tensor
    try:
        yield
    finally:
        for m, f in zip(modules, saved):
            m.randn_tensor = f


@pytest.mark.parametrize("name", ["DDPMScheduler", "EulerAncestralDiscreteScheduler"])
def test_diffusers_sampling_noise_is_the_generators_xrng_stream(name):
    diffusers = pytest.importorskip("diffusers")
    import importlib
    from diffusers.utils import torch_utils
    unet = _unet()
    make = getattr(diffusers, name)
    with xrng.reproducible(seed=0, strict=True):
        a = _sample(unet, make(num_train_timesteps=50), torch.Generator().manual_seed(7))
        g = torch.Generator().manual_seed(3)
        _sample(unet, make(num_train_timesteps=50), g)
        g.manual_seed(7)  # re-seeding restarts the generator's stream
        b = _sample(unet, make(num_train_timesteps=50), g)
    sched_module = importlib.import_module(make.__module__)
    with xrng_noise_in(torch_utils, sched_module):
        ref = _sample(unet, make(num_train_timesteps=50), xrng.Generator(7))
    assert same_bits(a, ref) and same_bits(b, ref)


def test_diffusers_ddpm_pipeline_noise_threads_and_unet_init_on_xdev(xdev):
    diffusers = pytest.importorskip("diffusers")
    from diffusers.utils import torch_utils
    unet = _unet()
    assert same_state(state(unet), state(_unet("xdev")))
    pipe = diffusers.DDPMPipeline(unet=unet, scheduler=diffusers.DDPMScheduler(num_train_timesteps=50))
    pipe.set_progress_bar_config(disable=True)
    with xrng.reproducible(seed=0, strict=True):
        images = pipe(batch_size=2, generator=torch.Generator().manual_seed(7), num_inference_steps=3,
                      output_type="np").images
        loop = _sample(unet, diffusers.DDPMScheduler(num_train_timesteps=50), torch.Generator().manual_seed(7))
        noise = {}
        for n in (1, 2):
            with threads(n):
                noise[n] = torch_utils.randn_tensor((2, 4, 64, 64), generator=torch.Generator().manual_seed(8))
        on_dev = torch_utils.randn_tensor((2, 4, 64, 64), generator=torch.Generator().manual_seed(8), device="xdev")
    # the pipeline is the loop above: its noise is the generator's xrng stream
    assert images.tobytes() == (loop / 2 + 0.5).clamp(0, 1).permute(0, 2, 3, 1).numpy().tobytes()
    assert same_bits(noise[1], noise[2]) and same_bits(noise[1], on_dev.cpu())
    assert same_bits(noise[1], xrng.randn(2, 4, 64, 64, generator=xrng.Generator(8)))


# ---- torch.utils.data: RandomSampler, workers and a generator -----------------------------------------------
class _Augmented(torch.utils.data.Dataset):
    """Each item draws its own noise (an augmentation) in whichever worker loads it."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        return torch.tensor(i), torch.rand(2), torch.tensor(-1 if info is None else info.id)


def _load(generator_seed, workers):
    ds = _Augmented()
    g = None if generator_seed is None else torch.Generator().manual_seed(generator_seed)
    loader = torch.utils.data.DataLoader(ds, batch_size=2, sampler=torch.utils.data.RandomSampler(ds, generator=g),
                                         num_workers=workers, generator=g)
    with xrng.reproducible(seed=5, strict=True):
        return list(loader)


def test_dataloader_order_and_worker_draws_follow_the_documented_streams():
    batches = _load(11, workers=2)
    # the loader's generator: first its base seed (random_ on int64: [-1, 2^63 - 1) + 1), then the permutation
    g = xrng.reproducible.generator_for(11)
    base = int(xrng.randint(-1, 2**63 - 1, (1,), generator=g)) + 1
    assert torch.cat([b[0] for b in batches]).tolist() == xrng.randperm(10, generator=g).tolist()
    # torch seeds worker w with base + w: under the mode that restarts the global stream there
    seen = {0: 0, 1: 0}
    for _, noise, worker in batches:
        w = int(worker[0])
        key = G(base + w)
        assert same_bits(noise, xrng.rand(4, seed=key.seed, subseq=key.subseq, offset=seen[w]).view(2, 2))
        seen[w] += 4
    assert seen == {0: 12, 1: 8}
    assert all(all(same_bits(x, y) for x, y in zip(p, q)) for p, q in zip(batches, _load(11, workers=2)))


def test_dataloader_without_a_generator_draws_its_seeds_from_the_global_stream():
    batches = _load(None, workers=0)
    g = G(5)
    int(xrng.randint(-1, 2**63 - 1, (1,), generator=g))  # the loader's base seed
    seed = int(xrng.randint(-1, 2**63 - 1, (1,), generator=g)) + 1  # RandomSampler seeds a torch.Generator with it
    order = xrng.randperm(10, generator=xrng.reproducible.generator_for(seed)).tolist()
    assert torch.cat([b[0] for b in batches]).tolist() == order
    noise = torch.cat([b[1] for b in batches]).reshape(-1)
    assert same_bits(noise, xrng.rand(20, generator=g))  # num_workers=0: the items draw from the global stream
