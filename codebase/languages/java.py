"""Java: declarations state their variables' types."""

from __future__ import annotations

from . import LangSpec
from .base import DeclaredTypes, Language, register

SPEC = LangSpec(
    {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
     "record_declaration": "record", "method_declaration": "method", "constructor_declaration": "method"},
    frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}),
    {"method_invocation": "name", "object_creation_expression": "type"},
    frozenset({"import_declaration"}),
    {"superclass": "extends", "super_interfaces": "implements", "extends_interfaces": "extends"}, {}, {},
    {"variable_declarator": "attribute", "enum_constant": "attribute"})


class Java(DeclaredTypes, Language):
    pass


register(Java(), "java", spec=SPEC)
