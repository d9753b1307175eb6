"""What Swift's grammar needs beside the shared chunker: the five kinds one node declares, subscripts that parse
as calls, conditional compilation that tree-sitter-swift cannot read everywhere, and the names of properties
(Objective-C's ``@property`` too, which Swift code reads as its own)."""

from __future__ import annotations

import re

from . import LangSpec
from .base import DeclaredTypes, Language, register

#: the keyword of a ``class_declaration`` -> the symbol kind: Swift writes all five as one node
KINDS = {"class": "class", "actor": "class", "struct": "struct", "enum": "enum", "extension": "impl"}
_DIRECTIVE = re.compile(rb"^\s*#(if|elseif|else|endif)\b")


def kind_of(node) -> str:
    """The kind of a class declaration: class, struct, enum, or impl for an extension (its members are the
    extended type's)."""
    return KINDS.get(next((c.type for c in node.children if c.type in KINDS), "class"), "class")


def is_subscript(node) -> bool:
    """Whether a call is a subscript (``items[key]``), which tree-sitter-swift parses as a call."""
    return any(c.type == "call_suffix" and c.text.startswith(b"[") for c in node.children)


def for_parser(data: bytes) -> bytes:
    """Swift source with only the first branch of each ``#if`` (the directives and the other branches blanked,
    every byte where it was), for a file the grammar cannot parse as written: it reads ``#if`` between
    declarations but not between a ``switch``'s cases (expo's ``#if os(iOS) case ... #elseif os(macOS)``)."""
    out, skipping = [], []
    for line in data.split(b"\n"):
        m = _DIRECTIVE.match(line)
        if m:
            word = m.group(1)
            if word == b"if":
                skipping.append(False)
            elif word == b"endif":
                skipping = skipping[:-1]
            elif skipping:
                skipping[-1] = True
        out.append(re.sub(rb"\S", b" ", line) if m or any(skipping) else line)
    return b"\n".join(out)


def property_name(node):
    """The name of a Swift property (``let store: Store``, in a pattern) or of an Objective-C ``@property``
    (``NSString *name``, in a struct declarator), else None."""
    pattern = node.child_by_field_name("name")
    if pattern is not None:
        return pattern if pattern.type == "simple_identifier" else next(
            (c for c in pattern.named_children if c.type == "simple_identifier"), None)
    decl = next((c for c in node.named_children if c.type == "struct_declaration"), None)
    stack = [c for c in decl.named_children if c.type == "struct_declarator"] if decl is not None else []
    while stack:  # `*name`, `(^handler)(int)`: the first identifier inside
        c = stack.pop(0)
        if c.type == "identifier":
            return c
        stack[:0] = c.named_children
    return None


SPEC = LangSpec(
    # a struct, an enum, an actor and an extension are class declarations too (Swift.refined_kind tells them apart)
    {"class_declaration": "class", "protocol_declaration": "interface", "function_declaration": "function",
     "init_declaration": "method"},
    frozenset({"class_declaration", "protocol_declaration"}),
    {"call_expression": "", "constructor_expression": "constructed_type"},
    frozenset({"import_declaration"}), {"inheritance_specifier": "extends"},
    {"function": "func", "method": "func", "interface": "protocol", "impl": "extension"},
    {"property_declaration": "variable"},
    {"property_declaration": "attribute", "enum_entry": "attribute", "protocol_function_declaration": "method",
     "protocol_property_declaration": "attribute"})


class Swift(DeclaredTypes, Language):
    def reparsed(self, tree, data: bytes, parse):
        if not tree.root_node.has_error or b"#if" not in data:
            return tree
        first_branches = parse(for_parser(data))
        return tree if first_branches.root_node.has_error else first_branches

    def refined_kind(self, node, kind: str) -> str:
        return kind_of(node) if node.type == "class_declaration" else kind

    def is_call(self, node) -> bool:
        return not is_subscript(node)

    def heritage_relation(self, holder, rel: str, node, holders: list) -> str:
        # a class's superclass comes first; the rest are protocols
        return "extends" if not holders and any(x.type == "class" for x in node.children) else "implements"

    def property_name(self, node):
        return property_name(node)


register(Swift(), "swift", spec=SPEC)
