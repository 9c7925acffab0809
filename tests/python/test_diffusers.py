"""xrng.diffusers.randn_tensor: diffusers' signature, xrng values."""
import pytest
import torch

import xrng
from xrng.diffusers import randn_tensor
from conftest import same_bits


def test_single_generator_advances():
    g = xrng.Generator(7)
    a = randn_tensor((2, 4, 8, 8), generator=g)
    b = randn_tensor((2, 4, 8, 8), generator=g)
    ref = xrng.randn(2 * 2 * 4 * 8 * 8, seed=7)
    assert same_bits(torch.cat([a.reshape(-1), b.reshape(-1)]), ref)


def test_per_sample_generators_and_seed_lists():
    shape = (3, 4, 5, 5)
    t = randn_tensor(shape, generator=[xrng.Generator(s) for s in (10, 11, 12)], dtype=torch.float16)
    assert t.shape == shape and t.dtype == torch.float16
    for i, s in enumerate((10, 11, 12)):
        assert same_bits(t[i:i + 1], xrng.randn(1, 4, 5, 5, seed=s, dtype=torch.float16))
    assert same_bits(randn_tensor(shape, generator=[10, 11, 12], dtype=torch.float16), t)
    # sample i does not depend on the batch it is in
    assert same_bits(randn_tensor((1, 4, 5, 5), generator=[11], dtype=torch.float16), t[1:2])


def test_defaults_torch_generators_and_errors():
    xrng.manual_seed(5)
    a = randn_tensor((4,))
    assert a.dtype == torch.float32 and a.device.type == "cpu"
    assert same_bits(a, xrng.randn(4, seed=5))
    tg = torch.Generator().manual_seed(0)
    assert torch.equal(randn_tensor((4,), generator=tg), torch.randn(4, generator=torch.Generator().manual_seed(0)))
    with pytest.raises(ValueError, match="generators for a batch"):
        randn_tensor((3, 2), generator=[1, 2])
    with pytest.raises(ValueError, match="layout"):
        randn_tensor((3, 2), generator=1, layout=torch.sparse_coo)
    with pytest.raises(TypeError):
        randn_tensor((3, 2), generator="seed")


def test_device_does_not_change_noise(xdev):
    g1, g2 = xrng.Generator(9), xrng.Generator(9)
    a = randn_tensor((2, 3, 4), generator=g1, device="xdev")
    b = randn_tensor((2, 3, 4), generator=g2)
    assert a.device.type == "xdev" and same_bits(a.cpu(), b)


# ---- torch's own generators, reproduced: xrng.torch_cpu and xrng.torch_cuda ------------------------------
# diffusers' randn_tensor with torch.Generator().manual_seed(s) against the drop-in with
# xrng.torch_cpu(s, kernel): run in a subprocess whose torch runs the kernel's capability
# (avx2: the x86 kernel; default: the scalar one), both sides in that one process, so
# the schedulers' and the UNet's arithmetic is the same on both and only the noise can differ.
TORCH_CPU_SIDE = r'''
import json, sys, torch, diffusers, xrng, xrng.diffusers
from diffusers.utils import torch_utils
kernel = sys.argv[1]
ok = {"capability": torch.backends.cpu.get_cpu_capability()}
def same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.contiguous().view(torch.uint8).equal(b.contiguous().view(torch.uint8))
# one generator through a sequence of calls (the >= 16 fill, the < 16 double path with its
# cached normal, the dtypes), then torch's state and xrng's
tg, xg = torch.Generator().manual_seed(1234), xrng.torch_cpu(1234, kernel=kernel)
calls = [((2, 4, 8, 8), None), ((1, 3, 5), None), ((1, 4, 9, 9), torch.float16), ((3, 7), torch.bfloat16),
         ((2, 4, 5, 5), torch.float64), ((1, 1, 3), torch.float32), ((1, 4, 64, 64), torch.float16)]
ok["sequence"] = all(same(torch_utils.randn_tensor(s, generator=tg, dtype=d),
                          xrng.diffusers.randn_tensor(s, generator=xg, dtype=d)) for s, d in calls)
ok["state"] = bool(torch.equal(tg.get_state(), xg.state))
# one generator per sample (a list of one is the generator alone)
seeds = (7, 8, 9)
ok["list"] = same(torch_utils.randn_tensor((3, 4, 5, 5), generator=[torch.Generator().manual_seed(s) for s in seeds]),
                  xrng.diffusers.randn_tensor((3, 4, 5, 5), generator=[xrng.torch_cpu(s, kernel=kernel) for s in seeds]))
ok["list1"] = same(torch_utils.randn_tensor((1, 4, 5, 5), generator=[torch.Generator().manual_seed(3)], dtype=torch.float16),
                   xrng.diffusers.randn_tensor((1, 4, 5, 5), generator=[xrng.torch_cpu(3, kernel=kernel)], dtype=torch.float16))
# a real pipeline (DDPMPipeline over a tiny UNet built from its config) and an
# EulerAncestral sampling loop: initial latents, then the scheduler's per-step noise
torch.manual_seed(0)
unet = diffusers.UNet2DModel(sample_size=8, in_channels=3, out_channels=3, layers_per_block=1,
                             block_out_channels=(8, 8), down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                             up_block_types=("AttnUpBlock2D", "UpBlock2D"), norm_num_groups=4,
                             attention_head_dim=4).eval()
pipe = diffusers.DDPMPipeline(unet=unet, scheduler=diffusers.DDPMScheduler(num_train_timesteps=50))
pipe.set_progress_bar_config(disable=True)
Euler = diffusers.EulerAncestralDiscreteScheduler
def loop(gen):
    sch = Euler(num_train_timesteps=50)
    sch.set_timesteps(4)
    x = torch_utils.randn_tensor((2, 3, 8, 8), generator=gen) * sch.init_noise_sigma
    with torch.no_grad():
        for t in sch.timesteps:
            x = sch.step(unet(sch.scale_model_input(x, t), t).sample, t, x, generator=gen).prev_sample
    return x
def run(gen):
    return pipe(batch_size=2, generator=gen, num_inference_steps=3, output_type="np").images, loop(gen)
img_t, lat_t = run(torch.Generator().manual_seed(5))
lst_t = pipe(batch_size=2, generator=[torch.Generator().manual_seed(s) for s in (5, 6)], num_inference_steps=3,
             output_type="np").images
with xrng.diffusers.patch():
    img_x, lat_x = run(xrng.torch_cpu(5, kernel=kernel))
    lst_x = pipe(batch_size=2, generator=[xrng.torch_cpu(s, kernel=kernel) for s in (5, 6)], num_inference_steps=3,
                 output_type="np").images
ok["pipeline"] = img_t.tobytes() == img_x.tobytes()
ok["pipeline_list"] = lst_t.tobytes() == lst_x.tobytes()
ok["euler_loop"] = same(lat_t, lat_x)
ok["noise_matters"] = img_t.tobytes() != lst_t.tobytes()
ok["unpatched"] = torch_utils.randn_tensor is not xrng.diffusers.randn_tensor
print(json.dumps(ok))
'''


@pytest.mark.parametrize("capability,kernel", [("avx2", "x86"), ("default", "scalar")])
def test_torch_cpu_generators_equal_diffusers_with_torch_generators(capability, kernel):
    pytest.importorskip("diffusers")
    import json, os, subprocess, sys
    from test_torch_cpu import _cpu_has
    if capability == "avx2" and not (_cpu_has("avx2") and _cpu_has("fma")):
        pytest.skip("this CPU has no AVX2/FMA: torch cannot run its x86 normal kernel here")
    r = subprocess.run([sys.executable, "-c", TORCH_CPU_SIDE, kernel], capture_output=True, text=True,
                       env=dict(os.environ, ATEN_CPU_CAPABILITY=capability), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ok = json.loads(r.stdout.strip().splitlines()[-1])
    assert ok.pop("capability") == capability.upper()
    assert ok == {k: True for k in ok}, ok


def test_patch_reaches_modules_loaded_before_and_after():
    pytest.importorskip("diffusers")
    import subprocess, sys
    code = ("import diffusers, xrng.diffusers as xd\n"
            "before = diffusers.DDPMScheduler\n"             # loaded before the patch
            "p = xd.patch()\n"
            "after = diffusers.EulerAncestralDiscreteScheduler\n"  # loaded after it
            "import sys\n"
            "mods = [sys.modules[c.__module__] for c in (before, after)]\n"
            "assert all(m.randn_tensor is xd.randn_tensor for m in mods), mods\n"
            "p.undo()\n"
            "from diffusers.utils import torch_utils\n"
            "assert torch_utils.randn_tensor is not xd.randn_tensor\n"
            "assert sys.modules[before.__module__].randn_tensor is torch_utils.randn_tensor\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def test_torch_cpu_generator_any_device(xdev):
    a = randn_tensor((2, 4, 8, 8), generator=xrng.torch_cpu(11), device="xdev", dtype=torch.float16)
    b = randn_tensor((2, 4, 8, 8), generator=xrng.torch_cpu(11), dtype=torch.float16)
    assert a.device.type == "xdev" and same_bits(a.cpu(), b)
    assert same_bits(b, xrng.randn(2, 4, 8, 8, generator=xrng.torch_cpu(11), dtype=torch.float16))


def test_torch_cuda_generators_are_that_gpus_randn(xdev):
    # a single generator: torch.randn(shape, generator=cuda_gen, device="cuda") on that GPU,
    # as xrng.torch_cuda gives it, on any device; the offset advances as torch's
    g, ref = xrng.torch_cuda(1234, profile="h100-sxm"), xrng.torch_cuda(1234, profile="h100-sxm")
    for shape, dtype in (((1, 4, 64, 64), torch.float16), ((2, 4, 8, 8), None), ((1, 3), torch.float32)):
        a = randn_tensor(shape, generator=g, dtype=dtype, device="xdev")
        b = xrng.randn(*shape, generator=ref, dtype=dtype)
        assert a.device.type == "xdev" and same_bits(a.cpu(), b)
        assert g.offset == ref.offset > 0
    # one generator per sample: sample i is generator i's draw of (1, *shape[1:])
    gens = [xrng.torch_cuda(s, sm_count=108) for s in (1, 2)]
    t = randn_tensor((2, 4, 8, 8), generator=gens)
    for i, s in enumerate((1, 2)):
        assert same_bits(t[i:i + 1], xrng.randn(1, 4, 8, 8, generator=xrng.torch_cuda(s, sm_count=108)))
    # the GPU matters above one launch wave (a T4's 40,960 elements), not below it
    big, small = (1, 4, 128, 128), (1, 4, 64, 32)
    t4 = randn_tensor(big, generator=xrng.torch_cuda(3, profile="t4"))
    h100 = randn_tensor(big, generator=xrng.torch_cuda(3, profile="h100-sxm"))
    assert not same_bits(t4, h100)
    assert same_bits(randn_tensor(small, generator=xrng.torch_cuda(3, profile="t4")),
                     randn_tensor(small, generator=xrng.torch_cuda(3, profile="h100-sxm")))


def test_torch_stream_errors():
    with pytest.raises(ValueError, match="generators for a batch"):
        randn_tensor((3, 2), generator=[xrng.torch_cpu(1), xrng.torch_cpu(2)])
    with pytest.raises(TypeError, match="torch_cuda"):
        randn_tensor((2, 2), generator=[xrng.torch_cpu(1), torch.Generator()])
