"""One rank of test_distributed.py's late-import check: the mode is entered
before anything of DTensor is imported (a script that calls
``xrng.reproducible(...).enable()`` first), and DTensor draws still equal
the unsharded draw.

    python dist_late_worker.py RANK WORLD PORT

Prints "ok" (exit 0), or the failure (exit 1).
"""
import os
import sys

RANK, WORLD, PORT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=PORT, RANK=str(RANK), WORLD_SIZE=str(WORLD))

import torch  # noqa: E402

import xrng  # noqa: E402

assert "torch.distributed.tensor" not in sys.modules, "the check needs DTensor not imported yet"
torch.set_num_threads(1)
mode = xrng.reproducible(seed=5, strict=True)
mode.enable()
import torch.distributed as dist  # noqa: E402
import torch.distributed.tensor as dtm  # noqa: E402  (imported inside the mode)
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.distributed.tensor import Shard, distribute_tensor  # noqa: E402

dist.init_process_group("gloo")
try:
    mesh = init_device_mesh("cpu", (WORLD,))
    torch.manual_seed(5)
    a = dtm.randn(7, 3, device_mesh=mesh, placements=[Shard(0)]).full_tensor()
    w = distribute_tensor(torch.zeros(7, 3), mesh, [Shard(1)])
    torch.nn.init.normal_(w, 0.0, 0.02)
    b = w.full_tensor()
    after = torch.rand(3)
    mode.disable()
    with xrng.reproducible(seed=5, strict=True):  # the unsharded draws
        torch.manual_seed(5)
        ra = torch.randn(7, 3)
        rb = torch.zeros(7, 3).normal_(0.0, 0.02)
        rafter = torch.rand(3)
    from xrng import _mode_distributed
    assert _mode_distributed._saved == [], _mode_distributed._saved
    for x, y, name in ((a, ra, "randn"), (b, rb, "normal_"), (after, rafter, "after")):
        assert torch.equal(x, y), f"rank {RANK}: {name} differs from the unsharded draw"
    print("ok")
finally:
    dist.destroy_process_group()
