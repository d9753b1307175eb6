"""Storage: LanceDB (the source of truth), the derived Tantivy index and the in-process vector copy."""

from .lance import LanceStore, vector_matrix
from .sql import sql_filter, sql_in, sql_quote
from .text_index import TextIndex
from .vectors import VectorCache, nearest_accepted

__all__ = ["LanceStore", "TextIndex", "VectorCache", "nearest_accepted", "sql_filter", "sql_in", "sql_quote",
           "vector_matrix"]
