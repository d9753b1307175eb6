"""Code indexing: scanner, tree-sitter chunker, symbol graph, incremental indexer and watcher."""

from .indexer import IndexReport, Indexer, detect_project, index_project

__all__ = ["IndexReport", "Indexer", "detect_project", "index_project"]
