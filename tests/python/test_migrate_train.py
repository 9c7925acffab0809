"""The migration workflow with dropout on (issue 18): ``record --train`` runs the
model in training mode, compare's header says whether both runs trained, a
run under the mode with dropout on compares equal bits across thread counts
and on the test device backend, and every command of the README's migration
section runs as printed."""
import functools
import pathlib
import re
import shlex
import sys

import pytest
import torch

from xrng import migrate

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "examples"))
import migration_check  # noqa: E402

pytest.importorskip("transformers")
pytest.importorskip("safetensors")

PREFIX = ["python3", "-m", "xrng.migrate"]


@functools.lru_cache(maxsize=None)
def bert_train():
    """BERT under the mode with dropout on, on the CPU at torch's thread count (shared by the tests)."""
    return migrate.record_build(migration_check.bert, seed=0, train=True, tensors=True)


def readme_commands():
    """The commands of the README's "Migration check" section, as printed."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("### Migration check"):]
    section = section[:section.index("\n## ")]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def run(capsys, argv, expect):
    code = migrate.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == expect, out + err
    return out


def run_readme(tmp_path, monkeypatch, capsys, device):
    """Runs the README's commands as printed, in a fresh directory, the
    recording device ``cuda`` replaced by ``device``; returns their outputs."""
    cmds = readme_commands()
    assert len(cmds) == 3 and all(shlex.split(c)[:3] == PREFIX for c in cmds)
    assert all("--train" in c for c in cmds if " record " in c)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(REPO / "examples")  # the commands' relative paths
    outs = []
    for c in cmds:
        argv = shlex.split(c)[3:]
        if "cuda" in argv:
            argv[argv.index("cuda")] = device
        outs.append(run(capsys, argv, 0))
    assert outs[0].startswith("recorded ") and ", train, xrng.reproducible(seed=0" in outs[0]
    assert "training: a train (dropout on), b train (dropout on): both runs trained" in outs[2]
    assert outs[2].rstrip().endswith(("ok: every tensor equal", "ok: within the tolerance"))
    a = migrate.load(tmp_path / "cpu.json")
    assert a.meta["training"] and a.meta["mode"] and not a.meta["not_reproducible"]
    return outs


@pytest.mark.slow
def test_readme_migration_commands(tmp_path, monkeypatch, capsys, xdev):
    # No GPU here: the README's commands as printed, the CUDA record on the
    # test suite's device backend instead (the cuda-marked test below runs
    # them verbatim on a GPU: tests/gpu/run.sh)
    run_readme(tmp_path, monkeypatch, capsys, "xdev")


@pytest.mark.cuda
def test_readme_migration_commands_verbatim_on_cuda(tmp_path, monkeypatch, capsys):
    run_readme(tmp_path, monkeypatch, capsys, "cuda")


def test_train_under_the_mode_is_bit_identical_across_thread_counts():
    threads = torch.get_num_threads()
    ref = bert_train()
    try:
        torch.set_num_threads(1 if threads > 1 else 2)
        other = migrate.record_build(migration_check.bert, seed=0, train=True, tensors=True)
    finally:
        torch.set_num_threads(threads)
    rows = migrate.compare(ref, other)
    assert rows and all(r.equal == "bits" for r in rows), migrate.format_table(rows, only_differences=True)
    assert ref.meta["training"] and not ref.meta["not_reproducible"]
    # dropout was on: the eval run of the same build differs from the first dropout on
    ev = migrate.record_build(migration_check.bert, seed=0, train=False, tensors=True)
    assert not ev.meta["training"]
    first = migrate.first_difference(migrate.compare(ref, ev))
    assert first is not None and "dropout" in first.key


class DropNet(torch.nn.Module):
    """Linear layers and dropout, no normalisation: every op is exact on xdev's CPU fallback."""

    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(16, 32)
        self.drop = torch.nn.Dropout(0.3)
        self.out = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.out(self.drop(torch.relu(self.inp(x))))


def drop_build():
    torch.manual_seed(0)
    return DropNet(), torch.randn(8, 16)


@pytest.mark.slow
def test_train_under_the_mode_on_the_test_device(xdev):
    # dropout only: CPU and xdev records are equal bits in training mode
    a = migrate.record_build(drop_build, seed=0, train=True, tensors=True)
    b = migrate.record_build(drop_build, seed=0, train=True, tensors=True, device="xdev")
    assert b.meta["device"] == "xdev:0" and a.meta["training"] and b.meta["training"]
    rows = migrate.compare(a, b)
    assert rows and all(r.equal == "bits" for r in rows), migrate.format_table(rows, only_differences=True)
    # BERT: xdev's CPU-fallback LayerNorm rounds differently from the CPU kernel (1 ulp, in eval as
    # in train: torch's arithmetic), yet every dropout mask is the same: its zeros are in the same places
    a = bert_train()
    b = migrate.record_build(migration_check.bert, seed=0, train=True, tensors=True, device="xdev")
    drops = [k for k in a.by_key() if "dropout" in k.lower()]
    assert len(drops) >= 5
    for k in drops:
        ta, tb = a.tensors[k], b.tensors[k]
        assert torch.equal(ta == 0, tb == 0), k
    rows = migrate.compare(a, b)
    assert max(r.max_rel for r in rows) < 1e-4


def test_train_and_eval_flags_and_the_compare_header(tmp_path, capsys):
    spec = f"{__file__}:drop_build"  # a model with dropout, built in training mode (nn.Module's default)
    run(capsys, ["record", "--build", spec, "--seed", "0", "--train", "--out", tmp_path / "t.json"], 0)
    run(capsys, ["record", "--build", spec, "--seed", "0", "--eval", "--out", tmp_path / "e.json"], 0)
    run(capsys, ["record", "--build", spec, "--seed", "0", "--out", tmp_path / "d.json"], 0)
    assert migrate.load(tmp_path / "t.json").meta["training"] is True
    assert migrate.load(tmp_path / "e.json").meta["training"] is False
    assert migrate.load(tmp_path / "d.json").meta["training"] is True  # as the build left it
    out = run(capsys, ["compare", tmp_path / "t.json", tmp_path / "e.json"], 1)
    assert "training: a train (dropout on), b eval (dropout off): only one run trained" in out
    out = run(capsys, ["compare", tmp_path / "e.json", tmp_path / "e.json"], 0)
    assert "training: a eval (dropout off), b eval (dropout off): neither run trained" in out
    out = run(capsys, ["compare", tmp_path / "t.json", tmp_path / "d.json"], 0)  # under the mode: equal bits
    assert "training: a train (dropout on), b train (dropout on): both runs trained" in out
    with pytest.raises(SystemExit):
        migrate.main(["record", "--build", spec, "--train", "--eval", "--out", str(tmp_path / "x.json")])
    capsys.readouterr()
    # the Python API: train= on record and record_build
    model, inputs = drop_build()
    assert migrate.record(model, inputs, train=True, seed=0).meta["training"] is True
    assert migrate.record(model, inputs, train=False).meta["training"] is False
    with pytest.raises(migrate.MigrateError, match="train must be"):
        migrate.record(model, inputs, train="yes")
