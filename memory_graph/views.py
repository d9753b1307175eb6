"""The derived state a process keeps beside LanceDB, one holder for memories and one for code, and the
candidates searches keep between writes (``Described``).

Each holder is built from LanceDB when the Engine opens (or reloads) and changed in place by this process's
writes and by the change log of other processes' writes; a reload replaces its fields under the graph lock.
The components that search or look up read it through the holder they are given, so they always see the
current graph, never the one they were built with.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .embedding import LRU
from .graph import SYMBOL, Graph
from .linking import EntityIndex
from .retrieval import Candidate
from .store import VectorCache


@dataclass
class MemoryView:
    """The memory graph (memories, entities, mentions, relations), the entities' name index and the in-process
    copies of the memories' and passages' vectors (None past ``Config.vector_copy_max_rows``: LanceDB is
    searched instead)."""

    graph: Graph = field(default_factory=Graph)
    index: EntityIndex = field(default_factory=EntityIndex)
    vectors: VectorCache | None = None
    passages: VectorCache | None = None


@dataclass
class CodeView:
    """The code graph (chunks, symbols and their edges), the symbols' name index, the in-process copy of the
    chunks' vectors and each chunk's neighbourhood density."""

    graph: Graph = field(default_factory=lambda: Graph(bridge=SYMBOL))
    index: EntityIndex = field(default_factory=EntityIndex)
    vectors: VectorCache | None = None
    density: dict[str, float] = field(default_factory=dict)


class Described:
    """The late stages' view of records (``Candidate``), kept between writes: ``forget`` drops it whenever this or
    another process changes the data. A record not kept is built by ``build(attributes, vector)`` from its graph
    node and the in-process copy of the vectors when they hold it, else read by ``read(ids)`` (from LanceDB).
    The candidates returned are the kept ones: a caller changes copies, never them."""

    def __init__(self, size: int, build: Callable[[Any, np.ndarray], Candidate],
                 read: Callable[[list[str]], dict[str, Candidate]]) -> None:
        self._kept, self._build, self._read = LRU(size), build, read
        self._generation = 0  # bumped whenever the data may change; a read that spans a bump is not kept

    def forget(self) -> None:
        self._generation += 1
        self._kept.clear()

    def get(self, record_id: str) -> Candidate | None:
        """The candidate kept for this id, if any."""
        return self._kept.get(record_id)

    def __call__(self, ids: list[str], view: MemoryView | CodeView, lock: threading.RLock) -> dict[str, Candidate]:
        out: dict[str, Candidate] = {}
        fresh: dict[str, Candidate] = {}
        missing = []
        generation = self._generation
        with lock:
            graph = view.graph
            for i in ids:
                hit = self._kept.get(i)
                if hit is not None:
                    out[i] = hit
            unseen = [i for i in ids if i not in out]
            vectors = view.vectors.get_many(unseen) if view.vectors is not None else {}
            for i in unseen:
                vector = vectors.get(i)
                if vector is not None and i in graph:
                    fresh[i] = self._build(graph.attrs(i), vector)
                else:
                    missing.append(i)
        if missing:
            fresh.update(self._read(missing))
        if generation == self._generation:  # no write began or ended while reading
            for i, cand in fresh.items():
                self._kept.put(i, cand)
        out.update(fresh)
        return out
