"""Explicit torch.Generator arguments inside torch.compile'd regions under the
reproducible mode (issue 16 item 3): ``torch.randn(..., generator=g)`` and the
other calls that take ``generator=`` draw from g's own stream at the position
the eager call draws from, so the compiled program equals the eager one bit
for bit. Dynamo cannot put a torch.Generator into a graph (with or without
the mode): such a call breaks the graph and runs eagerly between the graphs,
where the mode's kernels draw it. A diffusers DDPM sampling step compiled
whole (UNet and scheduler.step with generator=) draws eager's noise."""
import time

import pytest
import torch
import torch._dynamo

import xrng

@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _mode():
    # check_dispatch=False: under a dispatch mode (strict=True's default) Dynamo compiles nothing
    return xrng.reproducible(seed=0, strict=True, check_dispatch=False)


def _draws(x, g):
    return (torch.randn(3, generator=g), torch.rand(2, 2, generator=g), torch.randint(0, 10, (5,), generator=g),
            torch.randperm(6, generator=g), torch.normal(0.0, 2.0, (4,), generator=g),
            torch.bernoulli(torch.full((5,), 0.3), generator=g), torch.randn_like(x, generator=g),
            torch.randn(2),  # the global stream between them
            x * 2)


def test_torch_functions_with_a_generator_compile_to_eagers_values():
    def run(fn):
        out = []
        with _mode():
            g, g2 = torch.Generator().manual_seed(7), torch.Generator().manual_seed(8)
            for gen in (g, g, g2, g):
                out += fn(torch.ones(3), gen)
        return out

    eager = run(_draws)
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    t0 = time.perf_counter()
    compiled = run(torch.compile(_draws, backend="aot_eager"))  # generator=: graph breaks, drawn eagerly
    secs = time.perf_counter() - t0
    assert all(torch.equal(a, b) for a, b in zip(eager, compiled))
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] - graphs >= 1  # it was compiled
    # the values are the generators' own streams: the first draw is xrng's randn of seed 7's stream
    assert torch.equal(eager[0], xrng.randn(3, generator=xrng.reproducible.generator_for(7)))
    print(f"generator draws compiled: {secs:.1f} s")


def test_tensor_method_with_a_generator_breaks_the_graph_and_keeps_the_values():
    def f(x, g):
        return torch.randn(2, generator=g), torch.empty(4).uniform_(-1, 1, generator=g), x.exp()

    def run(fn):
        with _mode():
            g = torch.Generator().manual_seed(3)
            return [t for _ in range(2) for t in fn(torch.ones(2), g)]

    eager = run(f)
    assert all(torch.equal(a, b) for a, b in zip(eager, run(torch.compile(f, backend="aot_eager"))))
    assert torch._dynamo.explain(f)(torch.ones(2), torch.Generator()).graph_break_count >= 1


def test_diffusers_ddpm_step_compiled_whole_with_a_generator():
    diffusers = pytest.importorskip("diffusers")

    def run(compiled):
        torch._dynamo.reset()
        with _mode():
            unet = diffusers.UNet2DModel(
                sample_size=8, in_channels=1, out_channels=1, layers_per_block=1, block_out_channels=(8, 16),
                down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                norm_num_groups=4).eval()
            sched = diffusers.DDPMScheduler(num_train_timesteps=20)
            sched.set_timesteps(3)

            def step(x, t, g):
                return sched.step(unet(x, t).sample, t, x, generator=g).prev_sample

            fn = torch.compile(step, backend="aot_eager") if compiled else step
            g = torch.Generator().manual_seed(11)
            x = torch.randn(1, 1, 8, 8, generator=g)
            xs = [x]
            t0 = time.perf_counter()
            with torch.no_grad():
                for t in sched.timesteps:
                    x = fn(x, t, g)
                    xs.append(x)
            return xs, time.perf_counter() - t0

    (eager, _), (comp, secs) = run(False), run(True)
    torch.testing.assert_close(torch.stack(eager), torch.stack(comp), rtol=1e-5, atol=1e-5)
    print(f"diffusers DDPM step compiled whole (aot_eager): {secs:.1f} s")
