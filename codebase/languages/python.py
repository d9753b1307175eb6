"""Python: a class's bases are its ``superclasses``, an ``@abstractmethod`` says so in its signature, and a
GraphQL document in a ``gql(...)`` call uses the schema."""

from __future__ import annotations

from ..refs import names_in
from . import LangSpec
from .base import Language, register
from .graphql import Host

SPEC = LangSpec(
    {"function_definition": "function", "class_definition": "class"},
    frozenset({"class_definition"}), {"call": "function"},
    frozenset({"import_statement", "import_from_statement"}), {"argument_list": "extends"},
    {"function": "def", "method": "def"}, {"assignment": "variable"}, {"assignment": "attribute"})


class Python(Host, Language):
    def heritage(self, node, spec) -> list[tuple[str, str]]:
        superclasses = node.child_by_field_name("superclasses")
        return [("extends", name) for name in names_in(superclasses)] if superclasses is not None else []

    def signature_mark(self, node, parent) -> str:
        decorated = node.parent is not None and node.parent.type == "decorated_definition"
        if decorated and any(d.text.decode("utf-8", errors="replace").endswith("abstractmethod")
                             for d in node.parent.named_children if d.type == "decorator"):
            return "@abstractmethod "  # what its subclasses implement: `callees` lists them
        return ""


register(Python(), "python", spec=SPEC)
