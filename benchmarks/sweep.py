"""python -m benchmarks.sweep: compare memory-graph Config variants on one data set (quality only).

Example:
    python -m benchmarks.sweep --dataset locomo --variant 'rrf={"fusion": "rrf"}' \\
        --variant 'beta.5={"ppr_beta": 0.5}'
Each variant is NAME=JSON of Config fields; weights are given as lists [vector, bm25, graph]. The key "variant"
starts from one of the benchmark's memory-graph systems instead of the full pipeline: '{"variant": "mg: bm25 only"}'.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.sweep", description=__doc__.split("\n")[0])
    from .repos import REPOS

    p.add_argument("--dataset", choices=["scifact", "locomo", "cosqa", "devnotes", "devnotes-1k", "devnotes-10k",
                                         *REPOS], required=True)
    p.add_argument("--repos", type=Path, default=None,
                   help="the repositories' sources (default: where python -m benchmarks.repos fetch puts them)")
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data",
                   help="folder holding scifact/, locomo/ and cosqa/ (default: ../shared/data)")
    p.add_argument("--queries", type=int, default=200, help="queries sampled (default: 200, seed 0)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                   help="Config overrides to evaluate (repeatable); the defaults always run as 'default'")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    p.add_argument("--whole-corpus", action="store_true",
                   help="SciFact: search all 5,183 abstracts, as --full does (default: judged + 1,500 others)")
    p.add_argument("--json", type=Path, default=None,
                   help="also write every variant's figures, per query and per category, to this JSON file")
    args = p.parse_args(argv)

    from .systems import config_changes

    variants = {"default": {}}
    for v in args.variant:
        name, _, raw = v.partition("=")
        variants[name] = config_changes(raw)
    d, work = args.data, Path(tempfile.mkdtemp(prefix="mg-sweep-"))
    try:
        return _sweep(args, d, work, variants)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the engines' data: hundreds of MB, never read again


def _sweep(args, d: Path, work: Path, variants: dict[str, dict]) -> int:
    from . import data, quality
    from .repos import DEFAULT_DIR, REPOS, load_repo
    from .systems import MemoryGraphSystem, build_code_engine, engine_embedder

    emb = engine_embedder("", cache_size=200_000, query_cache_size=4_096)
    if args.dataset == "scifact":
        ds = data.load_scifact(d / "scifact/corpus.jsonl", d / "scifact/queries.jsonl", d / "scifact/qrels/train.tsv",
                               args.queries, None if args.whole_corpus else 1500)
    elif args.dataset.startswith("devnotes"):
        from .devnotes import load_devnotes

        size = {"devnotes": None, "devnotes-1k": 1_000, "devnotes-10k": 10_000}[args.dataset]
        ds = load_devnotes(pad_to=size)
    elif args.dataset in REPOS:
        ds = load_repo(args.dataset, args.repos or DEFAULT_DIR)
        if ds is None:
            raise SystemExit(f"{args.dataset} is not fetched: python -m benchmarks.repos fetch")
    elif args.dataset == "locomo":
        ds = data.load_locomo(d / "locomo/locomo_dev.json", args.queries)
    else:
        ds = data.load_cosqa(d / "cosqa/code_idx_map.txt", d / "cosqa/cosqa-retrieval-dev-500.json", args.queries)
    if ds.kind == "code":
        eng, chunk_doc, _ = build_code_engine(ds, emb, work)
        mg = MemoryGraphSystem(ds, None, emb, work, (eng, chunk_doc))
    else:
        vecs = quality.cached_vectors([x.full_text for x in ds.docs], emb,
                                      args.cache, ds.name)
        mg = MemoryGraphSystem(ds, vecs, emb, work)
    base = mg.engine.config
    full = mg.ranker("memory-graph")

    def ranker(changes: dict):
        changes = dict(changes)
        # "variant" picks one of the benchmark's systems (e.g. "mg: bm25 only") as the starting point
        run_variant = mg.ranker(changes.pop("variant")) if "variant" in changes else full

        def run(qi: int, k: int) -> list[str]:
            mg.engine.config = base.with_(**changes)
            try:
                return run_variant(qi, k)
            finally:
                mg.engine.config = base
        return run

    res = quality.evaluate(ds, {name: ranker(ch) for name, ch in variants.items()})
    cats = sorted({q.category for q in ds.queries})
    ref = res["default"]["per_query"][ds.main_metric]
    for name, r in res.items():
        line = f"{name:24s} " + "  ".join(f"{m} {v:.4f}" for m, v in r["overall"].items())
        if name != "default":
            # the variant minus the defaults, per query, on the data set's main metric
            mine = r["per_query"][ds.main_metric]
            diff = quality.paired_difference(mine, ref)
            wins = sum(1 for a, b in zip(mine, ref) if a > b)
            losses = sum(1 for a, b in zip(mine, ref) if a < b)
            line += (f"  | {ds.main_metric} vs default {diff['mean']:+.4f} [{diff['low']:+.4f}, {diff['high']:+.4f}]"
                     f" better on {wins}, worse on {losses}")
        print(line)
        if len(cats) > 1:
            print(" " * 25 + "  ".join(f"{c} {r['by_category'][c][ds.main_metric]:.3f}" for c in cats))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
        print(f"figures written to {args.json}")
    mg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
