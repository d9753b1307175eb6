"""Reciprocal rank fusion and per-query leg confidence. Pure functions over ids and scores."""

from __future__ import annotations

from typing import Mapping, Sequence


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


def leg_confidence(scores: Sequence[float], depth: int = 10) -> float:
    """How sure a leg is of its top result, in [0, 1]: the relative margin of the top score over the
    mean of the next ``depth - 1`` scores. A leg that returned nothing has confidence 0."""
    if not scores:
        return 0.0
    top = scores[0]
    rest = list(scores[1:depth])
    if not rest:
        return 1.0
    mean = sum(rest) / len(rest)
    if top <= 0:
        return 0.0
    return max(0.0, min(1.0, (top - mean) / abs(top)))


def adapt_weights(base: Mapping[str, float], confidence: Mapping[str, float], strength: float) -> dict[str, float]:
    """Scale each leg's weight by its confidence relative to the others' mean: w * (1 + s * (c - mean c)),
    floored at a tenth of the base weight so no leg is switched off entirely."""
    legs = [leg for leg in base if leg in confidence]
    if not legs or strength == 0:
        return dict(base)
    mean = sum(confidence[leg] for leg in legs) / len(legs)
    out = dict(base)
    for leg in legs:
        out[leg] = max(base[leg] * 0.1, base[leg] * (1 + strength * (confidence[leg] - mean)))
    return out
