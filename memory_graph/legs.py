"""The memory search's vector, BM25 and graph legs, the late stages' reads of their candidates, and the
confidence a search reports (mixed into the Engine). Up to ``Config.vector_copy_max_rows`` rows, the vectors of
memories and of their passages are searched in an in-process copy (``store.vectors``), kept with the graph;
past it, in LanceDB."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .graph import node_filter
from .models import Filters, Hit, Hits
from .records import candidate
from .retrieval import Candidate, LegResult, graph_leg, graph_result, passage_scores
from .retrieval.confidence import confidence
from .retrieval.updates import says_change
from .store import nearest_accepted, sql_filter, sql_in, vector_matrix


class MemoryLegsMixin:
    """Vector leg (memories and passages), graph leg, PPR's local edges and the candidates' descriptions."""

    def _vector_leg(self, query: str, filters: Filters, now: float, c: int,
                    timings: dict[str, float] | None = None, vec: np.ndarray | None = None) -> LegResult:
        """The ``c`` memories nearest to the query (``vec``: its embedding, when the caller has it)."""
        if vec is None:
            vec = self._embed_query(query, timings)
        where = sql_filter(filters, now)
        ids, sims = self._nearest_memories(vec, filters, where, now, c)
        if self.config.max_passages <= 0 or not self._passages_exist():
            return LegResult(ids, sims)
        # passages carry no filter columns, so the memories found only through them are checked against the
        # filters after the search, and their own vectors read for passage_scores
        first = dict(zip(ids, sims))
        best_passage: dict[str, float] = {}
        for pid, sim in zip(*self._nearest_passages(vec, c * self.config.passage_candidates_factor)):
            mid = pid.rsplit("#", 1)[0]
            best_passage[mid] = max(sim, best_passage.get(mid, -1.0))
        new = [m for m in best_passage if m not in first]
        if new:
            first.update(self._own_similarities(vec, new, filters, where, now))
        scored = passage_scores(first, {m: s for m, s in best_passage.items() if m in first},
                                self.config.passage_gain)
        ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:c]
        return LegResult([m for m, _ in ranked], [v for _, v in ranked])

    def _embed_query(self, query: str, timings: dict[str, float] | None = None) -> np.ndarray:
        t = time.perf_counter()
        vec = self.embedder.encode_query(query[:4_000])
        if timings is not None:
            timings["embed"] = time.perf_counter() - t
        return vec

    def _bm25_leg(self, query: str, filters: Filters, now: float, c: int) -> LegResult:
        ids, scores = self.text.search(query, filters, now, c, "memory", self.config.bm25_title_boost,
                                       self.config.bm25_idents_boost)
        share = self.config.bm25_reference_share
        scale = share * self.text.reference_score(query) if share > 0 and ids else None
        return LegResult(ids, scores, scale=scale)

    def _sure(self, hits: list[Hit], signals: dict[str, float]) -> "Hits":
        """The hits with the search's confidence, and a note when it is below ``Config.confidence_min``."""
        c = self.config
        conf = confidence(signals, c.confidence_cosine_low, c.confidence_cosine_high, c.confidence_coverage_low)
        note = None
        if hits and conf < c.confidence_min:
            note = (f"nothing matches well (confidence {conf:.2f}): the results share words or topic with the "
                    f"query but probably do not answer it")
        elif not hits:
            note = "nothing matches"
        return Hits(hits, confidence=round(conf, 3), signals=signals, note=note)

    def _nearest_memories(self, vec: np.ndarray, filters: Filters, where: str | None, now: float,
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
            if self.memory_vectors is not None:
                accept = node_filter(filters, now)
                found = nearest_accepted(self.memory_vectors, vec, c,
                                         lambda i: i in self.graph and accept(self.graph.attrs(i)),
                                         factor if where else 1, self.config.copy_filter_window)
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
        pool = self.graph.project_members(filters.project)
        if filters.include_global and filters.project != "":
            pool = pool | self.graph.project_members("")
        if len(pool) > self.config.partition_min_rows:
            return None
        sims = self.memory_vectors.similarities([i for i in pool if accept(self.graph.attrs(i))], vec)
        ranked = sorted(sims.items(), key=lambda kv: (-kv[1], kv[0]))[:c]
        return [i for i, _ in ranked], [s for _, s in ranked]

    def _nearest_passages(self, vec: np.ndarray, k: int) -> tuple[list[str], list[float]]:
        with self._graph_lock:
            if self.passage_vectors is not None:
                return self.passage_vectors.nearest(vec, k)
        return self.lance.vector_search("passages", vec, None, k, ["id"])

    def _own_similarities(self, vec: np.ndarray, ids: list[str], filters: Filters, where: str | None,
                          now: float) -> dict[str, float]:
        """Cosine of each memory's own vector to ``vec``, for those of ``ids`` that pass the filters."""
        with self._graph_lock:
            if self.memory_vectors is not None:
                accept = node_filter(filters, now)
                return self.memory_vectors.similarities(
                    [m for m in ids if m in self.graph and accept(self.graph.attrs(m))], vec)
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
            if self.passage_vectors is not None:
                return len(self.passage_vectors) > 0
        if self._has_passages is None:
            self._has_passages = self.lance.count("passages") > 0
        return self._has_passages

    def _graph_leg(self, seeds: dict[str, float], filters: Filters, now: float, c: int,
                   target: str = "memory") -> LegResult:
        if not seeds:
            return LegResult()
        with self._graph_lock:
            found = graph_leg(self.graph, seeds, node_filter(filters, now), c, self.config.graph_hub_degree,
                              self.config.graph_max_fanout, self.config.graph_max_hops, target=target,
                              second_hop_pool=self.config.graph_second_hop_pool)
        return graph_result(found, self.config.graph_specific_hits, self.config.graph_max_boost)

    def _local_graph(self, candidates: list[str], query_nodes: list[str]) -> tuple[list[str], np.ndarray]:
        with self._graph_lock:
            return self.graph.local_matrix(candidates, query_nodes, self.config.graph_hub_degree)

    def _describe(self, ids: list[str]) -> dict[str, Candidate]:
        """The late stages' view of each memory still in the store: kept between writes, else from the graph's
        node and the in-process copy of the vectors when they hold it, else from LanceDB."""
        out: dict[str, Candidate] = {}
        fresh: dict[str, Candidate] = {}
        missing = []
        generation = self._generation
        with self._graph_lock:
            for i in ids:
                hit = self._described.get(i)
                if hit is not None:
                    out[i] = hit
            unseen = [i for i in ids if i not in out]
            vectors = self.memory_vectors.get_many(unseen) if self.memory_vectors is not None else {}
            for i in unseen:
                vector = vectors.get(i)
                if vector is not None and i in self.graph:
                    fresh[i] = candidate(self.graph.attrs(i), vector, self.config)
                else:
                    missing.append(i)
        if missing:
            cols = ["id", "title", "memory_type", "tags", "source", "project", "created_at", "importance", "vector"]
            rows = self.lance.by_ids("memories", missing, cols)
            vectors = vector_matrix(rows) if rows.num_rows else []
            for r, vector in zip(rows.drop_columns(["vector"]).to_pylist(), vectors):
                fresh[r["id"]] = candidate(r, vector, self.config)
        fresh = self._with_subjects(fresh)
        if generation == self._generation:  # no write began or ended while reading
            for i, cand in fresh.items():
                self._described.put(i, cand)
        out.update(fresh)
        return out

    def _says_change(self, ids: list[str]) -> dict[str, bool]:
        """Whether each memory's text says that something changed (``updates.says_change``): as its graph node
        recorded when it was built, else read from LanceDB."""
        with self._graph_lock:
            out = {i: v for i in ids
                   if i in self.graph and (v := self.graph.attrs(i).get("says_change")) is not None}
        missing = [i for i in ids if i not in out]
        if missing:
            out.update({i: says_change(t) for i, t in self._texts(missing).items()})
        return out

    def _texts(self, ids: list[str]) -> dict[str, str]:
        """Title and content of memories, by id."""
        rows = self.lance.by_ids("memories", ids, ["id", "title", "content"]).to_pylist()
        return {r["id"]: f"{r['title']}\n{r['content']}" for r in rows}

    def _with_subjects(self, described: dict[str, Candidate]) -> dict[str, Candidate]:
        """Each candidate with the specific entities it names (what latest_first compares)."""
        hub = self.config.graph_hub_degree
        with self._graph_lock:
            return {i: replace(c, subjects=self.graph.subjects(i, hub)) for i, c in described.items()}
