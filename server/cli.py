"""The `memory-graph` console script: memory commands, code commands and `serve`, on one typer app."""

from __future__ import annotations

import codebase.cli  # noqa: F401  (registers index, watch, search-code, symbols, callers, callees, ...)
from memory_graph.cli import app

__all__ = ["app"]
