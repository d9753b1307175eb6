"""PHP: ``parent::`` is ``super``, and ``use A\\{B, C as D}`` imports names."""

from __future__ import annotations

import re

from ..typed import node_text
from . import LangSpec
from .base import Language, register

SPEC = LangSpec(
    {"class_declaration": "class", "interface_declaration": "interface", "trait_declaration": "trait",
     "function_definition": "function", "method_declaration": "method", "enum_declaration": "enum"},
    frozenset({"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"}),
    {"function_call_expression": "function", "member_call_expression": "name",
     "scoped_call_expression": "name", "object_creation_expression": ""},
    frozenset({"namespace_use_declaration"}),
    {"base_clause": "extends", "class_interface_clause": "implements"})


class Php(Language):
    super_word = "parent"

    def imports(self, node, out):
        return _uses(node_text(node)) if node.type == "namespace_use_declaration" else None


def _uses(text: str) -> list[tuple[str, str]]:
    """(bound name, path) of each name a PHP ``use`` imports: ``use A\\B;``, ``use A\\B as C;``, ``use
    function A\\f;``, ``use A\\{B, C as D};``."""
    body = re.sub(r"^\s*use\s+(?:function\s+|const\s+)?", "", text).strip().rstrip(";").strip()
    group = re.fullmatch(r"(.*?)\\?\{(.*)\}", body, re.S)
    prefix, items = (group.group(1).rstrip("\\") + "\\", group.group(2)) if group else ("", body)
    found = []
    for item in items.split(","):
        path, _, alias = re.sub(r"^\s*(?:function|const)\s+", "", item).strip().partition(" as ")
        path = (prefix + path.strip()).lstrip("\\")
        if path:
            found.append((alias.strip() or path.rsplit("\\", 1)[-1], path))
    return found


register(Php(), "php", spec=SPEC)
