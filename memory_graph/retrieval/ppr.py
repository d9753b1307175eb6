"""Personalized PageRank on a small local subgraph, and the PPR dampening of fused scores."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np


def pagerank(weights: np.ndarray, restart: np.ndarray, alpha: float = 0.85, max_iter: int = 100,
             tol: float = 1e-10, direct_max_nodes: int = 100) -> np.ndarray:
    """PPR over a symmetric weight matrix (Haveliwala, WWW 2002); ``restart`` is a distribution over its nodes.

    p = alpha * P^T p + (1 - alpha) * r, where P is the row-normalised weight matrix and dangling nodes
    send their mass back along r, as networkx.pagerank does with a personalization vector. Since p sums to 1,
    that is the linear system (I - alpha (P^T + r d^T)) p = (1 - alpha) r (d: the dangling nodes), which is
    solved directly up to ``direct_max_nodes`` nodes (``Config.ppr_direct_max_nodes``; a search's subgraph is
    its pool of candidates and the query's entities): the exact fixed point, where power iteration at alpha
    0.85 needs about 110 steps to reach a tolerance of 1e-8 per node. Larger graphs iterate (``max_iter``,
    ``tol``).
    """
    n = len(restart)
    out_w = weights.sum(axis=1)
    dangling = out_w == 0
    inv = np.divide(1.0, out_w, out=np.zeros(n), where=~dangling)
    pt = (weights * inv[:, None]).T
    if n <= direct_max_nodes:
        m = -alpha * pt
        if dangling.any():
            m[:, dangling] -= alpha * restart[:, None]
        m.flat[::n + 1] += 1.0  # the diagonal
        return np.linalg.solve(m, (1 - alpha) * restart)
    pt = np.ascontiguousarray(pt)
    p = restart.copy()
    for _ in range(max_iter):
        nxt = alpha * (pt @ p + p[dangling].sum() * restart) + (1 - alpha) * restart
        if np.abs(nxt - p).sum() < n * tol:
            return nxt
        p = nxt
    return p


def restart_vector(nodes: Sequence[str], restart: Mapping[str, float],
                   at: Mapping[str, int] | None = None) -> np.ndarray:
    """The restart distribution over ``nodes``: the given masses normalised, or uniform if none is positive
    (``at``: each node's index, when the caller has it)."""
    at = {x: i for i, x in enumerate(nodes)} if at is None else at
    r = np.zeros(len(nodes))
    for node, mass in restart.items():
        if node in at:
            r[at[node]] += max(0.0, float(mass))
    return r / r.sum() if r.sum() > 0 else np.full(len(nodes), 1.0 / max(1, len(nodes)))


def personalized_pagerank(edges: Iterable[tuple[str, str, float]], restart: Mapping[str, float],
                          alpha: float = 0.85, max_iter: int = 100, tol: float = 1e-10,
                          nodes: Iterable[str] = ()) -> dict[str, float]:
    """``pagerank`` over an undirected weighted edge list: each edge counts both ways, a self-loop once (as
    networkx counts it), repeated pairs add up."""
    edges = [(u, v, float(w)) for u, v, w in edges if w > 0]
    index: dict[str, int] = {}
    for x in [*nodes, *restart, *(x for u, v, _ in edges for x in (u, v))]:
        index.setdefault(x, len(index))
    if not index:
        return {}
    w = np.zeros((len(index), len(index)))
    for u, v, weight in edges:
        w[index[u], index[v]] += weight
        if u != v:
            w[index[v], index[u]] += weight
    p = pagerank(w, restart_vector(list(index), restart), alpha, max_iter, tol)
    return {x: float(p[i]) for x, i in index.items()}


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


def ppr_reach(nodes: Sequence[str], weights: np.ndarray, candidates: Iterable[str], restart: Mapping[str, float],
              alpha: float, max_iter: int, tol: float, direct_max_nodes: int = 100) -> dict[str, float]:
    """How near each candidate lies to the query's entities: its PPR mass over the subgraph ``nodes`` and
    ``weights`` (``Graph.local_matrix``), with the walk restarting at the entities.

    The restart holds the query's entities only, each with its weight, as HippoRAG seeds its walk (Gutierrez et
    al., NeurIPS 2024): candidates that name the same query entity in the same way get the same mass, so the graph never reorders
    them, and one that names two of the query's entities, or is joined to those that do, gets more. The
    design's restart (the fused scores plus the entities), read as p(d) / restart(d), did reorder them, and the
    wrong way: the walk shares an entity's mass evenly, so the lower a candidate's fused score, the larger
    its lift. LoCoMo's "What did Joanna just finish last Friday?" lost its answer (fused 0.892, factor 0.976)
    to a turn fused at 0.841 (factor 0.992) naming the same day (``python -m benchmarks.sweep --dataset locomo
    --queries 1345``; README, "How a search works").
    """
    at = {x: i for i, x in enumerate(nodes)}
    p = pagerank(weights, restart_vector(nodes, restart, at), alpha, max_iter, tol, direct_max_nodes).tolist()
    return {d: p[at[d]] if d in at else 0.0 for d in candidates}
