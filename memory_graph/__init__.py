"""memory-graph: graph-augmented hybrid search for coding agents' long-term memory and code."""

from .config import Config, LegWeights
from .engine import Engine
from .errors import (BusyError, ConfigError, MemoryGraphError, NotFoundError, ReadOnlyError, StoreError,
                     ValidationError)
from .models import Entity, Explanation, Filters, Hit, Memory, Relation

__version__ = "0.1.0"

__all__ = [
    "BusyError", "Config", "ConfigError", "Engine", "Entity", "Explanation", "Filters", "Hit", "LegWeights", "Memory",
    "MemoryGraphError", "NotFoundError", "ReadOnlyError", "Relation", "StoreError", "ValidationError", "__version__",
]
