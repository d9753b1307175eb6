"""The derived state a process keeps beside LanceDB, one holder for memories and one for code.

Each holder is built from LanceDB when the Engine opens (or reloads) and changed in place by this process's
writes and by the change log of other processes' writes; a reload replaces its fields under the graph lock.
The components that search or look up read it through the holder they are given, so they always see the
current graph, never the one they were built with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .graph import SYMBOL, Graph
from .linking import EntityIndex
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
