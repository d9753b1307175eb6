"""Maximal marginal relevance re-ranking, and the score floor before it."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np


def min_score_filter(scores: Mapping[str, float], relative: float, absolute: float) -> dict[str, float]:
    """Drop results below ``relative`` x the top score or below the ``absolute`` floor (both on [0, 1])."""
    if not scores:
        return {}
    floor = max(absolute, relative * max(scores.values()))
    return {d: s for d, s in scores.items() if s >= floor}


def mmr(ids: Sequence[str], scores: Sequence[float], similarity: np.ndarray, lam: float,
        limit: int, duplicate: float | None = None) -> list[str]:
    """Greedy MMR (Carbonell & Goldstein, SIGIR 1998): repeatedly pick the item maximising
    lam * s(d) - (1 - lam) * max similarity to the items already picked. Ties keep input order.

    duplicate: an item at least this similar to one already picked is a near-duplicate, taken only after
    every other item (MMR's penalty alone cannot demote it past a much less relevant item).
    """
    chosen: list[int] = []
    left = list(range(len(ids)))
    max_sim = np.full(len(ids), -np.inf)
    while left and len(chosen) < limit:
        def key(i: int) -> tuple[bool, float, int]:
            penalty = max_sim[i] if chosen else 0.0
            is_copy = duplicate is not None and bool(chosen) and max_sim[i] >= duplicate
            return (not is_copy, lam * scores[i] - (1 - lam) * penalty, -i)

        best = max(left, key=key)
        chosen.append(best)
        left.remove(best)
        max_sim = np.maximum(max_sim, similarity[best])
    return [ids[i] for i in chosen]


def similarity_matrix(vectors: Sequence[np.ndarray | None], word_sets: Sequence[set[str]]) -> np.ndarray:
    """Pairwise similarity: cosine of vectors where both items have one, else Jaccard of word sets."""
    n = len(vectors)
    sim = np.zeros((n, n))
    have = [i for i, v in enumerate(vectors) if v is not None]
    if have:
        mat = np.stack([np.asarray(vectors[i], dtype=np.float64) for i in have])
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        mat = mat / np.where(norms == 0, 1, norms)
        cos = mat @ mat.T
        for a, i in enumerate(have):
            sim[i, have] = cos[a]
    for i in range(n):
        for j in range(n):
            if vectors[i] is None or vectors[j] is None:
                a, b = word_sets[i], word_sets[j]
                sim[i, j] = len(a & b) / len(a | b) if (a or b) else 1.0
    return sim
