"""Code search: the names and files a question mentions, the vector, BM25 and symbol-graph legs over code
chunks, the priors (tests, prose, a named line) and the pipeline that ranks them, as ``memory_search.py`` is
for memories."""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import TYPE_CHECKING, Callable

import numpy as np

from .graph import CHUNK
from .legs_runner import timed
from .linking import prefer_exact
from .models import Filters, Hit, Hits
from .paths import is_test_path
from .retrieval import Candidate, LegResult, graph_leg, graph_result, rank_stable
from .retrieval.confidence import match_signals, with_confidence
from .retrieval.density import localized_centering
from .store import nearest_accepted, sql_filter
from .store.lance import vector_matrix
from .store.text_index import path_whole
from .text import (code_mentions, dotted_names, literal_phrases, names_identifier, one_name, without_error_types,
                   words)
from .views import Described

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore, TextIndex
    from .symbols import Symbols
    from .views import CodeView

_TEST_WORDS = frozenset({"test", "tests", "testing", "tested", "spec", "specs", "fixture", "fixtures", "mock",
                         "mocks", "pytest", "unittest", "jest", "assert", "assertion", "assertions"})


def asks_for_tests(query: str) -> bool:
    """Whether a code query is about tests ("where do we test retries"): then test files keep their score."""
    return bool(_TEST_WORDS.intersection(words(query))) or any(is_test_path(t) for t in query.split())


def line_prior(chunk: dict, at_lines: dict[tuple, tuple[str, int]], factor: float) -> float:
    """A chunk's factor when the query names a line of a file (``sessions.py:40``, a traceback's frame): 1 for
    a chunk of the innermost definition holding the line whose lines hold it (the window of a long function
    that has it), ``factor`` for every other chunk: the file's (its class, the function's other windows) and
    the other files' (a namesake elsewhere that the words of the path happen to match).

    ``at_lines``: (project, path) -> (that definition's symbol id, the line); empty: 1 for every chunk."""
    if not at_lines:
        return 1.0
    at = at_lines.get((chunk["project"], chunk["path"]))
    if at is None:
        return factor
    symbol, line = at
    return 1.0 if chunk["symbol_id"] == symbol and chunk["start_line"] <= line <= chunk["end_line"] else factor


#: languages of prose: documentation, READMEs, changelogs, release notes
PROSE_LANGUAGES = frozenset({"markdown", "rst", "text", "asciidoc", "org", "latex"})
_DOC_WORDS = frozenset({"doc", "docs", "documentation", "documented", "readme", "changelog", "guide", "tutorial",
                        "tutorials", "manual", "faq", "howto", "docstring", "docstrings"})
_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".tex", ".rmd", ".qmd")


def asks_for_docs(query: str) -> bool:
    """Whether a code query is about documentation ("where is the retry policy documented"), or names a
    prose file: then prose keeps its score."""
    return bool(_DOC_WORDS.intersection(words(query))) or any(t.lower().endswith(_PROSE_SUFFIXES)
                                                              for t in query.split())


def code_node_filter(filters: Filters):
    """The graph leg's pushed-down filter for chunk nodes."""
    langs, types = set(filters.languages), set(filters.chunk_types)
    project, prefix = filters.project, filters.path_prefix  # read once, not at each node

    def accept(a: dict) -> bool:
        if project is not None and a.get("project") != project:
            return False
        if prefix and not str(a.get("path", "")).startswith(prefix):
            return False
        if langs and a.get("language") not in langs:
            return False
        return not types or a.get("chunk_type") in types

    return accept


class CodeSearch:
    """Ranks code chunks for a question, over the code graph and vectors of ``view`` (read under
    ``graph_lock``), the BM25 index ``text`` and LanceDB (past the in-process copy).

    ``symbols`` finds what the question names; ``embed(query, timings)`` returns its vector; ``collect(jobs,
    pooled)`` runs the legs (the Engine's, which owns the pool); ``chunks_per_file(project)`` tells a repository
    from a collection of snippets. Filters come validated and scoped by the Engine.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, view: CodeView, symbols: Symbols,
                 graph_lock: threading.RLock, embed: Callable[[str, dict | None], np.ndarray],
                 collect: Callable[..., dict[str, LegResult]], chunks_per_file: Callable[[str | None], float]) -> None:
        self.config, self.lance, self.text, self.view, self.symbols = config, lance, text, view, symbols
        self._graph_lock, self._embed, self._collect, self._chunks_per_file = (graph_lock, embed, collect,
                                                                                chunks_per_file)
        self._described = Described(config.describe_cache_size, chunk_candidate, self._read_described)

    def forget_reads(self) -> None:
        """Drop what searches keep between writes (called when this or another process changes the data)."""
        self._described.forget()

    def search(self, query: str, limit: int, mode: str, filters: Filters, use_ppr: bool, use_mmr: bool,
               timings: dict[str, float] | None) -> Hits:
        """The ``limit`` best chunks, each with why, and the search's confidence."""
        cfg, now, t0 = self.config, time.time(), time.perf_counter()
        c, name_only = cfg.candidates(limit), one_name(query)
        vector = self._embed(query, timings) if mode in ("hybrid", "vector") else None
        t1 = time.perf_counter()
        seeds, at_lines = self._seeds(query, filters.project, name_only)
        t2 = time.perf_counter()
        jobs, phrases = {}, literal_phrases(query)
        if vector is not None:
            jobs["vector"] = partial(timed, self._vector_leg, timings, "vector", filters, c, vector)
        if mode in ("hybrid", "bm25"):
            jobs["bm25"] = partial(timed, self._bm25_leg, timings, "bm25", query, filters, now, c, phrases)
        if mode in ("hybrid", "graph"):
            jobs["graph"] = partial(timed, self._graph_leg, timings, "graph", seeds, filters, c, name_only)
        legs = self._collect(jobs, pooled=("vector",))  # beside BM25 and the graph leg (MemorySearch.run_legs)
        if timings is not None:
            timings["link"], timings["legs"] = t2 - t1, time.perf_counter() - t0
        signals = match_signals(legs, None)
        if legs.get("bm25") is not None and legs["bm25"].ids:  # how much of the question the best match holds
            signals["bm25"] = self.text.coverage(query, legs["bm25"].ids[0], "code", phrases)
        q_ents = {}
        if use_ppr:
            with self._graph_lock:  # as in search: hubs do not personalise PPR
                q_ents = {s: seeds[s] for s in self.view.graph.specific(seeds, cfg.graph_hub_degree)}
        hits = rank_stable(legs, config=cfg, weights=self._weights(query, phrases, at_lines, filters.project),
                           limit=limit, now=now, query_entities=q_ents, local_graph=self._local_graph,
                           describe=partial(self._describe_with_priors, query, at_lines), use_ppr=use_ppr,
                           use_decay=False, use_mmr=use_mmr, kind="code", timings=timings)
        with self._graph_lock:
            graph = self.view.graph
            for h in hits:
                h.explanation.graph_path = [graph.attrs(n).get("name", n) if n in graph else n
                                            for n in h.explanation.graph_path]
        self._add_definition_spans(hits)
        return with_confidence(hits, signals, cfg)

    def _seeds(self, query: str, project: str | None, name_only: bool) -> tuple[dict[str, float], dict]:
        """The symbols a question names (in code, a pasted error message's frames, files and lines) as graph
        seeds, and the lines of files it names (``line_prior``)."""
        cfg = self.config
        with self._graph_lock:
            graph, index = self.view.graph, self.view.index
            text, in_files, at_lines = self.symbols.file_mentions(query[:2_000], project)
            # names in a pasted error message seed only where they look like code, not its type or [tag]
            mentions, seeds = self.symbols.dotted_mentions(code_mentions(dotted_names(without_error_types(text))),
                                                           project)
            found = index.mentioned_in(mentions, longest=True, skip_types=("module",), function_words=name_only)
            forms = {i: (index.names[i][0], str(graph.attrs(i).get("name", ""))) for i in found if i in graph}
            named = {**prefer_exact(found, forms, mentions, cfg.code_inexact_seed_weight), **seeds}
            seeds = {**named, **in_files}
            at_lines = self.symbols.lines_named(at_lines, named)
        seeds = seeds or self.symbols.short_name_seeds(query, project)
        if project is not None:
            seeds = {s: w for s, w in seeds.items() if self.view.graph.attrs(s).get("project") == project}
        return seeds, at_lines

    def _weights(self, query: str, phrases: list[str], at_lines: dict, project: str | None):
        cfg = self.config
        if phrases:  # a pasted error message or a quoted string: where the code holds it
            return cfg.code_literal_weights
        if names_identifier(dotted_names(query)):
            return cfg.code_identifier_weights
        if at_lines:  # a file's line is a place, not words: its path's words would find any text holding them
            return cfg.code_weights
        if self._chunks_per_file(project) >= cfg.code_repository_chunks_per_file:
            return cfg.code_repository_weights
        return cfg.code_weights

    def _describe_with_priors(self, query: str, at_lines: dict, ids: list[str]) -> dict[str, Candidate]:
        cfg = self.config
        test_prior = 1.0 if asks_for_tests(query) else cfg.code_test_factor
        prose_prior = 1.0 if asks_for_docs(query) else cfg.code_prose_factor
        # the described candidates are kept between searches: each search's priors go on copies
        return {i: Candidate(c.created_at, c.evergreen, c.vector, c.words, c.title, c.summary, c.group,
                             (test_prior if is_test_path(c.summary["path"]) else 1.0)
                             * (prose_prior if c.summary["language"] in PROSE_LANGUAGES else 1.0)
                             * line_prior(c.summary, at_lines, cfg.code_line_factor))
                for i, c in self.describe(ids).items()}

    # ---- the legs -----------------------------------------------------------
    def _vector_leg(self, filters: Filters, c: int, vec: np.ndarray) -> LegResult:
        """The ``c`` chunks nearest to the question's embedding ``vec``, by localized centering."""
        ids, sims = self.nearest(vec, filters, c)
        with self._graph_lock:
            density = self.view.density
            densities = {i: density[i] for i in ids if i in density}
        return LegResult(*localized_centering(ids, sims, densities, self.config.code_density_weight),
                         top=float(max(sims)) if len(sims) else None)

    def nearest(self, vec, filters: Filters, c: int) -> tuple[list[str], list[float]]:
        """The ``c`` chunks nearest to ``vec`` that pass the filters: from the in-process copy of their vectors,
        filtered by their graph nodes, as the memories' vector leg does; else (a copy too large to hold, a
        filter too selective for its widest window) from LanceDB."""
        where = sql_filter(filters, 0.0, kind="code")
        with self._graph_lock:
            if self.view.vectors is not None:
                graph, accept = self.view.graph, code_node_filter(filters)
                found = nearest_accepted(self.view.vectors, vec, c, lambda i: i in graph and accept(graph.attrs(i)),
                                         self.config.postfilter_factor if where else 1,
                                         self.config.copy_filter_window,
                                         None if filters.project is None else [filters.project])
                if found is not None:
                    return found
        return self.lance.vector_search("code_chunks", vec, where, c, ["id"])

    def _bm25_leg(self, query: str, filters: Filters, now: float, c: int,
                  phrases: list[str]) -> tuple[list[str], list[float]]:
        """BM25 over code chunks. A path prefix too long for Tantivy's regex is matched there by its start,
        and here, through the chunks' graph nodes, by all of it."""
        ids, scores = self.text.search(query, filters, now, c, "code", self.config.bm25_code_title_boost, 1.0,
                                       phrases, self.config.code_phrase_boost)
        if filters.path_prefix and not path_whole(filters.path_prefix):
            with self._graph_lock:
                graph = self.view.graph
                kept = [(i, s) for i, s in zip(ids, scores) if i in graph and
                        str(graph.attrs(i).get("path", "")).startswith(filters.path_prefix)]
            ids, scores = [i for i, _ in kept], [s for _, s in kept]
        return ids, scores

    def _graph_leg(self, seeds: dict[str, float], filters: Filters, c: int, name_only: bool) -> LegResult:
        """The chunks within two hops of the seeds. For a query that is one name, every definition of it is an
        answer, however many there are: the leg returns them all (so what it leaves out does not define it) and
        weighs as much as for a name defined once (so a longer name that contains it, convert_flip for convert,
        which BM25 may prefer, does not outrank them)."""
        if not seeds:
            return LegResult()
        cfg = self.config
        if name_only:
            c = max(c, cfg.code_name_definitions)
        with self._graph_lock:
            found = graph_leg(self.view.graph, seeds, code_node_filter(filters), c + 1, cfg.graph_hub_degree,
                              cfg.graph_max_fanout, cfg.graph_max_hops, target=CHUNK,
                              second_hop_pool=cfg.graph_second_hop_pool)
        res = graph_result(found[:c], cfg.graph_specific_hits, cfg.graph_max_boost)
        res.complete = len(found) <= c
        if name_only:
            res.weight_scale = cfg.graph_max_boost
        return res

    # ---- the late stages' reads ----------------------------------------------
    def _local_graph(self, candidates: list[str], query_nodes: list[str]) -> tuple[list[str], np.ndarray]:
        with self._graph_lock:
            return self.view.graph.local_matrix(candidates, query_nodes, self.config.graph_hub_degree)

    def describe(self, ids: list[str]) -> dict[str, Candidate]:
        """The late stages' view of each chunk still in the store: kept between writes, else from its graph
        node and the in-process copy of the vectors when they hold it, else from LanceDB (not to be changed:
        the next search reads the same objects)."""
        return self._described(ids, self.view, self._graph_lock)

    def _read_described(self, ids: list[str]) -> dict[str, Candidate]:
        rows = self.lance.by_ids("code_chunks", ids, ["id", *CHUNK_FIELDS, "vector"])
        # one matrix, not a list of 384 Python floats per chunk that MMR turns back into an array
        vectors = vector_matrix(rows) if rows.num_rows else []
        return {r["id"]: chunk_candidate(r, vector)
                for r, vector in zip(rows.drop_columns(["vector"]).to_pylist(), vectors)}

    def _add_definition_spans(self, hits: list[Hit]) -> None:
        """A hit that is one window of a longer definition gets the definition's lines too (the caller reads
        the whole function, not the window the query matched best)."""
        with self._graph_lock:
            graph = self.view.graph
            attrs = [graph.attrs(sid) if (sid := h.record.get("symbol_id")) in graph else {} for h in hits]
        for h, a in zip(hits, attrs):
            # a file's module symbol spans the whole file: no help in finding one section or one module block
            span = a.get("lines") if a.get("symbol_kind") != "module" else None
            if span and span != (h.record["start_line"], h.record["end_line"]):
                h.record["definition_start_line"], h.record["definition_end_line"] = span


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
