"""memory-graph: graph-augmented hybrid search for coding agents' long-term memory and code."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: public name -> the module that defines it. Imported on first use (PEP 562), so that a light entry point
#: (a Claude Code hook, ``--version``) does not pay for the Engine's dependencies (0.46 s of imports here).
_EXPORTS = {
    "Config": "config", "LegWeights": "config", "Engine": "engine",
    **dict.fromkeys(("BusyError", "ConfigError", "MemoryGraphError", "NotFoundError", "ReadOnlyError", "StoreError",
                     "ValidationError"), "errors"),
    **dict.fromkeys(("Entity", "Explanation", "Filters", "Hit", "Memory", "Relation"), "models"),
}

__all__ = sorted([*_EXPORTS, "__version__"])

if TYPE_CHECKING:
    from .config import Config, LegWeights
    from .engine import Engine
    from .errors import (BusyError, ConfigError, MemoryGraphError, NotFoundError, ReadOnlyError, StoreError,
                         ValidationError)
    from .models import Entity, Explanation, Filters, Hit, Memory, Relation


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memory_graph' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
