"""The host->device path measured without a GPU, through the xdev test
backend of tests/python (a PrivateUse1 "device" whose memory is host memory,
whose "pinned" memory is plain memory and whose copies are memcpy): host
generation into a CPU tensor, the copy alone, and xrng's host_transfer path
(every non-CUDA device takes it), with the backend's pinned memory and
events off and on. It shows the path's overheads, not a real copy engine's
overlap: here the "copy" runs on the CPU too.

    PYTHONPATH=<xrng install> python3 bench/h2d_xdev.py [log2n [threads]]   (default 24, torch's)

The xdev extension is built (once) under build-py/test_ext, as by the tests.
"""
import pathlib, statistics, sys, time, types
import torch, xrng
from torch.utils import cpp_extension
REPO = pathlib.Path(__file__).resolve().parent.parent
mod = cpp_extension.load(name="xrng_test_xdev", sources=[str(REPO / "tests/python/xdev_backend.cpp")],
                         build_directory=str(REPO / "build-py/test_ext"), extra_cflags=["-O1"], verbose=False)
torch.utils.rename_privateuse1_backend("xdev")
m = types.ModuleType("torch.xdev")
m.is_available = lambda: True; m.is_initialized = lambda: True; m.device_count = lambda: 1
m.current_device = lambda: 0; m._is_in_bad_fork = lambda: False; m.manual_seed_all = lambda s: None
m.synchronize = lambda device=None: None
torch._register_device_module("xdev", m)

def med(f, reps=9):
    """Median wall ms of f() (one warm-up)."""
    f(); t = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)

n = 1 << int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 24
if len(sys.argv) > 2:
    torch.set_num_threads(int(sys.argv[2]))
host = torch.empty(n)
dev = torch.empty(n).to("xdev")
print(xrng.__file__, "threads", torch.get_num_threads(), "n", n)
for pin in (False, True):
    mod.set_pinning(pin)
    gen = med(lambda: xrng.normal_(host, seed=3))
    copy = med(lambda: dev.copy_(host))
    tot = med(lambda: xrng.normal_(dev, seed=3))
    ok = torch.equal(dev.cpu(), host)
    print(f"pinning={pin}: host gen {gen:.2f} ms, copy {copy:.2f} ms, host_transfer {tot:.2f} ms, "
          f"max {max(gen, copy):.2f} -> {100 * max(gen, copy) / tot:.0f}%, sum {gen + copy:.2f}; equal={ok}")
mod.set_pinning(False)
