"""xrng.migrate: recording every module's outputs, comparing recordings, the table, the CLI."""
import json
import math
import subprocess
import sys

import pytest
import torch
from torch import nn

import xrng
from xrng import migrate


class Block(nn.Module):
    """Returns a tuple whose second item is a dict holding a tensor and a None."""

    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.act = nn.GELU()

    def forward(self, x):
        h = self.act(self.lin(x))
        return h, {"sum": h.sum(-1), "none": None}


class Net(nn.Module):
    """A tiny model with nested outputs and a module called twice."""

    def __init__(self, d=16):
        super().__init__()
        self.pre = nn.ReLU()
        self.block = Block(d)
        self.shared = nn.Linear(d, d)
        self.head = nn.Linear(d, 3)

    def forward(self, x):
        h, extra = self.block(self.pre(x))
        h = self.shared(self.shared(h))
        return {"logits": self.head(h), "aux": (extra["sum"],)}


FORWARD_KEYS = ["pre#0:out", "block.lin#0:out", "block.act#0:out", "block#0:out.0", "block#0:out.1.sum",
                "shared#0:out", "shared#1:out", "head#0:out", "<root>#0:out.logits", "<root>#0:out.aux.0"]


def build():
    """(model, inputs) for record_build and the CLI: explicit seeding, as an unmodified program does."""
    torch.manual_seed(0)
    model = Net()
    # Inputs exact in bfloat16, so that ReLU (the first module) gives the same numbers in both dtypes.
    x = torch.randn(4, 16).to(torch.bfloat16).to(torch.float32)
    return model, (x,)


def rows_by_key(rows):
    return {r.key: r for r in rows}


def test_keys_follow_modules_calls_and_output_structure():
    rec = migrate.record_build(build)
    assert [e["key"] for e in rec.entries] == FORWARD_KEYS
    e = rec.by_key()["shared#1:out"]
    assert (e["module"], e["call"], e["kind"], e["path"], e["shape"], e["dtype"]) == \
           ("shared", 1, "out", "", [4, 16], "float32")
    assert rec.by_key()["block#0:out.1.sum"]["path"] == ".1.sum"
    # the recorded hash and statistics are those of the tensor the module produced
    model, (x,) = build()
    logits = model(x)["logits"].detach()
    got = rec.by_key()["<root>#0:out.logits"]
    assert got["sha256"] == migrate.hashlib.sha256(logits.numpy().tobytes()).hexdigest()
    assert got["stats"]["numel"] == 12 and got["stats"]["nan"] == 0
    assert math.isclose(got["stats"]["mean"], float(logits.double().mean()), rel_tol=1e-12)
    assert math.isclose(got["stats"]["max"], float(logits.max()), rel_tol=0)
    assert rec.meta["device"] == "cpu" and rec.meta["dtype"] == "float32" and rec.meta["mode"] is False
    assert rec.tensors is None


def test_record_twice_on_one_device_gives_equal_bits(tmp_path):
    a = migrate.record_build(build, tmp_path / "a.json", grads=True, tensors=True)
    b = migrate.record_build(build, tmp_path / "b.json", grads=True, tensors=True)
    rows = migrate.compare(tmp_path / "a.json", tmp_path / "b.json")
    assert len(rows) == len(a.entries) == len(b.entries) > len(FORWARD_KEYS)
    assert all(r.equal == "bits" and (r.max_abs, r.max_rel, r.cosine) == (0, 0, 1) for r in rows)
    assert migrate.first_difference(rows) is None and migrate.failures(rows) == []


def test_a_changed_layer_is_the_first_difference():
    def build_changed():
        model, inputs = build()
        with torch.no_grad():
            model.shared.weight[0, 0] += 1e-3
        return model, inputs

    rows = migrate.compare(migrate.record_build(build, tensors=True), migrate.record_build(build_changed, tensors=True))
    first = migrate.first_difference(rows)
    assert first.key == "shared#0:out" and first.index == FORWARD_KEYS.index("shared#0:out") + 1
    assert all(r.equal == "bits" for r in rows[:first.index - 1])
    assert first.max_abs > 0 and first.cosine < 1
    # the first call's input is unchanged, so only the row of x[0] . w[0] moved: by about 1e-3 * x
    assert first.max_abs < 1e-2


def test_float32_vs_bfloat16_reports_the_first_differing_module():
    a = migrate.record_build(build, tensors=True)
    b = migrate.record_build(build, dtype=torch.bfloat16, tensors=True)
    rows = migrate.compare(a, b)
    by = rows_by_key(rows)
    assert by["pre#0:out"].equal == "values"            # exact in both dtypes: not a difference
    assert (by["pre#0:out"].dtype_a, by["pre#0:out"].dtype_b) == ("float32", "bfloat16")
    first = migrate.first_difference(rows)
    assert first.key == "block.lin#0:out" and first.index == 2
    for r in rows[1:]:
        assert r.equal == "no"
        assert 0 < r.max_abs < math.inf and 0 < r.max_rel < 0.1
        assert 0.999 < r.cosine < 1
    # max_rel is max|b - a| / max|a|, in float64, a (the first recording) being the reference
    ta, tb = a.tensors["head#0:out"].double(), b.tensors["head#0:out"].double()
    r = by["head#0:out"]
    assert r.max_abs == float((tb - ta).abs().max())
    assert r.max_rel == r.max_abs / float(ta.abs().max())
    assert math.isclose(r.cosine, float(torch.nn.functional.cosine_similarity(ta.reshape(-1), tb.reshape(-1), dim=0)),
                        rel_tol=1e-12)


class Passthrough(nn.Module):
    def forward(self, x):
        return x


def _rows_for(a, b):
    m = Passthrough()
    return migrate.compare(migrate.record(m, a, tensors=True), migrate.record(m, b, tensors=True))


def test_error_definitions_with_non_finite_and_zero_values():
    nan, inf = math.nan, math.inf
    (r,) = _rows_for(torch.tensor([1.0, -2.0, 4.0, nan, inf]), torch.tensor([1.0, -2.5, 4.0, nan, inf]))
    assert r.equal == "no" and r.max_abs == 0.5 and r.max_rel == 0.5 / 4
    assert math.isclose(r.cosine, (1 + 5 + 16) / math.sqrt(21 * 23.25), rel_tol=1e-15)
    (r,) = _rows_for(torch.tensor([1.0, 2.0]), torch.tensor([1.0, nan]))
    assert r.max_abs == inf and r.max_rel == inf
    (r,) = _rows_for(torch.zeros(3), torch.tensor([0.0, 2.0**-10, 0.0]))
    assert r.max_abs == 2.0**-10 and r.max_rel == inf and r.cosine == 0.0
    (r,) = _rows_for(torch.tensor([0.0, nan]), torch.tensor([0.0, nan]))
    assert r.equal == "bits" and r.cosine == 1.0
    (r,) = _rows_for(torch.ones(2, 3), torch.ones(3, 2))
    assert r.equal == "shape" and r.max_abs is None
    assert migrate.failures([r], max_abs=1e9) == [r]


def test_keys_present_in_one_recording_only():
    a = migrate.record_build(build, grads=True)
    b = migrate.record_build(build)
    rows = migrate.compare(a, b)
    assert [r.key for r in rows[:len(FORWARD_KEYS)]] == FORWARD_KEYS
    assert {r.equal for r in rows[len(FORWARD_KEYS):]} == {"only in a"}
    back = migrate.compare(b, a)
    assert back[-1].equal == "only in b" and back[-1].key == a.entries[-1]["key"]


def test_gradients_are_recorded_when_asked():
    rec = migrate.record_build(build, grads=True, tensors=True)
    kinds = [e["kind"] for e in rec.entries]
    model, (x,) = build()
    names = [n for n, _ in model.named_parameters()]
    assert kinds.count("out") == len(FORWARD_KEYS) and kinds.count("param_grad") == len(names)
    assert [e["key"] for e in rec.entries if e["kind"] == "param_grad"] == [f"{n}:grad" for n in names]
    # the default loss is the sum of the floating outputs: the same backward done by hand gives the same bits
    out = model(x)
    (out["logits"].sum() + out["aux"][0].sum()).backward()
    for n, p in model.named_parameters():
        assert torch.equal(rec.tensors[f"{n}:grad"], p.grad), n
    grads = {e["key"] for e in rec.entries if e["kind"] == "grad"}
    # the ReLU's output is computed from an input that needs no grad: it has no gradient to record
    assert grads == {k.replace(":out", ":grad") for k in FORWARD_KEYS if k != "pre#0:out"}
    assert torch.equal(rec.tensors["<root>#0:grad.logits"], torch.ones(4, 3))
    assert rec.meta["counts"] == {"out": len(FORWARD_KEYS), "grad": len(grads), "param_grad": len(names)}
    assert all(e["kind"] == "out" for e in migrate.record_build(build).entries)


def test_save_and_load_round_trip(tmp_path):
    rec = migrate.record_build(build, tmp_path / "r.json", grads=True, tensors=True, label="round trip")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["format"] == "xrng.migrate" and doc["version"] == 1 and doc["tensors_file"] == "r.safetensors"
    assert doc["meta"]["label"] == "round trip" and doc["meta"]["xrng"] == xrng.__version__
    back = migrate.load(tmp_path / "r.json")
    assert back.entries == rec.entries and back.meta == rec.meta
    assert set(back.tensors) == set(rec.tensors)
    assert all(torch.equal(back.tensors[k], rec.tensors[k]) for k in rec.tensors)
    assert migrate.load(tmp_path / "r.json", tensors=False).tensors is None
    # a tensors file that does not hold what the JSON recorded is refused
    from safetensors.torch import load_file, save_file
    t = load_file(tmp_path / "r.safetensors")
    t["head#0:out"] = t["head#0:out"] + 1
    save_file(t, tmp_path / "r.safetensors")
    with pytest.raises(migrate.MigrateError, match="head#0:out does not match its SHA-256"):
        migrate.load(tmp_path / "r.json")
    (tmp_path / "r.safetensors").unlink()
    with pytest.raises(migrate.MigrateError, match="cannot read the tensors of .*r.json"):
        migrate.load(tmp_path / "r.json")
    assert migrate.load(tmp_path / "r.json", tensors=False).entries == rec.entries
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(migrate.MigrateError, match="not an xrng.migrate recording"):
        migrate.load(tmp_path / "x.json")


def test_without_tensors_unequal_rows_have_no_errors_and_fail_any_tolerance():
    rows = migrate.compare(migrate.record_build(build), migrate.record_build(build, dtype=torch.bfloat16))
    first = migrate.first_difference(rows)
    assert first.key == "block.lin#0:out" and first.max_abs is None
    assert rows[0].equal == "values"  # known from the float64 value hash alone
    assert migrate.failures(rows, max_rel=1.0)[0] is first


def test_tolerances():
    rows = migrate.compare(migrate.record_build(build, tensors=True),
                           migrate.record_build(build, dtype=torch.bfloat16, tensors=True))
    worst = max(r.max_rel for r in rows)
    assert len(migrate.failures(rows)) == len(rows) - 1  # strict: every unequal row
    assert migrate.failures(rows, max_rel=worst) == []
    assert migrate.failures(rows, max_rel=worst / 2) != []
    assert migrate.failures(rows, min_cosine=min(r.cosine for r in rows)) == []
    assert migrate.failures(rows, min_cosine=1.0) == [r for r in rows if not r.same]


def test_table_format():
    rows = [migrate.Row(1, "emb#0:out", (2, 3), (2, 3), "float32", "float32", "bits", 0.0, 0.0, 1.0),
            migrate.Row(2, "lin#0:out", (2, 3), (2, 3), "float32", "bfloat16", "no", 1.5e-3, 2.25e-4, 0.99999),
            migrate.Row(3, "<root>#0:out", (), (), "float32", "float32", "no"),
            migrate.Row(4, "x#0:out", (4,), (2, 2), "int64", "int64", "shape"),
            migrate.Row(5, "y:grad", None, (5,), None, "float16", "only in b")]
    assert migrate.format_table(rows) == "\n".join([
        "#  tensor        shape    dtype               equal        max abs    max rel       cosine",
        "-  ------------  -------  ------------------  ---------  ---------  ---------  -----------",
        "1  emb#0:out     2x3      float32             bits               0          0            1",
        "2  lin#0:out     2x3      float32 / bfloat16  no         1.500e-03  2.250e-04  0.999990000",
        "3  <root>#0:out  scalar   float32             no               n/a        n/a          n/a",
        "4  x#0:out       4 / 2x2  int64               shape            n/a        n/a          n/a",
        "5  y:grad        - / 5    - / float16         only in b        n/a        n/a          n/a",
        "5 tensors: 1 equal bits, 0 equal values, 4 differ",
        "first difference: #2 lin#0:out"])
    short = migrate.format_table(rows, only_differences=True).splitlines()
    assert len(short) == 2 + 4 + 2 and not any(line.startswith("1 ") for line in short)
    assert migrate.format_table(rows[:1]).endswith("1 tensors: 1 equal bits, 0 equal values, 0 differ\n"
                                                    "first difference: none")


def cli(*args, expect):
    """``python -m xrng.migrate ARGS`` in a subprocess; returns (stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "xrng.migrate", *map(str, args)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == expect, r.stdout + r.stderr
    return r.stdout, r.stderr


def main(capsys, *args, expect):
    """The same command line run in this process (cheaper than a subprocess: no second torch import)."""
    assert migrate.main([str(a) for a in args]) == expect
    return capsys.readouterr()


def test_cli_round_trip(tmp_path, capsys):
    spec = f"{__file__}:build"
    out, _ = cli("record", "--build", spec, "--out", tmp_path / "a.json", "--tensors", "--grads", expect=0)
    assert out.startswith(f"recorded 25 tensors to {tmp_path / 'a.json'} and {tmp_path / 'a.safetensors'}\n"
                          "Net on cpu ")
    main(capsys, "record", "--build", spec, "--out", tmp_path / "a2.json", "--tensors", "--grads", expect=0)
    main(capsys, "record", "--build", spec, "--out", tmp_path / "b.json", "--tensors", "--grads", "--dtype",
         "bfloat16", expect=0)
    out, _ = cli("compare", tmp_path / "a.json", tmp_path / "b.json", expect=1)
    assert "first difference: #2 block.lin#0:out" in out and "FAIL: 19 tensors outside the tolerance" in out
    # the Python API gives the same table the CLI prints
    rows = migrate.compare(tmp_path / "a.json", tmp_path / "b.json")
    assert migrate.format_table(rows) in out
    out, _ = main(capsys, "compare", tmp_path / "a.json", tmp_path / "a2.json", expect=0)
    assert "25 tensors: 25 equal bits, 0 equal values, 0 differ\nfirst difference: none\nok: every tensor equal" in out
    worst = max(r.max_rel for r in rows)
    out, _ = main(capsys, "compare", tmp_path / "a.json", tmp_path / "b.json", "--max-rel", worst, expect=0)
    assert out.endswith("ok: within the tolerance\n")
    out, _ = main(capsys, "compare", tmp_path / "a.json", tmp_path / "b.json", "--max-rel", worst / 2,
                  "--only-differences", expect=1)
    assert " pre#0:out " not in out and " block.lin#0:out " in out
    _, err = main(capsys, "record", "--build", "no_such_module_xyz:build", "--out", tmp_path / "c.json", expect=2)
    assert err.strip() == ("python -m xrng.migrate: error: --build: cannot import no_such_module_xyz: "
                           "No module named 'no_such_module_xyz'")
    _, err = main(capsys, "record", "--build", f"{__file__}:no_such_function", "--out", tmp_path / "c.json",
                  expect=2)
    assert "has no function no_such_function" in err
    _, err = main(capsys, "record", "--build", spec, "--out", tmp_path / "c.json", "--strict", expect=2)
    assert err.strip() == "python -m xrng.migrate: error: strict=True needs a seed: it is an option of the " \
                          "reproducible mode"
    _, err = main(capsys, "compare", tmp_path / "a.json", tmp_path / "missing.json", expect=2)
    assert "cannot read recording" in err


def test_bad_build_results_are_refused():
    with pytest.raises(migrate.MigrateError, match=r"must return \(model, inputs\)"):
        migrate.record_build(lambda: Net())
    with pytest.raises(migrate.MigrateError, match="must be a torch.nn.Module"):
        migrate.record(lambda x: x, torch.ones(1))
    with pytest.raises(migrate.MigrateError, match="device 'nowhere'"):
        migrate.record_build(build, device="nowhere")
    if not torch.cuda.is_available():
        with pytest.raises(migrate.MigrateError, match="torch sees no CUDA GPU"):
            migrate.record_build(build, device="cuda")


@pytest.mark.slow
def test_record_on_another_device(xdev):
    """The xdev test backend keeps host memory and runs every op through torch's CPU
    fallback, so its recording must equal the CPU one bit for bit."""
    a = migrate.record_build(build, device="cpu", tensors=True)
    b = migrate.record_build(build, device="xdev", tensors=True)
    assert (a.meta["device"], b.meta["device"]) == ("cpu", "xdev:0")
    rows = migrate.compare(a, b)
    assert [r.key for r in rows] == FORWARD_KEYS and all(r.equal == "bits" for r in rows)


def test_a_seed_needs_the_reproducible_mode(monkeypatch):
    # An xrng without the mode (before it existed, or a build that leaves it out): a clear error, no silent run.
    monkeypatch.delattr(xrng, "reproducible")
    monkeypatch.setitem(sys.modules, "xrng.reproducible", None)  # import_module then raises ModuleNotFoundError
    with pytest.raises(migrate.MigrateError, match=r"xrng.reproducible\(seed=...\), which this xrng"):
        migrate.record_build(build, seed=0)
    with pytest.raises(migrate.MigrateError, match="strict=True needs a seed"):
        migrate.record_build(build, strict=True)


def unseeded():
    """A build that does not seed torch: its weights are reproducible only under the mode."""
    model = nn.Sequential(nn.Linear(16, 16), nn.Dropout(0.5), nn.Linear(16, 4)).train()
    return model, (torch.ones(3, 16),)


def test_seed_records_under_the_reproducible_mode():
    a = migrate.record_build(unseeded, seed=0, grads=True, tensors=True)
    b = migrate.record_build(unseeded, seed=0, grads=True, tensors=True)
    assert (a.meta["mode"], a.meta["seed"], a.meta["strict"], a.meta["training"]) == (True, 0, False, True)
    assert a.meta["not_reproducible"] == {}
    rows = migrate.compare(a, b)
    assert len(rows) == len(a.entries) and all(r.equal == "bits" for r in rows)
    # the control: the same build without the mode draws other weights each time
    assert migrate.first_difference(migrate.compare(migrate.record_build(unseeded), migrate.record_build(unseeded)))
    # another seed: other weights from the first module on
    other = migrate.compare(a, migrate.record_build(unseeded, seed=1, grads=True))
    assert migrate.first_difference(other).key == "0#0:out"
    # a dropout mask from the mode does not depend on the dtype: the same elements are zero
    c = migrate.record_build(unseeded, seed=0, dtype=torch.float64, tensors=True)
    assert torch.equal(a.tensors["1#0:out"] == 0, c.tensors["1#0:out"] == 0)
    assert not bool((a.tensors["0#0:out"] == 0).any())  # (so the zeros after dropout are the mask's)


class GammaOutside(nn.Module):
    """A draw the mode leaves to torch: an alpha xrng's gamma refuses."""
    def forward(self, p):
        return p + torch._standard_gamma(torch.tensor([1.0, -1.0])).nan_to_num().sum()


def test_ops_the_mode_cannot_reproduce_are_recorded_or_refused(tmp_path, capsys):
    # the mode serves the LSTM's dropout too (a C++ draw), and leaves to torch
    # the calls xrng refuses
    model, op = GammaOutside(), "aten._standard_gamma"
    with pytest.warns(xrng.ReproducibilityWarning, match=op.split(".")[1]):
        rec = migrate.record(model, torch.ones(3, 4), tmp_path / "s.json", seed=0)
    assert list(rec.meta["not_reproducible"]) == [op]
    assert migrate.describe(migrate.load(tmp_path / "s.json")).endswith(
        f"; NOT REPRODUCIBLE under the mode: {op}")
    with pytest.raises(xrng.NotReproducibleError, match=op.split(".")[1]):
        migrate.record(model, torch.ones(3, 4), seed=0, strict=True)


def test_transformers_model_output():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=16)
    model = transformers.BertForMaskedLM(config).eval()
    ids = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(1))
    rec = migrate.record(model, {"input_ids": ids, "labels": ids}, grads=True, tensors=True)
    keys = [e["key"] for e in rec.entries]
    assert keys.index("<root>#0:out.loss") == keys.index("<root>#0:out.logits") - 1  # ModelOutput field order
    assert "bert.encoder.layer.0.attention.self.query#0:out" in keys and "bert#0:out.last_hidden_state" in keys
    # the default loss is the model's own: the gradient of the loss with respect to itself is 1
    assert rec.tensors["<root>#0:grad.loss"].item() == 1.0
    assert sum(e["kind"] == "param_grad" for e in rec.entries) == \
           sum(p.grad is not None for p in model.parameters()) > 0


def test_the_stream_version_is_taken_and_recorded(tmp_path, capsys):
    a = migrate.record_build(unseeded, seed=0, stream=1, tensors=True)
    b = migrate.record_build(unseeded, seed=0, tensors=True)
    assert a.meta["stream_version"] == 1 and b.meta["stream_version"] == xrng.stream_version == 2
    assert "stream=1)" in migrate.describe(a) and "(stream v1)" in migrate.describe(a)
    # nn.Linear's init draws uniform values: the same in both versions
    assert migrate.compare(a, migrate.record_build(unseeded, seed=0, stream=1))[0].equal == "bits"
    assert migrate.record(nn.Linear(2, 2), torch.ones(1, 2)).meta["stream_version"] == 2  # no mode: the default
    with pytest.raises(migrate.MigrateError, match="stream= needs a seed"):
        migrate.record_build(unseeded, stream=1)
    with pytest.raises(migrate.MigrateError, match="stream must be one of the stream versions"):
        migrate.record_build(unseeded, seed=0, stream=3)
    spec = f"{__file__}:unseeded"
    main(capsys, "record", "--build", spec, "--out", tmp_path / "v1.json", "--seed", 0, "--stream", 1, expect=0)
    main(capsys, "record", "--build", spec, "--out", tmp_path / "v2.json", "--seed", 0, expect=0)
    assert json.loads((tmp_path / "v1.json").read_text())["meta"]["stream_version"] == 1
    # (this model draws only uniform values and dropout masks: equal in both versions, but noted)
    out = main(capsys, "compare", tmp_path / "v1.json", tmp_path / "v2.json", expect=0).out
    assert "note: a drew in stream v1, b in stream v2" in out and "ok: every tensor equal" in out
