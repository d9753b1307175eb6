"""Personalized PageRank on a small local subgraph, and the PPR dampening of fused scores."""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
from scipy import sparse

#: nodes up to which PPR's matrix is dense (8 MB at the most)
_DENSE_MAX = 1_000


def personalized_pagerank(edges: Iterable[tuple[str, str, float]], restart: Mapping[str, float],
                          alpha: float = 0.85, max_iter: int = 100, tol: float = 1e-10,
                          nodes: Iterable[str] = ()) -> dict[str, float]:
    """PPR by power iteration over an undirected weighted graph (Haveliwala, WWW 2002).

    p = alpha * P^T p + (1 - alpha) * r, where P is the row-normalised weight matrix and dangling nodes
    send their mass back along r, as networkx.pagerank does with a personalization vector.
    """
    edges = [(u, v, float(w)) for u, v, w in edges if w > 0]
    index: dict[str, int] = {}
    for n in [*nodes, *restart, *(x for u, v, _ in edges for x in (u, v))]:
        index.setdefault(n, len(index))
    n = len(index)
    if n == 0:
        return {}
    r = np.zeros(n)
    for node, mass in restart.items():
        r[index[node]] += max(0.0, float(mass))
    r = r / r.sum() if r.sum() > 0 else np.full(n, 1.0 / n)
    if not edges:
        return {node: float(r[i]) for node, i in index.items()}
    # undirected: each edge both ways, a self-loop once (as networkx counts it)
    back = [(v, u, w) for u, v, w in edges if u != v]
    both = edges + back
    rows = np.fromiter((index[u] for u, _, _ in both), dtype=np.intp, count=len(both))
    cols = np.fromiter((index[v] for _, v, _ in both), dtype=np.intp, count=len(both))
    vals = np.fromiter((w for *_, w in both), dtype=np.float64, count=len(both))
    if n <= _DENSE_MAX:
        # a search's subgraph (about 50 candidates and their shared entities): a dense matrix is built and
        # multiplied in microseconds, where building a sparse one alone took about a millisecond
        m = np.zeros((n, n))
        np.add.at(m, (rows, cols), vals)  # repeated pairs add up, as in the sparse constructor
        out_w = m.sum(axis=1)
        dangling = out_w == 0
        inv = np.divide(1.0, out_w, out=np.zeros(n), where=~dangling)
        pt = np.ascontiguousarray((m * inv[:, None]).T)
    else:
        m = sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))
        out_w = np.asarray(m.sum(axis=1)).ravel()
        dangling = out_w == 0
        inv = np.divide(1.0, out_w, out=np.zeros(n), where=~dangling)
        pt = (sparse.diags(inv) @ m).T.tocsr()
    p = r.copy()
    for _ in range(max_iter):
        nxt = alpha * (pt @ p + p[dangling].sum() * r) + (1 - alpha) * r
        if np.abs(nxt - p).sum() < n * tol:
            p = nxt
            break
        p = nxt
    return {node: float(p[i]) for node, i in index.items()}


def ppr_factors(candidates: Mapping[str, float], ppr: Mapping[str, float], beta: float,
                has_edges: bool) -> dict[str, float]:
    """s(d) = fused(d) * ((1 - beta) + beta * p(d) / max p); returns the factor per candidate.

    With no edges in the subgraph the graph says nothing: every factor is 1.
    """
    if not has_edges or not candidates:
        return {d: 1.0 for d in candidates}
    top = max((ppr.get(d, 0.0) for d in candidates), default=0.0)
    if top <= 0:
        return {d: 1.0 for d in candidates}
    return {d: (1 - beta) + beta * ppr.get(d, 0.0) / top for d in candidates}


def ppr_reach(edges: list[tuple[str, str, float]], candidates: Iterable[str], restart: Mapping[str, float],
              alpha: float, max_iter: int, tol: float) -> dict[str, float]:
    """How near each candidate lies to the query's entities: its PPR mass with the walk restarting at them.

    The restart holds the query's entities only, each with its weight, as HippoRAG seeds its walk (Gutierrez et
    al., NeurIPS 2024): candidates that name the same query entity in the same way get the same mass, so the graph never reorders
    them, and one that names two of the query's entities, or is joined to those that do, gets more. The
    design's restart (the fused scores plus the entities), read as p(d) / restart(d), did reorder them, and the
    wrong way: the walk shares an entity's mass evenly, so the lower a candidate's fused score, the larger
    its lift. LoCoMo's "What did Joanna just finish last Friday?" lost its answer (fused 0.892, factor 0.976)
    to a turn fused at 0.841 (factor 0.992) naming the same day (``python -m benchmarks.sweep --dataset locomo
    --queries 1345``; README, "How a search works").
    """
    cands = list(candidates)
    p = personalized_pagerank(edges, restart, alpha=alpha, max_iter=max_iter, tol=tol, nodes=[*cands, *restart])
    return {d: p.get(d, 0.0) for d in cands}
