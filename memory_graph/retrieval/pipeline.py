"""Composes the stages: fuse the legs, damp with PPR, decay (and priors), floor, diversify, and explain every step."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Mapping

import numpy as np

from ..config import Config, LegWeights
from ..models import Explanation, Hit
from .decay import decay_factors
from .fusion import convex, rrf
from .updates import latest_first, update_pairs
from .when import period_factors
from .mmr import first_of_each_group, min_score_filter, mmr, similarity_matrix, submatrix, unit_rows
from .ppr import ppr_factors, ppr_reach


@dataclass
class LegResult:
    """One leg's answer: ids in rank order with that leg's raw scores."""

    ids: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    paths: dict[str, list[str]] = field(default_factory=dict)
    #: multiplies the leg's fusion weight for this query (the graph leg's specificity)
    weight_scale: float = 1.0
    #: whether the leg returned everything it matched, so what it did not return scores 0 with it; None: when it
    #: returned fewer than it was asked for
    complete: bool | None = None
    #: the score of a full match to the query, if the leg knows it (BM25): convex fusion divides by the larger
    #: of it and the top score
    scale: float | None = None
    #: the leg's best score before any rescaling (the code vector leg's raw cosine, which its centering moves),
    #: for the search's confidence; None: its first score
    top: float | None = None


@dataclass
class Candidate:
    """What the late stages need to know about a fused candidate (read from the store by the caller)."""

    created_at: float
    evergreen: bool
    vector: np.ndarray | None
    words: set[str]
    title: str = ""
    summary: dict = field(default_factory=dict)
    #: candidates of one group are one answer (the windows of one code definition): the best one stays
    group: Hashable | None = None
    #: what the caller knows of the candidate before the query, as a factor on its score (a memory's importance;
    #: code: a test file's chunk ranks below the code it tests)
    prior: float = 1.0
    #: the vector as a float64 row of norm 1 (``mmr.unit_rows``), made by the first search that compares the
    #: candidate with others and kept with it, as the caller keeps candidates between searches
    unit: np.ndarray | None = field(default=None, repr=False, compare=False)


def rank(legs: Mapping[str, LegResult], *, config: Config, weights: LegWeights, limit: int, now: float,
         query_entities: Iterable[str] | Mapping[str, float] = (),
         local_graph: Callable[[list[str], list[str]], tuple[list[str], np.ndarray]] | None = None,
         describe: Callable[[list[str]], dict[str, Candidate]],
         changes: Callable[[list[str]], dict[str, bool]] | None = None,
         subjects: Callable[[list[str]], Mapping[str, frozenset]] | None = None,
         min_score: float | None = None, period: tuple[float, float] | None = None, use_ppr: bool = True,
         use_decay: bool = True, use_mmr: bool = True, kind: str = "memory",
         timings: dict[str, float] | None = None) -> list[Hit]:
    """Run the pipeline's stages over the legs' rankings and return at most ``limit`` explained hits.

    ``query_entities`` are where PPR's walk restarts, evenly or by the weights of a mapping (a looser match of
    the query's names restarts less of it). ``local_graph`` returns PPR's subgraph around the candidates and the
    query's entities (its nodes and their weight matrix, ``Graph.local_matrix``); ``describe`` returns a Candidate per id still in the store (ids it omits are dropped: a
    derived index may lag behind). ``changes`` says of memories whether their text says that something
    changed (``updates.says_change``; asked only of the newer memory of a possible update); ``subjects`` gives
    the specific entities memories name, what they may be about (asked only of those in a pair close enough to
    be an update; without it, no memory is ranked as another's update).
    ``period`` is a past [start, end) the query asks about (``when.asked_period``): memories written in it
    are favoured, and no newer memory takes an older one's place (the query asks for the past).
    ``timings``, if given, receives the seconds each stage took (fusion, describe, ppr_edges, ppr, decay,
    updates, mmr).
    """
    clock = _Clock(timings)
    w = {leg: getattr(weights, leg) * res.weight_scale for leg, res in legs.items()}
    if len(legs) == 1:  # one leg asked for by name (mode="bm25"): its own order, whatever its hybrid weight
        w = {leg: 1.0 for leg in legs}
    if config.fusion == "rrf":
        fused = rrf({leg: res.ids for leg, res in legs.items()}, w, config.rrf_k)
    else:
        # a leg that returned fewer than the C it was asked for has nothing more to say about the rest
        complete = {leg for leg, res in legs.items()
                    if (len(res.ids) < config.candidates(limit) if res.complete is None else res.complete)}
        fused = convex({leg: (res.ids, res.scores) for leg, res in legs.items()}, w, complete,
                       {leg: res.scale for leg, res in legs.items() if res.scale})
    if not fused:
        return []
    ranked = _best_first(fused)
    step = config.rerank_pool(limit)
    pool = ranked[:step]
    clock.lap("fusion")
    info = describe(pool)
    # candidates of one group count once: read deeper until the pool holds `limit` answers, or none is left
    while config.collapse_groups and len(pool) < len(ranked) and _answers(pool, info) < limit:
        more = ranked[len(pool):len(pool) + step]
        info.update(describe(more))
        pool += more
    clock.lap("describe")
    pool = [d for d in pool if d in info]
    if not pool:
        return []

    factors_ppr = {d: 1.0 for d in pool}
    restart = (dict(query_entities) if isinstance(query_entities, Mapping)
               else {e: 1.0 for e in query_entities})
    q_ents = list(restart)
    # the walk starts from the query's entities: without any there is nothing to start from (a walk from the
    # fused scores alone rewarded candidates well connected to each other, noise on SciFact and LoCoMo)
    beta = config.ppr_beta
    if config.ppr_by_specificity and "graph" in legs:
        # the graph leg's specificity: entities that hundreds of records name make PageRank as noisy as the leg
        beta *= min(1.0, legs["graph"].weight_scale)
    if use_ppr and beta > 0 and local_graph is not None and q_ents:
        nodes, weights = local_graph(pool, q_ents)
        clock.lap("ppr_edges")
        if np.count_nonzero(weights) > np.count_nonzero(np.diagonal(weights)):  # a link beside the self-loops
            reach = ppr_reach(nodes, weights, pool, restart, config.ppr_alpha, config.ppr_max_iter, config.ppr_tol,
                              config.ppr_direct_max_nodes)
            factors_ppr = ppr_factors({d: fused[d] for d in pool}, reach, beta, has_edges=True)
    clock.lap("ppr")

    if use_decay and kind == "memory":
        factors_decay = decay_factors({d: info[d].created_at for d in pool}, now, config.half_life_days,
                                      evergreen=[d for d in pool if info[d].evergreen], weight=config.decay_weight)
    else:
        factors_decay = {d: 1.0 for d in pool}
    clock.lap("decay")

    if period is not None and kind == "memory":
        factors_decay = {d: f * t for (d, f), t in zip(factors_decay.items(), period_factors(
            {d: info[d].created_at for d in factors_decay}, period, config.period_boost).values())}
    scores = {d: fused[d] * factors_ppr[d] * factors_decay[d] * info[d].prior for d in pool}
    replaced: dict[str, str] = {}
    # code: copies of a function in two places are two answers, so only the lambda applies; at lambda 1 with no
    # near-duplicate rule MMR keeps the order it is given, and needs no similarities
    lam, dup = ((config.mmr_lambda_code, None) if kind == "code"
                else (config.mmr_lambda, config.mmr_duplicate_similarity))
    diversify = use_mmr and (lam < 1 or dup is not None)
    updates = kind == "memory" and config.update_marked_cosine <= 1.0 and period is None and subjects is not None
    # the pool's similarities, computed once for the update pairs and MMR
    sim = (similarity_matrix([info[d].vector for d in pool], [info[d].words for d in pool],
                             _units([info[d] for d in pool]))
           if (updates or diversify) and len(pool) > 1 else None)
    row = {d: i for i, d in enumerate(pool)}
    if updates:
        pairs = update_pairs({d: info[d] for d in pool}, config.update_marked_cosine, subjects,
                             None if sim is None else (row, sim))
        unsure = sorted({new for _, new, cos in pairs if cos < config.update_min_cosine})
        changed = changes(unsure) if unsure and changes else {}
        scores, replaced = latest_first(scores, pairs, config.update_min_cosine, changed, config.update_min_ratio)
    clock.lap("updates")
    floor_abs = config.min_score_absolute if min_score is None else min_score
    scores = min_score_filter(scores, config.min_score_relative, floor_abs)
    ordered = _best_first(scores)
    if config.collapse_groups:
        ordered = first_of_each_group(ordered, {d: info[d].group for d in ordered},
                                      {d: info[d].prior for d in ordered})
    pre_rank = {d: i + 1 for i, d in enumerate(ordered)}
    if diversify and len(ordered) > 1:
        at = [row[d] for d in ordered]
        final = mmr(ordered, [scores[d] for d in ordered], submatrix(sim, at), lam, limit, dup,
                    config.mmr_redundancy_floor)
    else:
        final = ordered[:limit]
    clock.lap("mmr")

    hits = []
    for i, d in enumerate(final, start=1):
        ranks = {leg: (res.ids.index(d) + 1 if d in res.ids else None) for leg, res in legs.items()}
        leg_scores = {leg: res.scores[ranks[leg] - 1] for leg, res in legs.items() if ranks[leg]}
        path = next((res.paths[d] for res in legs.values() if d in res.paths), [])
        exp = Explanation(ranks=ranks, leg_scores=leg_scores, weights={k: round(v, 4) for k, v in w.items()},
                          fusion=config.fusion, fused=fused[d], ppr_factor=factors_ppr[d],
                          decay_factor=factors_decay[d], prior_factor=info[d].prior,
                          pre_mmr_rank=pre_rank[d], final_rank=i, mmr_moved=pre_rank[d] - i, graph_path=path)
        record = dict(info[d].summary)
        if d in replaced:
            record["updated_by"] = replaced[d]
        hits.append(Hit(id=d, score=scores[d], explanation=exp, title=info[d].title, kind=kind, record=record))
    return hits


def rank_stable(legs: Mapping[str, LegResult], *, config: Config, limit: int, **kw) -> list[Hit]:
    """``rank``, with the first ``Config.stable_results`` hits the same whatever ``limit`` is asked.

    The legs return C = max(candidates_min, candidates_factor x limit) ids, and a larger C changes what
    fusion's floors, PPR and MMR see: a page of 100 ranked its first 10 differently than a page of 10
    (LoCoMo nDCG@10 0.017 lower). Past ``stable_results``, the first ones are ranked as a page of that
    size would be, from each leg's first C of it (a prefix of what the legs returned), and the rest follow
    in the larger page's order.
    """
    base = config.stable_results
    if limit <= base or base <= 0:
        return rank(legs, config=config, limit=limit, **kw)
    c0 = config.candidates(base)
    head_legs = {name: _prefix(res, c0) for name, res in legs.items()}
    head = rank(head_legs, config=config, limit=base, **kw)
    taken = {h.id for h in head}
    tail = [h for h in rank(legs, config=config, limit=limit, **kw) if h.id not in taken]
    hits = (head + tail)[:limit]
    for i, h in enumerate(hits, start=1):
        h.explanation.final_rank = i
    return hits


def _prefix(res: LegResult, n: int) -> LegResult:
    """A leg's first ``n`` results, as the leg asked for ``n`` would have returned them."""
    if len(res.ids) <= n:
        return res
    ids = res.ids[:n]
    return LegResult(ids, res.scores[:n], {d: p for d, p in res.paths.items() if d in set(ids)},
                     res.weight_scale, False if res.complete is not None else None, res.scale)


def _best_first(scores: Mapping[str, float]) -> list[str]:
    """Ids by score, best first, ties by id: a stable sort by score of the ids in order (no key tuples)."""
    return sorted(sorted(scores), key=scores.__getitem__, reverse=True)


def _units(cands: list[Candidate]) -> list[np.ndarray | None]:
    """Each candidate's ``unit`` row; those without one get it in one batch, kept on them for later searches."""
    new = [c for c in cands if c.unit is None and c.vector is not None]
    if new:
        for c, row in zip(new, unit_rows([c.vector for c in new])):
            c.unit = row
    return [c.unit for c in cands]


def _answers(pool: list[str], info: Mapping[str, Candidate]) -> int:
    """How many results the pool can give once each group counts once."""
    return len({info[d].group if info[d].group is not None else (d,) for d in pool if d in info})


class _Clock:
    """Seconds per stage, into a caller's dict (or nowhere)."""

    def __init__(self, out: dict[str, float] | None) -> None:
        self.out, self.t = out, time.perf_counter()

    def lap(self, name: str) -> None:
        if self.out is not None:
            now = time.perf_counter()
            self.out[name] = self.out.get(name, 0.0) + now - self.t
            self.t = now
