"""Retrieval metrics over ranked id lists (binary relevance)."""

from __future__ import annotations

import math


def recall_at(ranked: list[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def mrr_at(ranked: list[str], relevant: set[str], k: int | None = None) -> float:
    for i, d in enumerate(ranked[:k] if k else ranked, start=1):
        if d in relevant:
            return 1.0 / i
    return 0.0


def hit_at(ranked: list[str], relevant: set[str], k: int) -> float:
    """1 when any relevant document is in the first k (a question any one of several definitions answers)."""
    return float(bool(set(ranked[:k]) & relevant))


def ndcg_at(ranked: list[str], relevant: set[str], k: int) -> float:
    """nDCG@k with binary gains (Järvelin & Kekäläinen 2002)."""
    dcg = sum(1.0 / math.log2(i + 1) for i, d in enumerate(ranked[:k], start=1) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal if ideal else 0.0


def score(metric: str, ranked: list[str], relevant: set[str]) -> float:
    """One named metric: 'ndcg@10', 'recall@5', 'hit@1', 'mrr@10' or 'mrr' (no
    cut-off)."""
    name, _, k = metric.partition("@")
    cut = int(k) if k else None
    if name == "ndcg":
        return ndcg_at(ranked, relevant, cut or 10)
    if name == "recall":
        return recall_at(ranked, relevant, cut or 10)
    if name == "hit":
        return hit_at(ranked, relevant, cut or 10)
    if name == "mrr":
        return mrr_at(ranked, relevant, cut)
    raise ValueError(f"unknown metric {metric}")
