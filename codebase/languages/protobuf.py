"""What Protocol Buffers' grammar leaves to the reader: a message, enum or service is named by its full name
(``package shop.v1;`` then ``message Cart`` is ``shop.v1.Cart``, a nested ``message Line`` is
``shop.v1.Cart.Line``), its fields and enum values are its members, and a field's or an rpc's type
(``repeated Line lines``, ``rpc Get(GetRequest) returns (Cart)``) is a use of that type, resolved the way protoc
does: from the innermost scope outwards (https://protobuf.dev/programming-guides/proto3/#packages)."""

from __future__ import annotations

import re

from ..typed import node_text
from . import LangSpec
from .base import Language, register

#: node type -> symbol kind; a message's fields and an enum's values are attributes (``ATTRIBUTES``)
DEFINITIONS = {"message": "struct", "enum": "enum", "service": "interface", "rpc": "method"}
ATTRIBUTES = {"field": "attribute", "map_field": "attribute", "oneof_field": "attribute", "enum_field": "attribute"}
#: the word a breadcrumb puts before each kind: ``service Carts > rpc GetCart``
KEYWORDS = {"struct": "message", "interface": "service", "method": "rpc"}
#: a type named by a field, an rpc's request or response: a use of it (``type_use``)
CALLS = {"message_or_enum_type": ""}
#: the nodes naming a definition (``message_name``...) hold its identifier
NAMES = frozenset({"message_name", "enum_name", "service_name", "rpc_name"})
#: the key a file's package is kept under among its imports: what a type named outside any message (in a
#: top-level ``extend``) is looked up from
PACKAGE = "(package)"


def package_name(node) -> str:
    """The package a ``package shop.v1;`` statement declares."""
    return node_text(node).split(None, 1)[-1].rstrip(";").strip()


def package_of(node) -> str:
    """The package a top-level definition is declared in (``shop.v1``), else "" (nested, or no package)."""
    if node.parent is None or node.parent.type != "source_file":
        return ""
    found = next((c for c in node.parent.named_children if c.type == "package"), None)
    return package_name(found) if found is not None else ""


def member_name(node):
    """The identifier a field, map field, oneof field or enum value binds (``lines`` in ``repeated Line lines =
    2;``), else None."""
    return next((c for c in node.named_children if c.type == "identifier"), None)


def type_use(node) -> tuple[str, str]:
    """(name, scope) of a type a field or an rpc names: ``Timestamp`` in ``google.protobuf``, ``Line`` in
    ``Cart``; a fully qualified name keeps its leading dot (``.shop.v1`` for ``.shop.v1.Cart``, ``.`` for
    ``.Cart``)."""
    written = re.sub(r"\s+", "", node_text(node))
    scope, _, name = written.rpartition(".")
    return name, scope or ("." if written.startswith(".") else "")


def signature(node) -> str:
    """A definition up to its body or options: ``rpc GetCart(GetCartRequest) returns (Cart)``, ``message
    Cart``."""
    return " ".join(re.match(r"[^{;]*", node_text(node)).group().split())


def lookup(name: str, written_in: str, scope: str, by_name: dict[str, list[dict]], from_path: str) -> dict | None:
    """The message, enum or service a type name means: ``Line`` written in ``shop.v1.Cart`` (``scope``: the full
    name of the message or rpc that writes it) is ``shop.v1.Cart.Line`` when that exists, else ``shop.v1.Line``,
    ``shop.Line``, ``Line``; ``written_in`` is the scope written before the name (``Cart`` in ``Cart.Line``),
    a leading dot making it a full name. ``by_name``: full name -> symbols (two files may hold copies of one
    proto: the writing file's come first)."""
    if written_in.startswith("."):
        scope = ""
    written = ".".join(p for p in (written_in.lstrip("."), name) if p)
    while True:
        found = by_name.get(f"{scope}.{written}" if scope else written)
        if found:
            return next((s for s in found if s["path"] == from_path), found[0])
        if not scope:
            return None
        scope = scope.rpartition(".")[0]


# messages, enums and services by their full names; a type a field or an rpc names is a use (codebase.protobuf)
SPEC = LangSpec(DEFINITIONS, frozenset({"message", "service"}), CALLS,
                     frozenset({"import", "package"}), keywords=KEYWORDS, attributes=ATTRIBUTES)


class Protobuf(Language):
    owner_keeps_kind = True

    def owner_of(self, node) -> str | None:
        return package_of(node) or None  # shop.v1.Cart

    def callee(self, node, field_name: str) -> tuple[str, str]:
        return type_use(node)  # a type a field or an rpc names: its name, and the scope written before it

    def signature(self, node) -> str:
        return signature(node)

    def binding_name(self, node, kind: str):
        return member_name(node), kind  # a message's field, an enum's value

    def imports(self, node, out):
        if node.type == "import" and node.child_by_field_name("path") is not None:  # a file
            return [("", node_text(node.child_by_field_name("path")).strip("\"'"))]
        if node.type == "package":  # where the file's names are looked up from
            out.imports[PACKAGE] = package_name(node)
            return []
        return None

    def index(self, resolver, symbol: dict) -> None:
        if symbol["kind"] in ("struct", "enum", "interface"):  # a full name (shop.v1.Cart) -> messages, enums
            resolver.tables.setdefault("protobuf", {}).setdefault(symbol["qualname"], []).append(symbol)

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        # a field's or an rpc's type, from its scope outwards, as protoc does
        scope = source or imports.get(PACKAGE, "")  # a top-level `extend`'s field: the package's
        return lookup(name, receiver, scope, resolver.tables.get("protobuf", {}), from_path) if kind == "calls" \
            else None


register(Protobuf(), "protobuf", spec=SPEC)
