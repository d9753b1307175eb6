"""C#: ``base`` is ``super``, a base named ``IStore`` is an interface, and declarations state their variables'
types."""

from __future__ import annotations

import re

from . import LangSpec
from .base import DeclaredTypes, Language, register

SPEC = LangSpec(
    {"class_declaration": "class", "interface_declaration": "interface", "struct_declaration": "struct",
     "enum_declaration": "enum", "record_declaration": "record", "method_declaration": "method",
     "constructor_declaration": "method", "namespace_declaration": "namespace",
     "file_scoped_namespace_declaration": "namespace"},
    frozenset({"class_declaration", "interface_declaration", "struct_declaration", "record_declaration",
               "namespace_declaration", "file_scoped_namespace_declaration"}),
    {"invocation_expression": "function", "object_creation_expression": "type"},
    frozenset({"using_directive"}), {"base_list": "extends"})


class CSharp(DeclaredTypes, Language):
    super_word = "base"

    def base_relation(self, name: str, rel: str) -> str:
        return "implements" if re.match(r"I[A-Z]", name) else rel


register(CSharp(), "csharp", spec=SPEC)
