"""xrng.torch_cuda against torch's own CUDA draws on this GPU (SPEC.md
section 15). Run by tests/gpu/run.sh with the bindings on PYTHONPATH; about
20 s. For this GPU's SM count (and, as a control, the named profiles where
the size is below one wave), each draw is made by torch after
torch.cuda.manual_seed and by xrng.torch_cuda on the host, values and the
generator's state (seed, offset) compared after every call.

Exact rows (a difference is a FAIL, exit 1): rand/uniform_ in float32,
float64, float16, bfloat16; uniform_(a, b); randint (32- and 64-bit paths,
int64/int32/float32); bernoulli_(p) float32/float64/bool; bernoulli_ and
torch.bernoulli with a tensor p (float32/float64/float16/bool, broadcast
p); F.dropout (vector sizes 8/4/2/1 by element count); randperm (32- and
64-bit keys); the offsets. Modelled rows (printed as an ulp-distance table,
never a FAIL): normal float32/16, bfloat16 and float64, exponential,
log_normal and cauchy in float32/float16/bfloat16/float64, geometric in
float32/int64/float64 (the state after each is still checked exactly).

With xrng's CUDA kernels built (xrng.has_cuda_kernels()), every draw they
make is also run into CUDA tensors and compared bit for bit with the host
model (a difference is a FAIL, modelled rows included), and the exact rows
with torch's own draws (dropout's rows above already run the kernel: their
input is a CUDA tensor). Then a small unmodified program (rand, randn,
randint, bernoulli_, dropout, a transposed uniform_, randperm on CUDA
tensors) inside xrng.reproducible(stream="torch-cuda", sm_count=<this
GPU's>) against the same program run plainly: the exact rows bit for bit,
randn as an ulp table (mode_program)."""
import sys
import time

import torch

import xrng

T0 = time.time()
fails = []


def check_state(g, what):
    st = torch.cuda.get_rng_state()
    mine = g.get_state()
    if not torch.equal(st, mine):
        fails.append(f"{what}: state torch {st.tolist()} xrng {mine.tolist()}")


def exact(name, torch_fn, xrng_fn, g, seed):
    torch.cuda.manual_seed(seed)
    g.manual_seed(seed)
    try:
        t = torch_fn().cpu().contiguous()
    except Exception as e:  # e.g. randint bounds torch refuses for the dtype
        print(f"  {name:<48} torch refuses: {str(e).splitlines()[0][:60]}")
        return
    try:
        x = xrng_fn(g).cpu().contiguous()
    except Exception as e:
        print(f"  {name:<48} FAIL: xrng raised {type(e).__name__}: {e}")
        fails.append(name)
        return
    if t.dtype != x.dtype or t.shape != x.shape:
        fails.append(f"{name}: dtype/shape {t.dtype}{tuple(t.shape)} vs {x.dtype}{tuple(x.shape)}")
        return
    same = torch.eq(t.view(torch.uint8) if t.dtype != torch.bool else t,
                    x.view(torch.uint8) if x.dtype != torch.bool else x)
    bad = (~same).sum().item()
    status = "ok" if bad == 0 else f"{bad} bytes differ"
    print(f"  {name:<48} {status}")
    if bad:
        fails.append(name)
    check_state(g, name)


def ulp_table(rows):
    print(f"  {'row':<40} {'n':>9} {'=0':>9} {'1':>7} {'2':>7} {'3-4':>7} {'5-16':>7} {'>16':>7} {'max':>10}")
    for name, a, b in rows:
        if a.dtype == torch.float64:
            ia, ib = a.view(torch.int64), b.view(torch.int64)
        elif a.dtype == torch.float32:
            ia, ib = a.view(torch.int32).to(torch.int64), b.view(torch.int32).to(torch.int64)
        else:
            ia, ib = a.view(torch.int16).to(torch.int64), b.view(torch.int16).to(torch.int64)
        # monotone integer images of the floats (negative values mirrored)
        bits = {torch.float64: 63, torch.float32: 31}.get(a.dtype, 15)
        def mono(i):
            return torch.where(i < 0, -(i & ((1 << bits) - 1)), i)
        d = (mono(ia) - mono(ib)).abs()
        c = [(d == 0).sum(), (d == 1).sum(), (d == 2).sum(), ((d >= 3) & (d <= 4)).sum(),
             ((d >= 5) & (d <= 16)).sum(), (d > 16).sum()]
        print(f"  {name:<40} {d.numel():>9} {int(c[0]):>9} " + " ".join(f"{int(v):>7}" for v in c[1:]) +
              f" {int(d.max()):>10}")


def kernel_vs_host(name, fn, g, seed):
    """xrng's CUDA kernels (a CUDA tensor, device/torch_cuda.h) against its
    host model (a CPU tensor), bit for bit, and the generator states after."""
    g.manual_seed(seed)
    h = fn(g, "cpu").contiguous()
    sh = g.get_state()
    g.manual_seed(seed)
    d = fn(g, "cuda")
    if d.device.type != "cuda":
        fails.append(f"kernel {name}: the output is on {d.device}")
        return
    d = d.cpu().contiguous()
    sd = g.get_state()
    same = torch.equal(h.view(torch.uint8) if h.dtype != torch.bool else h,
                       d.view(torch.uint8) if d.dtype != torch.bool else d)
    print(f"  {name:<48} {'ok' if same else 'DIFFERS'}")
    if not same:
        fails.append(f"kernel {name}")
    if not torch.equal(sh, sd):
        fails.append(f"kernel {name}: state host {sh.tolist()} kernel {sd.tolist()}")


def kernel_rows(g, wave, cuda):
    """Every draw xrng's CUDA kernels make, on a CUDA tensor: == the host model
    (modelled rows included: the kernels run the model, not the GPU's MUFU),
    and the exact rows == torch's own CUDA draws."""
    print("xrng's CUDA kernels (CUDA tensors) vs xrng's host model, every row:")
    fl = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
    for n in (1000, wave + 1, 3 * wave + 17):
        for dt in fl:
            kernel_vs_host(f"rand n={n} {dt}", lambda g, dev: xrng.rand(n, dtype=dt, generator=g, device=dev), g, 3)
            kernel_vs_host(f"randn n={n} {dt}", lambda g, dev: xrng.randn(n, dtype=dt, generator=g, device=dev), g, 5)
            for name, f in (("uniform_(-2, 3)", lambda t, g: xrng.uniform_(t, -2, 3, generator=g)),
                            ("normal_(0.5, 2)", lambda t, g: xrng.normal_(t, 0.5, 2.0, generator=g)),
                            ("exponential_(1.5)", lambda t, g: xrng.exponential_(t, 1.5, generator=g)),
                            ("log_normal_(0.5, 0.8)", lambda t, g: xrng.log_normal_(t, 0.5, 0.8, generator=g)),
                            ("cauchy_(1, 0.5)", lambda t, g: xrng.cauchy_(t, 1.0, 0.5, generator=g)),
                            ("geometric_(0.3)", lambda t, g: xrng.geometric_(t, 0.3, generator=g)),
                            ("bernoulli_(0.3)", lambda t, g: xrng.bernoulli_(t, 0.3, generator=g))):
                kernel_vs_host(f"{name} n={n} {dt}", lambda g, dev: f(torch.empty(n, dtype=dt, device=dev), g), g, 7)
        for dt in (torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool):
            kernel_vs_host(f"bernoulli_(0.6) n={n} {dt}",
                           lambda g, dev: xrng.bernoulli_(torch.empty(n, dtype=dt, device=dev), 0.6, generator=g), g, 9)
            if dt != torch.bool:
                kernel_vs_host(f"geometric_(0.4) n={n} {dt}",
                               lambda g, dev: xrng.geometric_(torch.empty(n, dtype=dt, device=dev), 0.4, generator=g), g, 9)
        for lo, hi in ((0, 10), (-100, 2 ** 28 + 3), (0, 2 ** 40)):
            for dt in (torch.int64, torch.int32, torch.float32, torch.float64, torch.int16):
                if (dt == torch.int16 and hi > 2 ** 15) or (dt == torch.int32 and hi > 2 ** 31):
                    continue
                kernel_vs_host(f"randint({lo}, {hi}) n={n} {dt}",
                               lambda g, dev: xrng.randint(lo, hi, (n,), dtype=dt, generator=g, device=dev), g, 13)
        pt = torch.rand(n, generator=torch.Generator().manual_seed(n))
        for dt in (torch.float32, torch.float64, torch.float16, torch.bool):
            pd = pt.to(torch.float64 if dt == torch.float64 else torch.float32)
            kernel_vs_host(f"bernoulli_(p tensor) n={n} {dt}",
                           lambda g, dev: xrng.bernoulli_(torch.empty(n, dtype=dt, device=dev), pd.to(dev), generator=g),
                           g, 47)
    for n in (4096, 4098, 4099, 3 * wave + 8):
        for dt in fl:
            x = torch.randn(n, dtype=dt, generator=torch.Generator().manual_seed(n))
            kernel_vs_host(f"dropout(p=0.2) n={n} {dt}",
                           lambda g, dev: xrng.dropout(x.to(dev), 0.2, generator=g), g, 19)
    kernel_vs_host("uniform_ into a transposed (400, 700)",
                   lambda g, dev: xrng.uniform_(torch.empty(400, 700, device=dev).t(), generator=g), g, 43)
    print("xrng's CUDA kernels vs torch's own CUDA draws (exact rows):")
    for n in (1000, 3 * wave + 17):
        for dt in fl:
            exact(f"kernel rand n={n} {dt}", lambda: torch.rand(n, dtype=dt, device=cuda),
                  lambda g: xrng.rand(n, dtype=dt, generator=g, device=cuda), g, 7 + n)
        for lo, hi in ((0, 10), (0, 2 ** 40)):
            exact(f"kernel randint({lo}, {hi}) n={n}", lambda: torch.randint(lo, hi, (n,), device=cuda),
                  lambda g: xrng.randint(lo, hi, (n,), generator=g, device=cuda), g, 13)
        for dt in (torch.float32, torch.float64, torch.bool):
            exact(f"kernel bernoulli_(0.3) n={n} {dt}", lambda: torch.empty(n, dtype=dt, device=cuda).bernoulli_(0.3),
                  lambda g: xrng.bernoulli_(torch.empty(n, dtype=dt, device=cuda), 0.3, generator=g), g, 17)
        pt = torch.rand(n, generator=torch.Generator().manual_seed(n)).to(cuda)
        exact(f"kernel bernoulli_(p tensor) n={n}", lambda: torch.empty(n, device=cuda).bernoulli_(pt),
              lambda g: xrng.bernoulli_(torch.empty(n, device=cuda), pt, generator=g), g, 47)



def mode_program(sm, tps, cuda):
    """An unmodified small program, run plainly (torch's own CUDA draws) and
    inside xrng.reproducible(stream="torch-cuda", sm_count=<this GPU's>) on
    CUDA tensors (SPEC.md 8.5: the mode's CUDA dispatch key): the exact rows
    bit for bit (a difference is a FAIL), the modelled normal as an ulp count
    (printed). The draws follow one another, so every later row also checks
    the offsets the earlier ones advanced."""
    n = 3 * 256 * sm * (tps // 256) + 17

    def program():
        torch.manual_seed(5)
        out = {"rand": torch.rand(n, device=cuda),
               "randn (modelled)": torch.randn(n, device=cuda),
               "randint(0, 7)": torch.randint(0, 7, (n,), device=cuda),
               "bernoulli_(0.3)": torch.empty(n, device=cuda).bernoulli_(0.3),
               "bernoulli_(p tensor)": torch.empty(n, device=cuda).bernoulli_(torch.linspace(0, 1, n, device=cuda)),
               "dropout(p=0.3)": torch.nn.functional.dropout(torch.ones(n, device=cuda), 0.3),
               "uniform_ into a transposed (50, 40)": torch.empty(50, 40, device=cuda).t().uniform_(),
               "rand float64": torch.rand(1000, dtype=torch.float64, device=cuda),
               "randperm(1000)": torch.randperm(1000, device=cuda)}
        return {k: v.cpu().contiguous() for k, v in out.items()}

    print(f"the mode: xrng.reproducible(stream='torch-cuda', sm_count={sm}) vs the same program plainly (n = {n}):")
    plain = program()
    try:
        with xrng.reproducible(stream="torch-cuda", sm_count=sm, threads_per_sm=tps, strict=True):
            mode = program()
    except Exception as e:
        print(f"  FAIL: the program raised inside the mode: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        fails.append("mode program raised")
        return
    rows = []
    for k, t in plain.items():
        x = mode[k]
        if "modelled" in k:
            rows.append((f"mode {k}", t, x))
            continue
        same = t.dtype == x.dtype and t.shape == x.shape and torch.equal(t, x)
        print(f"  mode {k:<44} {'ok' if same else 'DIFFERS'}")
        if not same:
            fails.append(f"mode {k}")
    ulp_table(rows)


def main():
    if not torch.cuda.is_available():
        print("torch_cuda_check: SKIPPED (torch sees no GPU)")
        return 0
    p = torch.cuda.get_device_properties(0)
    sm, tps = p.multi_processor_count, p.max_threads_per_multi_processor
    print(f"torch {torch.__version__} on {p.name}: {sm} SMs, {tps} threads/SM")
    if not torch.__version__.startswith("2.15"):
        print("  note: the stream is defined against torch 2.15; this torch may differ")
    g = xrng.torch_cuda(0, sm_count=sm, threads_per_sm=tps)
    wave = 256 * sm * (tps // 256)
    sizes = [1, 1000, wave, wave + 1, 3 * wave + 17, 4 * wave + 4]
    cuda = torch.device("cuda")
    print("exact rows:")
    for n in sizes:
        for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            exact(f"rand n={n} {dt}", lambda: torch.rand(n, dtype=dt, device=cuda),
                  lambda g: xrng.rand(n, dtype=dt, generator=g), g, 7 + n)
    for n in (999, 3 * wave + 5):
        for dt in (torch.float32, torch.float64, torch.bfloat16):
            exact(f"uniform_(-2, 3) n={n} {dt}", lambda: torch.empty(n, dtype=dt, device=cuda).uniform_(-2, 3),
                  lambda g: xrng.uniform_(torch.empty(n, dtype=dt), -2, 3, generator=g), g, 11)
        for lo, hi in ((0, 10), (-100, 2 ** 28 + 3), (0, 2 ** 40)):
            for dt in (torch.int64, torch.int32, torch.float32):
                if dt == torch.int32 and hi > 2 ** 31:
                    continue
                exact(f"randint({lo}, {hi}) n={n} {dt}",
                      lambda: torch.randint(lo, hi, (n,), dtype=dt, device=cuda),
                      lambda g: xrng.randint(lo, hi, (n,), dtype=dt, generator=g), g, 13)
        for dt in (torch.float32, torch.float64, torch.bool):
            exact(f"bernoulli_(0.3) n={n} {dt}", lambda: torch.empty(n, dtype=dt, device=cuda).bernoulli_(0.3),
                  lambda g: xrng.bernoulli_(torch.empty(n, dtype=dt), 0.3, generator=g), g, 17)
    for n in (1, 999, 4097, 3 * wave + 5):  # bernoulli with a tensor p: one curand_uniform4 per 4 elements
        pt = torch.rand(n, generator=torch.Generator().manual_seed(n))
        pt[::7] = 0.0
        pt[1::7] = 1.0
        for dt in (torch.float32, torch.float64, torch.float16, torch.bool):
            pd = pt.to(torch.float64 if dt == torch.float64 else torch.float32)
            exact(f"bernoulli_(p tensor) n={n} {dt}", lambda: torch.empty(n, dtype=dt, device=cuda).bernoulli_(pd.to(cuda)),
                  lambda g: xrng.bernoulli_(torch.empty(n, dtype=dt), pd, generator=g), g, 47)
        exact(f"torch.bernoulli(p float16) n={n}", lambda: torch.bernoulli(pt.half().to(cuda)),
              lambda g: xrng.bernoulli(p=pt.half(), generator=g), g, 53)
    exact("bernoulli_(p broadcast (1, 300)) into (200, 300)",
          lambda: torch.empty(200, 300, device=cuda).bernoulli_(torch.linspace(0, 1, 300, device=cuda)[None]),
          lambda g: xrng.bernoulli_(torch.empty(200, 300), torch.linspace(0, 1, 300)[None], generator=g), g, 59)
    for n in (4096, 4100, 4098, 4099, 3 * wave + 8, 3 * wave + 3):
        for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            x = torch.randn(n, dtype=dt, generator=torch.Generator().manual_seed(n)).to(cuda)
            exact(f"dropout(p=0.2) n={n} {dt}", lambda: torch.nn.functional.dropout(x, 0.2, True),
                  lambda g: xrng.dropout(x, 0.2, generator=g), g, 19)
    for shape in ((400, 700), (3 * wave // 64 + 1, 64)):  # a transposed output: TensorIterator's memory order
        exact(f"uniform_ into a transposed {shape}", lambda: torch.empty(shape, device=cuda).t().uniform_(),
              lambda g: xrng.uniform_(torch.empty(shape).t(), generator=g), g, 43)
    for n in (1, 10, 1000, 30000, 40000, 3 * wave + 5):
        for dt in (torch.int64, torch.int32):
            exact(f"randperm({n}) {dt}", lambda: torch.randperm(n, dtype=dt, device=cuda),
                  lambda g: xrng.randperm(n, dtype=dt, generator=g), g, 41)
    print("modelled rows (ulp distance, xrng's model vs torch; SPEC.md 15.3):")
    rows = []
    for n in (1000, 3 * wave + 17):
        for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            torch.cuda.manual_seed(23)
            g.manual_seed(23)
            rows.append((f"randn n={n} {dt}", torch.randn(n, dtype=dt, device=cuda).cpu(),
                         xrng.randn(n, dtype=dt, generator=g)))
            check_state(g, f"randn n={n} {dt}")
        for dt in (torch.float32, torch.float64):
            torch.cuda.manual_seed(29)
            g.manual_seed(29)
            rows.append((f"exponential_(1.5) n={n} {dt}", torch.empty(n, dtype=dt, device=cuda).exponential_(1.5).cpu(),
                         xrng.exponential_(torch.empty(n, dtype=dt), 1.5, generator=g)))
            check_state(g, f"exponential n={n} {dt}")
        for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            for name, tf, xf in (
                    ("log_normal_(0.5, 0.8)", lambda t: t.log_normal_(0.5, 0.8),
                     lambda t, g: xrng.log_normal_(t, 0.5, 0.8, generator=g)),
                    ("cauchy_(1, 0.5)", lambda t: t.cauchy_(1.0, 0.5), lambda t, g: xrng.cauchy_(t, 1.0, 0.5, generator=g)),
                    ("exponential_(2)", lambda t: t.exponential_(2.0),
                     lambda t, g: xrng.exponential_(t, 2.0, generator=g))):
                torch.cuda.manual_seed(61)
                g.manual_seed(61)
                rows.append((f"{name} n={n} {dt}", tf(torch.empty(n, dtype=dt, device=cuda)).cpu(),
                             xf(torch.empty(n, dtype=dt), g)))
                check_state(g, f"{name} n={n} {dt}")
        for dt in (torch.float32, torch.int64, torch.float64):
            for pp in (0.3, 0.7):
                torch.cuda.manual_seed(67)
                g.manual_seed(67)
                t = torch.empty(n, dtype=dt, device=cuda).geometric_(pp).cpu()
                x = xrng.geometric_(torch.empty(n, dtype=dt), pp, generator=g)
                check_state(g, f"geometric_({pp}) n={n} {dt}")
                if dt == torch.int64:
                    bad = (t != x).sum().item()
                    print(f"  geometric_({pp}) n={n} int64: {bad} of {n} differ (max |d| {int((t - x).abs().max())})")
                else:
                    rows.append((f"geometric_({pp}) n={n} {dt}", t, x))
    ulp_table(rows)
    mode_program(sm, tps, cuda)
    if xrng.has_cuda_kernels():
        kernel_rows(g, wave, cuda)
    else:
        print("xrng's CUDA kernels: not in this build (CUDA tensors are filled on the host, then copied)")
    # continuing a torch CUDA generator: its state, then the next draw
    torch.cuda.manual_seed(37)
    torch.rand(3 * wave + 1, device=cuda)
    gg = xrng.torch_cuda(torch.cuda.default_generators[0], sm_count=sm, threads_per_sm=tps)
    t = torch.rand(1000, device=cuda).cpu()
    if not torch.equal(t, xrng.rand(1000, generator=gg)):
        fails.append("continuing torch.cuda.default_generators[0]")
    # the control: below one wave every profile gives this GPU's values
    torch.cuda.manual_seed(31)
    t = torch.rand(min(wave, 40960), device=cuda).cpu()
    for prof in xrng._torch_cuda.PROFILES:
        v = xrng.rand(t.numel(), generator=xrng.torch_cuda(31, profile=prof))
        if not torch.equal(t, v):
            fails.append(f"below one wave: profile {prof}")
    print(f"torch_cuda_check: {len(fails)} failure(s) in {time.time() - T0:.1f} s")
    for f in fails[:20]:
        print("  FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
