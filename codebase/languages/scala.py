"""What Scala's grammar says in its own way: imports with selectors, companion objects, members bound by
``val`` and ``var``, and the types declarations give their variables."""

from __future__ import annotations

import re

from ..refs import Ref, receiver_key
from ..typed import DOTTED, RETURNED, class_name, declared_type, node_text
from . import LangSpec
from .base import Language, ranked, register

_TYPES = frozenset({"class_definition", "trait_definition", "enum_definition"})
#: marks a star import's key, as ``refs.STAR`` does (refs imports this module, so not from there)
_STAR = "*"


def imports(node) -> list[tuple[str, str]]:
    """(bound name, path) of each name an ``import`` binds: ``import a.b.C`` gives (C, a.b.C), ``a.b.{C => D,
    E}`` (D, a.b.C) and (E, a.b.E), a wildcard ``a.b._`` or ``a.b.*`` ("*a.b", a.b) as a star import does;
    ``import a.C, b.D`` is two imports. ``{C => _}`` hides C and binds nothing."""
    found: list[tuple[str, str]] = []
    path: list[str] = []
    for c in [*node.children, None]:
        if c is None or c.type == ",":
            if path:
                found.append((path[-1], ".".join(path)))
            path = []
        elif c.type == "identifier":
            path.append(node_text(c))
        elif c.type == "namespace_wildcard":
            found.append((_STAR + ".".join(path), ".".join(path)))
            path = []
        elif c.type == "namespace_selectors":
            prefix = ".".join(path)
            for s in c.named_children:
                if s.type == "identifier":
                    found.append((node_text(s), f"{prefix}.{node_text(s)}"))
                elif s.type == "arrow_renamed_identifier" and node_text(s.child_by_field_name("alias")) != "_":
                    name = node_text(s.child_by_field_name("name"))
                    found.append((node_text(s.child_by_field_name("alias")), f"{prefix}.{name}"))
                elif s.type == "namespace_wildcard":
                    found.append((_STAR + prefix, prefix))
            path = []
    return [(bound, p) for bound, p in found if p]


def is_companion(node) -> bool:
    """Whether an ``object`` is the companion of a class, trait or enum of the same name beside it: its members
    are that type's (``Cart.empty()``), as a static method is a Java class's."""
    name = node_text(node.child_by_field_name("name"))
    siblings = node.parent.named_children if node.parent is not None else []
    return any(s.type in _TYPES and node_text(s.child_by_field_name("name")) == name for s in siblings)


def is_binding(node) -> bool:
    """Whether a node is a Scala ``val``, ``var`` or class parameter (Kotlin's class parameter has no fields)."""
    return node.type in ("val_definition", "var_definition") or \
        node.type == "class_parameter" and node.child_by_field_name("name") is not None


def member_name(node):
    """The name node of what a ``val``, ``var`` or class parameter makes a member, else None: a class
    parameter is one only with ``val`` or ``var`` or in a case class; a pattern (``val (a, b) = ...``) binds no
    one name."""
    if node.type == "class_parameter":
        owner = node.parent.parent if node.parent is not None else None
        case = owner is not None and any(c.type == "case" for c in owner.children)
        if not case and not any(c.type in ("val", "var") for c in node.children):
            return None
        return node.child_by_field_name("name")
    pattern = node.child_by_field_name("pattern")
    return pattern if pattern is not None and pattern.type == "identifier" else None


def _type(node) -> str:
    """A written type without its type arguments (``Repo[Int]``: Repo), or ""."""
    return declared_type(re.sub(r"\[.*\]", "", node_text(node), flags=re.S)) if node is not None else ""


DECLARING = frozenset({"parameter", "class_parameter", "val_definition", "var_definition"})


def declared(node) -> list[tuple[str, str]]:
    """(variable, type) a parameter, ``val`` or ``var`` binds: the type written (``store: Store``), else the
    class it is given a new instance of (``new Store()``, a case class's ``Store(1)``), else the function
    whose result it holds (marked RETURNED)."""
    name = node.child_by_field_name("name") or node.child_by_field_name("pattern")
    if name is None or name.type != "identifier":
        return []
    typ = _type(node.child_by_field_name("type"))
    value = node.child_by_field_name("value") if node.type.endswith("_definition") else None
    if not typ and value is not None and value.type == "instance_expression" and value.named_children:
        typ = _type(value.named_children[0])
    elif not typ and value is not None and value.type == "call_expression":
        function = value.child_by_field_name("function")
        if function is not None and function.type == "generic_function":
            function = function.child_by_field_name("function")
        text = node_text(function)
        typ = class_name(text) or (text + RETURNED if DOTTED.fullmatch(text) and len(text) <= 200 else "")
    return [(node_text(name), typ)] if typ else []


def extended_type(node) -> str:
    """The type whose method an extension's ``def`` is (``extension (c: Cart) def total``: Cart), else ""."""
    owner = node.parent
    if owner is None or owner.type != "extension_definition":
        return ""
    params = owner.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_children else None
    return _type(first.child_by_field_name("type")).rsplit(".", 1)[-1] if first is not None else ""


def member_read(node) -> tuple[str, str] | None:
    """(member, receiver text) of a member read that is not a call's callee or an assignment's target
    (``cart.total``, which calls ``def total`` if that is what Cart has), else None."""
    if node.type != "field_expression" or node.parent is None:
        return None
    parent = node.parent
    if parent.type in ("call_expression", "assignment_expression") and \
            (parent.child_by_field_name("function") or parent.child_by_field_name("left")) == node:
        return None
    if parent.type == "generic_function":
        return None
    field, value = node.child_by_field_name("field"), node.child_by_field_name("value")
    return (node_text(field), node_text(value)) if field is not None and value is not None else None


#: fields whose identifier binds or names something rather than reading a value
_NAMING_FIELDS = frozenset({"name", "pattern", "alias", "path", "type", "function", "field"})


def bare_read(node) -> str:
    """The name an identifier reads as a value (``price`` in ``price * n``, ``isEmpty`` in ``if (isEmpty)``),
    else "": a definition's or parameter's name, a call's callee, a member after a dot, an import's part."""
    parent = node.parent
    if node.type != "identifier" or parent is None or parent.type in ("namespace_selectors", "import_declaration"):
        return ""
    return "" if any(parent.child_by_field_name(f) == node for f in _NAMING_FIELDS) else node_text(node)


def callee_node(target):
    """The node naming what a call calls, past type arguments: ``foo[Int](x)`` calls foo, ``new Box[Int]()``
    makes a Box."""
    if target is not None and target.type in ("generic_function", "generic_type"):
        inner = target.child_by_field_name("function") or target.child_by_field_name("type")
        return inner if inner is not None else target
    return target


SPEC = LangSpec(
    # a trait's abstract `def price: BigDecimal` is a declaration; an object's members are its own, or the
    # class's when it is that class's companion (codebase.chunker)
    {"class_definition": "class", "object_definition": "object", "trait_definition": "trait",
     "enum_definition": "enum", "function_definition": "function", "function_declaration": "method"},
    frozenset({"class_definition", "object_definition", "trait_definition", "enum_definition"}),
    {"call_expression": "function", "instance_expression": ""}, frozenset({"import_declaration"}),
    {"extends_clause": "extends"}, {"function": "def", "method": "def", "impl": "object"},
    {"val_definition": "variable", "var_definition": "variable"},
    {"val_definition": "attribute", "var_definition": "attribute", "class_parameter": "attribute",
     "simple_enum_case": "attribute", "full_enum_case": "attribute"})


class Scala(Language):
    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        return ranked(declared(node) if node.type in DECLARING else [])

    def owner_of(self, node) -> str | None:
        return extended_type(node) or None

    def refined_kind(self, node, kind: str) -> str:
        if node.type == "object_definition" and is_companion(node):
            return "impl"  # `object Cart` beside `class Cart`: `Cart.empty()` is the class's
        return kind

    def signature_mark(self, node, parent) -> str:
        return "abstract " if node.type == "function_declaration" else ""

    def signature(self, node) -> str:
        return super().signature(node).removesuffix("=").rstrip()  # `def f(): Int =`

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        if (read := member_read(node)) is not None:
            # `cart.total` calls Cart's `def total` when it is one: the resolver keeps only such reads
            walk.call(scope, read[0], node, receiver_key(read[1], self.super_word), kind="reads")
        elif node.type == "identifier" and (read := bare_read(node)):
            walk.bare.append(Ref(walk.qualname(scope), "reads", read, node.start_point[0] + 1))
        else:
            return False
        return True

    def callee_node(self, target):
        return callee_node(target)

    def imports(self, node, out):
        return imports(node) if node.type == "import_declaration" and node.child_by_field_name("path") is not None \
            else None

    def binding_name(self, node, kind: str):
        return (member_name(node), kind) if is_binding(node) else None  # `val x = ...`, `case class P(a: Int)`


register(Scala(), "scala", spec=SPEC)
