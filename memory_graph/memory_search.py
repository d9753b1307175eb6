"""Memory search: the entities a question names, its vector, BM25 and graph legs, the late stages' reads of
their candidates and the pipeline that ranks them. Up to ``Config.vector_copy_max_rows`` rows, the vectors of
memories and of their passages are searched in an in-process copy (``store.vectors``), kept with the graph;
past it, in LanceDB."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Callable

import numpy as np

from .graph import accept_any, node_filter
from .linking import expand_aliases
from .models import Filters, Hit, Hits, iso
from .records import candidate
from .retrieval import Candidate, LegResult, graph_leg, graph_result, passage_scores, rank_stable
from .retrieval.confidence import match_signals, with_confidence
from .retrieval.updates import says_change, update_pairs
from .retrieval.when import asked_period
from .store import nearest_accepted, sql_filter, sql_in, vector_matrix
from .legs_runner import timed
from .views import Described

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore, TextIndex
    from .views import MemoryView


#: the legs as fusion reads them (its sums are added in this order, whichever leg ran first)
LEG_ORDER = ("vector", "bm25", "graph")


class MemorySearch:
    """Ranks memories for a question over the memory graph and vector copies of ``view`` (read under
    ``graph_lock``), the BM25 index ``text`` and LanceDB.

    ``embed(query, timings)`` returns a question's vector, and ``collect(jobs, pooled)`` runs the legs (the
    Engine's, which owns the model and the pool). It keeps each candidate's description between writes: the
    Engine calls ``forget_reads`` when this or another process changes the data. Filters come validated.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, view: MemoryView,
                 graph_lock: threading.RLock, embed: Callable[[str, dict | None], np.ndarray],
                 collect: Callable[..., dict[str, LegResult]]) -> None:
        self.config, self.lance, self.text, self.view = config, lance, text, view
        self._graph_lock, self._embed, self._collect = graph_lock, embed, collect
        self._described = Described(config.describe_cache_size,
                                    lambda attrs, vector: candidate(attrs, vector, self.config), self._read_described)
        self._has_passages: bool | None = None  # unknown until counted (past the in-process copy)

    def forget_reads(self) -> None:
        """Drop what searches keep between writes (called when this or another process changes the data)."""
        self._described.forget()
        self._has_passages = None

    def search(self, query: str, limit: int, mode: str, filters: Filters, now: float, min_score: float | None,
               use_ppr: bool, use_decay: bool, use_mmr: bool, timings: dict[str, float] | None) -> Hits:
        """The ``limit`` best memories, each with its explanation, and the search's confidence; validity and
        decay are judged at ``filters.as_of``, else ``now``."""
        cfg = self.config
        at = filters.as_of if filters.as_of is not None else now
        t0 = time.perf_counter()
        legs = self.run_legs(query, filters, now, limit, mode, timings)
        if timings is not None:
            timings["legs"] = time.perf_counter() - t0
        # PPR is personalised by the entities the graph leg expands: a hub (a chat's speaker, named by hundreds
        # of memories) would reward whichever candidates happen to name it, as noise (benchmarks/sweep.py)
        with self._graph_lock:
            q_ents = self.view.graph.specific(legs.pop("_entities").paths, cfg.graph_hub_degree)
        bm = legs.get("bm25")
        share = cfg.bm25_reference_share
        signals = match_signals(legs, bm.scale / share if bm is not None and bm.scale and share > 0 else None)
        hits = rank_stable(legs, config=cfg, weights=cfg.memory_weights, limit=limit, now=at,
                           query_entities=q_ents, local_graph=self._local_graph, describe=self.describe,
                           changes=self.says_change, subjects=self.subjects, min_score=min_score,
                           period=asked_period(query, at), use_ppr=use_ppr, use_decay=use_decay, use_mmr=use_mmr,
                           timings=timings)
        with self._graph_lock:
            names = self.view.index.names
            for h in hits:
                h.explanation.graph_path = [names[n][0] if n in names else n for n in h.explanation.graph_path]
        for h in hits:
            h.record["created_at"] = iso(h.record["created_at"])
        self._add_validity(hits, at)
        return with_confidence(hits, signals, cfg)

    def run_legs(self, query: str, filters: Filters, now: float, limit: int, mode: str,
                 timings: dict[str, float] | None = None) -> dict[str, LegResult]:
        """Each leg's candidates, and under ``_entities`` the entities the question names."""
        cfg, c = self.config, self.config.candidates(limit)
        t = time.perf_counter()
        with self._graph_lock:
            index = self.view.index
            if not filters.include_invalid and self.view.graph.always_valid(filters.as_of):
                # every memory is valid then: no leg reads validity (BM25's range queries, a check per node)
                filters = replace(filters, include_invalid=True)
            seeds = index.mentioned_in(query[:2_000], fuzzy_cutoff=cfg.entity_fuzzy_cutoff, skip_types=("project",))
            if cfg.alias_expansion and cfg.memory_weights.graph > 0 and mode == "hybrid":
                query = expand_aliases(query, seeds, index)
        if timings is not None:
            timings["link"] = time.perf_counter() - t
        jobs = {}
        if mode in ("hybrid", "vector"):
            # embedded here, before the legs, so that the vector leg (pooled) has the time budget for its search
            jobs["vector"] = partial(timed, self.vector_leg, timings, "vector", query, filters, now, c,
                                     self._embed(query, timings))
        # the graph leg before BM25: it reads the graph under the graph lock, which the vector leg holds while it
        # searches the in-process copy, and BM25 takes no lock
        if mode in ("hybrid", "graph"):
            jobs["graph"] = partial(timed, self.graph_leg, timings, "graph", seeds, filters, now, c)
        if mode in ("hybrid", "bm25"):
            jobs["bm25"] = partial(timed, self.bm25_leg, timings, "bm25", query, filters, now, c)
        # the vector leg in the pool: its product (ONNX Runtime's, or LanceDB's) lets the GIL go, and runs beside
        # BM25 and the graph leg
        done = self._collect(jobs, pooled=("vector",))
        legs = {name: done[name] for name in LEG_ORDER if name in done}  # fusion adds them up in this order
        legs["_entities"] = LegResult(paths={e: [] for e in seeds})
        return legs

    def _add_validity(self, hits: list[Hit], at: float) -> None:
        """Give each hit whose validity has an end its valid_until; once ended (at ``at``), ``ended`` and, when
        known, why and what replaced it.

        A compact hit is all an agent may read, so it must show that a memory was superseded. Only such hits
        (found with include_invalid or as_of, or ending later) cost a LanceDB lookup."""
        with self._graph_lock:
            graph = self.view.graph
            ends = {h.id: graph.attrs(h.id).get("valid_until") for h in hits if h.id in graph}
        ends = {i: t for i, t in ends.items() if t is not None}
        if not ends:
            return
        cols = ["id", "valid_until", "superseded_by", "invalidation_reason"]
        rows = {r["id"]: r for r in self.lance.by_ids("memories", list(ends), cols).to_pylist()}
        for h in hits:
            r = rows.get(h.id)
            if r is None or r["valid_until"] is None:
                continue
            h.record["valid_until"] = iso(r["valid_until"])
            if r["valid_until"] <= at:
                h.record["ended"] = True
                h.record.update({k: r[k] for k in ("superseded_by", "invalidation_reason") if r[k]})

    def may_update(self, memory_id: str, now: float, limit: int) -> list[tuple[str, float]]:
        """Older facts of the same project that this memory probably updates, by the rule a search ranks the
        latest first with (retrieval/updates.py: a specific entity in common, an older evergreen memory, and a
        cosine of update_min_cosine, or update_marked_cosine when this one says that something changed), most
        alike first."""
        c = self.config
        if c.update_marked_cosine > 1 or limit <= 0:
            return []
        mine = self.describe([memory_id]).get(memory_id)
        if mine is None or not self.subjects([memory_id]).get(memory_id):
            return []
        with self._graph_lock:
            graph = self.view.graph
            project = graph.attrs(memory_id).project if memory_id in graph else None
        filters = Filters(project=project or "", include_global=False)
        ids, sims = self.nearest_memories(np.asarray(mine.vector), filters, sql_filter(filters, now), now, 10)
        near = {i: s for i, s in zip(ids, sims) if i != memory_id and s >= c.update_marked_cosine}
        if not near:
            return []
        info = {**self.describe(list(near)), memory_id: mine}
        pairs = [(old, cos) for old, new, cos in update_pairs(info, c.update_marked_cosine, self.subjects)
                 if new == memory_id]
        if not pairs:
            return []
        changed = any(cos < c.update_min_cosine for _, cos in pairs) and \
            says_change(self.texts([memory_id]).get(memory_id, ""))
        found = [(old, round(cos, 3)) for old, cos in pairs if cos >= c.update_min_cosine or changed]
        return sorted(found, key=lambda t: -t[1])[:limit]

    # ---- the legs -----------------------------------------------------------
    def vector_leg(self, query: str, filters: Filters, now: float, c: int, vec: np.ndarray | None = None) -> LegResult:
        """The ``c`` memories nearest to the query (``vec``: its embedding, when the caller has it)."""
        if vec is None:
            vec = self._embed(query, None)
        where = sql_filter(filters, now)
        ids, sims = self.nearest_memories(vec, filters, where, now, c)
        if self.config.max_passages <= 0 or not self._passages_exist():
            return LegResult(ids, sims)
        # passages carry no filter columns, so the memories found only through them are checked against the
        # filters after the search, and their own vectors read for passage_scores
        first = dict(zip(ids, sims))
        pids, psims = self._nearest_passages(vec, c * self.config.passage_candidates_factor)
        # nearest first, so a memory's best passage is its first: built from the last, the first one's stays
        best_passage = dict(zip([p.rsplit("#", 1)[0] for p in reversed(pids)], reversed(psims)))
        # a memory past the first c has its own similarity at most the c-th's, and passage_scores never lifts it
        # above the larger of that and its best passage's: only one whose passage beats the c-th can get in
        bar = min(sims) if len(ids) >= c else -np.inf
        new = [m for m in best_passage if m not in first and best_passage[m] > bar]
        if new:
            first.update(self._own_similarities(vec, new, filters, where, now))
        scored = passage_scores(first, {m: s for m, s in best_passage.items() if m in first},
                                self.config.passage_gain)
        ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:c]
        return LegResult([m for m, _ in ranked], [v for _, v in ranked])

    def bm25_leg(self, query: str, filters: Filters, now: float, c: int) -> LegResult:
        ids, scores = self.text.search(query, filters, now, c, "memory", self.config.bm25_title_boost,
                                       self.config.bm25_idents_boost)
        share = self.config.bm25_reference_share
        scale = share * self.text.reference_score(query) if share > 0 and ids else None
        return LegResult(ids, scores, scale=scale)

    def graph_leg(self, seeds: dict[str, float], filters: Filters, now: float, c: int) -> LegResult:
        if not seeds:
            return LegResult()
        cfg = self.config
        with self._graph_lock:
            found = graph_leg(self.view.graph, seeds, node_filter(filters, now), c, cfg.graph_hub_degree,
                              cfg.graph_max_fanout, cfg.graph_max_hops, target="memory",
                              second_hop_pool=cfg.graph_second_hop_pool)
        return graph_result(found, cfg.graph_specific_hits, cfg.graph_max_boost)

    def nearest_memories(self, vec: np.ndarray, filters: Filters, where: str | None, now: float,
                         c: int) -> tuple[list[str], list[float]]:
        """The ``c`` memories nearest to ``vec`` that pass the filters.

        Up to ``vector_copy_max_rows`` memories, a search of the in-process copy of their vectors (exact below
        ``partition_min_rows``, by partitions from there), filtered by the graph's node predicate. Otherwise
        LanceDB: when only validity filters (few rows fail them), the nearest ``postfilter_factor`` x c are
        read and filtered afterwards, which spares LanceDB evaluating the filter on every row (``python -m
        benchmarks.probes.search_probe``); if that leaves fewer than ``c``, the search is repeated with the filter
        applied first, so the result is the same either way (exactly so for flat search).
        """
        factor = self.config.postfilter_factor
        with self._graph_lock:
            graph, held = self.view.graph, self.view.vectors
            if held is not None:
                accept = node_filter(filters, now)
                found = nearest_accepted(held, vec, c, graph.__contains__ if accept is accept_any else
                                         lambda i: i in graph and accept(graph.attrs(i)),
                                         factor if where else 1, self.config.copy_filter_window,
                                         project_groups(filters))
                if found is None and filters.project is not None:
                    found = self._nearest_in_project(vec, filters, accept, c)
                if found is not None:
                    return found
        if where and factor > 1 and sql_filter(replace(filters, include_invalid=True), now) is None:
            ids, sims = self.lance.vector_search("memories", vec, where, factor * c, ["id"], prefilter=False)
            if len(ids) >= c:
                return ids[:c], sims[:c]
        return self.lance.vector_search("memories", vec, where, c, ["id"])

    def _nearest_in_project(self, vec: np.ndarray, filters: Filters, accept, c: int):
        """The ``c`` nearest of a project's memories that pass the filters, by an exact search of their rows
        of the copy: a project too small for the nearest rows of the whole copy to hold enough of it, which
        LanceDB would otherwise search filtering every row first. None past ``partition_min_rows`` memories,
        from where LanceDB's own filtered search is the cheaper one. Hold the graph lock."""
        graph = self.view.graph
        pool = graph.project_members(filters.project)
        if filters.include_global and filters.project != "":
            pool = pool | graph.project_members("")
        if len(pool) > self.config.partition_min_rows:
            return None
        sims = self.view.vectors.similarities([i for i in pool if accept(graph.attrs(i))], vec)
        ranked = sorted(sims.items(), key=lambda kv: (-kv[1], kv[0]))[:c]
        return [i for i, _ in ranked], [s for _, s in ranked]

    def _nearest_passages(self, vec: np.ndarray, k: int) -> tuple[list[str], list[float]]:
        """The ``k`` passages nearest to ``vec``, nearest first, with their similarities."""
        with self._graph_lock:
            if self.view.passages is not None:
                return self.view.passages.nearest(vec, k)
        return self.lance.vector_search("passages", vec, None, k, ["id"])

    def _own_similarities(self, vec: np.ndarray, ids: list[str], filters: Filters, where: str | None,
                          now: float) -> dict[str, float]:
        """Cosine of each memory's own vector to ``vec``, for those of ``ids`` that pass the filters."""
        with self._graph_lock:
            graph, held = self.view.graph, self.view.vectors
            if held is not None:
                accept = node_filter(filters, now)
                return held.similarities([m for m in ids if m in graph and accept(graph.attrs(m))], vec)
        scope = f"({sql_in('id', ids)})" + (f" AND ({where})" if where else "")
        rows = self.lance.query("memories", scope, ["id", "vector"])
        if not rows.num_rows:
            return {}
        mat = vector_matrix(rows)
        own = mat @ vec / (np.linalg.norm(mat, axis=1) * np.linalg.norm(vec)).clip(1e-12)
        return dict(zip(rows.column("id").to_pylist(), own.tolist()))

    def _passages_exist(self) -> bool:
        """Whether any memory has passage vectors; counted once per change of the data, not per search."""
        with self._graph_lock:
            if self.view.passages is not None:
                return len(self.view.passages) > 0
        if self._has_passages is None:
            self._has_passages = self.lance.count("passages") > 0
        return self._has_passages

    # ---- the late stages' reads ----------------------------------------------
    def _local_graph(self, candidates: list[str], query_nodes: list[str]) -> tuple[list[str], np.ndarray]:
        with self._graph_lock:
            return self.view.graph.local_matrix(candidates, query_nodes, self.config.graph_hub_degree)

    def describe(self, ids: list[str]) -> dict[str, Candidate]:
        """The late stages' view of each memory still in the store: kept between writes, else from the graph's
        node and the in-process copy of the vectors when they hold it, else from LanceDB."""
        return self._described(ids, self.view, self._graph_lock)

    def _read_described(self, ids: list[str]) -> dict[str, Candidate]:
        cols = ["id", "title", "memory_type", "tags", "source", "project", "created_at", "importance", "vector"]
        rows = self.lance.by_ids("memories", ids, cols)
        vectors = vector_matrix(rows) if rows.num_rows else []
        return {r["id"]: candidate(r, vector, self.config)
                for r, vector in zip(rows.drop_columns(["vector"]).to_pylist(), vectors)}

    def says_change(self, ids: list[str]) -> dict[str, bool]:
        """Whether each memory's text says that something changed (``updates.says_change``): as its graph node
        recorded when it was built, else read from LanceDB."""
        with self._graph_lock:
            graph = self.view.graph
            out = {i: v for i in ids
                   if i in graph and (v := graph.attrs(i).get("says_change")) is not None}
        missing = [i for i in ids if i not in out]
        if missing:
            out.update({i: says_change(t) for i, t in self.texts(missing).items()})
        return out

    def texts(self, ids: list[str]) -> dict[str, str]:
        """Title and content of memories, by id."""
        rows = self.lance.by_ids("memories", ids, ["id", "title", "content"]).to_pylist()
        return {r["id"]: f"{r['title']}\n{r['content']}" for r in rows}

    def subjects(self, ids: list[str]) -> dict[str, frozenset]:
        """The specific entities each memory names, what it may be about (``Graph.subjects``), by id."""
        hub = self.config.graph_hub_degree
        with self._graph_lock:
            graph = self.view.graph
            return {i: graph.subjects(i, hub) for i in ids if i in graph}


def project_groups(filters: Filters) -> list[str] | None:
    """The projects a memory search's filters let through (its own, and the global memories' ""), or None."""
    if filters.project is None:
        return None
    return [filters.project, ""] if filters.include_global and filters.project != "" else [filters.project]
