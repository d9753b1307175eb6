"""Late per-record factors: temporal decay (older records count for less, evergreen ones do not age) and
importance."""

from __future__ import annotations

import fnmatch
from typing import Iterable, Mapping

SECONDS_PER_DAY = 86_400.0


def decay_factor(age_days: float, half_life_days: float, weight: float = 1.0) -> float:
    """(1 - weight) + weight x 0.5 ^ (age / half_life): 1 for a record from now (or the future)."""
    return (1.0 - weight) + weight * 0.5 ** (max(0.0, age_days) / half_life_days)


def decay_factors(created: Mapping[str, float], now: float, half_life_days: float,
                  evergreen: Iterable[str] = (), weight: float = 1.0) -> dict[str, float]:
    """Decay factor per id from its creation time (epoch seconds); evergreen ids keep 1."""
    keep = set(evergreen)
    return {d: 1.0 if d in keep else decay_factor((now - ts) / SECONDS_PER_DAY, half_life_days, weight)
            for d, ts in created.items()}


def is_evergreen(memory_type: str, tags: Iterable[str], source: str, types: Iterable[str],
                 ever_tags: Iterable[str], source_patterns: Iterable[str]) -> bool:
    """Whether a record is exempt from decay by its type, a tag, or its source matching a pattern."""
    if memory_type in set(types) or set(tags) & set(ever_tags):
        return True
    return bool(source) and any(fnmatch.fnmatch(source, p) for p in source_patterns)


def importance_factor(importance: int, weight: float, neutral: int = 5, top: int = 10) -> float:
    """1 + weight x (importance - neutral) / (top - neutral): 1 at the default importance, 1 + weight at the top.

    Generative Agents (Park et al., 2023, section 4.1) add importance to a memory's retrieval score beside recency
    and relevance; here it multiplies the score, bounded as decay is, so it breaks near-ties without burying
    an answer that is only marked unimportant.
    """
    return 1.0 + weight * (importance - neutral) / (top - neutral)
