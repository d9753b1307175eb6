"""Storage: LanceDB (the source of truth) and the derived Tantivy index."""

from .lance import LanceStore, sql_filter, sql_in, sql_quote, vector_matrix
from .text_index import TextIndex

__all__ = ["LanceStore", "TextIndex", "sql_filter", "sql_in", "sql_quote", "vector_matrix"]
