"""Scoring a memory that has passage vectors: a pure function over ids and similarities."""

from __future__ import annotations

from typing import Mapping


def passage_scores(first: Mapping[str, float], passages: Mapping[str, float], gain: float) -> dict[str, float]:
    """Each memory's vector-leg score from its own vector's similarity and its best passage's.

    score(m) = s_first(m) + gain x max(0, s_passage(m) - s_first(m)). gain 1 scores a memory by its best vector
    ("MaxP"), gain 0 by its beginning alone ("FirstP"), in the terms of Dai & Callan, SIGIR 2019, "Deeper Text
    Understanding for IR with Contextual Neural Language Modeling". In between, a match deep in a long memory
    counts, but less than one in its beginning: the best of many vectors is high partly by chance, which
    favours long memories. A memory absent from ``passages`` keeps s_first; ``passages`` must not hold a
    memory absent from ``first``.
    """
    return {m: s + gain * max(0.0, passages[m] - s) if m in passages else s for m, s in first.items()}
