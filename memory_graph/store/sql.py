"""LanceDB (DataFusion) where clauses: string literals, IN lists, and a search's filters."""

from __future__ import annotations

from typing import Iterable

from ..models import Filters


def sql_quote(value: str) -> str:
    """A SQL string literal."""
    return "'" + str(value).replace("'", "''") + "'"


def sql_in(column: str, values: Iterable[str]) -> str:
    values = list(values)
    if not values:
        return "false"
    return f"{column} IN ({', '.join(sql_quote(v) for v in values)})"


def sql_filter(filters: Filters, now: float, kind: str = "memory") -> str | None:
    """Translate Filters into a LanceDB (DataFusion) where clause; None when nothing filters."""
    parts: list[str] = []
    if filters.project is not None:
        if filters.include_global and kind == "memory":
            parts.append(f"(project = {sql_quote(filters.project)} OR project = '')")
        else:
            parts.append(f"project = {sql_quote(filters.project)}")
    if kind == "memory":
        if filters.types:
            parts.append(sql_in("memory_type", filters.types))
        if filters.tags:
            parts.append(f"array_has_any(tags, [{', '.join(sql_quote(t) for t in filters.tags)}])")
        if filters.created_after is not None:
            parts.append(f"created_at >= {float(filters.created_after)!r}")
        if filters.created_before is not None:
            parts.append(f"created_at < {float(filters.created_before)!r}")
        if not filters.include_invalid:
            at = float(filters.as_of if filters.as_of is not None else now)
            parts.append(f"(valid_until IS NULL OR valid_until > {at!r})")
            if filters.as_of is not None:
                # as of a past time, a memory with no valid_from holds from when it was stored: it was not known
                parts.append(f"coalesce(valid_from, created_at) <= {at!r}")
            else:
                parts.append(f"(valid_from IS NULL OR valid_from <= {at!r})")
    else:
        if filters.path_prefix:
            prefix = filters.path_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            parts.append(f"path LIKE {sql_quote(prefix + '%')} ESCAPE '\\'")
        if filters.languages:
            parts.append(sql_in("language", filters.languages))
        if filters.chunk_types:
            parts.append(sql_in("chunk_type", filters.chunk_types))
    return " AND ".join(parts) or None
