"""Issue 20's silent cases of the reproducible mode that are fixed: generator
state copies keep torch's meaning, and a re-seed made before the first call of
a kind (a forked DataLoader worker's torch.manual_seed) is seen."""
import os

import pytest
import torch

import xrng

G = xrng.reproducible.global_generator


def test_generator_state_copy_continues_like_torch():
    """g2.set_state(g.get_state()): torch continues where g was; so does the
    mode (it used to restart g's stream, drawing g's first values again)."""
    def run(mode):
        g = torch.Generator().manual_seed(1)
        with mode:
            a = torch.randn(3, generator=g)
            g2 = torch.Generator()
            g2.set_state(g.get_state())
            b = torch.randn(3, generator=g2)
            c = torch.randn(3, generator=g)
        return a, b, c

    a, b, c = run(xrng.reproducible(seed=0, strict=True))
    assert torch.equal(b, c) and not torch.equal(a, b)
    # the values are the xrng stream of seed 1: b continues after a's 3 values
    gg = xrng.reproducible.generator_for(1)
    assert torch.equal(a, xrng.randn(3, generator=gg)) and torch.equal(b, xrng.randn(3, generator=gg))
    ta, tb, tc = run(torch.random.fork_rng())  # torch's own meaning, without the mode
    assert torch.equal(tb, tc) and not torch.equal(ta, tb)


def test_reseed_before_the_first_call_of_a_kind_restarts_the_stream():
    """torch's argument check of a kind's first call drew from torch's default
    generator and hid a manual_seed made just before it."""
    with xrng.reproducible(seed=5, strict=True):
        torch.manual_seed(123)
        x = torch.rand(2)
    assert torch.equal(x, xrng.rand(2, generator=G(123)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_reseeded_before_drawing():
    """A DataLoader worker's torch.manual_seed(base + id) in a forked child,
    before its first draw, restarts the global stream there."""
    r, w = os.pipe()
    with xrng.reproducible(seed=5, strict=True):
        pid = os.fork()
        if pid == 0:
            try:
                torch.manual_seed(77)
                os.write(w, torch.rand(4).numpy().tobytes())
            finally:
                os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 64):
            data += chunk
        os.waitpid(pid, 0)
    assert data == xrng.rand(4, generator=G(77)).numpy().tobytes()


class _Noisy(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.rand(2)


def _batches(method, init=None):
    loader = torch.utils.data.DataLoader(_Noisy(), batch_size=2, num_workers=2, multiprocessing_context=method,
                                         worker_init_fn=init)
    with xrng.reproducible(seed=0, strict=True) as m:
        out = list(loader)
    assert m.reported == {}
    return out


def _init_draw(worker_id):  # a program's worker_init_fn that draws: under the mode in every worker
    torch.rand(1)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_dataloader_workers_under_every_start_method_draw_what_forked_workers_draw(method):
    """Workers started by spawn or forkserver are fresh interpreters without the
    mode (they used to draw torch's values silently, then were reported): the
    mode travels with their initialisation (xrng.data._ModeWorkerInit), so they
    draw what forked workers draw, the program's worker_init_fn included."""
    forked = _batches("fork", _init_draw)
    assert all(torch.equal(a, b) for a, b in zip(forked, _batches(method, _init_draw)))  # one start: seconds
    assert not all(torch.equal(a, b) for a, b in zip(forked, _batches("fork")))  # the init drew, in the mode
    assert torch.utils.data.DataLoader._get_iterator.__name__ == "_get_iterator"  # restored at the mode's end


def test_dataloader_forked_workers_and_no_workers_are_not_reported():
    with xrng.reproducible(seed=0, strict=True):
        a = list(torch.utils.data.DataLoader(_Noisy(), batch_size=2, num_workers=0))
        b = list(torch.utils.data.DataLoader(_Noisy(), batch_size=2, num_workers=1, multiprocessing_context="fork"))
    assert len(a) == len(b) == 2


def _thread_draws_then_randn(strict):
    """The issue's example: a thread without the mode draws single floats, which
    moves torch's generator along the path the mode recorded in an earlier run."""
    import threading
    torch.manual_seed(42)
    with xrng.reproducible(seed=0):
        first = [torch.randn(2) for _ in range(5)]
    torch.manual_seed(42)
    with xrng.reproducible(seed=0, strict=strict) as m:
        t = threading.Thread(target=lambda: [torch.rand(1) for _ in range(3)])
        t.start()
        t.join()
        return first, torch.randn(2), m


def test_foreign_thread_draws_are_not_taken_for_a_restore():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrng.ReproducibilityWarning)
        first, x, m = _thread_draws_then_randn(strict=False)
    assert not any(torch.equal(x, f) for f in first[1:])  # no jump back into the first run's stream
    assert torch.equal(x, first[0])  # the stream continues at its start (re-seeded to 42: offset 0)
    assert "torch's default generator" in m.reported


def test_foreign_thread_draws_raise_under_strict():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrng.ReproducibilityWarning)
        with pytest.raises(xrng.NotReproducibleError, match="drawn from by a thread without the mode"):
            _thread_draws_then_randn(strict=True)


def test_set_rng_state_to_an_unrecorded_state_is_reported_as_such():
    """torch.set_rng_state to a state the mode never recorded: reported as a
    state set (not as a draw behind the mode); a recorded one is a restore."""
    other = torch.Generator().manual_seed(9)
    torch.rand(3, generator=other)
    with xrng.reproducible(seed=0, strict=True):
        saved = torch.get_rng_state()
        a = torch.randn(2)
        torch.set_rng_state(saved)  # recorded: back to that position, not reported
        assert torch.equal(torch.randn(2), a)
        torch.set_rng_state(other.get_state())
        with pytest.raises(xrng.NotReproducibleError, match="was set by torch.set_rng_state to a state the mode"):
            torch.randn(2)
        torch.set_rng_state(saved)  # a recorded state again: the mode's end finds nothing to report
    assert torch.set_rng_state is torch.random.set_rng_state and torch.set_rng_state.__name__ == "set_rng_state"



@torch.jit.script
def _scripted_draws(k: int) -> torch.Tensor:
    out = torch.empty(0)
    for _ in range(k):
        out = torch.cat([out, torch.rand(1)])  # TorchScript: aten's rand, served by the mode's kernels
    return out


@pytest.mark.parametrize("k", [1, 3])
def test_torchscript_draws_after_a_reseed_are_not_taken_for_a_restore(k):
    """Issue 20, case 1 with TorchScript instead of a thread: k single floats
    drawn by TorchScript after set_seed(42) once went to torch's generator and
    followed the mode's own path from the same seed. TorchScript's draws reach
    the mode's kernels: they are the mode's own draws, in order, as eagerly."""
    torch.manual_seed(42)
    with xrng.reproducible(seed=0, strict=True) as m:
        scripted, x = _scripted_draws(k), torch.randn(2)
    torch.manual_seed(42)
    with xrng.reproducible(seed=0, strict=True):
        eager, x2 = torch.cat([torch.rand(1) for _ in range(k)]), torch.randn(2)
    assert torch.equal(scripted, eager) and torch.equal(x, x2) and m.reported == {}


def test_the_mode_leaves_torchs_own_values_unchanged():
    """The mode's mark changes torch's generator state and none of its values:
    torch's draws after a mode (and the mode's draws themselves) are those of
    the same program without the mode, for any number of draws in the mode."""
    for n in (0, 1, 5, 700):  # 700 > 624: across a twist of torch's mt19937
        torch.manual_seed(3)
        ref = torch.rand(n) if n else torch.empty(0)  # torch's values consumed before, as in the mode run
        after_ref = (torch.rand(1000), torch.randn(7), torch.randint(0, 100, (5,)))
        torch.manual_seed(3)
        if n:
            torch.rand(n)
        with xrng.reproducible(seed=0, strict=True):
            for _ in range(3):
                torch.randn(4)
        after = (torch.rand(1000), torch.randn(7), torch.randint(0, 100, (5,)))
        assert all(torch.equal(a, b) for a, b in zip(after, after_ref)), n
        del ref
