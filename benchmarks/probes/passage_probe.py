"""python -m benchmarks.probes.passage_probe: what passage vectors bring to dense search of long documents (SciFact).

all-MiniLM-L6-v2 reads 256 word pieces; most SciFact abstracts are longer. This probe embeds each abstract's
later windows the way the engine does (``SentenceTransformerEmbedder.passages`` with the Config's
passage_tokens, passage_stride and max_passages) and compares exact dense search scoring a document by:

  first vector          the one vector of its beginning (what every other system in the benchmark uses)
  best passage          the best of that vector and its passages'
  first + gain          the first vector's similarity plus passage_gain (Config) times what the best passage
                        adds to it (what memory-graph's vector leg does)
  mean of passages      one vector, the mean of all of them (for reference)

Took about 8 minutes here (2 cores) the first time; the vectors are cached (--cache).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.passage_probe", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data",
                   help="folder holding scifact/ (default: ../shared/data)")
    p.add_argument("--qrels", type=Path, help="SciFact qrels TSV (default: DATA/scifact/qrels/train.tsv)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    p.add_argument("--model", default="", help="sentence-transformers model path or name (default: packaged)")
    args = p.parse_args(argv)

    from memory_graph.config import Config

    from .. import data, quality
    from ..systems import engine_embedder
    from ..metrics import score

    d = args.data / "scifact"
    ds = data.load_scifact(d / "corpus.jsonl", d / "queries.jsonl", args.qrels or d / "qrels/train.tsv")
    emb = engine_embedder(args.model, cache_size=200_000, query_cache_size=4_096)
    cfg = Config()
    texts = [x.full_text for x in ds.docs]
    parts, owner = [], []
    for i, text in enumerate(texts):
        for part in emb.passages(text, cfg.passage_tokens, cfg.passage_stride, cfg.max_passages):
            parts.append(part)
            owner.append(i)
    owner = np.array(owner, dtype=int)

    def vectors(items: list[str], label: str) -> np.ndarray:
        v = quality.cached_vectors(items, emb, args.cache, label)
        return v / np.linalg.norm(v, axis=1, keepdims=True).clip(1e-12)

    first = vectors(texts, ds.name)
    queries = vectors([q.text for q in ds.queries], f"{ds.name}-queries")
    extra = vectors(parts, f"{ds.name}-passages")
    s_first = queries @ first.T
    s_best = s_first.copy()
    np.maximum.at(s_best.T, owner, (queries @ extra.T).T)  # per document, the best of its vectors
    mean = first.copy()
    np.add.at(mean, owner, extra)
    mean /= np.linalg.norm(mean, axis=1, keepdims=True)
    rows = {"first vector": s_first, "best passage": s_best,
            f"first + {cfg.passage_gain:g} x gain": s_first + cfg.passage_gain * (s_best - s_first),
            "mean of passages": queries @ mean.T}

    ids = [x.id for x in ds.docs]
    longer = len(set(owner.tolist()))
    print(f"SciFact: {len(ids)} abstracts, {longer} ({longer / len(ids):.0%}) longer than the model reads, "
          f"{len(parts)} passages; {len(ds.queries)} queries; model {emb.name}")
    print(f"{'':20s} {'nDCG@10':>8s} {'R@10':>7s} {'R@100':>7s}")
    for name, sims in rows.items():
        top = np.argsort(-sims, axis=1)[:, :100]
        m = {k: np.mean([score(k, [ids[j] for j in top[qi]], q.relevant) for qi, q in enumerate(ds.queries)])
             for k in ("ndcg@10", "recall@10", "recall@100")}
        print(f"{name:20s} {m['ndcg@10']:8.4f} {m['recall@10']:7.4f} {m['recall@100']:7.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
