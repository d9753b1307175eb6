"""Kotlin: an interface is written as a class declaration, a base constructed in the header is extended (the
rest implemented), and declarations state their variables' types."""

from __future__ import annotations

from . import LangSpec
from .base import DeclaredTypes, Language, register

SPEC = LangSpec(
    {"class_declaration": "class", "object_declaration": "object", "function_declaration": "function"},
    frozenset({"class_declaration", "object_declaration"}), {"call_expression": ""},
    frozenset({"import_header"}), {"delegation_specifier": "extends"}, {"function": "fun", "method": "fun"},
    {"property_declaration": "variable"},
    {"property_declaration": "attribute", "class_parameter": "attribute", "enum_entry": "attribute"})


class Kotlin(DeclaredTypes, Language):
    def refined_kind(self, node, kind: str) -> str:
        if kind == "class" and any(c.type == "interface" for c in node.children):
            return "interface"  # Kotlin writes `interface Saver` as a class declaration
        return kind

    def heritage_relation(self, holder, rel: str, node, holders: list) -> str:
        return "extends" if any(x.type == "constructor_invocation" for x in holder.named_children) else "implements"


register(Kotlin(), "kotlin", spec=SPEC)
