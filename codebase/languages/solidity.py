"""What Solidity's grammar leaves to the reader: a constructor, ``fallback`` and ``receive`` have no name node;
an import binds a file's every name (``import "./A.sol"``), some of them (``import {A, B as C} from``) or the
file as a name (``import "./A.sol" as A``, ``import * as A from``); events and errors are declared like
functions and used by ``emit`` and ``revert``."""

from __future__ import annotations

import re

from ..typed import node_text
from . import LangSpec
from ..labels import signature_word
from .base import Language, register

#: node type -> symbol kind; a breadcrumb names each by its signature's first word (contract, library, modifier)
DEFINITIONS = {"contract_declaration": "class", "interface_declaration": "interface", "library_declaration": "class",
               "struct_declaration": "struct", "enum_declaration": "enum", "function_definition": "function",
               "modifier_definition": "function", "event_definition": "function", "error_declaration": "function",
               "constructor_definition": "method", "fallback_receive_definition": "method"}
CONTAINERS = frozenset({"contract_declaration", "interface_declaration", "library_declaration"})
#: call node type -> the field naming what it calls ("" = the first child): a modifier on a function (or a base
#: constructor on a constructor) runs it, `emit Transfer(...)` names an event, `revert Insufficient(...)` an error
CALLS = {"call_expression": "function", "modifier_invocation": "", "emit_statement": "name",
         "revert_statement": "error"}
_STAR = "*"  # as refs.STAR (refs imports this module, so not from there)


def unnamed(node) -> str:
    """The name of a definition without a name node: ``constructor``, ``fallback``, ``receive``, else ""."""
    if node.type not in ("constructor_definition", "fallback_receive_definition"):
        return ""
    found = re.match(r"\s*(\w+)", node_text(node))
    return found.group(1) if found else ""


def is_abstract(node) -> bool:
    """Whether a function is declared without a body (``function g() internal virtual;``): what a contract
    deriving from its own implements."""
    return node.type == "function_definition" and node.child_by_field_name("body") is None


def imports(node) -> list[tuple[str, str]]:
    """(bound name, module) of an import directive; STAR + module for one that binds every name of the file."""
    source = node.child_by_field_name("source")
    module = node_text(source).strip("'\"") if source is not None else ""
    if not module:
        return []
    found, name = [], ""
    for i, child in enumerate(node.children):
        field = node.field_name_for_child(i)
        if field == "import_name":
            if name:
                found.append((name, module))
            name = node_text(child)
        elif field == "alias":
            found.append((node_text(child), module))
            name = ""
    if name:
        found.append((name, module))
    return found or [(_STAR + module, module)]


SPEC = LangSpec(
    DEFINITIONS, CONTAINERS, CALLS, frozenset({"import_directive"}),
    {"inheritance_specifier": "extends"}, {},
    {"constant_variable_declaration": "constant"}, {"state_variable_declaration": "attribute"})


class Solidity(Language):
    def name_of(self, node) -> str:
        return unnamed(node)  # a constructor, a fallback, a receive

    def signature_mark(self, node, parent) -> str:
        return "abstract " if is_abstract(node) and parent.kind != "interface" else ""

    def signature(self, node) -> str:
        return super().signature(node).rstrip(";").rstrip()  # `event Transfer(...);`

    def crumb(self, symbol, parent, word: str, label: str) -> tuple[str, str]:
        return signature_word(symbol, word), label  # contract, modifier

    def imports(self, node, out):
        return imports(node) if node.type == "import_directive" else None


register(Solidity(), "solidity", spec=SPEC)
