"""python -m benchmarks.probes.confidence_probe: how well a search's confidence tells answered questions from ones
nothing answers. Reads devnotes (with its no-answer questions), SciFact and LoCoMo samples (answered only), and
the repository questions (code search; sources from python -m benchmarks.repos fetch), and prints, per data set,
the signals' spread and the share of questions below Config.confidence_min."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.confidence_probe", description=__doc__)
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    p.add_argument("--queries", type=int, default=200, help="SciFact and LoCoMo questions sampled (default 200)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"))
    p.add_argument("--datasets", nargs="+", default=["devnotes", "devnotes-1k", "scifact", "locomo", "click",
                                                     "requests", "marshmallow", "commander", "cobra"])
    p.add_argument("--repos", type=Path, default=None, help="the repositories' sources (python -m benchmarks.repos)")
    p.add_argument("--floor", type=float, default=None,
                   help="count as flagged below this confidence instead of Config.confidence_min (the hooks' "
                        "hooks_min_confidence, say)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each question's signals")
    args = p.parse_args(argv)
    from .. import data, quality
    from ..devnotes import load_devnotes
    from ..repos import DEFAULT_DIR, REPOS, load_repo
    from ..systems import MemoryGraphSystem, build_code_engine, engine_embedder

    emb = engine_embedder("", cache_size=200_000, query_cache_size=4_096)
    d = args.data
    loaders = {
        "devnotes": lambda: load_devnotes(answerable_only=False),
        "devnotes-1k": lambda: load_devnotes(pad_to=1_000, answerable_only=False),
        "scifact": lambda: data.load_scifact(d / "scifact/corpus.jsonl", d / "scifact/queries.jsonl",
                                             d / "scifact/qrels/train.tsv", args.queries, 1500),
        "locomo": lambda: data.load_locomo(d / "locomo/locomo_dev.json", args.queries)}
    print("data set      questions    flagged: answered  unanswered   top cosine: answered  unanswered")
    for name in args.datasets:
        if name in REPOS:
            ds = load_repo(name, args.repos or DEFAULT_DIR)
            if ds is None:
                print(f"{name}: not fetched (python -m benchmarks.repos fetch)")
                continue
            with tempfile.TemporaryDirectory() as work:
                engine, _, _ = build_code_engine(ds, emb, Path(work))
                rows = []
                for q in ds.queries + ds.unanswerable:
                    hits = engine.search_code(q.text, limit=10, project=ds.name)
                    rows.append((bool(q.relevant), hits.confidence, hits.signals.get("vector", 0.0)))
                    if args.verbose:
                        print(f"  {'ans' if q.relevant else 'NO '} conf {hits.confidence:.2f} "
                              f"cos {hits.signals.get('vector', 0):.3f} bm25 {hits.signals.get('bm25', 0):.2f}  "
                              f"{q.text[:70]!r}")
                lim = engine.config.confidence_min
                engine.close()
            report(name, rows, lim if args.floor is None else args.floor)
            continue
        ds = loaders[name]()
        with tempfile.TemporaryDirectory() as work:
            vecs = quality.cached_vectors([x.full_text for x in ds.docs], emb, args.cache, ds.name)
            mg = MemoryGraphSystem(ds, vecs, emb, Path(work))
            rows = []
            for q in ds.queries:
                at = ds.asked_at or mg.group_end.get(q.group)
                hits = mg.engine.search(q.text, limit=10, project=q.group or None, include_global=False,
                                        as_of=at, use_decay=at is not None)
                rows.append((bool(q.relevant), hits.confidence, hits.signals.get("vector", 0.0)))
            mg.close()
        report(name, rows, mg.engine.config.confidence_min if args.floor is None else args.floor)
    return 0


def report(name: str, rows: list[tuple[bool, float, float]], lim: float) -> None:
    """One data set's line: questions, shares below the confidence floor, median top cosines."""
    ans = [r for r in rows if r[0]]
    no = [r for r in rows if not r[0]]

    def share(rs):
        return f"{sum(1 for r in rs if r[1] < lim) / len(rs):.2f}" if rs else "  - "

    def med(rs):
        return f"{statistics.median(r[2] for r in rs):.3f}" if rs else "  -  "

    print(f"{name:13s} {len(rows):9d}    {share(ans):>17s}  {share(no):>10s}   {med(ans):>19s}  {med(no):>10s}")


if __name__ == "__main__":
    raise SystemExit(main())
