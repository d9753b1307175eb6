"""The graph leg: records within two hops of the entities a query names, ranked by hops, coverage, strength."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..graph import DEFINES, Graph
from .pipeline import LegResult


@dataclass
class GraphHit:
    id: str
    hop: int
    # the seeds in the order they reached it (a set of strings iterates in an order that varies by process),
    # each with its match weight
    seeds: dict[str, float] = field(default_factory=dict)
    strength: float = 0.0
    path: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return _score(self.seeds, self.hop)


def _score(seeds: dict[str, float], hop: int) -> float:
    """The leg's score: 1 / hops for its best-matched seed, times that match's weight, plus 0.1 a seed."""
    return max(seeds.values(), default=1.0) / hop + 0.1 * len(seeds)


def graph_leg(graph: Graph, seeds: Mapping[str, float], accept: Callable[[dict], bool], limit: int,
              hub_degree: int, max_fanout: int, max_hops: int = 2, target: str = "memory",
              second_hop_pool: int = 0) -> list[GraphHit]:
    """Rank target nodes (memories or chunks) reachable from seed entities.

    Hop 1: targets linked to a seed. Hop 2: targets sharing a non-hub entity with a hop-1 target, linked to
    an entity related to a seed, or related to a hop-1 target. Order: fewer hops, then more seeds reached,
    then more strength, where each edge adds weight / sqrt(degree of the connecting node) so hubs count little.
    A seed's weight (1 for an exact match) scales what it reaches, so a target reached only through a looser
    match (a fuzzy one, or a symbol whose name differs from the query's in case) ranks below one reached
    through an exact match at the same hop.
    Targets failing ``accept`` (the pushed-down filters) still bridge to others but are never returned.
    Seeds with more than ``hub_degree`` edges are not expanded: they reach only the targets that define them.
    The second hop walks from the strongest first-hop records down, and stops taking more of them once it holds
    ``second_hop_pool`` targets for each place left in ``limit`` (0: it walks from all of them).
    """
    hits: dict[str, GraphHit] = {}
    bridges: dict[str, GraphHit] = {}
    # what the walk asks of a node again and again (at the second hop, hundreds of thousands of times on
    # entity-rich text), each read from the graph once per search
    accepted: dict[str, bool] = {}
    kinds: dict[str, str | None] = {}
    degrees: dict[str, int] = {}
    fanout: dict[str, list] = {}

    def reach(node: str, hop: int, seed: str, strength: float, path: list[str], *tail: str) -> None:
        ok = accepted.get(node)
        if ok is None:
            ok = accepted[node] = accept(graph.attrs(node))
        pool = hits if ok else bridges
        h = pool.get(node)
        if h is None or hop < h.hop:  # the path is built only for the hit that keeps it
            pool[node] = h = GraphHit(node, hop, path=[*path, *tail])
        if hop == h.hop:
            h.seeds[seed] = seeds[seed]
            h.strength += strength

    def kind(node: str) -> str | None:
        k = kinds.get(node, "")
        if k == "":
            k = kinds[node] = graph.kind(node)
        return k

    def degree(node: str) -> int:
        d = degrees.get(node)
        if d is None:
            d = degrees[node] = graph.degree(node)
        return d

    def strongest(node: str) -> list[tuple[str, float]]:
        nbrs = fanout.get(node)
        if nbrs is None:
            nbrs = graph.linked(node)
            if len(nbrs) > max_fanout:
                nbrs = sorted(nbrs, key=lambda x: -x[1])[:max_fanout]
            fanout[node] = nbrs
        return nbrs

    def targets(node: str) -> list[tuple[str, float]]:
        found = reached.get(node)
        if found is None:
            found = reached[node] = [(v, w) for v, w in strongest(node) if kind(v) == target]
        return found

    reached: dict[str, list[tuple[str, float]]] = {}
    related: dict[str, tuple[str, float, list[str]]] = {}
    # a hub (a name in hundreds of records, such as a chat's speaker) ranks nothing: every record it
    # reaches would tie, and the leg would hand the fusion an arbitrary order at full weight
    for seed in graph.specific(seeds, hub_degree):
        seed_w = seeds[seed]
        damp = 1.0 / math.sqrt(max(1, degree(seed)))
        for v, w in strongest(seed):
            k = kind(v)
            if k == target:
                reach(v, 1, seed, seed_w * w * damp, [seed], v)
            elif k == graph.bridge and v not in seeds:
                related.setdefault(v, (seed, seed_w * w * damp, [seed, v]))
    # ... but a hub's own definition is one chunk (or its windows), not hundreds of ties: a query naming
    # QuerySet.get, which thousands of lines call, means the code that defines it
    for seed, seed_w in seeds.items():
        if seed in graph and degree(seed) > hub_degree:
            damp = 1.0 / math.sqrt(degree(seed))
            for v, _etype, w, _d in graph.neighbors(seed, "in", types=(DEFINES,)):
                if kind(v) == target:
                    reach(v, 1, seed, seed_w * w * damp, [seed], v)
    # hop-2 targets rank after every hop-1 one, so with `limit` hop-1 hits they could never be returned
    if max_hops >= 2 and len(hits) < limit:
        second = _SecondHop(hits, bridges, seeds, accepted, accept, graph)
        first = sorted([*hits.values(), *bridges.values()], key=lambda h: -h.strength)[:max_fanout]
        full = second_hop_pool * (limit - len(hits)) if second_hop_pool > 0 else math.inf
        for h in first:
            if len(second.strength) >= full:
                break
            seed = next(iter(h.seeds))
            for e, w in strongest(h.id):
                k = kind(e)
                if k == target and e not in seeds:
                    second.through([(e, w)], None, seed, h.strength, 1.0, h.path)
                elif k == graph.bridge and e not in seeds and degree(e) <= hub_degree:
                    damp = 1.0 / math.sqrt(max(1, degree(e)))
                    second.through(targets(e), h.id, seed, h.strength * w, damp, [*h.path, e])
        for e, (seed, strength, path) in related.items():
            if len(second.strength) < full and degree(e) <= hub_degree:
                second.through(targets(e), None, seed, strength, 1.0 / math.sqrt(max(1, degree(e))), path)
        second.add_to(hits, limit)
    # the first `limit` of a thousand targets or more (SciFact's second hop): not a sort of all of them
    return heapq.nsmallest(limit, hits.values(), key=lambda h: (h.hop, -h.score, -len(h.seeds), -h.strength, h.id))


class _SecondHop:
    """The second hop's targets, summed in plain dicts: a walk through entity-rich text takes thousands of steps,
    most of them to a record already reached or filtered out, where a GraphHit per step cost most of the walk.
    Hits, paths and sums are those of one ``reach`` per step, in the same order."""

    def __init__(self, hits: dict, bridges: dict, seeds: Mapping[str, float], accepted: dict, accept, graph):
        self.near = hits.keys() | bridges.keys()  # reached at the first hop: a second never replaces it
        self.seeds, self.accepted, self.accept, self.graph = seeds, accepted, accept, graph
        self.strength: dict[str, float] = {}
        self.by: dict[str, dict[str, float]] = {}
        self.path: dict[str, list[str]] = {}

    def through(self, targets: list[tuple[str, float]], source: str | None, seed: str, base: float, damp: float,
                path: list[str]) -> None:
        """Reach each of an entity's targets but ``source``, with strength base x the edge's weight x damp;
        ``path`` ends at the entity."""
        near, accepted, strength, by = self.near, self.accepted, self.strength, self.by
        for m2, w2 in targets:
            if m2 == source or m2 in near:
                continue
            ok = accepted.get(m2)
            if ok is None:
                ok = accepted[m2] = self.accept(self.graph.attrs(m2))
            if not ok:
                continue
            if m2 in strength:
                strength[m2] += base * w2 * damp
                if seed not in by[m2]:
                    by[m2][seed] = self.seeds[seed]
            else:
                strength[m2] = base * w2 * damp
                by[m2] = {seed: self.seeds[seed]}
                self.path[m2] = [*path, m2]

    def add_to(self, hits: dict[str, GraphHit], limit: int) -> None:
        """Add the targets that can still be among the first ``limit``: every hit (all of the first hop) ranks
        before them."""
        by = self.by
        best = heapq.nsmallest(limit - len(hits), self.strength.items(),
                               key=lambda kv: (-_score(by[kv[0]], 2), -len(by[kv[0]]), -kv[1], kv[0]))
        for node, strength in best:
            hits[node] = GraphHit(node, 2, by[node], strength, self.path[node])


def graph_result(found, specific_hits: int, max_boost: float = 2.0) -> LegResult:
    """The graph leg as a LegResult, its weight scaled by specificity = min(max_boost, specific_hits / hop-1
    records): an entity named by one or two memories ("Orion") raises the leg's weight; one named by hundreds
    of abstracts ("DNA") makes it count for little."""
    hop1 = sum(1 for h in found if h.hop == 1)
    scale = min(max_boost, specific_hits / hop1) if hop1 else 1.0
    return LegResult([h.id for h in found], [h.score for h in found],
                     {h.id: h.path for h in found}, weight_scale=scale)
