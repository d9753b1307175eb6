"""Go: a method's type is its receiver's, a type spec is a struct, an interface or another type, a type's bases
are what it embeds, and declarations state their variables' types."""

from __future__ import annotations

import re

from ..refs import last_ident
from ..typed import declared_type, node_text
from . import LangSpec
from .base import DeclaredTypes, Language, register

SPEC = LangSpec(
    {"function_declaration": "function", "method_declaration": "method", "type_spec": "type",
     "method_elem": "method", "method_spec": "method"},
    frozenset({"type_spec"}), {"call_expression": "function"}, frozenset({"import_declaration"}), {},
    {"function": "func", "method": "func"}, {"const_spec": "constant", "var_spec": "variable"},
    {"field_declaration": "attribute"})


class Go(DeclaredTypes, Language):
    def refined_kind(self, node, kind: str) -> str:
        if node.type != "type_spec":
            return kind
        return "struct" if any(c.type == "struct_type" for c in node.named_children) else (
            "interface" if any(c.type == "interface_type" for c in node.named_children) else "type")

    def receiver_type(self, node) -> str | None:
        if node.type != "method_declaration":
            return None
        recv = node.child_by_field_name("receiver")
        param = next((c for c in recv.named_children if c.type == "parameter_declaration"), None) \
            if recv is not None else None
        typ = param.child_by_field_name("type") if param is not None else None
        # `(s *Stack[T])`: the type's name, exported or not (`func (h *httpAPI) Query`)
        return declared_type(re.sub(r"\[.*\]", "", typ.text.decode("utf-8", errors="replace"))) \
            if typ is not None else ""

    def heritage(self, node, spec) -> list[tuple[str, str]]:
        """The types a Go interface or struct embeds (``io.Reader`` in an interface, ``*Base`` as a field
        without a name): their methods are the embedder's, Go's way of extending a type."""
        typ = node.child_by_field_name("type")
        if typ is not None and typ.type == "interface_type":
            embedded = [c for c in typ.named_children if c.type in ("type_elem", "constraint_elem")]
        elif typ is not None and typ.type == "struct_type":
            fields = next((c for c in typ.named_children if c.type == "field_declaration_list"), None)
            embedded = [c.child_by_field_name("type") for c in (fields.named_children if fields is not None else [])
                        if c.type == "field_declaration" and c.child_by_field_name("name") is None]
        else:
            return []
        names = [declared_type(re.sub(r"\[.*\]", "", node_text(e))) for e in embedded if e is not None]
        return [("extends", last_ident(n)) for n in names if n]  # not a constraint's `~int | ~float64`


register(Go(), "go", spec=SPEC)
