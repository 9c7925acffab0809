#!/usr/bin/env python3
"""Migration check on a real model: where does a run on another device or dtype part from the reference?

Builds a small BERT (masked LM) or GPT-2 (causal LM) from a transformers config
with random weights (nothing is downloaded), records every module's outputs
(and, with --grads, the gradients of one backward pass) with xrng.migrate on
the CPU in float32 twice, in bfloat16, and on CUDA in float32 when a GPU is
present, then prints the comparison tables:

* CPU float32, run again: every tensor must have equal bits (exit status 1 if not);
* CPU float32 vs CPU bfloat16: where and by how much the bfloat16 run departs;
* CPU float32 vs CPU float32 with transformers' "eager" attention instead of
  "sdpa": a library-level change of one kernel, where the first difference is
  the first module after the attention;
* CPU float32 vs CUDA float32: where the GPU's arithmetic first departs.

    python examples/migration_check.py [--model bert|gpt2|all] [--grads] [--train] [--seed S] [--out DIR]

The builds seed torch themselves (torch.manual_seed(0)), as an unmodified
program does. --seed S runs each record under xrng.reproducible(seed=S): weight
init and dropout then come from the xrng stream, the same on every device (the
build's torch.manual_seed(0) re-keys that stream to seed 0, so every S gives
the same weights). --train keeps dropout on; without --seed, torch's own
generators then draw the masks, which differ between CPU and CUDA. The build
functions work with the CLI as well:

    python -m xrng.migrate record --build examples/migration_check.py:bert --out cpu.json --tensors
"""
import argparse
import functools
import pathlib
import sys
import tempfile

import torch

from xrng import migrate

VOCAB, BATCH, SEQ = 1000, 2, 32


def _inputs():
    # Token ids from a separate generator, so they do not depend on how many
    # draws the weight init made, nor on whether the reproducible mode is on.
    g = torch.Generator().manual_seed(1234)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids}


def _finish(model, train, attention):
    if attention is not None:
        model.set_attn_implementation(attention)
    return (model.train() if train else model.eval()), _inputs()


def bert(train=False, attention=None):
    """(model, inputs): a 2-layer BERT masked LM (hidden 128, 4 heads) with random weights, and a batch with labels.

    train: dropout on. attention: transformers' attention implementation ("sdpa", "eager"; None: the default).
    """
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    config = BertConfig(vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=256, max_position_embeddings=64)
    return _finish(BertForMaskedLM(config), train, attention)


def gpt2(train=False, attention=None):
    """(model, inputs): a 2-layer GPT-2 LM (n_embd 128, 4 heads) with random weights, and a batch with labels.

    Arguments as for :func:`bert`.
    """
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCAB, n_embd=128, n_layer=2, n_head=4, n_positions=64, use_cache=False,
                        bos_token_id=0, eos_token_id=0)
    return _finish(GPT2LMHeadModel(config), train, attention)


MODELS = {"bert": bert, "gpt2": gpt2}


def check(name, out, *, grads=False, train=False, seed=None, cuda=None):
    """Records model ``name`` in every configuration and prints the tables.

    Returns (ok, tables): ok is False when the repeated CPU float32 run is not
    bit-identical; tables maps a comparison's title to its rows.
    """
    cuda = torch.cuda.is_available() if cuda is None else cuda
    # run name -> (device, dtype, attention implementation); the first is the reference
    runs = {"cpu-float32": ("cpu", torch.float32, None),
            "cpu-float32-again": ("cpu", torch.float32, None),
            "cpu-bfloat16": ("cpu", torch.bfloat16, None),
            "cpu-float32-eager-attention": ("cpu", torch.float32, "eager")}
    if cuda:
        runs["cuda-float32"] = ("cuda", torch.float32, None)
    rec = {}
    for run, (device, dtype, attention) in runs.items():
        build = functools.partial(MODELS[name], train=train, attention=attention)
        rec[run] = migrate.record_build(build, out / f"{name}-{run}.json", device=device, dtype=dtype, grads=grads,
                                        tensors=True, seed=seed, label=f"{name} {run}")
    tables = {}
    for other in [r for r in runs if r != "cpu-float32"]:
        title = f"{name}: cpu-float32 vs {other}"
        rows = migrate.compare(rec["cpu-float32"], rec[other])
        tables[title] = rows
        print(f"== {title}\na: {migrate.describe(rec['cpu-float32'])}\nb: {migrate.describe(rec[other])}")
        print(migrate.format_table(rows) + "\n")
    again = tables[f"{name}: cpu-float32 vs cpu-float32-again"]
    ok = not migrate.failures(again)
    print(f"{name}: the repeated CPU float32 run is " + (f"bit-identical ({len(again)} tensors)" if ok else
          f"NOT bit-identical (first difference: {migrate.first_difference(again).key})"))
    return ok, tables


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=[*MODELS, "all"], default="bert")
    ap.add_argument("--grads", action="store_true", help="also record output and parameter gradients")
    ap.add_argument("--train", action="store_true", help="train mode: dropout on")
    ap.add_argument("--seed", type=int, help="record under xrng.reproducible(seed=SEED)")
    ap.add_argument("--out", help="directory for the recordings (default: a temporary one)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.out or tmp)
        names = list(MODELS) if args.model == "all" else [args.model]
        results = [check(n, out, grads=args.grads, train=args.train, seed=args.seed)[0] for n in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
