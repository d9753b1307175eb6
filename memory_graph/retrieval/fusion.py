"""Fusion of the legs' rankings: a convex combination of normalised scores, or reciprocal rank fusion.
Pure functions over ids and scores."""

from __future__ import annotations

from typing import Collection, Mapping, Sequence


def rrf(rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60) -> dict[str, float]:
    """Weighted reciprocal rank fusion, normalised to [0, 1].

    rrf(d) = sum over legs L of w_L / (k + rank_L(d)), ranks from 1 (Cormack, Clarke & Buettcher, SIGIR 2009),
    divided by the largest possible value sum_L w_L / (k + 1), so a document ranked first by every leg scores 1.
    Legs listed in ``rankings`` count toward the maximum even when they returned nothing.
    """
    total = sum(weights.get(leg, 0.0) for leg in rankings) / (k + 1)
    scores: dict[str, float] = {}
    if total <= 0:
        return scores
    for leg, ids in rankings.items():
        w = weights.get(leg, 0.0)
        if w <= 0:
            continue
        for rank, doc in enumerate(ids, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return {doc: s / total for doc, s in scores.items()}


def convex(legs: Mapping[str, tuple[Sequence[str], Sequence[float]]], weights: Mapping[str, float],
           complete: Collection[str] = (), scales: Mapping[str, float] | None = None) -> dict[str, float]:
    """Weighted convex combination of max-normalised scores, in [0, 1].

    fused(d) = sum over legs L of w_L x s_L(d) / max s_L, divided by sum_L w_L (Bruch, Gai & Ingber 2023,
    "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS: a convex combination of normalised scores
    beats RRF in and out of domain). A document a leg did not return gets that leg's lowest normalised score
    (it ranks below the leg's last result, never above it), or 0 if the leg is in ``complete``: it returned
    everything it matched (fewer than it was asked for). Negative scores count as 0; a leg that returned
    nothing adds 0 to every document but still counts toward the divisor. Unlike RRF, a leg whose scores are
    flat (every candidate about as good as its top, as MiniLM's cosines are on chat turns) barely reorders
    the others, and one leg's clear winner is not outvoted by documents two legs rank in the middle.
    A leg in ``scales`` is divided by the larger of its top score and that scale (BM25: what a document matching
    the whole query would score), so that a weak match stays weak where it is the leg's only one.
    """
    total = sum(weights.get(leg, 0.0) for leg in legs)
    if total <= 0:
        return {}
    norm: dict[str, tuple[dict[str, float], float]] = {}
    for leg, (ids, scores) in legs.items():
        if weights.get(leg, 0.0) <= 0 or not ids:
            continue
        clipped = [max(0.0, float(s)) for s in scores[:len(ids)]]
        top = max(max(clipped), (scales or {}).get(leg, 0.0))
        vals = {d: (s / top if top > 0 else 0.0) for d, s in zip(ids, clipped)}
        norm[leg] = (vals, 0.0 if leg in complete else min(vals.values()))
    docs = {d for vals, _ in norm.values() for d in vals}
    fused = dict.fromkeys(docs, 0.0)
    for leg, (vals, floor) in norm.items():  # leg by leg, each document's terms added in the legs' order
        w = weights[leg]
        low = w * floor
        for d, acc in fused.items():
            v = vals.get(d)
            fused[d] = acc + (low if v is None else w * v)
    return {d: acc / total for d, acc in fused.items()}
