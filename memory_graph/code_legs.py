"""Code search's legs and the late stages' reads of their candidates (mixed into the Engine), as legs.py is
for memories: the vector leg with localized centering, the symbol graph leg, PPR's local edges, and each
candidate chunk's description."""

from __future__ import annotations

import numpy as np

from .graph import CHUNK
from .models import Filters
from .retrieval import Candidate, LegResult
from .retrieval.density import localized_centering
from .store.lance import vector_matrix
from .store.text_index import path_whole


def code_node_filter(filters: Filters):
    """The graph leg's pushed-down filter for chunk nodes."""
    langs, types = set(filters.languages), set(filters.chunk_types)

    def accept(a: dict) -> bool:
        if filters.project is not None and a.get("project") != filters.project:
            return False
        if filters.path_prefix and not str(a.get("path", "")).startswith(filters.path_prefix):
            return False
        if langs and a.get("language") not in langs:
            return False
        return not types or a.get("chunk_type") in types

    return accept


class CodeLegsMixin:
    """Vector, graph and PPR reads of code chunks for ``CodeMixin.search_code``."""

    def _code_vector_leg(self, query: str, filters: Filters, c: int, vec: np.ndarray | None = None) -> LegResult:
        """The ``c`` chunks nearest to the query (``vec``: its embedding, when the caller has it)."""
        if vec is None:
            vec = self.embedder.encode_query(query[:4_000])
        ids, sims = self._nearest_chunks(vec, filters, c)
        with self._graph_lock:
            densities = {i: self.chunk_density[i] for i in ids if i in self.chunk_density}
        return LegResult(*localized_centering(ids, sims, densities, self.config.code_density_weight),
                         top=float(max(sims)) if len(sims) else None)

    def _nearest_chunks(self, vec, filters: Filters, c: int) -> tuple[list[str], list[float]]:
        """The ``c`` chunks nearest to ``vec`` that pass the filters: from the in-process copy of their vectors,
        filtered by their graph nodes, as ``_nearest_memories`` does; else (a copy too large to hold, a filter
        too selective for its widest window) from LanceDB."""
        from .store import nearest_accepted, sql_filter

        where = sql_filter(filters, 0.0, kind="code")
        with self._graph_lock:
            if self.chunk_vectors is not None:
                graph, accept = self.code_graph, code_node_filter(filters)
                found = nearest_accepted(self.chunk_vectors, vec, c, lambda i: i in graph and accept(graph.attrs(i)),
                                         self.config.postfilter_factor if where else 1,
                                         self.config.copy_filter_window)
                if found is not None:
                    return found
        return self.lance.vector_search("code_chunks", vec, where, c, ["id"])

    def _code_bm25_leg(self, query: str, filters: Filters, now: float, c: int,
                       phrases: list[str]) -> tuple[list[str], list[float]]:
        """BM25 over code chunks. A path prefix too long for Tantivy's regex is matched there by its start,
        and here, through the chunks' graph nodes, by all of it."""
        ids, scores = self.text.search(query, filters, now, c, "code", self.config.bm25_code_title_boost, 1.0,
                                       phrases, self.config.code_phrase_boost)
        if filters.path_prefix and not path_whole(filters.path_prefix):
            with self._graph_lock:
                kept = [(i, s) for i, s in zip(ids, scores) if i in self.code_graph and
                        str(self.code_graph.attrs(i).get("path", "")).startswith(filters.path_prefix)]
            ids, scores = [i for i, _ in kept], [s for _, s in kept]
        return ids, scores

    def _code_graph_leg(self, seeds: dict[str, float], filters: Filters, c: int, name_only: bool) -> LegResult:
        """The chunks within two hops of the seeds. For a query that is one name, every definition of it is an
        answer, however many there are: the leg returns them all (so what it leaves out does not define it) and
        weighs as much as for a name defined once (so a longer name that contains it, convert_flip for convert,
        which BM25 may prefer, does not outrank them)."""
        from .retrieval import graph_leg, graph_result

        if not seeds:
            return LegResult()
        if name_only:
            c = max(c, self.config.code_name_definitions)
        with self._graph_lock:
            found = graph_leg(self.code_graph, seeds, code_node_filter(filters), c + 1, self.config.graph_hub_degree,
                              self.config.graph_max_fanout, self.config.graph_max_hops, target=CHUNK,
                              second_hop_pool=self.config.graph_second_hop_pool)
        res = graph_result(found[:c], self.config.graph_specific_hits, self.config.graph_max_boost)
        res.complete = len(found) <= c
        if name_only:
            res.weight_scale = self.config.graph_max_boost
        return res

    def _code_local_graph(self, candidates: list[str], query_nodes: list[str]) -> tuple[list[str], np.ndarray]:
        with self._graph_lock:
            return self.code_graph.local_matrix(candidates, query_nodes, self.config.graph_hub_degree)

    def _describe_code(self, ids: list[str]) -> dict[str, Candidate]:
        """The late stages' view of each chunk still in the store: from its graph node and the in-process copy
        of the vectors when they hold it, else from LanceDB."""
        out, missing = {}, []
        with self._graph_lock:
            graph = self.code_graph
            vectors = self.chunk_vectors.get_many(ids) if self.chunk_vectors is not None else {}
            for i in ids:
                vector = vectors.get(i)
                if vector is not None and i in graph:
                    out[i] = chunk_candidate(graph.attrs(i), vector)
                else:
                    missing.append(i)
        if missing:
            cols = ["id", *CHUNK_FIELDS, "vector"]
            rows = self.lance.by_ids("code_chunks", missing, cols)
            # one matrix, not a list of 384 Python floats per chunk that MMR turns back into an array
            vectors = vector_matrix(rows) if rows.num_rows else []
            for r, vector in zip(rows.drop_columns(["vector"]).to_pylist(), vectors):
                out[r["id"]] = chunk_candidate(r, vector)
        return out


#: a chunk's fields that code search's late stages and its hits need (its graph node holds them too)
CHUNK_FIELDS = ("project", "path", "language", "start_line", "end_line", "chunk_type", "name", "breadcrumb",
                "symbol_id")


def chunk_candidate(r: dict, vector) -> Candidate:
    """A code chunk as the late stages see it, from its row or its graph node."""
    return Candidate(
        created_at=0.0, evergreen=True, vector=vector, words=set(),
        title=r["breadcrumb"] or r["name"] or r["path"],
        summary={"project": r["project"], "path": r["path"], "start_line": r["start_line"],
                 "end_line": r["end_line"], "language": r["language"], "chunk_type": r["chunk_type"],
                 "symbol_id": r["symbol_id"]},
        # a chunk's windows share all of these; distinct chunks of one file differ in one of them
        group=(r["project"], r["path"], r["chunk_type"], r["breadcrumb"], r["symbol_id"]))
