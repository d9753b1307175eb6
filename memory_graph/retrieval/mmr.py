"""Maximal marginal relevance re-ranking, and the filters before it (score floor, one hit per group)."""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence

import numpy as np


def min_score_filter(scores: Mapping[str, float], relative: float, absolute: float) -> dict[str, float]:
    """Drop results below ``relative`` x the top score or below the ``absolute`` floor (both on [0, 1])."""
    if not scores:
        return {}
    floor = max(absolute, relative * max(scores.values()))
    return {d: s for d, s in scores.items() if s >= floor}


def first_of_each_group(ordered: Sequence[str], groups: Mapping[str, Hashable | None],
                        prefer: Mapping[str, float] | None = None) -> list[str]:
    """Keep, in order, only the first id of each group; an id whose group is None stands alone.

    Windows of one long definition are one answer: its best window stands for it (as web search collapses
    results from one site, or Elasticsearch's field collapsing). prefer: within a group, the first of the ids
    with the highest value stands instead (the window holding the line a query names, whatever its score).
    """
    stands: dict[Hashable, str] = {}
    for d in ordered:
        g = groups.get(d)
        if g is not None and (g not in stands or (prefer and prefer.get(d, 0) > prefer.get(stands[g], 0))):
            stands[g] = d
    return [d for d in ordered if groups.get(d) is None or stands[groups[d]] == d]


def mmr(ids: Sequence[str], scores: Sequence[float], similarity: np.ndarray, lam: float,
        limit: int, duplicate: float | None = None, floor: float = 0.0) -> list[str]:
    """Greedy MMR (Carbonell & Goldstein, SIGIR 1998): repeatedly pick the item maximising
    lam * s(d) - (1 - lam) * r(d), r(d) = max similarity to the items already picked. Ties keep input order.

    floor: similarity that is not yet redundancy. r(d) becomes max(0, r(d) - floor) / (1 - floor), so items on
    the same topic (cosine below ``floor``) are not penalised and paraphrases are; 0 is Carbonell & Goldstein's.
    duplicate: an item at least this similar to one already picked is a near-duplicate, taken only after
    every other item (MMR's penalty alone cannot demote it past a much less relevant item).
    """
    if not 0.0 <= floor < 1.0:
        raise ValueError("floor must lie in [0, 1)")
    n = len(ids)
    sim = np.asarray(similarity, dtype=np.float64)[:n, :n]
    # no pair redundant (nor a near-duplicate): every penalty is 0, and the greedy picks in the given order
    top = (sim - 2.0 * np.eye(n)).max() if n else 0.0
    if n and top <= floor and (duplicate is None or top < duplicate) and _descending(scores):
        return list(ids[:limit])
    rel = lam * np.asarray(scores, dtype=np.float64)
    # each item's penalty once picked d is the same for every later step: the penalty of the largest similarity
    # is the largest penalty (the map is monotone), so a running maximum of penalty rows is r(d)'s penalty
    penalty = (1 - lam) * np.maximum(sim - floor, 0.0) / (1 - floor)
    doubles = sim >= duplicate if duplicate is not None else None
    most = np.zeros(n)
    taken = np.zeros(n, dtype=bool)
    copies = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    np.fill_diagonal(penalty, 0.0)  # (an item's own row: it is taken)
    if doubles is not None:
        np.fill_diagonal(doubles, False)
    # until an item picked penalises another, every value is its relevance: with the scores in order, the
    # greedy takes the next item
    plain = _descending(scores)
    while len(chosen) < min(limit, n):
        if plain:
            best = len(chosen)
        else:
            value = rel - most
            # near-duplicates only once nothing else is left; argmax keeps the first of equal values (input order)
            value[copies] -= 1e9
            value[taken] = -np.inf
            best = int(np.argmax(value))
        chosen.append(best)
        taken[best] = True
        if penalty[best].any() or (doubles is not None and doubles[best].any()):
            plain = False
            np.maximum(most, penalty[best], out=most)
            if doubles is not None:
                copies |= doubles[best]
    return [ids[i] for i in chosen]


def submatrix(sim: np.ndarray, at: Sequence[int]) -> np.ndarray:
    """The similarities among the items at rows ``at``, in that order (two takes: a third of ``np.ix_``'s time
    on a pool of 50)."""
    rows = np.asarray(at, dtype=np.intp)
    return sim.take(rows, axis=0).take(rows, axis=1)


def unit_rows(vectors: Sequence[np.ndarray]) -> np.ndarray:
    """Vectors as float64 rows of norm 1 (a zero vector stays zero); each row as it comes out of any batch."""
    mat = np.asarray(vectors, dtype=np.float64)  # one conversion, not one per vector
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return mat / np.where(norms == 0, 1, norms)


def similarity_matrix(vectors: Sequence[np.ndarray | None], word_sets: Sequence[set[str]],
                      units: Sequence[np.ndarray | None] | None = None) -> np.ndarray:
    """Pairwise similarity: cosine of vectors where both items have one, else Jaccard of word sets.

    units: the vectors as ``unit_rows`` gives them, when the caller keeps them (None where there is no vector).
    """
    n = len(vectors)
    have = [i for i, v in enumerate(vectors) if v is not None]
    if have:
        mat = np.asarray([units[i] for i in have]) if units is not None else unit_rows([vectors[i] for i in have])
        cos = mat @ mat.T
        if len(have) == n:
            return cos
    sim = np.zeros((n, n))
    for a, i in enumerate(have):
        sim[i, have] = cos[a]
    for i in range(n):
        for j in range(n):
            if vectors[i] is None or vectors[j] is None:
                a, b = word_sets[i], word_sets[j]
                sim[i, j] = len(a & b) / len(a | b) if (a or b) else 1.0
    return sim


def _descending(scores: Sequence[float]) -> bool:
    """Whether scores never rise along the sequence (the greedy's argmax then takes them in order)."""
    return all(a >= b for a, b in zip(scores, scores[1:]))
