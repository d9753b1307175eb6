"""What SQL's grammar leaves to the reader: a ``CREATE TABLE``, ``VIEW``, ``FUNCTION``, ``TYPE``, ``INDEX``,
``TRIGGER`` or ``SEQUENCE`` is named by the object reference after its keywords (``public.orders``), and every
other object reference (``FROM orders``, ``REFERENCES users(id)``, ``total(3)``, ``ALTER TABLE users``) is a
use of what the project may define: recorded as a call, so ``callers users`` lists what reads or changes it."""

from __future__ import annotations

import re

from ..typed import node_text
from . import LangSpec
from .base import Language, register

#: node type -> symbol kind
DEFINITIONS = {"create_table": "table", "create_view": "view", "create_materialized_view": "view",
               "create_function": "function", "create_type": "type", "create_index": "index",
               "create_trigger": "trigger", "create_sequence": "sequence"}
#: a use of a table, view, type or function, named by its ``name`` field
CALLS = {"object_reference": "name"}


def _own(node):
    """The object reference naming a definition node, else None."""
    return next((c for c in node.named_children if c.type == "object_reference"), None)


def name_of(node) -> str:
    """The name a ``CREATE`` statement gives (``public.orders``, ``shop.items`` for `` `shop`.`items` ``),
    else "" (an unnamed ``CREATE INDEX ON t (c)``)."""
    found = node.child_by_field_name("column") if node.type == "create_index" else _own(node)
    return node_text(found).replace("`", "").replace('"', "") if found is not None else ""


def is_no_use(node) -> bool:
    """Whether an object reference is the name its ``CREATE`` statement gives, or a column's qualifier (``u`` in
    ``u.email``: an alias, or a table its ``FROM`` already names), not a use."""
    up = node.parent
    return up is not None and (up.type == "field" or up.type in DEFINITIONS and up.type != "create_index"
                               and _own(up) == node)


def signature(node) -> str:
    """A ``CREATE`` statement up to its columns, query or body: ``CREATE TABLE IF NOT EXISTS public.orders``,
    ``CREATE VIEW big_orders``, ``CREATE FUNCTION total(uid INT) RETURNS INT``."""
    body = next((c for c in node.named_children if c.type in _BODIES), None)
    text = node_text(node) if body is None else node.text[: body.start_byte - node.start_byte].decode(
        "utf-8", errors="replace")
    text = " ".join(text.split())
    return re.sub(r"\s+AS$", "", text.removesuffix("(").rstrip(), flags=re.I).rstrip(";")


_BODIES = frozenset({"column_definitions", "create_query", "function_body"})


# CREATE TABLE/VIEW/FUNCTION...: a definition; any other table, view or function named: a use (codebase.sql)
SPEC = LangSpec(DEFINITIONS, calls=CALLS)


class Sql(Language):
    def name_of(self, node) -> str:
        return name_of(node)  # `CREATE TABLE public.orders`

    def is_call(self, node) -> bool:
        return not is_no_use(node)

    def signature(self, node) -> str:
        return signature(node)

    def index(self, resolver, symbol: dict) -> None:
        if symbol["kind"] != "module":  # a lower-case name -> SQL tables, views, functions
            resolver.tables.setdefault("sql", {}).setdefault(symbol["name"].lower(), []).append(symbol)

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        # names are not case-sensitive, and only SQL defines what SQL uses
        found = resolver.tables.get("sql", {}).get(name.lower(), [])
        return next((s for s in found if s["path"] == from_path), found[0] if found else None)


register(Sql(), "sql", spec=SPEC)
