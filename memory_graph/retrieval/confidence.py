"""How sure a search is that anything answers the query, from how well the best candidates match it: the
vector leg's top cosine and the share of the query's words the best BM25 match holds. Pure functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ..models import Hits

if TYPE_CHECKING:
    from ..config import Config


def match_signals(legs: Mapping, reference: float | None) -> dict[str, float]:
    """The top raw cosine of the vector leg, and the BM25 coverage: its top score over ``reference``, what a
    document holding every word of the query would score (TextIndex.reference_score), at most 1; for the legs
    that ran."""
    out: dict[str, float] = {}
    vec = legs.get("vector")
    if vec is not None and vec.scores:
        out["vector"] = float(vec.top if vec.top is not None else max(vec.scores))
    bm = legs.get("bm25")
    if bm is not None and bm.scores and reference:
        out["bm25"] = min(1.0, float(bm.scores[0]) / reference)
    return out


def _ramp(x: float, low: float, high: float) -> float:
    return min(1.0, max(0.0, (x - low) / (high - low)))


def confidence(signals: Mapping[str, float], cosine_low: float, cosine_high: float, coverage_low: float) -> float:
    """In [0, 1]: the stronger of two ramps, the top cosine from ``cosine_low`` (0) to ``cosine_high`` (1) and
    the BM25 coverage from ``coverage_low`` (0) to 1. A query either leg matches well is answered; one
    neither matches well ("What is the Kafka retention of the audit topic?" in a store that never says)
    scores low. Without any signal (a graph-only search) 1: nothing says that it is unanswered."""
    if not signals:
        return 1.0
    parts = []
    if "vector" in signals:
        parts.append(_ramp(signals["vector"], cosine_low, cosine_high))
    if "bm25" in signals:
        parts.append(_ramp(signals["bm25"], coverage_low, 1.0))
    return max(parts)


def with_confidence(hits: list, signals: dict[str, float], config: Config) -> Hits:
    """The hits with the search's confidence, and a note when it is below ``Config.confidence_min``."""
    c = config
    conf = confidence(signals, c.confidence_cosine_low, c.confidence_cosine_high, c.confidence_coverage_low)
    note = None
    if hits and conf < c.confidence_min:
        note = (f"nothing matches well (confidence {conf:.2f}): the results share words or topic with the "
                f"query but probably do not answer it")
    elif not hits:
        note = "nothing matches"
    return Hits(hits, confidence=round(conf, 3), signals=signals, note=note)
