"""python -m benchmarks.probes.cosqa_probe: why memory-graph only ties exact dense search on CoSQA.

Dense MRR of the packaged model over CoSQA's functions embedded in several ways, with query-side variants and
BM25 fused in at several weights. Everything is exact search over the same vectors, without the engine, so
each row isolates one idea. Took 3 minutes here (2 cores) the first time; the vectors are cached (--cache).

Rows:
  code                     the function's source (what the engine embeds for a one-chunk function)
  path + code              the file path on a line before the source (the engine's old layout)
  name + docstring         the split function name and the docstring's first paragraph only
  max(code, name+doc)      the better of the two vectors per function
  code, query + PRF        Rocchio pseudo-relevance feedback: query + 0.5 x mean of the top 3 vectors
  code, query - "python"   the query without the word "python" (every CoSQA query has it)
  code + w x BM25          convex fusion with bm25s over the code and its identifiers' parts (max-normalised)
  code, localized centering  the engine's code vector leg: the nearest 100 by cosine re-ranked by
                           cos - weight x (density - their mean), density = mean cosine to the 5 nearest functions
                           (Config.code_density_k, code_density_weight; memory_graph/retrieval/density.py)

The last table repeats the code and centering rows on other queries: cosqa-dev.json's positive query-code
pairs whose query is not one of the split's (the pairs were not used to choose the defaults).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

from memory_graph import Config
from memory_graph.retrieval.density import localized_centering, nearest_neighbours
from memory_graph.text import identifier_terms, split_identifier

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def name_and_docstring(code: str) -> str:
    """The split function name and the first paragraph of its docstring."""
    m = re.match(r"\s*(?:async\s+)?def\s+(\w+)", code)
    name = " ".join(split_identifier(m.group(1))) if m else ""
    try:
        node = ast.parse(code).body[0]
        doc = ast.get_docstring(node) or "" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
    except (SyntaxError, IndexError):
        found = re.search(r'"""(.*?)"""', code, re.S)
        doc = found.group(1) if found else ""
    doc = doc.strip().split("\n\n")[0]
    return f"{name}: {doc}" if doc else name


def mrr_at(sims: np.ndarray, gold: np.ndarray, depth: int = 100) -> dict:
    """MRR@depth and Recall@1/5/10 of one score matrix (queries x functions)."""
    ranks = (sims > sims[np.arange(len(gold)), gold][:, None]).sum(axis=1) + 1
    return {"mrr": float(np.where(ranks <= depth, 1.0 / ranks, 0.0).mean()),
            **{f"recall@{k}": float((ranks <= k).mean()) for k in (1, 5, 10)}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.cosqa_probe", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data",
                   help="folder holding cosqa/ (default: ../shared/data)")
    p.add_argument("--cosqa-queries", type=Path,
                   help="retrieval split (default: DATA/cosqa/cosqa-retrieval-dev-500.json)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    p.add_argument("--cosqa-pairs", type=Path,
                   help="labelled query-code pairs for the last table (default: DATA/cosqa/cosqa-dev.json)")
    p.add_argument("--model", default="", help="sentence-transformers model path or name (default: packaged)")
    args = p.parse_args(argv)

    import bm25s


    from .. import data, quality
    from ..systems import engine_embedder

    ds = data.load_cosqa(args.data / "cosqa/code_idx_map.txt",
                         args.cosqa_queries or args.data / "cosqa/cosqa-retrieval-dev-500.json")
    emb = engine_embedder(args.model, cache_size=200_000, query_cache_size=4_096)
    codes = [d.text for d in ds.docs]
    index = {d.id: i for i, d in enumerate(ds.docs)}
    gold = np.array([index[next(iter(q.relevant))] for q in ds.queries])

    def vectors(texts: list[str], label: str) -> np.ndarray:
        v = quality.cached_vectors(texts, emb, args.cache, f"cosqa-probe-{label}")
        return v / np.linalg.norm(v, axis=1, keepdims=True).clip(1e-12)

    q = vectors([x.text for x in ds.queries], "queries")
    code = vectors(codes, "code")
    pathed = vectors([f"f{d.id}.py\n{d.text}" for d in ds.docs], "path")
    summary = vectors([name_and_docstring(c) for c in codes], "summary")
    s_code = q @ code.T
    rows = {"code": s_code, "path + code": q @ pathed.T, "name + docstring": q @ summary.T,
            "max(code, name+doc)": np.maximum(s_code, q @ summary.T)}
    top = np.argsort(-s_code, axis=1)[:, :3]
    prf = q + 0.5 * code[top].mean(axis=1)
    rows["code, query + PRF"] = (prf / np.linalg.norm(prf, axis=1, keepdims=True)) @ code.T
    bare = [re.sub(r"\bpython\s*[23]?\b", " ", x.text, flags=re.I).strip() or x.text for x in ds.queries]
    rows['code, query - "python"'] = vectors(bare, "queries-bare") @ code.T

    retriever = bm25s.BM25()
    # the code plus its identifiers' parts, as the engine's BM25 identifier field has them
    split = [f"{c}\n{identifier_terms(c)}" for c in codes]
    retriever.index(bm25s.tokenize(split, stopwords="en", show_progress=False), show_progress=False)
    bm = np.zeros_like(s_code)
    for i, query in enumerate(ds.queries):
        toks = bm25s.tokenize([query.text], stopwords="en", show_progress=False)
        if toks.vocab:
            ids, scores = retriever.retrieve(toks, k=100, show_progress=False)
            bm[i, ids[0]] = scores[0]
    dense_n = s_code / s_code.max(axis=1, keepdims=True)
    bm_n = bm / np.maximum(bm.max(axis=1, keepdims=True), 1e-12)
    rows["BM25 alone"] = bm + 1e-9 * s_code  # ties broken by the dense score
    for w in (0.05, 0.1, 0.3, 1.0):
        rows[f"code + {w} x BM25"] = (dense_n + w * bm_n) / (1 + w)

    cfg = Config()
    _, dens = nearest_neighbours(code, range(len(code)), cfg.code_density_k)
    densities = {str(i): float(d) for i, d in enumerate(dens.mean(axis=1))}

    def centred(sims: np.ndarray, weight: float, c: int = 100) -> np.ndarray:
        out = np.full_like(sims, -np.inf)
        for row, s in enumerate(sims):
            top = np.argsort(-s)[:c]
            ids, scores = localized_centering([str(i) for i in top], s[top].tolist(), densities, weight)
            out[row, [int(i) for i in ids]] = scores
        return out

    for w in (0.1, cfg.code_density_weight, 0.5):
        rows[f"code, localized centering {w}"] = centred(s_code, w)

    print(f"CoSQA: {len(ds.docs)} functions, {len(ds.queries)} queries, model {emb.name or 'packaged'}")
    print(f"{'':32s} {'MRR':>7s} {'R@1':>7s} {'R@5':>7s} {'R@10':>7s}")
    for name, sims in rows.items():
        m = mrr_at(sims, gold)
        print(f"{name:32s} {m['mrr']:7.4f} {m['recall@1']:7.4f} {m['recall@5']:7.4f} {m['recall@10']:7.4f}")
    print_paired("localized centering", centred(s_code, cfg.code_density_weight), s_code, gold)

    pairs = json.load(open(args.cosqa_pairs or args.data / "cosqa/cosqa-dev.json"))
    seen, position = {x.text for x in ds.queries}, {d.text: i for i, d in enumerate(ds.docs)}
    other = [x for x in pairs if x["label"] == 1 and x["doc"] not in seen and x["code"] in position]
    q2 = vectors([x["doc"] for x in other], "pair-queries")
    gold2 = np.array([position[x["code"]] for x in other])
    s2 = q2 @ code.T
    print(f"\n{len(other)} other queries (positive pairs of {(args.cosqa_pairs or Path('cosqa-dev.json')).name})")
    for name, sims in {"code": s2, **{f"code, localized centering {w}": centred(s2, w)
                                      for w in (0.1, cfg.code_density_weight, 0.5)}}.items():
        m = mrr_at(sims, gold2)
        print(f"{name:32s} {m['mrr']:7.4f} {m['recall@1']:7.4f} {m['recall@5']:7.4f} {m['recall@10']:7.4f}")
    print_paired("localized centering", centred(s2, cfg.code_density_weight), s2, gold2)
    return 0


def print_paired(name: str, sims: np.ndarray, base: np.ndarray, gold: np.ndarray) -> None:
    """The mean difference in reciprocal rank against ``base``, with its 95% paired bootstrap interval."""
    from ..quality import paired_difference

    def rr(s: np.ndarray) -> list[float]:
        ranks = (s > s[np.arange(len(gold)), gold][:, None]).sum(axis=1) + 1
        return np.where(ranks <= 100, 1.0 / ranks, 0.0).tolist()

    d = paired_difference(rr(sims), rr(base))
    print(f"{name} - code: MRR {d['mean']:+.4f}, 95% interval [{d['low']:+.4f}, {d['high']:+.4f}]")


if __name__ == "__main__":
    sys.exit(main())
