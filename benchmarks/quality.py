"""Retrieval quality: every system on every data set, overall and per query category."""

from __future__ import annotations

import hashlib
import logging
import statistics
import time
from pathlib import Path

import numpy as np

from .data import Dataset
from .metrics import score
from .systems import (MG_VARIANTS, BM25sDense, LanceHybrid, MemoryGraphSystem, TxtaiHybrid, build_code_engine,
                      doc_vectors_from_code_engine, txtai_available)

log = logging.getLogger("benchmarks")
DEPTH = 100  # documents retrieved per query (Recall@100 needs them)


def cached_vectors(texts: list[str], embedder, cache_dir: Path, label: str) -> np.ndarray:
    """Embed texts once per model and text set; later runs read the .npy from the cache folder."""
    key = hashlib.sha256(("\x00".join(texts) + embedder.name).encode()).hexdigest()[:16]
    path = cache_dir / f"{label}-{key}.npy"
    if path.exists():
        return np.load(path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    vecs = np.asarray(embedder.encode(texts), dtype=np.float32)
    log.info("embedded %d %s texts in %.1fs", len(texts), label, time.perf_counter() - t)
    np.save(path, vecs)
    return vecs


def depth(ds: Dataset) -> int:
    """Documents to retrieve per query: the deepest cut-off among the data set's metrics (100 for MRR)."""
    return max(int(m.partition("@")[2] or DEPTH) for m in ds.metrics)


def evaluate(ds: Dataset, rankers: dict, k: int | None = None) -> dict:
    """Metrics per system: overall mean, per category, and per query (for loss analysis)."""
    k = k or depth(ds)
    out = {}
    for name, rank in rankers.items():
        t = time.perf_counter()
        per_query = []
        for qi, q in enumerate(ds.queries):
            ranked = rank(qi, k)
            per_query.append({m: score(m, ranked, q.relevant) for m in ds.metrics})
        secs = time.perf_counter() - t
        overall = {m: statistics.fmean(p[m] for p in per_query) for m in ds.metrics}
        cats: dict[str, dict] = {}
        for q, p in zip(ds.queries, per_query):
            cats.setdefault(q.category, []).append(p)
        by_cat = {c: {m: statistics.fmean(p[m] for p in ps) for m in ds.metrics} | {"n": len(ps)}
                  for c, ps in sorted(cats.items())} if len(cats) > 1 else {}
        out[name] = {"overall": overall, "by_category": by_cat, "ms_per_query": 1000 * secs / len(ds.queries),
                     "per_query": {m: [round(p[m], 4) for p in per_query] for m in ds.metrics}}
        log.info("%-22s %s", name, "  ".join(f"{m} {v:.4f}" for m, v in overall.items()))
    return out


def paired_difference(a: list[float], b: list[float], resamples: int = 2_000, seed: int = 0) -> dict:
    """Mean of a - b over the same queries, with a 95% paired bootstrap interval (Efron & Tibshirani 1993):
    if the interval holds 0, the two systems are not told apart by this many queries."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if diff.size == 0:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(resamples, diff.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": round(float(diff.mean()), 4), "low": round(float(low), 4), "high": round(float(high), 4)}


def compare_to_full(ds: Dataset, systems: dict, full: str = "memory-graph") -> None:
    """Add to every system its difference from the full pipeline on the data set's main metric."""
    if full not in systems:
        return
    ref = systems[full]["per_query"][ds.main_metric]
    cats = [q.category for q in ds.queries]
    for s in systems.values():
        s["vs_full"] = paired_difference(ref, s["per_query"][ds.main_metric])
        if len(set(cats)) > 1:  # the same per category: where a component must help (devnotes' multi-hop)
            s["vs_full_by_category"] = {
                c: paired_difference([r for r, k in zip(ref, cats) if k == c],
                                     [v for v, k in zip(s["per_query"][ds.main_metric], cats) if k == c])
                for c in sorted(set(cats))}


def pool(parts: dict[str, dict], metric: str) -> dict:
    """Several data sets' results as one (the repositories' questions together): each system's per-query
    figures on ``metric`` concatenated, so its interval against the full pipeline is over every question."""
    systems = [n for n in next(iter(parts.values()))["systems"] if all(n in p["systems"] for p in parts.values())]
    out: dict = {"docs": sum(p["docs"] for p in parts.values()), "queries": sum(p["queries"] for p in parts.values()),
                 "notes": [f"the questions of {', '.join(parts)} together"], "main_metric": metric, "systems": {}}
    for n in systems:
        per = [v for p in parts.values() for v in p["systems"][n]["per_query"][metric]]
        ms = sum(p["systems"][n]["ms_per_query"] * p["queries"] for p in parts.values()) / out["queries"]
        out["systems"][n] = {"overall": {metric: statistics.fmean(per)}, "by_category": {}, "ms_per_query": ms,
                             "per_query": {metric: per}}
    ref = out["systems"].get("memory-graph", {}).get("per_query", {}).get(metric)
    for s in out["systems"].values():
        if ref is not None:
            s["vs_full"] = paired_difference(ref, s["per_query"][metric])
    shares = [p["nothing_matches"] for p in parts.values() if "nothing_matches" in p]
    if shares:
        un, an = sum(x["unanswered_n"] for x in shares), sum(x["answered_n"] for x in shares)
        out["nothing_matches"] = {
            "unanswered": round(sum(x["unanswered"] * x["unanswered_n"] for x in shares) / un, 3),
            "answered": round(sum(x["answered"] * x["answered_n"] for x in shares) / an, 3),
            "unanswered_n": un, "answered_n": an}
    return out


def run_dataset(ds: Dataset, embedder, workdir: Path, cache_dir: Path) -> dict:
    """Build every system over one data set (shared embeddings) and evaluate them."""
    t0 = time.perf_counter()
    info: dict = {"docs": len(ds.docs), "queries": len(ds.queries), "notes": ds.notes}
    code_engine = None
    if ds.kind == "code":
        eng, chunk_doc, report = build_code_engine(ds, embedder, workdir)
        code_engine = (eng, chunk_doc)
        vectors = doc_vectors_from_code_engine(eng, ds)
        info.update(docs=len(ds.docs), queries=len(ds.queries))  # a repository's: its chunks, answered questions
        info["index_report"] = {k: v for k, v in report.to_dict().items() if k != "errors"}
    else:
        vectors = cached_vectors([d.full_text for d in ds.docs], embedder,
                                 cache_dir, ds.name)
    qvecs = cached_vectors([q.text for q in ds.queries], embedder, cache_dir, f"{ds.name}-queries")
    mg = MemoryGraphSystem(ds, vectors, embedder, workdir, code_engine)
    lance = LanceHybrid(ds, vectors, workdir)
    plain = BM25sDense(ds, vectors)
    txtai = TxtaiHybrid(ds, vectors, qvecs, embedder) if txtai_available() else None
    if txtai is None:
        info["notes"] = [*info["notes"], "txtai is not installed (pip install -e '.[bench]'): no txtai row"]
    info["build_seconds"] = round(time.perf_counter() - t0, 1)
    rankers = {name: mg.ranker(name) for name in MG_VARIANTS}
    rankers["lancedb hybrid (RRF)"] = lance.ranker(qvecs)
    if txtai is not None:
        rankers["txtai hybrid"] = txtai.ranker()
    rankers.update(plain.rankers(qvecs))
    try:
        info["systems"] = evaluate(ds, rankers)
        info["main_metric"] = ds.main_metric
        compare_to_full(ds, info["systems"])
        if ds.unanswerable:
            # the share of questions for which the full pipeline says that nothing matches well: of those
            # nothing answers (higher is better) and of the answered ones (lower is better)
            info["nothing_matches"] = {
                "unanswered": round(statistics.fmean(mg.says_nothing_matches(q) for q in ds.unanswerable), 3),
                "answered": round(statistics.fmean(mg.says_nothing_matches(q) for q in ds.queries), 3),
                "unanswered_n": len(ds.unanswerable), "answered_n": len(ds.queries)}
    finally:
        mg.close()
        lance.close()
    info["seconds"] = round(time.perf_counter() - t0, 1)
    return info
