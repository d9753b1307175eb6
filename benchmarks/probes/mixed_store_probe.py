"""python -m benchmarks.probes.mixed_store_probe REPO: does indexing a code project beside the devnotes change memory search?

Stores the 251 hand-written devnotes (their vectors cached under results/cache), asks the 112 answerable
questions, indexes REPO into the same data directory, asks them again, and reports nDCG@10 before and after and
on how many questions the top 10 changed. With one BM25 index for both kinds (commit 6ac71e4 and before), click
8.1.7 changed 81 of 112; with an index per kind, none.

    python -m benchmarks.repos fetch && python -m benchmarks.probes.mixed_store_probe ~/.cache/memory-graph/bench-repos/click-8.1.7
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--cache", default="results/cache", help="where the notes' vectors are cached")
    args = ap.parse_args()
    from codebase import index_project
    from memory_graph import Config, Engine

    from .. import quality
    from ..devnotes import load_devnotes
    from ..metrics import ndcg_at
    from ..systems import FixedEmbedder, engine_embedder

    emb = engine_embedder("", cache_size=10_000, query_cache_size=1_000)
    ds = load_devnotes()
    vectors = quality.cached_vectors([d.full_text for d in ds.docs], emb, Path(args.cache), ds.name)
    eng = Engine(Path(tempfile.mkdtemp(prefix="mg-mixed-")), config=Config(), embedder=FixedEmbedder(emb))
    eng.store_many([{"id": d.id, "content": d.text, "title": d.title or None, "project": d.group,
                     "created_at": d.created_at, "memory_type": d.kind or "episodic"} for d in ds.docs],
                   _vectors=vectors)

    def ask() -> dict[str, list[str]]:
        return {q.id: [h.id for h in eng.search(q.text, limit=10, project=q.group or None, as_of=ds.asked_at)]
                for q in ds.queries}

    before = ask()
    os.environ.setdefault("MEMORY_GRAPH_ALLOWED_ROOTS", os.path.abspath(args.repo))
    report = index_project(eng, args.repo, project="code")
    after = ask()
    relevant = {q.id: q.relevant for q in ds.queries}
    nb = statistics.mean(ndcg_at(r, relevant[k], 10) for k, r in before.items())
    na = statistics.mean(ndcg_at(r, relevant[k], 10) for k, r in after.items())
    changed = sum(before[k] != after[k] for k in before)
    print(f"{report.chunks} chunks indexed beside {len(ds.docs)} notes: nDCG@10 {nb:.4f} before, {na:.4f} after; "
          f"top 10 changed on {changed} of {len(before)} questions")


if __name__ == "__main__":
    main()
